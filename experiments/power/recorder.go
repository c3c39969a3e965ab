package power

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/ptxtrace/ptxtrace/model"
)

// unitSpecs lists the unit kinds of s in model.UnitKind order.
func unitSpecs(s *model.Spec) [model.NumUnitKinds]model.UnitSpec {
	u := &s.SM.Units
	return [model.NumUnitKinds]model.UnitSpec{u.SP, u.INT, u.DP, u.SFU, u.Tensor, u.LdSt, u.Branch}
}

// laneMap tells, for one unit kind, which threads of a warp each lane runs
// in each pass: masks[lane][pass].
type laneMap struct {
	lanes, passes, clockMul int
	masks                   [][]uint32
}

// busyLanes returns the lanes (bit j = lane j) that run an active thread
// of mask in pass p.
func (lm *laneMap) busyLanes(mask uint32, p int) laneBits {
	var b uint64
	all := uint64(1)<<lm.lanes - 1
	for c := range lm.clockMul {
		if sh := p*lm.lanes*lm.clockMul + c*lm.lanes; sh < 32 {
			b |= uint64(mask>>sh) & all
		}
	}
	return laneBits(b)
}

// compactLanes returns the lanes busy in pass p when thread compaction
// packs n active threads onto the fewest lanes: k = ceil(n/(passes ×
// clockMul)) lanes, filled pass by pass, each lane taking clockMul threads
// per pass.
func (lm *laneMap) compactLanes(n, p int) laneBits {
	per := lm.passes * lm.clockMul
	k := (n + per - 1) / per
	r := min(n-p*k*lm.clockMul, k*lm.clockMul)
	if r <= 0 {
		return 0
	}
	l := (r + lm.clockMul - 1) / lm.clockMul
	return laneBits(uint64(1)<<l - 1)
}

// laneBits is a set of lanes.
type laneBits uint64

func (b laneBits) TrailingZeros64() int { return bits.TrailingZeros64(uint64(b)) }

func newLaneMap(u model.UnitSpec) laneMap {
	m := max(u.ClockMul, 1)
	per := u.Lanes * m
	passes := (32 + per - 1) / per
	lm := laneMap{lanes: u.Lanes, passes: passes, clockMul: m, masks: make([][]uint32, u.Lanes)}
	for j := range u.Lanes {
		lm.masks[j] = make([]uint32, passes)
		for p := range passes {
			for c := range m {
				if t := p*per + c*u.Lanes + j; t < 32 {
					lm.masks[j][p] |= 1 << t
				}
			}
		}
	}
	return lm
}

// Recorder collects the activity of one model.Run. Attach it with
// Options.Observe = r.Observe, then call Finish with the run's cycle count.
// A Recorder is used for one run only.
type Recorder struct {
	// Compact records lanes as thread compaction (seed §3.2.2, Fig. 14)
	// would use them: each instruction's active threads packed onto the
	// lowest threads of the warp (so onto the lowest lanes), the rest
	// idle. Timing is unchanged (the seed assumes no slowdown). Set it
	// before the run.
	Compact bool
	spec    *model.Spec
	lanes   [model.NumUnitKinds]laneMap
	half    [model.NumUnitKinds]laneMap // split issues: the lower half lanes
	sms     []*smRecorder
}

// NewRecorder returns a recorder for runs on spec (which must be valid).
func NewRecorder(spec *model.Spec) *Recorder {
	r := &Recorder{spec: spec, sms: make([]*smRecorder, spec.NumSMs)}
	for k, u := range unitSpecs(spec) {
		if u.Count > 0 && u.Lanes > 0 {
			r.lanes[k] = newLaneMap(u)
			if u.Lanes%2 == 0 {
				h := u
				h.Lanes /= 2
				r.half[k] = newLaneMap(h)
			}
		}
	}
	return r
}

