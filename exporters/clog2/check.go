package clog2

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
)

// StateSummary counts the completed instances of one state.
type StateSummary struct {
	StateID    int32
	StartEType int32
	FinalEType int32
	Name       string
	Color      string
	Format     string
	Count      int64   // completed instances
	Seconds    float64 // sum of their durations
}

// Instance is one completed state instance found by Check.
type Instance struct {
	State      *StateSummary
	IComm      int32
	Rank       int32
	Thread     int32
	Start, End float64
	// Cargo is the final event's cargo if it is a CARGOEVT, else the start
	// event's (zero if neither carries one), as MPE's converter shows it.
	Cargo [CargoSize]byte
}

// Summary is what Check found in a valid file.
type Summary struct {
	Preamble  Preamble
	Records   map[RecType]int64 // records by type (ENDBLOCK and ENDLOG included)
	Blocks    int64
	Lines     int // timelines (icomm, rank, thread) that carry events
	Ranks     int // (icomm, rank) pairs created by COMMEVT
	States    []*StateSummary
	Instances int64 // completed state instances
	CommTable []CommID
	FirstTime float64
	LastTime  float64
}

// CheckOptions tunes Check.
type CheckOptions struct {
	// OnInstance, if set, is called for every completed state instance in
	// the order the final events appear.
	OnInstance func(*Instance)
}

type lineKey struct{ icomm, rank, thread int32 }

type openKey struct {
	line  lineKey
	state int
}

type openInst struct {
	t     float64
	cargo [CargoSize]byte
}

// Check reads a whole CLOG2 file and enforces the rules MPE's readers
// (clog2print, clog2TOslog2 and Jumpshot) depend on, besides the layout
// that Reader enforces:
//
//   - records are in non-decreasing time order (times finite, ≥ 0);
//   - STATEDEF and EVENTDEF have a non-empty name and a non-empty,
//     printable color, a format whose %-tokens are known and whose fixed-size
//     values fit the 32-byte cargo, and event types not defined before;
//   - an event (BAREEVT, CARGOEVT) uses a defined event type, on a
//     timeline whose (icomm, rank) a COMMEVT created earlier, with rank and
//     thread inside max_comm_world_size and max_thread_count;
//   - state instances pair FIFO per timeline and state (the final event
//     closes the oldest open instance); a final event without an open start
//     and a start never closed are errors (the converter's "unmatched
//     events");
//   - the communicator table follows the last block and ends the file.
func Check(r io.Reader, opt *CheckOptions) (*Summary, error) {
	if opt == nil {
		opt = &CheckOptions{}
	}
	rd, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	p := rd.Preamble()
	c := &checker{
		opt: opt, p: p,
		s:            &Summary{Preamble: p, Records: map[RecType]int64{}, FirstTime: math.NaN()},
		stateByEType: map[int32]int{}, isStart: map[int32]bool{}, soloEvents: map[int32]bool{},
		stateIDs: map[int32]bool{}, ranks: map[[2]int32]bool{}, lines: map[lineKey]bool{},
		open: map[openKey][]openInst{},
	}
	var rec Record
	var n int64
	last := math.Inf(-1)
	for {
		err := rd.Next(&rec)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		n++
		c.s.Records[rec.Type]++
		if math.IsNaN(rec.Time) || math.IsInf(rec.Time, 0) || rec.Time < 0 {
			err = errors.New("time is not a finite non-negative number")
		} else if rec.Time < last {
			err = fmt.Errorf("time goes back from %g: records must be sorted by time", last)
		} else {
			last = rec.Time
			if math.IsNaN(c.s.FirstTime) {
				c.s.FirstTime = rec.Time
			}
			err = c.record(&rec)
		}
		if err != nil {
			return nil, fmt.Errorf("clog2: record %d (%v at t=%g): %w", n, rec.Type, rec.Time, err)
		}
	}
	if err := c.unmatched(); err != nil {
		return nil, err
	}
	tab, err := rd.CommTable()
	if err != nil {
		return nil, err
	}
	s := c.s
	s.CommTable = tab
	s.Records[RecEndLog]++
	s.Records[RecEndBlock] = rd.blocks - 1
	s.Blocks = rd.blocks
	s.Lines = len(c.lines)
	s.Ranks = len(c.ranks)
	s.LastTime = last
	return s, nil
}

