package instrument

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/instrument/cudatool"
	"github.com/ptxtrace/ptxtrace/ptx"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenCases instrument testdata/small.ptx; each golden file holds the
// instrumented PTX followed by its manifest.
var goldenCases = []struct {
	name string
	opts Options
}{
	{"naive", Options{Mode: "naive"}},
	{"fence", Options{Mode: "fence"}},
	{"dummy", Options{Mode: "dummy"}},
	{"auto", Options{Mode: "auto"}},
	{"auto-global-clock", Options{Mode: "auto", Staging: "global", Timer: "clock"}},
	{"auto-sm52-globaltimer", Options{Mode: "auto", Timer: "globaltimer"}},
	{"region", Options{Mode: "fence", NoLoads: true, Regions: []Region{{40, 43}}}},
	{"lines-src", Options{Mode: "auto", Src: &SrcRange{File: "small.cu", Lines: Range{8, 8}}, Capacity: 8}},
}

func TestGolden(t *testing.T) {
	src, err := os.ReadFile("testdata/small.ptx")
	if err != nil {
		t.Fatal(err)
	}
	tools := cudatool.Find()
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			in := src
			if strings.Contains(tc.name, "sm52") {
				in = bytes.Replace(src, []byte(".target sm_80"), []byte(".target sm_52"), 1)
			}
			fset, f := parse(t, "testdata/small.ptx", in)
			opts := tc.opts
			opts.Tool = "test"
			res, err := Instrument(fset, f, opts)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			got.Write(res.PTX)
			got.WriteString("\n// ---- manifest ----\n")
			if err := res.Manifest.Write(&got); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", tc.name+".golden")
			if *update {
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("output differs from %s (run go test -update and review the diff)", path)
			}
			checkTransparent(t, res.PTX)
			if tools.Ptxas != "" {
				if _, _, err := tools.Compile(context.Background(), tc.name, res.PTX, res.Manifest.Target); err != nil {
					t.Errorf("ptxas: %v", err)
				}
			}
			// Every probe's out_line is the probed instruction.
			lines := strings.Split(string(res.PTX), "\n")
			for _, k := range res.Manifest.Kernels {
				for _, p := range k.Probes {
					if p.OutLine < 1 || p.OutLine > len(lines) {
						t.Fatalf("probe %d: out_line %d", p.ID, p.OutLine)
					}
					got := strings.Join(strings.Fields(lines[p.OutLine-1]), " ")
					if p.RegionKind == "load" && got != p.Text {
						t.Errorf("probe %d: out_line %d is %q, want %q", p.ID, p.OutLine, got, p.Text)
					}
				}
			}
		})
	}
}

// checkTransparent checks that the instrumentation writes only its own
// registers: every instruction that is not in the input (printed from
// synthesized tokens) defines only %__pt_ registers, and the dummy
// predicate comes from the added parameter only.
func checkTransparent(t *testing.T, out []byte) {
	t.Helper()
	_, f := parse(t, "out.ptx", out)
	for _, fn := range f.Functions() {
		if fn.Body == nil {
			continue
		}
		ours := false
		for _, in := range flatten(fn.Body, nil) {
			// Inserted code is printed canonically with single spaces;
			// the inputs here use tabs after the opcode.
			if !strings.Contains(ptx.Format(in), "__pt_") {
				continue
			}
			ours = true
			for _, d := range ptx.Defs(in) {
				if !strings.HasPrefix(d, "%__pt_") {
					t.Errorf("inserted %q writes %s", ptx.Format(in), d)
				}
			}
			if strings.Contains(ptx.Format(in), "%__pt_p0") && in.Op.Name == "setp" {
				if !strings.HasPrefix(ptx.Format(in), "setp.ne.u32 %__pt_p0, %__pt_r9, 0") {
					t.Errorf("dummy predicate set by %q", ptx.Format(in))
				}
			}
			if in.Guard == "%__pt_p0" && (in.Op.Name == "st") {
				// the consumer's store goes to the warp's own slot
				if a := in.Args[0]; a.Name != "%__pt_a0" || a.Offset != 8 {
					t.Errorf("dummy store %q outside the warp's scratch word", ptx.Format(in))
				}
			}
		}
		_ = ours
	}
}