// Observe is the Options.Observe function: one observer per SM, none for
// the memory side.
func (r *Recorder) Observe(part int) model.Observer {
	if part < 0 || part >= len(r.sms) {
		return nil
	}
	s := &smRecorder{r: r, sm: part, core: newTrack(true)}
	col := 2 // issued, threads
	for k, u := range unitSpecs(r.spec) {
		if u.Count > 0 {
			s.ucol[k] = col
			col += 2
		}
		for range u.Count {
			ls := make([]track, r.lanes[k].lanes)
			s.lanes[k] = append(s.lanes[k], ls)
			s.units[k] = append(s.units[k], instRec{g: laneGroup{sync: true, full: laneBits(uint64(1)<<len(ls) - 1)}})
		}
	}
	s.scol = col
	s.tab.cols = col + int(model.NumStallReasons)
	r.sms[part] = s
	return s
}

// smRecorder is one SM's observer.
type smRecorder struct {
	model.BaseObserver
	r        *Recorder
	sm       int
	resident int
	since    model.Time
	core     *track
	units    [model.NumUnitKinds][]instRec // [kind][instance]
	lanes    [model.NumUnitKinds][][]track // [kind][instance][lane], contiguous per instance
	// over time: issued warp-instructions (column 0) and their active
	// threads (1); busy unit cycles (ucol[kind]) and busy lane cycles
	// (ucol[kind]+1) of each kind with instances; stalled
	// scheduler-cycles by reason (scol+reason)
	tab       table
	ucol      [model.NumUnitKinds]int
	scol      int
	stallSeen uint32 // reasons with stalled cycles
	err       error
}

// ObservesMem is false: activity needs no memory events (model.MemFilter).
func (s *smRecorder) ObservesMem() bool { return false }

// ObservesIssue is false (model.IssueFilter): UnitBusy, sent once per
// issue with the issue's cycle and active lanes, counts the issues, so the
// model makes one call per issue.
func (s *smRecorder) ObservesIssue() bool { return false }

// Stall counts the scheduler's stalled cycles under their reason.
func (s *smRecorder) Stall(e model.StallEvent) {
	if e.Reason >= model.NumStallReasons || e.Sched < 0 || e.To <= e.From {
		return
	}
	s.stallSeen |= 1 << e.Reason
	c := s.scol + int(e.Reason)
	t := &s.tab
	// table.add1's fast path, written out (most stall events are one cycle)
	if i := uint64(e.From) >> t.shift; i < uint64(t.nv) && uint64(e.To-1)>>t.shift == i {
		if p := &t.v[int(i)*t.cols+c]; uint64(*p)+uint64(e.To-e.From) <= math.MaxUint32 {
			*p += uint32(e.To - e.From)
			return
		}
	}
	t.addSlow(e.From, e.To, c, 1, 0, false)
}

// instRec is one unit instance's track and its lanes' group, together so
// that an issue touches few cache lines.
type instRec struct {
	unit track
	g    laneGroup
}

func (s *smRecorder) CTAStart(e model.CTAEvent) {
	if s.resident == 0 {
		s.since = e.Cycle
	}
	s.resident++
}

func (s *smRecorder) CTAFinish(e model.CTAEvent) {
	s.resident--
	if s.resident == 0 {
		s.core.add(s.since, e.Cycle)
	}
	if s.resident < 0 && s.err == nil {
		s.err = fmt.Errorf("power: SM %d: CTA %d finished with no CTA resident", e.SM, e.CTA)
	}
}

