package web

import (
	"context"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/trace"
)

// synthStats analyses a fresh synth of the given shape.
func synthStats(t *testing.T, name string, warps int, counters []trace.Counter) (*Index, *Stats) {
	t.Helper()
	mk := func() *synth { return newSynth(warps, 4, 2, 20) }
	st, err := Analyze(context.Background(), name, func() (trace.RegionSource, error) { return mk(), nil }, counters)
	if err != nil {
		t.Fatal(err)
	}
	return build(t, mk()), st
}

func chartIDs(cs []Chart) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

// TestProbeErrors: the synth stamps ground truth on every third load with
// issue = start + 2 and completion = end − 3, so each region's measured
// mean exceeds its true mean by exactly 5 cycles; of the 20 loads per
// warp (ids alternating 1, 2), i = 0, 6, 12, 18 (id 1) and 3, 9, 15 (id 2)
// have truth.
func TestProbeErrors(t *testing.T) {
	ix := build(t, newSynth(16, 4, 2, 20))
	errs := ix.ProbeErrors()
	if len(errs) != 2 || errs[0].Region != 1 || errs[1].Region != 2 || errs[0].Count != 4*16 || errs[1].Count != 3*16 {
		t.Fatalf("probe errors %+v", errs)
	}
	for _, e := range errs {
		if e.Measured-e.True != 5 || e.Space == "" || e.Mode != "naive" {
			t.Errorf("region %d: measured %.3f, true %.3f", e.Region, e.Measured, e.True)
		}
	}
}

func TestRunCharts(t *testing.T) {
	ix, st := synthStats(t, "a", 16, nil)
	// Fig. 11: the warp with the most memory time; its series sums to
	// that warp's memory time, one value per load (the synth's user
	// region encloses all 20).
	var w *struct{ mem uint64 }
	for _, ws := range st.Analysis.Warps {
		if ws.Warp == st.SeriesWarp {
			w = &struct{ mem uint64 }{ws.Memory}
		}
	}
	var sum uint64
	for _, v := range st.Series {
		sum += v
	}
	if !st.HasSeries || w == nil || len(st.Series) != 20 || sum != w.mem {
		t.Fatalf("series of warp %d: %d values summing to %d", st.SeriesWarp, len(st.Series), sum)
	}
	cs, err := RunCharts(ix, st)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := chartIDs(cs), []string{"durations", "warps", "probe_error_regions", "fig10", "fig11"}; !reflect.DeepEqual(got, want) {
		t.Errorf("charts %v, want %v", got, want)
	}
	// Fig. 10 has a bar per warp of SM 0 (the synth puts CTAs 0, 2 on SM 0:
	// 8 warps), Fig. 11 a vertex per access.
	for _, c := range cs {
		switch c.ID {
		case "fig10":
			if n := strings.Count(c.SVG, `class="bar s0"`); n != 8 {
				t.Errorf("fig10: %d bars, want 8", n)
			}
		case "probe_error_regions":
			if n := strings.Count(c.SVG, `class="bar s`); n != 4 {
				t.Errorf("probe error: %d bars, want 2 regions × 2", n)
			}
		}
	}
	// Stall counters per SM add a stacked chart.
	ix, st = synthStats(t, "b", 8, []trace.Counter{{Name: trace.CounterStallMemory, SM: 0, Value: 30}, {Name: trace.CounterStallMemory, SM: 1, Value: 20},
		{Name: trace.CounterStallBarrier, SM: 1, Value: 5}, {Name: trace.CounterStallMemory, SM: -1, Value: 50}})
	cs, _ = RunCharts(ix, st)
	if ids := chartIDs(cs); ids[len(ids)-1] != "stalls" {
		t.Fatalf("charts %v", ids)
	}
	sc := cs[len(cs)-1].SVG
	if n := strings.Count(sc, `class="bar s`); n != 4 || !strings.Contains(sc, "barrier") || strings.Contains(sc, "no_warp") {
		t.Errorf("stall chart: %d bars, want 2 reasons (memory, barrier) × SMs 0, 1", n)
	}
}

func TestCompareCharts(t *testing.T) {
	cnt := func(hit, cycles float64) []trace.Counter {
		return []trace.Counter{{Name: trace.CounterTexHitRate, SM: -1, Value: hit}, {Name: trace.CounterKernelCycles, SM: -1, Value: cycles}}
	}
	var sts []*Stats
	for i, w := range []int{8, 12, 16} {
		_, st := synthStats(t, string(rune('a'+i)), w, cnt(0.5+0.1*float64(i), 1000*float64(i+1)))
		sts = append(sts, st)
	}
	cs, err := CompareCharts(sts)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := chartIDs(cs), []string{"fig5", "probe_error", "corr_hitrate", "corr_fps"}; !reflect.DeepEqual(got, want) {
		t.Errorf("charts %v, want %v", got, want)
	}
	if n := strings.Count(cs[0].SVG, `class="bar s`); n != 6 {
		t.Errorf("fig5: %d bars, want 3 runs × 2", n)
	}
	if n := strings.Count(cs[2].SVG, `class="mark s0"`); n != 3 {
		t.Errorf("correlation: %d points, want 3", n)
	}
	// Two runs of the mode are too few for a correlation; a run without
	// counters is left out of it.
	sts[2].Counters = nil
	cs, _ = CompareCharts(sts)
	if got := chartIDs(cs); !reflect.DeepEqual(got, []string{"fig5", "probe_error"}) {
		t.Errorf("charts %v", got)
	}
}

func TestChartsAPI(t *testing.T) {
	ix, st := synthStats(t, "a", 8, nil)
	ix2, st2 := synthStats(t, "b", 12, nil)
	cs, err := RunCharts(ix, st)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(NewServer([]Run{{Index: ix, Charts: cs, Stats: st}, {Index: ix2, Stats: st2}, {Index: ix2}}))
	defer srv.Close()
	var got []Chart
	if get(t, srv.URL+"/api/compare", &got) != 200 || len(got) != 2 || got[0].ID != "fig5" || strings.Count(got[0].SVG, `class="bar s0"`) != 2 {
		t.Errorf("compare: %v", chartIDs(got))
	}
	if get(t, srv.URL+"/api/charts?run=0", &got) != 200 || len(got) != len(cs) || got[3].ID != "fig10" || got[3].Text == "" {
		t.Errorf("charts of run 0: %v", chartIDs(got))
	}
}
