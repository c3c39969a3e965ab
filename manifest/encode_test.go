package manifest

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// fill sets every field reachable from v (structs, slices of n elements,
// strings, integers, floats) to a value drawn from r, so that a field
// added to the manifest's types and not to AppendKernel shows up as a
// difference from encoding/json.
func fill(v reflect.Value, r *rand.Rand, n int) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fill(v.Field(i), r, n)
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			fill(s.Index(i), r, n)
		}
		v.Set(s)
	case reflect.String:
		v.SetString(randString(r))
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(r.Int63n(1<<40) - 1<<20)
	case reflect.Uint32:
		v.SetUint(uint64(r.Uint32()))
	case reflect.Float64:
		v.SetFloat([]float64{0.5, 1, 1e-7, 3.0000000000000004, 1e21, 0.123456789}[r.Intn(6)])
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}

// randString mixes plain text with what encoding/json escapes: quotes,
// backslashes, control bytes, HTML characters, non-ASCII, invalid UTF-8
// and U+2028.
func randString(r *rand.Rand) string {
	parts := []string{"ld.global.f32 %f1, [%rd2+4];", "_Z3fooPf", "a\"b", `c\d`, "\t\n\x01", "<&>", "é", "\xff", "\u2028", "", " ", "%r<6>"}
	var b strings.Builder
	for i := r.Intn(4); i >= 0; i-- {
		b.WriteString(parts[r.Intn(len(parts))])
	}
	return b.String()
}

// TestAppendKernelMatchesJSON: AppendKernel writes the bytes of
// json.MarshalIndent for kernels with every field set, with empty and
// nil slices, with zero (omitted) fields, and with strings encoding/json
// escapes.
func TestAppendKernelMatchesJSON(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var cases []Kernel
	for _, n := range []int{0, 1, 3} {
		for i := 0; i < 20; i++ {
			var k Kernel
			fill(reflect.ValueOf(&k).Elem(), r, n)
			cases = append(cases, k)
		}
	}
	cases = append(cases,
		Kernel{},                               // nil slices: null
		Kernel{Name: "k", Probes: []Probe{{}}}, // zero probe: omitted fields
		Kernel{ParamsAdded: []Param{}, Probes: []Probe{{Closes: []int{}}}},
		Kernel{Staging: Staging{OccupancyBefore: math.Copysign(0, -1)}}, // -0 is empty
	)
	for i := range cases {
		for _, prefix := range []string{"", "    "} {
			want, err := json.MarshalIndent(&cases[i], prefix, "  ")
			if err != nil {
				t.Fatal(err)
			}
			got, err := AppendKernel([]byte("x"), &cases[i], prefix)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got[1:], want) || got[0] != 'x' {
				t.Fatalf("case %d prefix %q:\ngot  %s\nwant %s", i, prefix, got, want)
			}
		}
	}
}

// TestAppendKernelNaN: a float encoding/json refuses is AppendKernel's
// error too.
func TestAppendKernelNaN(t *testing.T) {
	k := Kernel{Staging: Staging{OccupancyAfter: math.NaN()}}
	if _, err := json.MarshalIndent(&k, "", "  "); err == nil {
		t.Fatal("encoding/json accepts NaN")
	}
	if _, err := AppendKernel(nil, &k, ""); err == nil {
		t.Error("AppendKernel accepts NaN")
	}
}

// FuzzAppendKernel compares AppendKernel with encoding/json on kernels
// whose strings and numbers come from the fuzzer.
func FuzzAppendKernel(f *testing.F) {
	f.Add("k", "ld.global.f32 %f1, [%rd1];", "a.cu", int64(3), uint32(7), 0.75)
	f.Add("<&>\"\\", "\xff\u2028\x00", "", int64(-1), uint32(0), 0.0)
	f.Fuzz(func(t *testing.T, name, text, file string, n int64, id uint32, occ float64) {
		if math.IsNaN(occ) || math.IsInf(occ, 0) {
			return
		}
		k := Kernel{Name: name, ParamsAdded: []Param{{Index: int(n), Name: name, Type: text, Host: file}},
			Staging: Staging{Where: text, Reason: name, OccupancyBefore: occ, WarpsAfter: int(n)},
			Probes: []Probe{{ID: id, Kernel: name, Text: text, LocFile: file, Line: int(n), Closes: []int{int(n)}},
				{Function: text}}}
		want, err := json.MarshalIndent(&k, "    ", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendKernel(nil, &k, "    ")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}