// checker is Check's state.
type checker struct {
	opt          *CheckOptions
	p            Preamble
	s            *Summary
	stateByEType map[int32]int // etype → index in s.States (start and final)
	isStart      map[int32]bool
	soloEvents   map[int32]bool
	stateIDs     map[int32]bool
	ranks        map[[2]int32]bool
	lines        map[lineKey]bool
	open         map[openKey][]openInst
	inst         Instance
}

// record checks one record (its time already checked).
func (c *checker) record(rec *Record) error {
	switch rec.Type {
	case RecStateDef, RecEventDef:
		return c.definition(rec)
	case RecCommEvt:
		if rec.EType != CommWorldCreate && rec.EType != 1 && rec.EType != 10 && rec.EType != 100 &&
			rec.EType != 101 && rec.EType != 102 && rec.EType != 1000 {
			return fmt.Errorf("unknown communicator event type %d", rec.EType)
		}
		if rec.CommRank < 0 || rec.CommRank >= c.p.MaxCommWorldSize {
			return fmt.Errorf("rank %d outside max_comm_world_size %d", rec.CommRank, c.p.MaxCommWorldSize)
		}
		c.ranks[[2]int32{rec.CommIComm, rec.CommRank}] = true
	case RecBareEvt, RecCargoEvt:
		return c.event(rec)
	}
	return nil
}

// definition checks a STATEDEF or EVENTDEF.
func (c *checker) definition(rec *Record) error {
	if rec.Name == "" {
		return errors.New("empty name")
	}
	if err := checkColor(rec.Color); err != nil {
		return err
	}
	if _, err := CargoFormat(rec.Format); err != nil {
		return err
	}
	if rec.Type == RecEventDef {
		if _, dup := c.stateByEType[rec.EType]; dup || c.soloEvents[rec.EType] {
			return fmt.Errorf("event type %d defined twice", rec.EType)
		}
		c.soloEvents[rec.EType] = true
		return nil
	}
	if c.stateIDs[rec.StateID] {
		return fmt.Errorf("state id %d defined twice", rec.StateID)
	}
	if rec.StartEType == rec.FinalEType {
		return fmt.Errorf("state %d has the same start and final event type %d", rec.StateID, rec.StartEType)
	}
	for _, et := range []int32{rec.StartEType, rec.FinalEType} {
		if _, dup := c.stateByEType[et]; dup || c.soloEvents[et] {
			return fmt.Errorf("event type %d defined twice", et)
		}
	}
	c.stateIDs[rec.StateID] = true
	c.s.States = append(c.s.States, &StateSummary{
		StateID: rec.StateID, StartEType: rec.StartEType, FinalEType: rec.FinalEType,
		Name: rec.Name, Color: rec.Color, Format: rec.Format,
	})
	c.stateByEType[rec.StartEType] = len(c.s.States) - 1
	c.stateByEType[rec.FinalEType] = len(c.s.States) - 1
	c.isStart[rec.StartEType] = true
	return nil
}

// event checks a BAREEVT or CARGOEVT and matches state starts and finals.
func (c *checker) event(rec *Record) error {
	if !c.ranks[[2]int32{rec.IComm, rec.Rank}] {
		return fmt.Errorf("no COMMEVT created (icomm %d, rank %d) before its first event: the converter has no timeline for it", rec.IComm, rec.Rank)
	}
	if rec.Thread < 0 || rec.Thread >= c.p.MaxThreadCount {
		return fmt.Errorf("thread %d outside max_thread_count %d", rec.Thread, c.p.MaxThreadCount)
	}
	lk := lineKey{rec.IComm, rec.Rank, rec.Thread}
	c.lines[lk] = true
	if c.soloEvents[rec.EType] {
		return nil
	}
	si, ok := c.stateByEType[rec.EType]
	if !ok {
		return fmt.Errorf("event type %d is not defined by any STATEDEF or EVENTDEF before it", rec.EType)
	}
	ok2 := openKey{lk, si}
	if c.isStart[rec.EType] {
		oi := openInst{t: rec.Time}
		if rec.Type == RecCargoEvt {
			oi.cargo = rec.Cargo
		}
		c.open[ok2] = append(c.open[ok2], oi)
		return nil
	}
	q := c.open[ok2]
	if len(q) == 0 {
		return fmt.Errorf("final event of state %q on line (%d,%d,%d) without an open start", c.s.States[si].Name, rec.IComm, rec.Rank, rec.Thread)
	}
	first := q[0]
	if rec.Type == RecCargoEvt {
		first.cargo = rec.Cargo
	}
	if len(q) == 1 {
		delete(c.open, ok2)
	} else {
		c.open[ok2] = q[1:]
	}
	st := c.s.States[si]
	st.Count++
	st.Seconds += rec.Time - first.t
	c.s.Instances++
	if c.opt.OnInstance != nil {
		c.inst = Instance{State: st, IComm: rec.IComm, Rank: rec.Rank, Thread: rec.Thread, Start: first.t, End: rec.Time, Cargo: first.cargo}
		c.opt.OnInstance(&c.inst)
	}
	return nil
}

