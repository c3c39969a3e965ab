package power

import (
	"fmt"

	"github.com/ptxtrace/ptxtrace/model"
)

// IssueControl is the seed's utilisation-driven SIMD-unit issue control
// (§3.2.1, Fig. 10–13) for an SM with two SIMD units of one kind:
//
//	State-1: both units, whole warps (the model's normal issue);
//	State-2: both units, unit 1 runs warps split into two half-warps on
//	         its lower half lanes (its upper half idles);
//	State-3: unit 0 only (unit 1 idles);
//	State-4: unit 0 only, split (its upper half idles too).
//
// Execution is cut into time slices of Slice cycles. At the end of each
// slice the SM's utilisation u of the unit kind over that slice decides the
// state of the next one: lane slots issued (occupancy × lanes used; a
// split issue uses half the lanes for twice the cycles) over the slots of
// all instances, gated ones included (the seed's definition), counted in
// the slice in which each issue starts. From state s the controller moves
// up (fewer gated lanes) while s > 1 and u ≥ Up[s−2], else down while
// s < 4 and u < Down[s−1]. The separate thresholds are the hysteresis of
// the seed: a split unit cannot be more than 75 % utilised, so returning
// to State-1 must not need 75 %.
type IssueControl struct {
	Unit  model.UnitKind `json:"unit"`
	Slice model.Time     `json:"slice"`
	Down  [3]float64     `json:"down"` // enter State-2, -3, -4 below these
	Up    [3]float64     `json:"up"`   // return to State-1, -2, -3 at or above these
}

// DefaultIssueControl is the seed's setting where it gives one and ours
// where it does not: sp units; Down 75/50/25 % (the seed: State-2 for an
// average utilisation of 75 % to 50 %; 50 % and 25 % continue its halving
// of the usable lanes); Up 60/40/20 % (the seed: back to State-1 at 60 %;
// 40 % and 20 % keep the same 80 % of the lower state's maximum); slices
// of 1,000 cycles (the seed does not give T; its Fig. 9 samples the
// utilisation every 50 cycles, shorter than one BET of 100, which would
// gate nothing).
func DefaultIssueControl() IssueControl {
	return IssueControl{Unit: model.UnitSP, Slice: 1000,
		Down: [3]float64{0.75, 0.50, 0.25}, Up: [3]float64{0.60, 0.40, 0.20}}
}

// Validate refuses a setting the controller cannot apply to spec.
func (c *IssueControl) Validate(spec *model.Spec) error {
	if c.Unit >= model.NumUnitKinds {
		return fmt.Errorf("power: issue control: unit kind %d unknown", c.Unit)
	}
	u := unitSpecs(spec)[c.Unit]
	switch {
	case u.Count != 2:
		return fmt.Errorf("power: issue control needs 2 %s units per SM (seed Fig. 12), model %s has %d", c.Unit, spec.Name, u.Count)
	case spec.SM.Partitioned:
		return fmt.Errorf("power: issue control needs units shared by the schedulers; model %s partitions them", spec.Name)
	case u.Lanes < 2 || u.Lanes%2 != 0:
		return fmt.Errorf("power: warp splitting needs an even lane count, %s has %d", c.Unit, u.Lanes)
	case c.Slice <= 0:
		return fmt.Errorf("power: issue control: slice must be > 0 cycles, got %d", c.Slice)
	}
	for i := range 3 {
		if !(c.Down[i] > 0 && c.Down[i] <= 1 && c.Up[i] > 0 && c.Up[i] <= c.Down[i]) {
			return fmt.Errorf("power: issue control: thresholds of State-%d: need 0 < up %g ≤ down %g ≤ 1", i+2, c.Up[i], c.Down[i])
		}
		if i < 2 && !(c.Down[i+1] < c.Down[i] && c.Up[i+1] < c.Up[i] && c.Up[i] >= c.Down[i+1]) {
			return fmt.Errorf("power: issue control: thresholds must decrease from state to state, and up[%d] %g ≥ down[%d] %g", i, c.Up[i], i+1, c.Down[i+1])
		}
	}
	return nil
}

// next is the state after a slice of utilisation u in state s.
func (c *IssueControl) next(s int, u float64) int {
	if s > 1 && u >= c.Up[s-2] {
		for s > 1 && u >= c.Up[s-2] {
			s--
		}
		return s
	}
	for s < 4 && u < c.Down[s-1] {
		s++
	}
	return s
}

// ControlStats counts the slices each SM spent in each state, summed over
// SMs and launches.
type ControlStats struct {
	Slices [4]uint64 `json:"slices"` // State-1 … State-4
}

// smControl is the controller of one SM: an Observer counting the unit's
// issued lane slots, and the state the SM's policies apply.
type smControl struct {
	model.BaseObserver
	c        *IssueControl
	lanes    model.Time
	capacity float64 // lane slots of all instances in one slice
	state    int     // 1 … 4
	applied  int     // state set on the SM, 0: none yet
	sliceEnd model.Time
	busy     model.Time
	stats    ControlStats // this SM's (SMs may run concurrently: summed after the launch)
}

