package web

import (
	"fmt"
	"slices"
	"sort"

	"github.com/ptxtrace/ptxtrace/trace"
)

// Activity rows (Node.Level "act") draw the model's recorded activity
// (trace.Activity, the bundle's optional ACTV chunk) beside the warps:
//
//   - Track "power", per SM: the core's state over time. Active while a
//     CTA is resident (the core's busy runs), otherwise idle; an idle
//     interval of at least the break-even time (BET, a query parameter)
//     is "gated" under ideal power gating (docs/power.md), a shorter one
//     stays "idle". On the GPU row the same runs give the number of SMs
//     with a resident CTA.
//   - Track "unit", per SM and unit kind: busy unit instances and busy
//     lanes, from the activity's series (power-of-two buckets); on the GPU
//     row summed over the SMs.
//   - Track "issue", per SM: issue slots used (warp-instructions issued
//     out of schedulers × cycles) and their active threads (out of 32 per
//     slot); Track "stall", per SM and stall reason (Unit): scheduler-cycles
//     stalled for that reason out of schedulers × cycles. Same buckets.
//
// Activity times are model cycles from the launch's start, the axis of a
// model run's %clock/%clock64 regions; other runs get a note instead.

// DefaultBET is the break-even time, in cycles, of the power rows when a
// query does not name one: the seed's SIMD BET (docs/power.md).
const DefaultBET = 100

// actData is the activity of a run in query form.
type actData struct {
	cycles int64
	width  int64 // series bucket width
	units  []string
	// core runs and their prefix sums of length, per SM.
	runs map[int][][2]int64
	pre  map[int][]int64
	// series per SM and unit kind: unit and lane busy cycles per bucket,
	// and the kind's instances and lanes.
	series map[actKey]*trace.ActivitySeries
	sms    []int
	// schedulers per SM (same buckets), and the stall reasons that occur
	// anywhere, sorted
	sched   map[int]*trace.ActivitySched
	reasons []string
}

type actKey struct {
	sm   int
	unit string
}

// placeActivity indexes a, or says why it cannot be drawn.
func placeActivity(h *trace.Header) (*actData, string) {
	a := h.Activity
	if a == nil {
		return nil, ""
	}
	if h.Meta.Source != "model" || !h.Timer.PerSM() {
		return nil, "activity not drawn: its model cycles share an axis only with a model run's %clock/%clock64 timestamps"
	}
	d := &actData{cycles: int64(a.Cycles), width: int64(a.SeriesWidth), runs: map[int][][2]int64{}, pre: map[int][]int64{}, series: map[actKey]*trace.ActivitySeries{}}
	seen := map[int]bool{}
	for i := range a.Blocks {
		b := &a.Blocks[i]
		if b.Level != trace.LevelCore {
			continue
		}
		seen[b.SM] = true
		rs := make([][2]int64, len(b.Runs))
		pre := make([]int64, len(b.Runs)+1)
		for j, r := range b.Runs {
			rs[j] = [2]int64{int64(r[0]), int64(r[1])}
			pre[j+1] = pre[j] + rs[j][1] - rs[j][0]
		}
		d.runs[b.SM], d.pre[b.SM] = rs, pre
	}
	kinds := map[string]bool{}
	for i := range a.Series {
		s := &a.Series[i]
		if s.Units == 0 {
			continue
		}
		d.series[actKey{s.SM, s.Unit}] = s
		seen[s.SM] = true
		if !kinds[s.Unit] {
			kinds[s.Unit] = true
			d.units = append(d.units, s.Unit)
		}
	}
	d.sched = map[int]*trace.ActivitySched{}
	rs := map[string]bool{}
	for i := range a.Sched {
		sc := &a.Sched[i]
		d.sched[sc.SM] = sc
		seen[sc.SM] = true
		for r, v := range sc.Stalls {
			if !rs[r] && slices.ContainsFunc(v, func(x uint64) bool { return x > 0 }) {
				rs[r] = true
				d.reasons = append(d.reasons, r)
			}
		}
	}
	sort.Strings(d.reasons)
	for sm := range seen {
		d.sms = append(d.sms, sm)
	}
	sort.Ints(d.sms)
	return d, ""
}

// actNodes appends the activity rows of SM sm (−1: the GPU) under parent.
func (ix *Index) actNodes(parent, sm int) {
	d := ix.act
	if d == nil {
		return
	}
	add := func(track, unit, label string) {
		ix.Nodes = append(ix.Nodes, Node{ID: len(ix.Nodes), Parent: parent, Level: "act", Label: label, Track: track, Unit: unit, SM: sm,
			Lo: ix.Nodes[parent].Lo, Hi: ix.Nodes[parent].Lo})
	}
	if sm < 0 {
		add("power", "", fmt.Sprintf("SMs with a CTA (of %d)", len(d.runs)))
		for _, u := range d.units {
			n, l := 0, 0
			for _, s := range d.sms {
				if x := d.series[actKey{s, u}]; x != nil {
					n, l = n+x.Units, l+x.Lanes
				}
			}
			add("unit", u, fmt.Sprintf("%s busy (%d units, %d lanes)", u, n, l))
		}
		if len(d.sched) > 0 {
			n := 0
			for _, sc := range d.sched {
				n += sc.Schedulers
			}
			add("issue", "", fmt.Sprintf("issue slots used (%d schedulers)", n))
			for _, r := range d.reasons {
				add("stall", r, "stalled: "+r)
			}
		}
		return
	}
	if _, ok := d.runs[sm]; ok {
		add("power", "", "power state")
	}
	for _, u := range d.units {
		if x := d.series[actKey{sm, u}]; x != nil {
			add("unit", u, fmt.Sprintf("%s busy (%d units, %d lanes)", u, x.Units, x.Lanes))
		}
	}
	if sc := d.sched[sm]; sc != nil {
		add("issue", "", fmt.Sprintf("issue slots used (%d schedulers)", sc.Schedulers))
		for _, r := range d.reasons {
			if v := sc.Stalls[r]; slices.ContainsFunc(v, func(x uint64) bool { return x > 0 }) {
				add("stall", r, "stalled: "+r)
			}
		}
	}
}