// UnitBusy records one issue's unit occupancy.
func (s *smRecorder) UnitBusy(e model.UnitEvent) {
	if uint(e.Unit) >= uint(len(s.units)) || uint(e.Index) >= uint(len(s.units[e.Unit])) {
		if s.err == nil {
			s.err = fmt.Errorf("power: SM %d: unit %s instance %d not in the spec", e.SM, e.Unit, e.Index)
		}
		return
	}
	// the issue (UnitBusy is sent once per issue, from its cycle)
	threads := uint64(bits.OnesCount32(e.Active))
	uc := s.ucol[e.Unit]
	ir := &s.units[e.Unit][e.Index]
	ir.unit.put(e.From, e.To)
	lm := &s.r.lanes[e.Unit]
	if e.Split {
		lm = &s.r.half[e.Unit]
		if lm.lanes == 0 && s.err == nil {
			s.err = fmt.Errorf("power: SM %d: split issue on %s with an odd lane count", s.sm, e.Unit)
		}
	}
	g := &ir.g
	if lm.passes == 1 && !s.r.Compact {
		// every thread in the one pass (gtx480's sp and ldst)
		lb := lm.busyLanes(e.Active, 0)
		s.tab.issue(e.From, e.To, uc, threads, uint64(bits.OnesCount64(uint64(lb))))
		if lb == g.full && g.sync {
			g.t.put(e.From, e.To) // every lane alike: one update
			return
		}
		lanes := s.lanes[e.Unit][e.Index]
		if lb == g.full {
			// every lane busy: one update if the lanes have come to
			// agree, else one per lane, after which they may agree
			if !g.resync(lanes) {
				addLanes(lanes, lb, e.From, e.To)
				g.resync(lanes)
				return
			}
			g.t.put(e.From, e.To)
			return
		}
		g.desync(lanes)
		addLanes(lanes, lb, e.From, e.To)
		return
	}
	lanes := s.lanes[e.Unit][e.Index]
	g.desync(lanes)
	s.tab.issue(e.From, e.To, uc, threads, 0)
	occ := e.To - e.From
	P := model.Time(lm.passes)
	n := bits.OnesCount32(e.Active)
	for p := range lm.passes {
		var lb laneBits
		if s.r.Compact {
			lb = lm.compactLanes(n, p)
		} else {
			lb = lm.busyLanes(e.Active, p)
		}
		from, to := e.From+model.Time(p)*occ/P, e.From+model.Time(p+1)*occ/P
		s.tab.add(from, to, uc, 0, uint64(bits.OnesCount64(uint64(lb))))
		addLanes(lanes, lb, from, to)
	}
}

// put is add for a track that keeps no runs (keep false): a unit's or a
// lane group's, once per issue.
func (t *track) put(from, to model.Time) {
	switch {
	case to <= from:
	case from > t.cur:
		if n := uint64(from - t.cur); n < uint64(len(t.idle.small)) && t.idle.small[n] < math.MaxUint32 {
			t.idle.small[n]++ // histBuilder.add's fast path, written out
		} else {
			t.idle.addSlow(from-t.cur, 1)
		}
		t.from = from
		t.busy += to - from
		t.cur = to
	case to > t.cur:
		if t.cur == 0 {
			t.from = from
		}
		t.busy += to - t.cur
		t.cur = to
	}
}

// addLanes adds [from, to) to the tracks of the lanes in lb: track.add
// written out for tracks that keep no runs (a divergent issue updates up
// to a unit's every lane one by one; this loop is the recorder's hottest).
func addLanes(lanes []track, lb laneBits, from, to model.Time) {
	if to <= from {
		return
	}
	for lb != 0 {
		t := &lanes[lb.TrailingZeros64()]
		lb &= lb - 1
		switch {
		case from > t.cur:
			if n := uint64(from - t.cur); n < uint64(len(t.idle.small)) && t.idle.small[n] < math.MaxUint32 {
				t.idle.small[n]++ // histBuilder.add's fast path, written out
			} else {
				t.idle.addSlow(from-t.cur, 1)
			}
			t.from = from
			t.busy += to - from
			t.cur = to
		case to > t.cur:
			if t.cur == 0 {
				t.from = from
			}
			t.busy += to - t.cur
			t.cur = to
		}
	}
}

// laneGroup is the lanes of one unit instance. While sync is set, every
// lane's timeline since the group last synced is the same, kept once in t
// (the lanes' own tracks are stale): a warp-instruction with every lane
// active, the common case, costs one track update instead of one per
// lane. A partial mask desyncs the group (each lane continues from t's
// state on its own); once every lane's timeline has reached the same end
// (cur) the group resyncs, checked when every lane is busy. A lane's
// activity is its own track's plus t's (busy cycles and idle intervals
// are counted in whichever track saw the busy run that ended them).
//
// The lanes' last-run starts (track.from) may differ when they resync; t
// keeps the latest. from only decides the error at finish (a busy run
// starting at or past the end), which a lane with the latest start then
// reports anyway, so the group's error is the same.
type laneGroup struct {
	sync bool
	full laneBits
	t    track
}

