package accuracy

import (
	"math"
	"sort"

	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/trace"
)

// Ground truth of run-time paired cp.async regions (probe mode group_seq).
//
// Such a region times a copy from its issue to the exit of the first
// cp.async wait that covers its group. The truth is computed from the
// model alone, independently of the records and of the decoder's pairing:
// an observer of the model's issue events records, per warp, the cycles
// its cp.async.commit_group, wait_group N and wait_all issued (the model
// lowers them as AsyncCommit / AsyncWait instructions); the model's ground
// truth gives each probed copy's issue and completion. By the PTX ISA a
// copy belongs to the group numbered by the commits its warp issued before
// it (wait_all commits too), and wait_group N completes every group below
// (commits − N). So each copy has
//
//   - its closing wait: the first wait issued after the copy whose count
//     exceeds the copy's group; the observed completion is the cycle that
//     wait issued (the model issues a wait once the copies it waits for
//     have completed: max(the warp's arrival, their completion)), and the
//     region's true value is that cycle − the copy's issue (TrueMean);
//   - the completion the wait waits for: the latest completion of the
//     warp's probed copies issued before that wait in the groups it covers
//     − the copy's issue (LatMean).
//
// Where the pipeline hides the copy's latency (the warp reaches the wait
// after the copies completed; Hidden, Slack) no probe at the program's own
// wait can see the completion: the measured time is then the observed one,
// an upper bound of the copy's latency. LatErr is the error against the
// latency over the other regions (the wait stalled for the copy).

// asyncEvent is a cp.async commit or wait issued by a warp.
type asyncEvent struct {
	cycle  model.Time
	commit bool // the instruction commits a group (commit_group, wait_all)
	wait   bool
	keep   int // wait_group N; wait_all: 0 after its commit
}

// asyncRecorder records the cp.async commits and waits per warp (linear
// CTA, warp in CTA).
type asyncRecorder struct {
	model.BaseObserver
	events map[[2]int][]asyncEvent
}

func (r *asyncRecorder) Issue(e model.IssueEvent) {
	in := e.Inst
	if in == nil || e.Active == 0 || !in.AsyncCommit && !(in.AsyncWait && in.AsyncKeep >= 0) {
		return // mbarrier waits neither commit nor keep groups
	}
	ev := asyncEvent{cycle: e.Cycle, commit: in.AsyncCommit, wait: in.AsyncWait, keep: max(in.AsyncKeep, 0)}
	k := [2]int{e.CTA, e.Warp}
	r.events[k] = append(r.events[k], ev)
}

func (r *asyncRecorder) ObservesMem() bool { return false }

// asyncObserver attaches an asyncRecorder to every SM when man has
// group_seq probes (else observe is nil); events merges their records.
func asyncObserver(man *manifest.Manifest) (observe func(part int) model.Observer, events func() map[[2]int][]asyncEvent) {
	has := false
	for _, k := range man.Kernels {
		for _, p := range k.Probes {
			has = has || p.Mode == manifest.ModeGroupSeq
		}
	}
	if !has {
		return nil, func() map[[2]int][]asyncEvent { return nil }
	}
	var recs []*asyncRecorder
	observe = func(part int) model.Observer {
		if part == model.MemorySide {
			return nil
		}
		r := &asyncRecorder{events: map[[2]int][]asyncEvent{}}
		recs = append(recs, r) // called on Run's goroutine before the first cycle
		return r
	}
	events = func() map[[2]int][]asyncEvent {
		out := map[[2]int][]asyncEvent{}
		for _, r := range recs {
			for k, v := range r.events {
				out[k] = append(out[k], v...) // a warp runs on one SM
			}
		}
		for _, v := range out {
			sort.SliceStable(v, func(i, j int) bool { return v[i].cycle < v[j].cycle })
		}
		return out
	}
	return observe, events
}

// copyTruth is the truth of one probed copy: issue, the closing wait's
// issue (0: none) and the completion of the groups that wait covers.
type copyTruth struct {
	issue, wait, done uint64
}

// pipelineTruth computes copyTruth for every truth access of a group_seq
// begin probe (keyed like measureMode's truth map: warp, probe, instance)
// from the warp's commit and wait events.
func pipelineTruth(truth map[[3]uint32]trace.TruthAccess, groupSeq map[uint32]bool, events map[[2]int][]asyncEvent, wpc uint32) map[[3]uint32]copyTruth {
	type cp struct {
		key             [3]uint32
		issue, complete uint64
		group           int
	}
	byWarp := map[uint32][]cp{}
	for k, a := range truth {
		if groupSeq[k[1]] {
			byWarp[k[0]] = append(byWarp[k[0]], cp{key: k, issue: a.Issue, complete: a.Complete})
		}
	}
	out := map[[3]uint32]copyTruth{}
	for w, cps := range byWarp {
		evs := events[[2]int{int(w / wpc), int(w % wpc)}]
		// a copy's group: the commits issued before it
		for i := range cps {
			for _, e := range evs {
				if e.commit && uint64(e.cycle) < cps[i].issue {
					cps[i].group++
				}
			}
		}
		for _, c := range cps {
			t := copyTruth{issue: c.issue}
			commits := 0
			for _, e := range evs {
				if e.commit {
					commits++
				}
				if !e.wait || uint64(e.cycle) <= c.issue || commits-e.keep <= c.group {
					continue
				}
				t.wait = uint64(e.cycle)
				for _, d := range cps {
					if d.issue < t.wait && d.group < commits-e.keep {
						t.done = max(t.done, d.complete)
					}
				}
				break
			}
			out[c.key] = t
		}
	}
	return out
}

// pipeSums accumulates the latency side of group_seq regions.
type pipeSums struct {
	n, exposed    int
	lat, slack    float64
	latTV, latNet float64
}

// add accounts one region: latency truth lat, observed truth obs (both
// cycles from the copy's issue), measured m, issue wait iw, post cost post.
func (p *pipeSums) add(lat, obs, m, iw, post float64) {
	p.n++
	p.lat += lat
	if obs > lat+1 {
		p.slack += obs - lat
		return
	}
	p.exposed++
	p.latTV += lat
	p.latNet += math.Abs(m - iw - lat - post)
}

func (p *pipeSums) fill(s *Stat) {
	if p.n == 0 {
		return
	}
	s.LatMean = p.lat / float64(p.n)
	s.Hidden = float64(p.n-p.exposed) / float64(p.n)
	if p.n > p.exposed {
		s.Slack = p.slack / float64(p.n-p.exposed)
	}
	s.LatErr = math.NaN() // no region whose wait stalled for the copy
	if p.latTV > 0 {
		s.LatErr = p.latNet / p.latTV
	}
}