// ActBucket is an activity aggregate over [T0, T1): Busy unit-cycles (or
// SM-cycles with a resident CTA on a power row), Lanes busy lane-cycles,
// out of Cap unit-cycles (or SM-cycles) and LaneCap lane-cycles.
type ActBucket struct {
	T0, T1       int64
	Busy, Lanes  int64
	Cap, LaneCap int64
}

// State is one interval of an SM's power state.
type State struct {
	Start, End int64
	State      string // "active", "idle" (shorter than the BET) or "gated"
}

// actTile answers an activity row over [t0, t1) at px pixels.
func (ix *Index) actTile(n *Node, t0, t1 int64, px int, bet int64) Tile {
	t := Tile{Node: n.ID, Mode: "activity"}
	d := ix.act
	t0, t1 = max(t0, 0), min(t1, d.cycles)
	if t0 >= t1 {
		return t
	}
	if n.Track == "power" {
		if n.SM >= 0 {
			if st := d.states(n.SM, t0, t1, bet); len(st) <= px {
				t.Mode, t.States = "states", st
				return t
			}
		}
		sms := d.sms
		if n.SM >= 0 {
			sms = []int{n.SM}
		}
		for k := 0; k < px; k++ {
			a, b := edge(t0, t1, k, px), edge(t0, t1, k+1, px)
			if a == b {
				continue
			}
			ab := ActBucket{T0: a, T1: b}
			for _, sm := range sms {
				if _, ok := d.runs[sm]; ok {
					ab.Busy += d.active(sm, a, b)
					ab.Cap += b - a
				}
			}
			t.Act = append(t.Act, ab)
		}
		return t
	}
	// Unit rows: series buckets grouped by a power of two g so that a
	// group is at least one pixel wide; edges are the groups' own.
	g := int64(1)
	for g*d.width*int64(px) < t1-t0 {
		g *= 2
	}
	w := g * d.width
	for a := t0 / w * w; a < t1; a += w {
		b := min(a+w, d.cycles)
		ab := ActBucket{T0: a, T1: b}
		for _, sm := range d.sms {
			if n.SM >= 0 && sm != n.SM {
				continue
			}
			if n.Track == "issue" || n.Track == "stall" {
				sc := d.sched[sm]
				if sc == nil {
					continue
				}
				for i := a / d.width; i < (a+w)/d.width && i < int64(len(sc.Issued)); i++ {
					if n.Track == "issue" {
						ab.Busy += int64(sc.Issued[i])
						ab.Lanes += int64(sc.Threads[i])
					} else if v := sc.Stalls[n.Unit]; v != nil {
						ab.Busy += int64(v[i])
					}
				}
				ab.Cap += int64(sc.Schedulers) * (b - a)
				if n.Track == "issue" {
					ab.LaneCap += 32 * int64(sc.Schedulers) * (b - a)
				}
				continue
			}
			s := d.series[actKey{sm, n.Unit}]
			if s == nil {
				continue
			}
			for i := a / d.width; i < (a+w)/d.width && i < int64(len(s.UnitCycles)); i++ {
				ab.Busy += int64(s.UnitCycles[i])
				ab.Lanes += int64(s.LaneCycles[i])
			}
			ab.Cap += int64(s.Units) * (b - a)
			ab.LaneCap += int64(s.Lanes) * (b - a)
		}
		t.Act = append(t.Act, ab)
	}
	return t
}

// active is the number of cycles of [a, b) in which SM sm has a CTA.
func (d *actData) active(sm int, a, b int64) int64 {
	return d.activeBefore(sm, b) - d.activeBefore(sm, a)
}

// activeBefore is the number of active cycles of SM sm before t.
func (d *actData) activeBefore(sm int, t int64) int64 {
	rs, pre := d.runs[sm], d.pre[sm]
	i := sort.Search(len(rs), func(i int) bool { return rs[i][1] > t }) // first run ending after t
	v := pre[i]
	if i < len(rs) && rs[i][0] < t {
		v += t - rs[i][0]
	}
	return v
}

// states lists SM sm's power states overlapping [t0, t1), unclipped: the
// busy runs and the idle intervals between them (before the first, after
// the last), each idle one "gated" when at least bet cycles long.
func (d *actData) states(sm int, t0, t1, bet int64) []State {
	var out []State
	add := func(s, e int64, st string) {
		if s < e && e > t0 && s < t1 {
			out = append(out, State{s, e, st})
		}
	}
	idle := func(s, e int64) {
		if e-s >= bet {
			add(s, e, "gated")
		} else {
			add(s, e, "idle")
		}
	}
	prev := int64(0)
	for _, r := range d.runs[sm] {
		if r[1] <= t0 {
			prev = r[1]
			continue
		}
		if prev >= t1 {
			break
		}
		idle(prev, r[0])
		add(r[0], r[1], "active")
		prev = r[1]
	}
	if prev < t1 {
		idle(prev, d.cycles)
	}
	return out
}