func newSMControl(c *IssueControl, spec *model.Spec) *smControl {
	u := unitSpecs(spec)[c.Unit]
	return &smControl{c: c, lanes: model.Time(u.Lanes), capacity: float64(u.Count*u.Lanes) * float64(c.Slice),
		state: 1, sliceEnd: c.Slice}
}

// roll closes the slices that end at or before now.
func (s *smControl) roll(now model.Time) {
	for now >= s.sliceEnd {
		if s.busy == 0 && s.c.next(s.state, 0) == s.state {
			// empty slices in a state they do not change: count them
			// at once
			n := (now-s.sliceEnd)/s.c.Slice + 1
			s.stats.Slices[s.state-1] += uint64(n)
			s.sliceEnd += n * s.c.Slice
			return
		}
		s.stats.Slices[s.state-1]++
		s.state = s.c.next(s.state, float64(s.busy)/s.capacity)
		s.busy = 0
		s.sliceEnd += s.c.Slice
	}
}

// ObservesMem and ObservesIssue are false: the controller counts UnitBusy
// events only (model.MemFilter, model.IssueFilter).
func (s *smControl) ObservesMem() bool   { return false }
func (s *smControl) ObservesIssue() bool { return false }

func (s *smControl) UnitBusy(e model.UnitEvent) {
	if e.Unit != s.c.Unit {
		return
	}
	s.roll(e.From)
	w := s.lanes
	if e.Split {
		w /= 2
	}
	s.busy += (e.To - e.From) * w
}

// finish counts the last, partial slice and adds the SM's slices to st.
func (s *smControl) finish(st *ControlStats) {
	s.stats.Slices[s.state-1]++
	for i, n := range s.stats.Slices {
		st.Slices[i] += n
	}
}

// apply sets the state on the SM.
func (s *smControl) apply(q *model.IssueQueue) {
	k := s.c.Unit
	switch s.state {
	case 1:
		q.LimitUnits(k, 2)
		q.SplitUnit(k, 1, false)
		q.SplitUnit(k, 0, false)
	case 2:
		q.LimitUnits(k, 2)
		q.SplitUnit(k, 1, true)
		q.SplitUnit(k, 0, false)
	case 3:
		q.LimitUnits(k, 1)
		q.SplitUnit(k, 0, false)
	case 4:
		q.LimitUnits(k, 1)
		q.SplitUnit(k, 0, true)
	}
	s.applied = s.state
}

// ctlPolicy wraps a scheduler's built-in policy: before each issue it
// brings the SM's state up to date.
type ctlPolicy struct {
	inner model.IssuePolicy
	c     *smControl
}

func (p *ctlPolicy) Issue(q *model.IssueQueue) {
	p.c.roll(q.Now())
	if p.c.applied != p.c.state {
		p.c.apply(q)
	}
	p.inner.Issue(q)
}

func (p *ctlPolicy) Removed(i int) { p.inner.Removed(i) }

// tee sends every event to both observers.
type tee struct{ a, b model.Observer }

func (t tee) Issue(e model.IssueEvent)   { t.a.Issue(e); t.b.Issue(e) }
func (t tee) UnitBusy(e model.UnitEvent) { t.a.UnitBusy(e); t.b.UnitBusy(e) }
func (t tee) Stall(e model.StallEvent)   { t.a.Stall(e); t.b.Stall(e) }
func (t tee) CTAStart(e model.CTAEvent)  { t.a.CTAStart(e); t.b.CTAStart(e) }
func (t tee) CTAFinish(e model.CTAEvent) { t.a.CTAFinish(e); t.b.CTAFinish(e) }
func (t tee) Mem(e model.MemEvent)       { t.a.Mem(e); t.b.Mem(e) }

// ObservesMem is true when either side wants Mem events (model.MemFilter).
func (t tee) ObservesMem() bool { return observesMem(t.a) || observesMem(t.b) }

// ObservesIssue is true when either side wants Issue events
// (model.IssueFilter).
func (t tee) ObservesIssue() bool { return observesIssue(t.a) || observesIssue(t.b) }

func observesIssue(o model.Observer) bool {
	f, ok := o.(model.IssueFilter)
	return !ok || f.ObservesIssue()
}

func observesMem(o model.Observer) bool {
	f, ok := o.(model.MemFilter)
	return !ok || f.ObservesMem()
}

// teeOf combines observers, skipping nil ones.
func teeOf(obs ...model.Observer) model.Observer {
	var out model.Observer
	for _, o := range obs {
		switch {
		case o == nil:
		case out == nil:
			out = o
		default:
			out = tee{out, o}
		}
	}
	return out
}
