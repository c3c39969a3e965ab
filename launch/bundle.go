package launch

import (
	"fmt"
	"strconv"

	"github.com/ptxtrace/ptxtrace/analysis"
	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/trace"
)

// Truth maps the model's ground truth of a timed launch (model.Result.Probes,
// recorded under each load region's begin probe, see Prepared's probe
// marking) to the trace's records: warp = segment index of docs/buffer.md
// (CTA × warps per CTA + warp in CTA), in the model's order (CTA, warp,
// issue), so the k-th access of a (warp, probe) is the k-th instance.
func (lr *LaunchResult) Truth() []trace.TruthAccess {
	if lr.Timing == nil {
		return nil
	}
	out := make([]trace.TruthAccess, 0, len(lr.Timing.Probes))
	for _, p := range lr.Timing.Probes {
		if p.Probe < 0 {
			continue
		}
		out = append(out, trace.TruthAccess{Warp: uint32(p.CTA*lr.WarpsPerCTA + p.Warp), Probe: uint32(p.Probe),
			Issue: uint64(p.Issue), Complete: uint64(p.Complete), Begin: uint64(p.Begin), End: uint64(p.End)})
	}
	return out
}

// FenceLatencyLabel is the run label holding the model's SM fence latency
// (cycles) in the bundle of a timed launch.
const FenceLatencyLabel = "model.fence_latency"

// PostCost is analysis.Options.PostCost for a bundle whose metadata is
// meta: the probe cost of each mode (analysis.PostCost) with the fence
// latency that Bundle recorded under FenceLatencyLabel; nil when meta has
// no such label or it is not an integer (functional and real-GPU runs).
func PostCost(meta *trace.RunMeta) func(mode string) (float64, bool) {
	v, ok := meta.Labels[FenceLatencyLabel]
	if !ok {
		return nil
	}
	fl, err := strconv.Atoi(v)
	if err != nil {
		return nil
	}
	return func(mode string) (float64, bool) { return analysis.PostCost(mode, fl) }
}

// Counters returns the model counters of a timed launch in a fixed order:
// kernel cycles, instructions and IPC, per-SM active cycles, cache hit
// rates (and hits/misses), and stall cycles by reason (whole GPU, then per
// SM).
func (lr *LaunchResult) Counters() []trace.Counter {
	r := lr.Timing
	if r == nil {
		return nil
	}
	var out []trace.Counter
	add := func(name string, sm int, v float64) {
		out = append(out, trace.Counter{Name: name, SM: int32(sm), Value: v})
	}
	add(trace.CounterKernelCycles, -1, float64(r.Cycles))
	add(trace.CounterKernelWarpInsts, -1, float64(r.WarpInsts))
	add(trace.CounterKernelThreadInsts, -1, float64(r.ThreadInsts))
	add(trace.CounterKernelIPC, -1, r.IPC)
	add(trace.CounterKernelCTAs, -1, float64(r.CTAs))
	for i, s := range r.SMs {
		add(trace.CounterSMActiveCycles, i, float64(s.ActiveCycles))
	}
	for i, s := range r.SMs {
		ipc := 0.0
		if s.ActiveCycles > 0 {
			ipc = float64(s.WarpInsts) / float64(s.ActiveCycles)
		}
		add(trace.CounterSMIPC, i, ipc)
	}
	for _, c := range []struct {
		rate, hits, misses string
		s                  model.CacheStats
	}{
		{trace.CounterL1DHitRate, trace.CounterL1DHits, trace.CounterL1DMisses, r.L1D},
		{trace.CounterTexHitRate, trace.CounterTexHits, trace.CounterTexMisses, r.Tex},
		{trace.CounterConstHitRate, trace.CounterConstHits, trace.CounterConstMisses, r.Const},
		{trace.CounterL2HitRate, trace.CounterL2Hits, trace.CounterL2Misses, r.L2},
	} {
		rate := 0.0
		if c.s.Hits+c.s.Misses > 0 {
			rate = float64(c.s.Hits) / float64(c.s.Hits+c.s.Misses)
		}
		add(c.rate, -1, rate)
		add(c.hits, -1, float64(c.s.Hits))
		add(c.misses, -1, float64(c.s.Misses))
	}
	stalls := func(s model.Stalls, sm int) {
		add(trace.CounterStallPipeline, sm, float64(s.Pipeline))
		add(trace.CounterStallInterconnect, sm, float64(s.Interconnect))
		add(trace.CounterStallScoreboard, sm, float64(s.Scoreboard))
		add(trace.CounterStallMemory, sm, float64(s.Memory))
		add(trace.CounterStallFence, sm, float64(s.Fence))
		add(trace.CounterStallBarrier, sm, float64(s.Barrier))
		add(trace.CounterStallNoWarp, sm, float64(s.NoWarp))
	}
	stalls(r.Stalls, -1)
	for i, s := range r.SMs {
		stalls(s.Stalls, i)
	}
	add(trace.CounterDRAMBytesRead, -1, float64(r.DRAM.BytesRead))
	add(trace.CounterDRAMBytesWritten, -1, float64(r.DRAM.BytesWritten))
	return out
}

// Bundle returns the run-bundle input of an instrumented launch: its raw
// trace buffer, the manifest, meta (completed with the launch geometry and,
// for a timed launch, the model's name, clock, SM count and cycles), the
// ground truth and the model counters. spec may be nil (functional run).
func (lr *LaunchResult) Bundle(m *manifest.Manifest, spec *model.Spec, meta trace.RunMeta) (*trace.BundleInput, error) {
	if lr.Trace == nil {
		return nil, fmt.Errorf("launch %d (%s) is not instrumented", lr.Index, lr.Kernel)
	}
	for i := 0; i < 3; i++ {
		meta.Grid[i], meta.Block[i] = uint32(lr.Grid[i]), uint32(lr.Block[i])
	}
	if meta.Arch == "" {
		meta.Arch = m.Target
	}
	if spec != nil && lr.Timing != nil {
		meta.Source = "model"
		meta.Device = "model:" + spec.Name
		meta.ClockHz = float64(spec.CoreMHz) * 1e6
		meta.NumSMs = spec.NumSMs
		meta.TotalCycles = uint64(lr.Timing.Cycles)
		// the model's fence latency, for the probe cost of fence probes
		// in report's decomposition (analysis.PostCost)
		labels := make(map[string]string, len(meta.Labels)+1)
		for k, v := range meta.Labels {
			labels[k] = v
		}
		labels[FenceLatencyLabel] = strconv.Itoa(spec.SM.FenceLatency)
		meta.Labels = labels
	}
	meta.Transfers = append([]trace.Transfer(nil), lr.Transfers...)
	return &trace.BundleInput{Raw: lr.Trace.Data, Manifest: m, Kernel: lr.Kernel, Meta: meta,
		Truth: lr.Truth(), Counters: lr.Counters()}, nil
}
