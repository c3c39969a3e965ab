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
	s := &Summary{Preamble: p, Records: map[RecType]int64{}, FirstTime: math.NaN()}
	stateByEType := map[int32]int{} // etype → index in s.States (start and final)
	isStart := map[int32]bool{}
	soloEvents := map[int32]bool{}
	stateIDs := map[int32]bool{}
	ranks := map[[2]int32]bool{}
	lines := map[lineKey]bool{}
	open := map[openKey][]openInst{}
	var inst Instance
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
		s.Records[rec.Type]++
		where := func(format string, a ...any) error {
			return fmt.Errorf("clog2: record %d (%v at t=%g): %s", n, rec.Type, rec.Time, fmt.Sprintf(format, a...))
		}
		if math.IsNaN(rec.Time) || math.IsInf(rec.Time, 0) || rec.Time < 0 {
			return nil, where("time is not a finite non-negative number")
		}
		if rec.Time < last {
			return nil, where("time goes back from %g: records must be sorted by time", last)
		}
		last = rec.Time
		if math.IsNaN(s.FirstTime) {
			s.FirstTime = rec.Time
		}
		switch rec.Type {
		case RecStateDef, RecEventDef:
			if rec.Name == "" {
				return nil, where("empty name")
			}
			if err := checkColor(rec.Color); err != nil {
				return nil, where("%v", err)
			}
			if _, err := CargoFormat(rec.Format); err != nil {
				return nil, where("%v", err)
			}
			if rec.Type == RecEventDef {
				if _, dup := stateByEType[rec.EType]; dup || soloEvents[rec.EType] {
					return nil, where("event type %d defined twice", rec.EType)
				}
				soloEvents[rec.EType] = true
				break
			}
			if stateIDs[rec.StateID] {
				return nil, where("state id %d defined twice", rec.StateID)
			}
			if rec.StartEType == rec.FinalEType {
				return nil, where("state %d has the same start and final event type %d", rec.StateID, rec.StartEType)
			}
			for _, et := range []int32{rec.StartEType, rec.FinalEType} {
				if _, dup := stateByEType[et]; dup || soloEvents[et] {
					return nil, where("event type %d defined twice", et)
				}
			}
			stateIDs[rec.StateID] = true
			s.States = append(s.States, &StateSummary{
				StateID: rec.StateID, StartEType: rec.StartEType, FinalEType: rec.FinalEType,
				Name: rec.Name, Color: rec.Color, Format: rec.Format,
			})
			stateByEType[rec.StartEType] = len(s.States) - 1
			stateByEType[rec.FinalEType] = len(s.States) - 1
			isStart[rec.StartEType] = true
		case RecCommEvt:
			if rec.EType != CommWorldCreate && rec.EType != 1 && rec.EType != 10 && rec.EType != 100 &&
				rec.EType != 101 && rec.EType != 102 && rec.EType != 1000 {
				return nil, where("unknown communicator event type %d", rec.EType)
			}
			if rec.CommRank < 0 || rec.CommRank >= p.MaxCommWorldSize {
				return nil, where("rank %d outside max_comm_world_size %d", rec.CommRank, p.MaxCommWorldSize)
			}
			ranks[[2]int32{rec.CommIComm, rec.CommRank}] = true
		case RecBareEvt, RecCargoEvt:
			if !ranks[[2]int32{rec.IComm, rec.Rank}] {
				return nil, where("no COMMEVT created (icomm %d, rank %d) before its first event: the converter has no timeline for it", rec.IComm, rec.Rank)
			}
			if rec.Thread < 0 || rec.Thread >= p.MaxThreadCount {
				return nil, where("thread %d outside max_thread_count %d", rec.Thread, p.MaxThreadCount)
			}
			lk := lineKey{rec.IComm, rec.Rank, rec.Thread}
			lines[lk] = true
			if soloEvents[rec.EType] {
				break
			}
			si, ok := stateByEType[rec.EType]
			if !ok {
				return nil, where("event type %d is not defined by any STATEDEF or EVENTDEF before it", rec.EType)
			}
			ok2 := openKey{lk, si}
			if isStart[rec.EType] {
				oi := openInst{t: rec.Time}
				if rec.Type == RecCargoEvt {
					oi.cargo = rec.Cargo
				}
				open[ok2] = append(open[ok2], oi)
				break
			}
			q := open[ok2]
			if len(q) == 0 {
				return nil, where("final event of state %q on line (%d,%d,%d) without an open start", s.States[si].Name, rec.IComm, rec.Rank, rec.Thread)
			}
			first := q[0]
			if rec.Type == RecCargoEvt {
				first.cargo = rec.Cargo
			}
			if len(q) == 1 {
				delete(open, ok2)
			} else {
				open[ok2] = q[1:]
			}
			st := s.States[si]
			st.Count++
			st.Seconds += rec.Time - first.t
			s.Instances++
			if opt.OnInstance != nil {
				inst = Instance{State: st, IComm: rec.IComm, Rank: rec.Rank, Thread: rec.Thread, Start: first.t, End: rec.Time, Cargo: first.cargo}
				opt.OnInstance(&inst)
			}
		}
	}
	if len(open) > 0 {
		keys := make([]openKey, 0, len(open))
		var total int
		for k, q := range open {
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
		return nil, fmt.Errorf("clog2: %d unmatched start events, e.g. state %q on line (%d,%d,%d) at t=%g",
			total, s.States[k.state].Name, k.line.icomm, k.line.rank, k.line.thread, open[k][0].t)
	}
	tab, err := rd.CommTable()
	if err != nil {
		return nil, err
	}
	s.CommTable = tab
	s.Records[RecEndLog]++
	s.Records[RecEndBlock] = rd.blocks - 1
	s.Blocks = rd.blocks
	s.Lines = len(lines)
	s.Ranks = len(ranks)
	s.LastTime = last
	return s, nil
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