// desync hands t's current state to every lane's own track.
func (g *laneGroup) desync(lanes []track) {
	if !g.sync {
		return
	}
	g.sync = false
	for j := range lanes {
		lanes[j].cur, lanes[j].from = g.t.cur, g.t.from
	}
}

// resync syncs the group when every lane's timeline ends at the same
// cycle, and reports whether the group is synced.
func (g *laneGroup) resync(lanes []track) bool {
	if g.sync {
		return true
	}
	cur, from := lanes[0].cur, lanes[0].from
	for j := range lanes {
		if lanes[j].cur != cur {
			return false
		}
		from = max(from, lanes[j].from)
	}
	g.sync, g.t.cur, g.t.from = true, cur, from
	return true
}

// finish closes the group's lanes at end and adds t's busy cycles to
// each; it returns the busy cycles cut from each lane and t's idle
// histogram, which every lane's adds to its own (merge).
func (g *laneGroup) finish(lanes []track, end model.Time) ([]model.Time, Hist, error) {
	cuts := make([]model.Time, len(lanes))
	if g.sync {
		c, err := g.t.finish(end)
		if err != nil {
			return nil, nil, err
		}
		for j := range cuts {
			cuts[j] = c
		}
	} else {
		for j := range lanes {
			c, err := lanes[j].finish(end)
			if err != nil {
				return nil, nil, err
			}
			cuts[j] = c
		}
	}
	for j := range lanes {
		lanes[j].busy += g.t.busy
	}
	return cuts, g.t.idle.hist(), nil
}

// laneHist is a lane's idle histogram: its own intervals and its group's
// gh, built without an intermediate histogram of its own when they are
// all dense. A lane with none of its own shares gh's array (capacity cut,
// so an append copies; the blocks are read only).
func laneHist(own *histBuilder, gh Hist) Hist {
	if own.large != nil || own.carried {
		return merge(own.hist(), gh)
	}
	n, j := 0, 0 // distinct lengths
	for l, c := range own.small {
		if c == 0 {
			continue
		}
		for j < len(gh) && gh[j].Len < model.Time(l) {
			j++
			n++
		}
		if j < len(gh) && gh[j].Len == model.Time(l) {
			j++
		}
		n++
	}
	if n == 0 {
		return gh[:len(gh):len(gh)]
	}
	n += len(gh) - j
	h := make(Hist, 0, n)
	j = 0
	for l, c := range own.small {
		if c == 0 {
			continue
		}
		for j < len(gh) && gh[j].Len < model.Time(l) {
			h = append(h, gh[j])
			j++
		}
		b := Bin{model.Time(l), uint64(c)}
		if j < len(gh) && gh[j].Len == model.Time(l) {
			b.Count += gh[j].Count
			j++
		}
		h = append(h, b)
	}
	return append(h, gh[j:]...)
}

// Launch is the activity of one run: per-SM tracks closed at Cycles.
type Launch struct {
	Cycles model.Time
	NumSMs int
	// Core is the per-SM activity; Units[kind] and Lanes[kind] the blocks
	// of that kind over all SMs (SM-major, then instance, then lane).
	Core  []Block
	Units [model.NumUnitKinds][]Block
	Lanes [model.NumUnitKinds][]Block
	// Series are the busy unit and lane cycles of each SM and unit kind
	// with instances, SM-major, in buckets of 2^SeriesShift cycles
	// (ceil(Cycles/2^SeriesShift) buckets; the last may be partial).
	SeriesShift uint
	Series      []Series
	// Sched is each SM's issue and stall counts in the same buckets.
	Sched []Sched
}

// Sched is one SM's warp schedulers over time: issued warp-instructions,
// their active threads, and stalled scheduler-cycles per reason (indexed
// by model.StallReason; nil for a reason that never occurred).
type Sched struct {
	SM, Schedulers  int
	Issued, Threads []uint64
	Stalls          [model.NumStallReasons][]uint64
}

// Series is one SM's busy cycles of one unit kind over time.
type Series struct {
	SM           int
	Unit         model.UnitKind
	Units, Lanes int // instances, lanes of all instances
	UnitCycles   []uint64
	LaneCycles   []uint64
}