// unmatched reports start events that never got their final event.
func (c *checker) unmatched() error {
	if len(c.open) == 0 {
		return nil
	}
	keys := make([]openKey, 0, len(c.open))
	var total int
	for k, q := range c.open {
		keys = append(keys, k)
		total += len(q)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.line != b.line {
			if a.line.icomm != b.line.icomm {
				return a.line.icomm < b.line.icomm
			}
			if a.line.rank != b.line.rank {
				return a.line.rank < b.line.rank
			}
			return a.line.thread < b.line.thread
		}
		return a.state < b.state
	})
	k := keys[0]
	return fmt.Errorf("clog2: %d unmatched start events, e.g. state %q on line (%d,%d,%d) at t=%g",
		total, c.s.States[k.state].Name, k.line.icomm, k.line.rank, k.line.thread, c.open[k][0].t)
}

func checkColor(c string) error {
	if c == "" {
		return errors.New("empty color (the converter crashes on it)")
	}
	for i := 0; i < len(c); i++ {
		if c[i] < 0x20 || c[i] > 0x7e {
			return fmt.Errorf("color %q has a non-printable byte", c)
		}
	}
	return nil
}

// CargoType is one value of a cargo format.
type CargoType byte

// CargoFormat parses a category's format string and returns the types of
// its %-tokens, checking that fixed-size values fit the 32-byte cargo.
// Known tokens: %d (i32), %x (i32 hex), %h (i16), %l (i64), %X (i64 hex),
// %e (f32), %E (f64), %s (i16 length + bytes).
func CargoFormat(f string) ([]CargoType, error) {
	var ts []CargoType
	size := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		if i+1 >= len(f) {
			return nil, fmt.Errorf("format %q ends with %%", f)
		}
		i++
		c := f[i]
		switch c {
		case 'd', 'x', 'e':
			size += 4
		case 'h':
			size += 2
		case 'l', 'X', 'E':
			size += 8
		case 's':
			size += 2
		default:
			return nil, fmt.Errorf("format %q: unknown token %%%c", f, c)
		}
		ts = append(ts, CargoType(c))
	}
	if size > CargoSize {
		return nil, fmt.Errorf("format %q needs %d bytes, the cargo has %d", f, size, CargoSize)
	}
	return ts, nil
}

// DecodeCargo decodes cargo bytes by a parsed format: int64 for integer
// types, float64 for floats, string for %s.
func DecodeCargo(ts []CargoType, b []byte) ([]any, error) {
	var out []any
	p := 0
	need := func(n int) error {
		if p+n > len(b) {
			return fmt.Errorf("cargo too short for format")
		}
		return nil
	}
	for _, t := range ts {
		switch t {
		case 'd', 'x':
			if err := need(4); err != nil {
				return nil, err
			}
			out = append(out, int64(int32(binary.BigEndian.Uint32(b[p:]))))
			p += 4
		case 'h':
			if err := need(2); err != nil {
				return nil, err
			}
			out = append(out, int64(int16(binary.BigEndian.Uint16(b[p:]))))
			p += 2
		case 'l', 'X':
			if err := need(8); err != nil {
				return nil, err
			}
			out = append(out, int64(binary.BigEndian.Uint64(b[p:])))
			p += 8
		case 'e':
			if err := need(4); err != nil {
				return nil, err
			}
			out = append(out, float64(math.Float32frombits(binary.BigEndian.Uint32(b[p:]))))
			p += 4
		case 'E':
			if err := need(8); err != nil {
				return nil, err
			}
			out = append(out, math.Float64frombits(binary.BigEndian.Uint64(b[p:])))
			p += 8
		case 's':
			if err := need(2); err != nil {
				return nil, err
			}
			n := int(int16(binary.BigEndian.Uint16(b[p:])))
			p += 2
			if n < 0 {
				return nil, fmt.Errorf("negative string length in cargo")
			}
			if err := need(n); err != nil {
				return nil, err
			}
			out = append(out, string(b[p:p+n]))
			p += n
		}
	}
	return out, nil
}
