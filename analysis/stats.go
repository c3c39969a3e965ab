package analysis

import (
	"math"

	"github.com/ptxtrace/ptxtrace/internal/stats"

	"github.com/ptxtrace/ptxtrace/trace"
)

// Pearson returns the sample correlation coefficient of xs and ys (paired by
// index; the longer slice is cut). ok is false with fewer than two pairs,
// when either variable is constant, or when a value is NaN or infinite.
// It is internal/stats.Pearson, the same function the charts use.
func Pearson(xs, ys []float64) (r float64, ok bool) { return stats.Pearson(xs, ys) }

// Model is what the demo and the sweep read from the model counters of a
// run (docs/launch.md lists the counters).
type Model struct {
	Cycles     float64 // kernel.cycles
	IPC        float64 // kernel.ipc
	TexHitRate float64 // tex.hit_rate (NaN when the counter is absent)
	L1HitRate  float64 // l1d.hit_rate
	L2HitRate  float64 // l2.hit_rate
	TexHits    float64
	TexMisses  float64
}

// Counter returns the whole-GPU (sm −1) value of the counter name.
func Counter(cs []trace.Counter, name string) (float64, bool) {
	for _, c := range cs {
		if c.Name == name && c.SM == -1 {
			return c.Value, true
		}
	}
	return math.NaN(), false
}

// ModelOf extracts Model from counters; missing counters are NaN.
func ModelOf(cs []trace.Counter) Model {
	get := func(n string) float64 { v, _ := Counter(cs, n); return v }
	return Model{Cycles: get(trace.CounterKernelCycles), IPC: get(trace.CounterKernelIPC), TexHitRate: get(trace.CounterTexHitRate),
		L1HitRate: get(trace.CounterL1DHitRate), L2HitRate: get(trace.CounterL2HitRate), TexHits: get(trace.CounterTexHits), TexMisses: get(trace.CounterTexMisses)}
}

// FrameRate is the frames per second of one kernel launch of cycles cycles
// at clockHz (the seed's FR, one launch per frame); 0 when undefined.
func FrameRate(cycles, clockHz float64) float64 {
	if cycles <= 0 || clockHz <= 0 || math.IsNaN(cycles) {
		return 0
	}
	return clockHz / cycles
}
