package accuracy

import (
	"encoding/binary"
	"math"

	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/trace"
)

// Ground truth of run-time paired cp.async regions (probe mode group_seq).
//
// Such a region times a copy from its issue to the exit of the first
// cp.async wait that covers its group. Two true values come from the model:
//
//   - the observed completion: the cycle the closing wait issued (the model
//     issues a wait once the copies it waits for have completed, so it is
//     max(arrival of the warp at the wait, completion)), recorded by an
//     observer of the model's issue events on the waits' lines; the region's
//     true value is that cycle − the copy's issue (TrueMean);
//   - the completion itself: the latest completion of the warp's copies in
//     the groups the wait covers (groupCompletion) − the copy's issue
//     (LatMean).
//
// Where the pipeline hides the copy's latency (the warp reaches the wait
// after the copies completed; Hidden, Slack) no probe at the program's own
// wait can see the completion: the measured time is then the observed one,
// an upper bound of the copy's latency. LatErr is the error against the
// latency over the other regions (the wait stalled for the copy).

// waitRecorder records the issue cycles of the instructions on the given
// output lines (the cp.async waits) per warp (linear CTA, warp in CTA).
type waitRecorder struct {
	model.BaseObserver
	lines  map[int]bool
	issues map[[2]int][]model.Time
}

func (w *waitRecorder) Issue(e model.IssueEvent) {
	if e.Inst != nil && w.lines[e.Inst.Line] {
		k := [2]int{e.CTA, e.Warp}
		w.issues[k] = append(w.issues[k], e.Cycle)
	}
}

func (w *waitRecorder) ObservesMem() bool { return false }

// waitObserver attaches a waitRecorder to every SM for the group_seq end
// probes of man (nil when it has none); waits merges their records.
func waitObserver(man *manifest.Manifest) (observe func(part int) model.Observer, waits func() map[[2]int][]model.Time) {
	lines := map[int]bool{}
	for _, k := range man.Kernels {
		for _, p := range k.Probes {
			if p.Mode == manifest.ModeGroupSeq && p.Kind == manifest.KindEnd {
				lines[p.OutLine] = true
			}
		}
	}
	if len(lines) == 0 {
		return nil, func() map[[2]int][]model.Time { return nil }
	}
	var recs []*waitRecorder
	observe = func(part int) model.Observer {
		if part == model.MemorySide {
			return nil
		}
		r := &waitRecorder{lines: lines, issues: map[[2]int][]model.Time{}}
		recs = append(recs, r) // called on Run's goroutine before the first cycle
		return r
	}
	waits = func() map[[2]int][]model.Time {
		out := map[[2]int][]model.Time{}
		for _, r := range recs {
			for k, v := range r.issues {
				out[k] = append(out[k], v...) // a warp runs on one SM
			}
		}
		return out
	}
	return observe, waits
}

// waitOrdinals maps, per warp segment, the record index of each group_seq
// end record to its ordinal among them (the k-th such record is written
// after the warp's k-th wait), read from the raw buffer.
func waitOrdinals(raw []byte, man *manifest.Manifest, k *manifest.Kernel, segs []trace.Warp) map[[2]uint32]int {
	end := map[uint32]bool{}
	for _, p := range k.Probes {
		if p.Mode == manifest.ModeGroupSeq && p.Kind == manifest.KindEnd {
			end[p.ID] = true
		}
	}
	out := map[[2]uint32]int{}
	if len(end) == 0 {
		return out
	}
	sb := man.Buffer.SegmentBytes
	for _, w := range segs {
		n := 0
		for i := uint32(0); i < w.Stored; i++ {
			off := manifest.HeaderBytes + int(w.Segment)*sb + manifest.SegmentHeaderBytes + int(i)*manifest.RecordBytes
			if off+4 > len(raw) {
				break
			}
			if end[binary.LittleEndian.Uint32(raw[off:])] {
				out[[2]uint32{w.Segment, i}] = n
				n++
			}
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
	d := m - iw - lat - post
	if d < 0 {
		d = -d
	}
	p.latNet += d
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
