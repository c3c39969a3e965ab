package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/trace"
)

// TestFuncProbesGBuild: in the -G build of the volume renderer (nvcc -G
// -ptx, ptx/testdata/gen) tex3D/tex1D are device functions; their loads are
// probed through the trace context passed to them, the instrumented
// kernel's image is byte-identical to the original's, and the decoded
// trace holds instances of the functions' load regions.
func TestFuncProbesGBuild(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "ptx", "testdata", "gen", "volrender.sm_52-G.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "launch", "testdata", "samples", "volrender")
	b, err := os.ReadFile(filepath.Join(dir, "launch.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := launch.ParseSpec(b)
	if err != nil {
		t.Fatal(err)
	}
	spec.Grid = []int{2, 1} // 2 of the 32 CTAs: the -G code is slow to replay
	ms, _ := model.Preset("gtx480")
	orig := runSpec(t, program(t, "vr-G.ptx", src), spec, dir, nil, &ms)
	want := orig.prep.Buffer("d_output").Alloc.Data
	for _, mode := range []string{"auto"} {
		out, man := instrumentOpts(t, "vr-G.inst.ptx", src, instrument.Options{Mode: mode, Capacity: 32768})
		fn := map[uint32]bool{}
		for _, p := range man.Kernel("d_render").Probes {
			if p.Function != "" {
				fn[p.ID] = true
			}
		}
		if len(fn) == 0 {
			t.Fatalf("%s: no probe in a .func", mode)
		}
		r := runSpec(t, program(t, "vr-G.inst.ptx", out), spec, dir, man, &ms)
		if !bytes.Equal(r.prep.Buffer("d_output").Alloc.Data, want) {
			t.Errorf("%s: the instrumented kernel's image differs", mode)
		}
		tr, err := trace.Decode(r.res.Launches[0].Trace.Data, man, "d_render")
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.CheckValid(); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		n := 0
		for _, w := range tr.Warps {
			if w.Lost != 0 {
				t.Fatalf("%s: warp %d lost %d records", mode, w.Segment, w.Lost)
			}
		}
		for _, rg := range tr.Regions {
			if fn[rg.EndProbe] {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: no instance of a function's region in the trace", mode)
		}
		t.Logf("%s: %d function load regions, %d instances", mode, len(fn)/2, n)
	}
}
