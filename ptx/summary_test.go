package ptx

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// summaryCorpusGolden are the corpus files with a summary golden file.
var summaryCorpusGolden = []string{
	"Anjiang-Wei__PTX_dataset__pre_sortBuckets.ptx",          // extern shared, .func call
	"gtcasl__gpuocelot__sdk2.2__clock.ptx",                   // Open64, .loc, %clock, shared
	"manospavlidakis__PTX_of_dif_GPU_mem__texture.ptx",       // texture object
	"gtcasl__gpuocelot__parboil__cuenergy_pre8_coalesce.ptx", // .const, 32-bit addresses
	"mairooni__TornadoVM__matmul.ptx",                        // registers without '%'
	"csullivan__triton__matmul.ptx",                          // cp.async, wgmma, .loc
	"numba__numba__cusin_cc_30.ptx",                          // .const with initializers, .local
}

// sumUpdate reports whether the package's -update flag is set.
func sumUpdate() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func TestSummaryGolden(t *testing.T) {
	var inputs []string
	local, _ := filepath.Glob(filepath.Join("testdata", "facts", "*.ptx"))
	inputs = append(inputs, local...)
	for _, name := range summaryCorpusGolden {
		path := filepath.Join(cfgCorpusDir, name)
		if _, err := os.Stat(path); err != nil {
			t.Logf("corpus file %s absent; skipping its golden", name)
			continue
		}
		inputs = append(inputs, path)
	}
	if len(inputs) == 0 {
		t.Skip("no inputs")
	}
	for _, path := range inputs {
		base := filepath.Base(path)
		t.Run(base, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f := cfgParse(t, base, string(src))
			got, err := json.MarshalIndent(Summarize(f), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := filepath.Join("testdata", "facts", strings.TrimSuffix(base, ".ptx")+".summary.json")
			if sumUpdate() {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestSummaryGolden -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("summary differs from %s (run with -update to accept):\n%s", golden, sumLineDiff(string(got), string(want)))
			}
		})
	}
}

// sumLineDiff describes the first differing line of two texts.
func sumLineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\n got  " + a + "\n want " + b
		}
	}
	return "(equal)"
}

// TestSummaryModule checks the facts the hand-written module is built to
// exercise, independently of the golden file.
func TestSummaryModule(t *testing.T) {
	f := cfgParseFile(t, filepath.Join("testdata", "facts", "module.ptx"))
	s := Summarize(f)
	if s.Version != "7.8" || strings.Join(s.Target, ",") != "sm_80" || s.AddressSize != 64 {
		t.Errorf("module header = %q %v %d", s.Version, s.Target, s.AddressSize)
	}
	if len(s.Functions) != 2 {
		t.Fatalf("functions = %d", len(s.Functions))
	}
	bump, k := s.Functions[0], s.Functions[1]
	if bump.Kind != "func" || k.Kind != "entry" || strings.Join(k.Linkage, ",") != "visible" {
		t.Errorf("kinds/linkage: %s %s %v", bump.Kind, k.Kind, k.Linkage)
	}
	// Module shared: tile (1024) + dyn (0, dynamic) directly, hist (256) via bump.
	if k.ModuleShared != 1024+256 || !k.DynamicShared || bump.ModuleShared != 256 || bump.DynamicShared {
		t.Errorf("module shared: k=%d dyn=%v bump=%d dyn=%v", k.ModuleShared, k.DynamicShared, bump.ModuleShared, bump.DynamicShared)
	}
	if k.ModuleConst != 64 || k.LocalBytes != 32 {
		t.Errorf("const=%d local=%d", k.ModuleConst, k.LocalBytes)
	}
	if got := len(k.Params); got != 4 {
		t.Fatalf("params = %d", got)
	}
	if p := k.Params[0]; !p.Ptr || p.PtrSpace != ".global" || p.PtrAlign != 16 || p.Size != 8 {
		t.Errorf("param 0 = %+v", p)
	}
	if p := k.Params[2]; p.Size != 24 || p.Align != 8 {
		t.Errorf("param 2 = %+v", p)
	}
	if len(k.Directives) != 2 || k.Directives[0].Name != ".maxntid" || k.Directives[0].Args != "256, 1, 1" {
		t.Errorf("directives = %+v", k.Directives)
	}
	// Registers: %p<3>, %r<8>, %f<6>, %rd<8>, and %g<2> in a nested block.
	if k.RegisterTotal != 3+8+6+8+2 {
		t.Errorf("registers = %+v (%d)", k.Registers, k.RegisterTotal)
	}
	if strings.Join(k.Calls, ",") != "bump" {
		t.Errorf("calls = %v", k.Calls)
	}
	// Accesses carry the .loc in effect.
	var tex *Access
	for i := range k.MemoryAccesses {
		if k.MemoryAccesses[i].Kind == "texture" {
			tex = &k.MemoryAccesses[i]
		}
	}
	if tex == nil || tex.Source == nil || tex.Source.String() != "kernel.cu:8:4" || !tex.ReadOnly || tex.Space != ".tex" {
		t.Errorf("texture access = %+v", tex)
	}
	first := k.MemoryAccesses[0]
	if first.Op != "ld.param.u64" || first.Source == nil || first.Source.String() != "kernel.cu:5:12" || first.Line == 0 {
		t.Errorf("first access = %+v", first)
	}
	last := k.MemoryAccesses[len(k.MemoryAccesses)-1]
	if !last.Guarded || last.Space != ".global" || last.Kind != "store" {
		t.Errorf("last access = %+v", last)
	}
	if bump.MemoryAccesses[0].Source.String() != "helper.cuh:10:3" {
		t.Errorf("bump access = %+v", bump.MemoryAccesses[0])
	}
}

// TestSummaryCorpus summarizes every corpus file: no panic, counts agree
// with the access lists, and every access has a line.
func TestSummaryCorpus(t *testing.T) {
	for _, name := range cfgCorpus(t) {
		f := cfgParseFile(t, name)
		s := Summarize(f)
		if _, err := json.Marshal(s); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		for _, fs := range s.Functions {
			n := 0
			for _, m := range fs.Memory {
				n += m.Count
			}
			if n != len(fs.MemoryAccesses) {
				t.Errorf("%s: %s: memory counts %d, accesses %d", name, fs.Name, n, len(fs.MemoryAccesses))
			}
			for _, a := range fs.MemoryAccesses {
				if a.Line == 0 {
					t.Errorf("%s: %s: access %s without a line", name, fs.Name, a.Op)
				}
			}
		}
	}
}
