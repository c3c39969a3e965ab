package analysis

import (
	"sort"

	"github.com/ptxtrace/ptxtrace/trace"
)

// Decomposition splits the mean measured duration of load regions with
// ground truth and probe-pair stamps (trace.Region.TruthBegin/TruthEnd,
// model runs) into its parts, in cycles:
//
//	Measured = IssueWait + True + PostWait
//
// IssueWait is from the begin timer read to the access's issue (operands,
// scheduling: not memory time), True from issue to data ready, PostWait
// from data ready to the end timer read. Of PostWait, Cost is the probe's
// documented cost (Options.PostCost; nil when unknown) and Excess the rest
// (scheduling delay after completion).
type Decomposition struct {
	// Key is "space/mode" (Decompose.ByKind) or the source line as in
	// LineStats (Decompose.ByLine).
	Key       string   `json:"key"`
	Count     int      `json:"count"`
	Measured  float64  `json:"measured_cycles"`
	True      float64  `json:"true_cycles"`
	IssueWait float64  `json:"issue_wait_cycles"`
	PostWait  float64  `json:"post_wait_cycles"`
	Cost      *float64 `json:"probe_cost_cycles,omitempty"`
	Excess    *float64 `json:"post_excess_cycles,omitempty"`
}

// Decompose holds the decompositions of a trace's load regions.
type Decompose struct {
	ByKind []Decomposition `json:"by_kind"` // sorted by key
	ByLine []Decomposition `json:"by_line"` // sorted by key
}

type decAcc struct {
	n                       int
	meas, truth, wait, post float64
	cost                    float64
	hasCost                 bool
}

type decomposer struct {
	cost   func(mode string) (float64, bool)
	byKind map[string]*decAcc
	byLine map[string]*decAcc
}

// add accounts r when it is a load region with truth and both stamps, on a
// cycle timer (the stamps are cycles).
func (d *decomposer) add(h *trace.Header, r *trace.Region) {
	if !r.HasTruth || r.Info == nil || !r.Info.Memory() || r.TruthBegin == 0 || r.TruthEnd == 0 ||
		r.TruthBegin > r.TruthIssue || h.Timer == trace.TimerGlobaltimer {
		return
	}
	var cost float64
	has := false
	if d.cost != nil {
		cost, has = d.cost(r.Info.Mode)
	}
	m, t, w := float64(r.Cycles), float64(r.TruthComplete-r.TruthIssue), float64(r.TruthIssue-r.TruthBegin)
	for _, k := range []struct {
		m   map[string]*decAcc
		key string
	}{{d.byKind, r.Info.Space + "/" + r.Info.Mode}, {d.byLine, sourceOf(r.Info)}} {
		a := k.m[k.key]
		if a == nil {
			a = &decAcc{hasCost: true}
			k.m[k.key] = a
		}
		a.n++
		a.meas += m
		a.truth += t
		a.wait += w
		a.post += m - w - t
		a.cost += cost
		a.hasCost = a.hasCost && has
	}
}

func (d *decomposer) result() *Decompose {
	if len(d.byKind) == 0 {
		return nil
	}
	return &Decompose{ByKind: decList(d.byKind), ByLine: decList(d.byLine)}
}

func decList(m map[string]*decAcc) []Decomposition {
	out := make([]Decomposition, 0, len(m))
	for k, a := range m {
		n := float64(a.n)
		dc := Decomposition{Key: k, Count: a.n, Measured: a.meas / n, True: a.truth / n, IssueWait: a.wait / n, PostWait: a.post / n}
		if a.hasCost {
			c := a.cost / n
			e := dc.PostWait - c
			dc.Cost, dc.Excess = &c, &e
		}
		out = append(out, dc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// PostCost is the documented probe cost after completion for a probe mode
// (docs/instrument.md, docs/model.md "Probe cost"): dummy 1 cycle (the
// consumer issues when the loaded register is written, the end timer read
// the next cycle), fence the model's fence latency, naive 0; an async copy's
// wait_group probe the fence latency too (an mbarrier probe also pays the
// branch latency, which this signature cannot know: not given). The remaining
// cycle of the documented own cost (1 + fence latency, 2) is the minimum
// issue wait, counted in IssueWait.
func PostCost(mode string, fenceLatency int) (float64, bool) {
	switch mode {
	case "dummy":
		return 1, true
	case "fence", "wait_group": // wait_group: an async copy ended by the program's cp.async wait (a fence for the model)
		return float64(fenceLatency), true
	case "naive":
		return 0, true
	}
	return 0, false
}
