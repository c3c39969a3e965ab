package launch

import (
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
)

// TestCounters: the CNTR counters of a hand-made model result carry the
// names docs/launch.md lists (literals here, not the trace constants, so a
// renamed constant fails) and values worked out by hand.
func TestCounters(t *testing.T) {
	r := &model.Result{Cycles: 1000, WarpInsts: 500, ThreadInsts: 16000, IPC: 0.5, CTAs: 4,
		SMs: []model.SMResult{{ActiveCycles: 800, WarpInsts: 200, Stalls: model.Stalls{Memory: 7}},
			{ActiveCycles: 0}},
		Stalls: model.Stalls{Pipeline: 1, Interconnect: 2, Scoreboard: 3, Memory: 7, Fence: 5, Barrier: 6, NoWarp: 8},
		L1D:    model.CacheStats{Hits: 3, Misses: 1},
		Tex:    model.CacheStats{Hits: 1, Misses: 4},
		DRAM:   model.DRAMStats{BytesRead: 4096, BytesWritten: 128}}
	lr := &LaunchResult{Timing: r}
	got := map[[2]any]float64{}
	for _, c := range lr.Counters() {
		k := [2]any{c.Name, c.SM}
		if _, dup := got[k]; dup {
			t.Errorf("counter %s SM %d twice", c.Name, c.SM)
		}
		got[k] = c.Value
	}
	want := map[[2]any]float64{
		{"kernel.cycles", int32(-1)}: 1000, {"kernel.warp_insts", int32(-1)}: 500, {"kernel.thread_insts", int32(-1)}: 16000,
		{"kernel.ipc", int32(-1)}: 0.5, {"kernel.ctas", int32(-1)}: 4,
		{"sm.active_cycles", int32(0)}: 800, {"sm.active_cycles", int32(1)}: 0,
		{"sm.ipc", int32(0)}: 0.25, {"sm.ipc", int32(1)}: 0,
		{"l1d.hit_rate", int32(-1)}: 0.75, {"l1d.hits", int32(-1)}: 3, {"l1d.misses", int32(-1)}: 1,
		{"tex.hit_rate", int32(-1)}: 0.2, {"tex.hits", int32(-1)}: 1, {"tex.misses", int32(-1)}: 4,
		{"const.hit_rate", int32(-1)}: 0, {"const.hits", int32(-1)}: 0, {"const.misses", int32(-1)}: 0,
		{"l2.hit_rate", int32(-1)}: 0, {"l2.hits", int32(-1)}: 0, {"l2.misses", int32(-1)}: 0,
		{"stall.pipeline", int32(-1)}: 1, {"stall.interconnect", int32(-1)}: 2, {"stall.scoreboard", int32(-1)}: 3,
		{"stall.memory", int32(-1)}: 7, {"stall.fence", int32(-1)}: 5, {"stall.barrier", int32(-1)}: 6, {"stall.no_warp", int32(-1)}: 8,
		{"dram.bytes_read", int32(-1)}: 4096, {"dram.bytes_written", int32(-1)}: 128,
	}
	for _, sm := range []int32{0, 1} {
		for _, n := range []string{"pipeline", "interconnect", "scoreboard", "fence", "barrier", "no_warp"} {
			want[[2]any{"stall." + n, sm}] = 0
		}
		want[[2]any{"stall.memory", sm}] = 0
	}
	want[[2]any{"stall.memory", int32(0)}] = 7
	if len(got) != len(want) {
		t.Errorf("%d counters, want %d", len(got), len(want))
	}
	for k, v := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("missing counter %v", k)
		} else if g != v {
			t.Errorf("counter %v = %v, want %v", k, g, v)
		}
	}
	if (&LaunchResult{}).Counters() != nil {
		t.Errorf("a functional launch has counters")
	}
}
