package perfetto

import (
	"errors"
	"math"
	"strconv"

	"github.com/ptxtrace/ptxtrace/trace"
)

// The model's recorded activity (trace.Header.Activity, the bundle's ACTV
// chunk) becomes counter tracks under each SM's track, on the kernel's
// sequence: "active" (1 while a CTA is resident, from the core's busy
// runs), and per unit kind with busy cycles "KIND units busy" and "KIND
// lanes busy", the mean number of busy instances and lanes in each series
// bucket (a value at each bucket's start where it changes, 0 at the end).

const uuidActivity = 7 << 56

// activityUUID is the counter track of SM sm's core (what 0), or of series
// s's units (1) or lanes (2).
func activityUUID(what, s int) uint64 { return uuidActivity | uint64(what)<<40 | uint64(s) }

// activityEvents declares the activity's counter tracks (under their SM
// tracks, declared here when new) and returns their events.
func (e *Exporter) activityEvents() ([]timedEv, error) {
	a := e.h.Activity
	if a == nil {
		return nil, nil
	}
	var nsPerCycle float64
	switch {
	case e.h.Meta.ClockHz > 0:
		nsPerCycle = 1e9 / e.h.Meta.ClockHz
	case !e.h.HasNs():
		nsPerCycle = 1 // cycles shown as ns, as the regions
	default:
		return nil, errors.New("perfetto: the run has activity in cycles but no clock rate to put it on the %globaltimer axis")
	}
	ts := func(cycle uint64) uint64 { return e.base + uint64(math.Round(float64(cycle)*nsPerCycle)) }
	smTrack := func(sm int) (uint64, error) {
		u := uint64(uuidSM) | uint64(sm)
		if !e.smSeen[uint32(sm)] {
			e.smSeen[uint32(sm)] = true
			if err := e.w.Track(&Track{UUID: u, Parent: uuidKernel, Name: "SM " + strconv.Itoa(sm), Explicit: true, SiblingRank: int32(min(sm, math.MaxInt32))}); err != nil {
				return 0, err
			}
		}
		return u, nil
	}
	var evs []timedEv
	counter := func(track, at uint64, v float64) {
		evs = append(evs, timedEv{at, func() error { return e.w.Counter(at, track, v) }})
	}
	for _, b := range a.Blocks {
		if b.Level != trace.LevelCore {
			continue
		}
		parent, err := smTrack(b.SM)
		if err != nil {
			return nil, err
		}
		u := activityUUID(0, b.SM)
		if err := e.w.Track(&Track{UUID: u, Parent: parent, Name: "active (CTA resident)", Counter: true, SiblingRank: -1}); err != nil {
			return nil, err
		}
		counter(u, ts(0), 0)
		for _, r := range b.Runs {
			counter(u, ts(r[0]), 1)
			counter(u, ts(r[1]), 0)
		}
	}
	w := a.SeriesWidth
	for i, s := range a.Series {
		var total uint64
		for _, v := range s.LaneCycles {
			total += v
		}
		if total == 0 {
			continue // a kind the launch never used on this SM
		}
		parent, err := smTrack(s.SM)
		if err != nil {
			return nil, err
		}
		for what, vals := range [][]uint64{1: s.UnitCycles, 2: s.LaneCycles} {
			if what == 0 {
				continue
			}
			name := s.Unit + " units busy"
			if what == 2 {
				name = s.Unit + " lanes busy"
			}
			u := activityUUID(what, i)
			if err := e.w.Track(&Track{UUID: u, Parent: parent, Name: name, Counter: true, SiblingRank: -1}); err != nil {
				return nil, err
			}
			last := -1.0
			for j, v := range vals {
				from := uint64(j) * w
				mean := float64(v) / float64(min(w, a.Cycles-from))
				if mean != last {
					counter(u, ts(from), mean)
					last = mean
				}
			}
			counter(u, ts(a.Cycles), 0)
		}
	}
	return evs, nil
}
