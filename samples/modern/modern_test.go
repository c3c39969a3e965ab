package modern

import (
	"context"
	"encoding/binary"
	"fmt"
	"go/token"
	"io/fs"
	"math"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/replay"
)

func loadSpec(t *testing.T, k Kernel) *launch.Spec {
	t.Helper()
	b, err := fs.ReadFile(FS(), k.Spec)
	if err != nil {
		t.Fatal(err)
	}
	s, err := launch.ParseSpec(b)
	if err != nil {
		t.Fatalf("%s: %v", k.Spec, err)
	}
	return s
}

// run replays spec on the PTX at p (functional when ms is nil), checks the
// outputs against the references and logs the largest errors.
func run(t *testing.T, p string, spec *launch.Spec, ms *model.Spec) map[string][]byte {
	t.Helper()
	src, err := fs.ReadFile(FS(), p)
	if err != nil {
		t.Fatal(err)
	}
	return runSrc(t, p, src, nil, spec, ms)
}

// runSrc is run on the PTX src, with the manifest of an instrumented src.
func runSrc(t *testing.T, p string, src []byte, man *manifest.Manifest, spec *launch.Spec, ms *model.Spec) map[string][]byte {
	t.Helper()
	f, err := ptx.ParseFile(token.NewFileSet(), p, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := replay.NewProgram(f)
	if err != nil {
		t.Fatal(err)
	}
	o := launch.PrepareOptions{Registry: Registry(), Manifest: man}
	if ms != nil {
		o.NumSMs = ms.NumSMs
	}
	prep, err := spec.Prepare(prog, o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := prep.Run(context.Background(), launch.ExecOptions{Model: ms})
	if err != nil {
		t.Fatal(err)
	}
	// every tensor-core instruction runs with replay's documented numerical
	// model and must say so (a notice); nothing else may warn
	notices := 0
	for _, w := range prep.Warnings() {
		if !strings.Contains(w, "notice") {
			t.Errorf("warning: %s", w)
		}
		notices++
	}
	if notices == 0 {
		t.Errorf("%s: no notice for its tensor-core instructions", p)
	}
	rs := prep.Check(Registry(), "")
	if len(rs) == 0 {
		t.Errorf("%s: no checks", p)
	}
	for _, r := range rs {
		if !r.OK {
			t.Errorf("%s: check %s: %s", p, r.Buffer, r.Msg)
		}
	}
	out := map[string][]byte{}
	for _, c := range spec.Checks {
		got := prep.Buffer(c.Buffer).Alloc.Data
		out[c.Buffer] = append([]byte(nil), got...)
		want, err := Expected(c.Reference, prep.RefInput())
		if err != nil {
			t.Fatal(err)
		}
		g := f32s(got)
		maxAbs, maxRel, maxFrac := 0.0, 0.0, 0.0
		for i, w := range want.Want {
			d := math.Abs(float64(g[i]) - w)
			maxAbs = max(maxAbs, d)
			if w != 0 {
				maxRel = max(maxRel, d/math.Abs(w))
			}
			if a := want.Allowed(i); a > 0 {
				maxFrac = max(maxFrac, d/a)
			}
		}
		mode := "functional"
		if man != nil {
			mode = "instrumented " + mode
		}
		if ms != nil {
			mode = strings.TrimSuffix(mode, "functional") + ms.Name + fmtCycles(res)
		}
		t.Logf("%s %s %s: %d elements, max |err| %.3g, max rel err %.3g, max err/allowed %.3g (tol rel %.3g)",
			p, mode, c.Buffer, len(want.Want), maxAbs, maxRel, maxFrac, want.Tol.Rel)
	}
	return out
}

func fmtCycles(r *launch.SeqResult) string {
	return fmt.Sprintf(" (%d cycles)", r.Cycles)
}

func same(t *testing.T, what string, want, got map[string][]byte) {
	t.Helper()
	for b, w := range want {
		if string(got[b]) != string(w) {
			t.Errorf("%s: output %s differs from the functional run", what, b)
		}
	}
}

// presetFor is the model preset a sample's PTX target runs on.
func presetFor(t *testing.T, p string) *model.Spec {
	name := "a100"
	if strings.Contains(p, "sm_90") {
		name = "h100"
	}
	ms, ok := model.Preset(name)
	if !ok {
		t.Fatalf("no preset %s", name)
	}
	return &ms
}

// TestModern replays every sample functionally and on its preset (a100
// for sm_80, h100 for sm_90a), original and instrumented in auto mode,
// with the spec's exact inputs and again with full-precision inputs
// (exact: 0); every run passes the reference and all four give the same
// bytes.
func TestModern(t *testing.T) {
	ks := List()
	if len(ks) == 0 {
		t.Fatal("no samples")
	}
	for _, k := range ks {
		for _, p := range k.PTX {
			for _, exact := range []string{"1", "0"} {
				t.Run(strings.TrimSuffix(p[len(k.Name)+1:], ".ptx")+"/exact="+exact, func(t *testing.T) {
					spec := loadSpec(t, k)
					for i := range spec.Inputs {
						spec.Inputs[i].Args["exact"] = exact
					}
					want := run(t, p, spec, nil)
					got := run(t, p, spec, presetFor(t, p))
					same(t, "timing mode", want, got)
					src, err := fs.ReadFile(FS(), p)
					if err != nil {
						t.Fatal(err)
					}
					fset := token.NewFileSet()
					f, err := ptx.ParseFile(fset, p, src, 0)
					if err != nil {
						t.Fatal(err)
					}
					res, err := instrument.Instrument(fset, f, instrument.Options{Mode: "auto", Output: p})
					if err != nil {
						t.Fatalf("instrument: %v", err)
					}
					same(t, "instrumented, functional", want, runSrc(t, p, res.PTX, res.Manifest, spec, nil))
					same(t, "instrumented, timing", want, runSrc(t, p, res.PTX, res.Manifest, spec, presetFor(t, p)))
				})
			}
		}
	}
}

// TestVerifiersDetect: every check passes the replayed output and fails
// when one element is moved past twice its allowed error (by a few ulp
// where the compare is exact).
func TestVerifiersDetect(t *testing.T) {
	reg := Registry()
	for _, k := range List() {
		for _, exact := range []string{"1", "0"} {
			spec := loadSpec(t, k)
			for i := range spec.Inputs {
				spec.Inputs[i].Args["exact"] = exact
			}
			src, err := fs.ReadFile(FS(), k.PTX[0])
			if err != nil {
				t.Fatal(err)
			}
			f, err := ptx.ParseFile(token.NewFileSet(), k.PTX[0], src, 0)
			if err != nil {
				t.Fatal(err)
			}
			prog, err := replay.NewProgram(f)
			if err != nil {
				t.Fatal(err)
			}
			prep, err := spec.Prepare(prog, launch.PrepareOptions{Registry: reg})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := prep.Run(context.Background(), launch.ExecOptions{}); err != nil {
				t.Fatal(err)
			}
			for _, c := range spec.Checks {
				v := reg.Verify[c.Reference]
				if v == nil {
					t.Fatalf("%s: no verifier %q", k.Name, c.Reference)
				}
				got := append([]byte(nil), prep.Buffer(c.Buffer).Alloc.Data...)
				if err := v(prep.RefInput(), got); err != nil {
					t.Errorf("%s: %s: %v", k.Name, c.Reference, err)
				}
				// the element in the middle, moved just past twice its allowed error
				want, err := Expected(c.Reference, prep.RefInput())
				if err != nil {
					t.Fatal(err)
				}
				i := len(want.Want) / 2
				w := want.Want[i]
				bad := float32(w + 2*want.Allowed(i) + math.Abs(w)*0x1p-20 + 0x1p-30)
				binary.LittleEndian.PutUint32(got[4*i:], math.Float32bits(bad))
				if err := v(prep.RefInput(), got); err == nil {
					t.Errorf("%s exact=%s: %s accepts a changed element", k.Name, exact, c.Reference)
				}
			}
		}
	}
}

// BenchmarkModern: prepare and run each sample's spec on its timing preset
// (exact inputs).
func BenchmarkModern(b *testing.B) {
	for _, k := range List() {
		p := k.PTX[0]
		b.Run(k.Name, func(b *testing.B) {
			src, err := fs.ReadFile(FS(), p)
			if err != nil {
				b.Fatal(err)
			}
			buf, err := fs.ReadFile(FS(), k.Spec)
			if err != nil {
				b.Fatal(err)
			}
			ms, _ := model.Preset("a100")
			if strings.Contains(p, "sm_90") {
				ms, _ = model.Preset("h100")
			}
			for i := 0; i < b.N; i++ {
				spec, err := launch.ParseSpec(buf)
				if err != nil {
					b.Fatal(err)
				}
				f, err := ptx.ParseFile(token.NewFileSet(), p, src, 0)
				if err != nil {
					b.Fatal(err)
				}
				prog, err := replay.NewProgram(f)
				if err != nil {
					b.Fatal(err)
				}
				prep, err := spec.Prepare(prog, launch.PrepareOptions{Registry: Registry(), NumSMs: ms.NumSMs})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := prep.Run(context.Background(), launch.ExecOptions{Model: &ms}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
