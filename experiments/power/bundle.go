package power

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/trace"
)

// Session records the activity of every launch of a launch.Prepared.Run
// on the model: set ExecOptions.ModelOpt.Observe to s.Observe and call
// s.Finish from ExecOptions.OnLaunch (ptxtrace run --activity). A launch
// that ran functionally (no timing) has no activity.
type Session struct {
	spec     *model.Spec
	rec      *Recorder
	launches map[int]*Launch
}

// NewSession returns a session for runs on spec (which must be valid).
func NewSession(spec *model.Spec) *Session {
	return &Session{spec: spec, launches: map[int]*Launch{}}
}

// Observe is the model.Options.Observe function: a new Recorder per launch.
func (s *Session) Observe(part int) model.Observer {
	if s.rec == nil {
		s.rec = NewRecorder(s.spec)
	}
	return s.rec.Observe(part)
}

// Finish closes the recording of launch i (lr, which must have timing).
func (s *Session) Finish(i int, lr *launch.LaunchResult) error {
	rec := s.rec
	s.rec = nil
	if rec == nil || lr.Timing == nil {
		return fmt.Errorf("power: launch %d (%s) ran without the recorder", i, lr.Kernel)
	}
	l, err := rec.Finish(lr.Timing.Cycles)
	if err != nil {
		return fmt.Errorf("launch %d (%s): %w", i, lr.Kernel, err)
	}
	s.launches[i] = l
	return nil
}

// Chunk returns launch i's activity as a bundle's ACTV chunk, or nil when
// it was not recorded.
func (s *Session) Chunk(i int) (*trace.Activity, error) {
	l := s.launches[i]
	if l == nil {
		return nil, nil
	}
	return l.Chunk(s.spec)
}

// Chunk is l, recorded on spec, as a bundle's ACTV chunk (checked).
func (l *Launch) Chunk(spec *model.Spec) (*trace.Activity, error) {
	sj, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	a := &trace.Activity{Format: trace.ActivityFormat, Cycles: uint64(l.Cycles), Model: sj, SeriesWidth: 1 << l.SeriesShift}
	block := func(level, unit string, b *Block) {
		tb := trace.ActivityBlock{Level: level, Unit: unit, SM: b.SM, Index: b.Index, Busy: uint64(b.Busy), Idle: make([][2]uint64, len(b.Idle))}
		for i, bin := range b.Idle {
			tb.Idle[i] = [2]uint64{uint64(bin.Len), bin.Count}
		}
		for _, r := range b.Runs {
			tb.Runs = append(tb.Runs, [2]uint64{uint64(r.From), uint64(r.To)})
		}
		a.Blocks = append(a.Blocks, tb)
	}
	// ActivityRow's order: per launch the cores, then per unit kind its
	// units and its lanes
	for i := range l.Core {
		block(trace.LevelCore, "", &l.Core[i])
	}
	for k := range l.Units {
		name := model.UnitKind(k).String()
		for i := range l.Units[k] {
			block(trace.LevelUnit, name, &l.Units[k][i])
		}
		for i := range l.Lanes[k] {
			block(trace.LevelLane, name, &l.Lanes[k][i])
		}
	}
	for _, s := range l.Series {
		a.Series = append(a.Series, trace.ActivitySeries{SM: s.SM, Unit: s.Unit.String(), Units: s.Units, Lanes: s.Lanes,
			UnitCycles: s.UnitCycles, LaneCycles: s.LaneCycles})
	}
	for _, sc := range l.Sched {
		ts := trace.ActivitySched{SM: sc.SM, Schedulers: sc.Schedulers, Issued: sc.Issued, Threads: sc.Threads}
		for k, v := range sc.Stalls {
			if v != nil {
				if ts.Stalls == nil {
					ts.Stalls = map[string][]uint64{}
				}
				ts.Stalls[model.StallReason(k).String()] = v
			}
		}
		a.Sched = append(a.Sched, ts)
	}
	return a, a.Check()
}

// FromBundles rebuilds the activity of a run from its bundles' ACTV chunks
// (in launch order), as FromRows does from exported rows: the analysis of
// the result equals the analysis of the run. Every chunk must name the
// same model spec.
func FromBundles(kernel string, acts []*trace.Activity) (*Activity, error) {
	if len(acts) == 0 {
		return nil, errors.New("power: no activity")
	}
	var spec model.Spec
	dec := json.NewDecoder(strings.NewReader(string(acts[0].Model)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return nil, fmt.Errorf("power: activity model spec: %w", err)
	}
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("power: activity model spec: %w", err)
	}
	var rows []ActivityRow
	for li, a := range acts {
		if err := a.Check(); err != nil {
			return nil, fmt.Errorf("launch %d: %w", li, err)
		}
		if string(a.Model) != string(acts[0].Model) {
			return nil, fmt.Errorf("power: launch %d ran on another model spec than launch 0", li)
		}
		for _, b := range a.Blocks {
			base := ActivityRow{Launch: uint32(li), Cycles: a.Cycles, Level: b.Level, Unit: b.Unit, SM: uint32(b.SM), Index: uint32(b.Index)}
			r := base
			r.Row, r.Len = "busy", b.Busy
			rows = append(rows, r)
			for _, bin := range b.Idle {
				r := base
				r.Row, r.Len, r.Count = "idle", bin[0], bin[1]
				rows = append(rows, r)
			}
			for _, iv := range b.Runs {
				r := base
				r.Row, r.From, r.To = "run", iv[0], iv[1]
				rows = append(rows, r)
			}
		}
	}
	act, err := FromRows(kernel, spec, rows)
	if err != nil {
		return nil, err
	}
	for li, a := range acts {
		if len(act.Launches) <= li { // a launch without blocks
			return nil, fmt.Errorf("power: launch %d has no blocks", li)
		}
		l := act.Launches[li]
		for w := a.SeriesWidth; w > 1; w >>= 1 {
			l.SeriesShift++
		}
		for _, s := range a.Series {
			k, ok := unitKind(s.Unit)
			if !ok {
				return nil, fmt.Errorf("power: launch %d: series of unknown unit kind %q", li, s.Unit)
			}
			l.Series = append(l.Series, Series{SM: s.SM, Unit: k, Units: s.Units, Lanes: s.Lanes, UnitCycles: s.UnitCycles, LaneCycles: s.LaneCycles})
		}
	}
	return act, nil
}

func unitKind(name string) (model.UnitKind, bool) {
	for k := range model.NumUnitKinds {
		if k.String() == name {
			return k, true
		}
	}
	return 0, false
}

// ReadRun reads the activity of a run directory or bundle file (every
// traced launch, in launch order; trace.OpenRunDir). A bundle without an
// ACTV chunk is an error naming the flag that records one.
func ReadRun(path string) (*Activity, error) {
	bs, err := trace.OpenRunDir(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, b := range bs {
			b.Close()
		}
	}()
	var acts []*trace.Activity
	var names []string
	seen := map[string]bool{}
	for i, b := range bs {
		if b.Activity == nil {
			return nil, fmt.Errorf("%s: bundle %d has no activity (record it with ptxtrace run --activity)", path, i)
		}
		acts = append(acts, b.Activity)
		if !seen[b.Kernel] {
			seen[b.Kernel] = true
			names = append(names, b.Kernel)
		}
	}
	a, err := FromBundles(strings.Join(names, "+"), acts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}
