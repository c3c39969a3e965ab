package launch

import (
	"fmt"

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
			Issue: uint64(p.Issue), Complete: uint64(p.Complete)})
	}
	return out
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
	add("kernel.cycles", -1, float64(r.Cycles))
	add("kernel.warp_insts", -1, float64(r.WarpInsts))
	add("kernel.thread_insts", -1, float64(r.ThreadInsts))
	add("kernel.ipc", -1, r.IPC)
	add("kernel.ctas", -1, float64(r.CTAs))
	for i, s := range r.SMs {
		add("sm.active_cycles", i, float64(s.ActiveCycles))
	}
	for i, s := range r.SMs {
		ipc := 0.0
		if s.ActiveCycles > 0 {
			ipc = float64(s.WarpInsts) / float64(s.ActiveCycles)
		}
		add("sm.ipc", i, ipc)
	}
	for _, c := range []struct {
		name string
		s    model.CacheStats
	}{{"l1d", r.L1D}, {"tex", r.Tex}, {"const", r.Const}, {"l2", r.L2}} {
		rate := 0.0
		if c.s.Hits+c.s.Misses > 0 {
			rate = float64(c.s.Hits) / float64(c.s.Hits+c.s.Misses)
		}
		add(c.name+".hit_rate", -1, rate)
		add(c.name+".hits", -1, float64(c.s.Hits))
		add(c.name+".misses", -1, float64(c.s.Misses))
	}
	stalls := func(s model.Stalls, sm int) {
		add("stall.pipeline", sm, float64(s.Pipeline))
		add("stall.interconnect", sm, float64(s.Interconnect))
		add("stall.scoreboard", sm, float64(s.Scoreboard))
		add("stall.memory", sm, float64(s.Memory))
		add("stall.fence", sm, float64(s.Fence))
		add("stall.barrier", sm, float64(s.Barrier))
		add("stall.no_warp", sm, float64(s.NoWarp))
	}
	stalls(r.Stalls, -1)
	for i, s := range r.SMs {
		stalls(s.Stalls, i)
	}
	add("dram.bytes_read", -1, float64(r.DRAM.BytesRead))
	add("dram.bytes_written", -1, float64(r.DRAM.BytesWritten))
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
	}
	return &trace.BundleInput{Raw: lr.Trace.Data, Manifest: m, Kernel: lr.Kernel, Meta: meta,
		Truth: lr.Truth(), Counters: lr.Counters()}, nil
}