// Block is one gateable block's activity in a launch.
type Block struct {
	SM, Index int        // SM; unit instance (or instance*lanes+lane)
	Busy      model.Time `json:"busy"`
	Idle      Hist       `json:"idle"`
	Runs      []Interval `json:"runs,omitempty"` // busy intervals (core level only)
}

// Finish closes every track at cycles (the run's Result.Cycles) and
// returns the launch's activity.
func (r *Recorder) Finish(cycles model.Time) (*Launch, error) {
	l := &Launch{Cycles: cycles, NumSMs: len(r.sms)}
	var cut model.Time // busy cycles the last block's track cut at the end
	block := func(sm, i int, t *track) (Block, error) {
		var err error
		if cut, err = t.finish(cycles); err != nil {
			return Block{}, fmt.Errorf("power: SM %d: %w", sm, err)
		}
		return Block{SM: sm, Index: i, Busy: t.busy, Idle: t.idle.hist(), Runs: t.runs}, nil
	}
	// the series' common bucket width: the widest any series reached, and
	// at most seriesCap buckets over the launch
	for _, s := range r.sms {
		if s == nil {
			continue
		}
		l.SeriesShift = max(l.SeriesShift, s.tab.shift)
	}
	for cycles > 0 && uint64(cycles-1)>>l.SeriesShift >= seriesCap {
		l.SeriesShift++
	}
	nb := int((uint64(cycles) + 1<<l.SeriesShift - 1) >> l.SeriesShift)
	for i, s := range r.sms {
		if s == nil {
			return nil, fmt.Errorf("power: SM %d was not observed", i)
		}
		if s.err != nil {
			return nil, s.err
		}
		if s.resident != 0 {
			return nil, fmt.Errorf("power: SM %d: %d CTA(s) still resident at the end", i, s.resident)
		}
		b, err := block(i, 0, s.core)
		if err != nil {
			return nil, err
		}
		l.Core = append(l.Core, b)
		out := make([]uint64, nb*(s.scol+bits.OnesCount32(s.stallSeen))) // every column taken, one allocation
		outs := make([][]uint64, s.tab.cols)
		for c := range outs {
			if c < s.scol || s.stallSeen&(1<<(c-s.scol)) != 0 {
				outs[c], out = out[:nb:nb], out[nb:]
			}
		}
		s.tab.fill(l.SeriesShift, outs, nb)
		column := func(c int) []uint64 { return outs[c] }
		sc := Sched{SM: i, Schedulers: r.spec.SM.Schedulers, Issued: column(0), Threads: column(1)}
		for k := range sc.Stalls {
			if s.stallSeen&(1<<k) != 0 {
				sc.Stalls[k] = column(s.scol + k)
			}
		}
		l.Sched = append(l.Sched, sc)
		for k := range s.units {
			if len(s.units[k]) == 0 {
				continue
			}
			sr := Series{SM: i, Unit: model.UnitKind(k), Units: len(s.units[k])}
			sr.UnitCycles, sr.LaneCycles = column(s.ucol[k]), column(s.ucol[k]+1)
			for u := range s.units[k] {
				t := &s.units[k][u].unit
				b, err := block(i, u, t)
				if err != nil {
					return nil, err
				}
				if nb > 0 {
					sr.UnitCycles[nb-1] -= uint64(cut)
				}
				l.Units[k] = append(l.Units[k], b)
				cuts, gh, err := s.units[k][u].g.finish(s.lanes[k][u], cycles)
				if err != nil {
					return nil, fmt.Errorf("power: SM %d: %w", i, err)
				}
				for j := range s.lanes[k][u] {
					lt := &s.lanes[k][u][j]
					l.Lanes[k] = append(l.Lanes[k], Block{SM: i, Index: u*len(s.lanes[k][u]) + j, Busy: lt.busy, Idle: laneHist(&lt.idle, gh)})
					if nb > 0 {
						sr.LaneCycles[nb-1] -= uint64(cuts[j])
					}
					sr.Lanes++
				}
			}
			l.Series = append(l.Series, sr)
		}
	}
	return l, nil
}
