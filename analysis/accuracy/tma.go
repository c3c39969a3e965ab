package accuracy

import (
	"fmt"
	"sort"
	"sync"

	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/replay"
	"github.com/ptxtrace/ptxtrace/trace"
)

// Ground truth of run-time paired TMA regions (probe mode phase_seq).
//
// Such a region times a TMA or bulk copy from its issue to the exit of the
// first wait loop on its mbarrier that observed the copy's phase complete.
// The truth is computed without the probes' records or the decoder's
// pairing rule: replay reports every copy it executes with the barrier it
// signals and the parity of that barrier's phase at the copy's issue (read
// from the barrier itself, replay.Kernel.ObserveMbarrier), and every
// mbarrier wait with its barrier, the parity it asked about and its
// answer; an observer of the model's issue events records the cycle each
// mbarrier wait issued (the model lowers them as AsyncWait instructions
// that neither commit nor keep groups). Per warp the k-th wait replay
// executed is the k-th the model issued, and the k-th phase_seq copy (by
// the instruction's probe id) is the warp's k-th executed copy of the
// ground truth (issue and completion). So each
// copy has
//
//   - its closing wait: the first wait of its warp after it on its barrier
//     asking about its phase's parity that found the phase complete; the
//     observed completion is the cycle that wait issued and the region's
//     true value is that cycle − the copy's issue (TrueMean);
//   - the completion that wait waits for: the latest completion of the
//     copies the same wait closes − the copy's issue (LatMean).
//
// The model issues an mbarrier wait once every asynchronous copy its warp
// has in flight completed, those of other stages included, so a wait can
// observe more than its phase: such regions count as hidden (Slack).

// mbarRecorder records the issue cycles of the mbarrier waits per warp.
type mbarRecorder struct {
	model.BaseObserver
	waits map[[2]int][]model.Time
}

func (r *mbarRecorder) Issue(e model.IssueEvent) {
	in := e.Inst
	if in == nil || e.Active == 0 || !in.AsyncWait || in.AsyncCommit || in.AsyncKeep >= 0 {
		return
	}
	k := [2]int{e.CTA, e.Warp}
	r.waits[k] = append(r.waits[k], e.Cycle)
}

func (r *mbarRecorder) ObservesMem() bool { return false }

// mbarTruth gathers what phaseTruth needs during one run.
type mbarTruth struct {
	mu       sync.Mutex
	events   map[[2]int][]replay.MbarEvent
	recs     []*mbarRecorder
	launches int
}

// newMbarTruth returns nil when man has no phase_seq probes.
func newMbarTruth(man *manifest.Manifest) *mbarTruth {
	for _, k := range man.Kernels {
		for _, p := range k.Probes {
			if p.Mode == manifest.ModePhaseSeq {
				return &mbarTruth{events: map[[2]int][]replay.MbarEvent{}}
			}
		}
	}
	return nil
}

// onKernel attaches the replay hook (launch.ExecOptions.OnKernel).
func (t *mbarTruth) onKernel(k *replay.Kernel) {
	t.launches++
	k.ObserveMbarrier(func(e replay.MbarEvent) {
		t.mu.Lock()
		defer t.mu.Unlock()
		key := [2]int{e.CTA, e.Warp}
		t.events[key] = append(t.events[key], e) // a warp's events come in its program order
	})
}

// observe attaches an mbarRecorder to every SM.
func (t *mbarTruth) observe(part int) model.Observer {
	if part == model.MemorySide {
		return nil
	}
	r := &mbarRecorder{waits: map[[2]int][]model.Time{}}
	t.recs = append(t.recs, r) // called on Run's goroutine before the first cycle
	return r
}

// waits merges the recorders' wait cycles per warp.
func (t *mbarTruth) waits() map[[2]int][]model.Time {
	out := map[[2]int][]model.Time{}
	for _, r := range t.recs {
		for k, v := range r.waits {
			out[k] = append(out[k], v...) // a warp runs on one SM
		}
	}
	for _, v := range out {
		sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	}
	return out
}

// phaseTruth computes copyTruth for every executed copy of a phase_seq
// begin probe (keyed like measureMode's truth map: warp, probe, instance).
func (t *mbarTruth) phaseTruth(truth map[[3]uint32]trace.TruthAccess, phase map[uint32]bool, wpc uint32) (map[[3]uint32]copyTruth, error) {
	if t.launches != 1 {
		return nil, fmt.Errorf("phase_seq ground truth needs a spec of one launch (%d launches)", t.launches)
	}
	type cp struct {
		key             [3]uint32
		issue, complete uint64
	}
	byWarp := map[uint32][]cp{}
	for k, a := range truth {
		if phase[k[1]] {
			byWarp[k[0]] = append(byWarp[k[0]], cp{key: k, issue: a.Issue, complete: a.Complete})
		}
	}
	waits := t.waits()
	out := map[[3]uint32]copyTruth{}
	for w, cps := range byWarp {
		sort.Slice(cps, func(i, j int) bool { return cps[i].issue < cps[j].issue })
		key := [2]int{int(w / wpc), int(w % wpc)}
		evs, cyc := t.events[key], waits[key]
		var copies []int // event index of each copy
		var waitAt []int // wait number of each event (waits only)
		nw := 0
		for i, e := range evs {
			waitAt = append(waitAt, nw)
			switch {
			case e.Wait:
				nw++
			case e.Probe >= 0 && phase[uint32(e.Probe)]:
				copies = append(copies, i) // a phase_seq copy (others are probed otherwise, or not)
			}
		}
		if len(copies) != len(cps) || nw != len(cyc) {
			return nil, fmt.Errorf("warp %d: replay executed %d copies and %d mbarrier waits, the model issued %d probed copies and %d waits", w, len(copies), nw, len(cps), len(cyc))
		}
		closer := make([]int, len(cps)) // event index of each copy's closing wait, -1: none
		for i, ci := range copies {
			closer[i] = -1
			c := evs[ci]
			for j := ci + 1; j < len(evs); j++ {
				e := evs[j]
				if e.Wait && e.OK && e.Bar == c.Bar && e.Parity == c.Parity {
					closer[i] = j
					break
				}
			}
		}
		for i, c := range cps {
			ct := copyTruth{issue: c.issue}
			if j := closer[i]; j >= 0 {
				ct.wait = uint64(cyc[waitAt[j]])
				for k, d := range cps {
					if closer[k] == j {
						ct.done = max(ct.done, d.complete)
					}
				}
			}
			out[c.key] = ct
		}
	}
	return out, nil
}
