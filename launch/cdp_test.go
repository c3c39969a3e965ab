package launch

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
)

// TestDeviceLaunches: grids launched from device code (replay's dynamic
// parallelism test kernels, replay/testdata/cdp/cdp.cu) become launches of
// their own, after their host launch, with the launch that launched them;
// in timing mode a host launch's share of the cycles runs to its last child.
func TestDeviceLaunches(t *testing.T) {
	spec := `buffers:
  - {name: p, type: u32, count: 64, output: true}
steps:
  - launch: {kernel: _Z3topPi, grid: [1], block: [1], params: [{ref: p}]}
  - launch: {kernel: _Z12parentWritesPi, grid: [1], block: [1], params: [{ref: p, offset: 32}]}
`
	ms := model.GTX480()
	for _, timed := range []bool{false, true} {
		s, err := ParseSpec([]byte(spec))
		if err != nil {
			t.Fatal(err)
		}
		prep, err := s.Prepare(loadPTX(t, filepath.Join("..", "replay", "testdata", "cdp", "cdp.ptx")), PrepareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o := ExecOptions{}
		if timed {
			o.Model = &ms
		}
		res, err := prep.Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		// top: p = {1, 10, 21}; parentWrites at p+32: p[32] = 41, p[33] = 42
		p := u32s(prep.Buffer("p").Alloc.Data)
		if p[0] != 1 || p[1] != 10 || p[2] != 21 || p[32] != 41 || p[33] != 42 {
			t.Errorf("p = %v", p[:40])
		}
		want := []struct {
			kernel string
			by     int // -1: a host launch
		}{{"_Z3topPi", -1}, {"_Z3midPii", 0}, {"_Z4leafPii", 1}, {"_Z12parentWritesPi", -1}, {"_Z9readChildPi", 3}}
		if len(res.Launches) != len(want) {
			t.Fatalf("%d launches, want %d", len(res.Launches), len(want))
		}
		for i, w := range want {
			lr := res.Launches[i]
			by := -1
			if lr.Device != nil {
				by = lr.LaunchedBy
			}
			if lr.Index != i || lr.Kernel != w.kernel || by != w.by || (timed && lr.Timing == nil) {
				t.Errorf("launch %d: %s by %d, want %s by %d", lr.Index, lr.Kernel, by, w.kernel, w.by)
			}
		}
		if res.CTAs != 5 {
			t.Errorf("%d CTAs, want 5 (one per grid)", res.CTAs)
		}
		if timed {
			h0, h3 := res.Launches[0].Func, res.Launches[3].Func
			if h0.EndCycle <= res.Launches[0].Timing.Cycles || res.Cycles != h0.EndCycle+h3.EndCycle {
				t.Errorf("cycles %d, want the host launches' ends %d + %d", res.Cycles, h0.EndCycle, h3.EndCycle)
			}
		}
	}
}
