package instrument

import (
	"errors"
	"go/scanner"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/ptx"
)

func TestErrors(t *testing.T) {
	src, err := os.ReadFile("testdata/small.ptx")
	if err != nil {
		t.Fatal(err)
	}
	noKernels := ".version 7.8\n.target sm_80\n.address_size 64\n.func f()\n{\n\tret;\n}\n"
	tests := []struct {
		name string
		src  string
		opts Options
		want string // full first message, file:line:col included
	}{
		{"unknown kernel", "", Options{Kernel: "nope"}, `testdata/small.ptx:1:1: no kernel named "nope" (kernels: small)`},
		{"lines past end", "", Options{Lines: &Range{500, 600}}, "testdata/small.ptx:1:1: bad line range 500-600: the file has 49 lines"},
		{"bad lines", "", Options{Lines: &Range{9, 3}}, "testdata/small.ptx:1:1: bad line range 9-3"},
		{"no sites lines", "", Options{Lines: &Range{1, 5}}, "testdata/small.ptx:1:1: no sites: no load matches; spaces global,shared,local,const,tex,generic; lines 1-5"},
		{"no sites space", "", Options{Spaces: []string{"shared"}}, "testdata/small.ptx:1:1: no sites: no load matches; spaces shared"},
		{"no sites src", "", Options{Src: &SrcRange{File: "other.cu", Lines: Range{1, 99}}}, "testdata/small.ptx:1:1: no sites: no load matches; spaces global,shared,local,const,tex,generic; source other.cu:1-99"},
		{"no kernels", noKernels, Options{Lines: &Range{1, 7}}, "testdata/small.ptx:1:1: no sites: the file has no kernels (.entry with a body)"},
		{"unknown space", "", Options{Spaces: []string{"surf"}}, `testdata/small.ptx:1:1: unknown state space "surf"`},
		{"unknown mode", "", Options{Mode: "fast"}, `testdata/small.ptx:1:1: unknown mode "fast" (want one of naive, fence, dummy, auto)`},
		{"region outside", "", Options{Regions: []Region{{2, 5}}}, "testdata/small.ptx:2:1: region 2:5: line 2 is not inside the body of a selected kernel"},
		{"region empty", "", Options{Regions: []Region{{22, 22}}}, "testdata/small.ptx:22:1: region 22:22 of kernel small holds no instruction"},
		{"region past kernel", string(src) + "\n// after\n", Options{Regions: []Region{{40, 51}}}, "testdata/small.ptx:40:1: region 40:51: its end is past the end of kernel small (line 49)"},
		{"reserved prefix", strings.Replace(string(src), "%f<5>", "%f<5>;\n\t.reg .b32 %__pt_x", 1), Options{}, "testdata/small.ptx:20:13: the input already uses the reserved prefix"},
		{"capacity", "", Options{Capacity: -1}, "testdata/small.ptx:1:1: capacity -1 records per warp is outside 1..1048576"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.src
			if s == "" {
				s = string(src)
			}
			fset, f := parse(t, "testdata/small.ptx", []byte(s))
			_, err := Instrument(fset, f, tt.opts)
			var list scanner.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %v is not a positioned error list", err)
			}
			if got := list[0].Error(); !strings.HasPrefix(got, tt.want) {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestParseFlags(t *testing.T) {
	if r, err := ParseRange("120-180"); err != nil || r != (Range{120, 180}) {
		t.Errorf("ParseRange = %v, %v", r, err)
	}
	if r, err := ParseRange("7"); err != nil || r != (Range{7, 7}) {
		t.Errorf("ParseRange = %v, %v", r, err)
	}
	for _, bad := range []string{"", "a-b", "5-3", "0-2", "-3"} {
		if _, err := ParseRange(bad); err == nil {
			t.Errorf("ParseRange(%q): no error", bad)
		}
	}
	if s, err := ParseSrc("file.cu:42"); err != nil || s.File != "file.cu" || s.Lines != (Range{42, 42}) {
		t.Errorf("ParseSrc = %+v, %v", s, err)
	}
	if s, err := ParseSrc(":40-50"); err != nil || s.File != "" || s.Lines != (Range{40, 50}) {
		t.Errorf("ParseSrc = %+v, %v", s, err)
	}
	if _, err := ParseSrc("file.cu"); err == nil {
		t.Error("ParseSrc without line: no error")
	}
	if r, err := ParseRegion("10:20"); err != nil || r != (Region{10, 20}) {
		t.Errorf("ParseRegion = %v, %v", r, err)
	}
	if _, err := ParseRegion("20:10"); err == nil {
		t.Error("ParseRegion(20:10): no error")
	}
}

// TestNoSitesDefaultSelection checks that under the default selection a
// module without sites is left unchanged, with an empty manifest and a
// positioned warning, while the same module with an explicit selection is
// an error (TestErrors).
func TestNoSitesDefaultSelection(t *testing.T) {
	src := ".version 7.8\n.target sm_80\n.address_size 64\n.func f()\n{\n\tret;\n}\n"
	fset := token.NewFileSet()
	f, err := ptx.ParseFile(fset, "nokernels.ptx", []byte(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Instrument(fset, f, Options{})
	if err != nil {
		t.Fatalf("default selection: %v", err)
	}
	if string(res.PTX) != src {
		t.Errorf("output differs from the input:\n%s", res.PTX)
	}
	if len(res.Manifest.Kernels) != 0 {
		t.Errorf("manifest has %d kernels, want 0", len(res.Manifest.Kernels))
	}
	if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], "nokernels.ptx:1:1: no sites") {
		t.Errorf("warnings %q", res.Warnings)
	}
}
