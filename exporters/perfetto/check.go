package perfetto

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// SliceStats sums the slices of one name.
type SliceStats struct {
	Count  int64
	DurNs  uint64 // sum of end − begin timestamps
	Cycles uint64 // sum of the "cycles" arguments
	// Regions sums the "regions" argument of summary slices (0 for others).
	Regions uint64
}

// Summary is what Check found in a valid trace.
type Summary struct {
	Packets      int64
	Tracks       int
	CounterTrack int
	Counters     int64 // counter events
	Slices       map[string]*SliceStats
	MaxDepth     int
	Sequences    int    // trusted packet sequences
	MinTs, MaxTs uint64 // first and last track event timestamps
	haveTs       bool
}

// maxPacket bounds one packet's size in Check.
const maxPacket = 64 << 20

type trackState struct {
	parent  uint64
	name    string
	counter bool
	open    []openSlice
}

type openSlice struct {
	ts     uint64
	name   string
	cycles uint64
	regs   uint64
}

// seqState is the incremental state of one trusted packet sequence.
type seqState struct {
	cleared  bool
	names    map[uint64]string
	cats     map[uint64]bool
	annNames map[uint64]string
	lastTs   uint64
	haveTs   bool
}

// checker is Check's state.
type checker struct {
	s      *Summary
	tracks map[uint64]*trackState
	seqs   map[uint64]*seqState
}

// Check decodes a Perfetto protobuf trace with protowire and checks what
// this package promises: every top-level field is Trace.packet; packet and
// message fields are the known ones with the right wire types (no unknown
// fields); every packet has a trusted_packet_sequence_id, and per sequence
// the timestamps never decrease, the sequence clears incremental state
// before it interns names, and interned ids are defined (on the same
// sequence) before use; a track is declared before any event or child uses
// it, its uuid is unique and its parent exists; slices begin and end in a
// stack per track (an end closes the innermost open slice, never before it
// began) and all are closed at the end; counter events go to counter
// tracks. It returns per-name slice counts and sums.
func Check(r io.Reader) (*Summary, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	c := &checker{s: &Summary{Slices: map[string]*SliceStats{}}, tracks: map[uint64]*trackState{}, seqs: map[uint64]*seqState{}}
	var pkt []byte
	for {
		var err error
		pkt, err = c.readPacket(br, pkt)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := c.packet(pkt); err != nil {
			return nil, fmt.Errorf("perfetto: packet %d: %w", c.s.Packets, err)
		}
	}
	for u, tr := range c.tracks {
		if len(tr.open) > 0 {
			return nil, fmt.Errorf("perfetto: %d slices never end on track %#x (%s), e.g. %q", len(tr.open), u, tr.name, tr.open[0].name)
		}
	}
	c.s.Sequences = len(c.seqs)
	return c.s, nil
}

// readPacket reads the next Trace.packet into buf; io.EOF at a clean end.
func (c *checker) readPacket(br *bufio.Reader, buf []byte) ([]byte, error) {
	tag, err := readVarint(br)
	if err != nil {
		return buf, err
	}
	num, typ := protowire.DecodeTag(tag)
	if num != fTracePacket || typ != protowire.BytesType {
		return buf, fmt.Errorf("perfetto: packet %d: top-level field %d type %d, want Trace.packet (1, bytes)", c.s.Packets+1, num, typ)
	}
	n, err := readVarint(br)
	if err != nil {
		return buf, noEOF(err)
	}
	if n > maxPacket {
		return buf, fmt.Errorf("perfetto: packet %d of %d bytes is too large", c.s.Packets+1, n)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(br, buf); err != nil {
		return buf, noEOF(err)
	}
	c.s.Packets++
	return buf, nil
}

// packet checks one packet.
func (c *checker) packet(pkt []byte) error {
	p, err := parsePacket(pkt)
	if err != nil {
		return err
	}
	if p.seq == 0 {
		return errors.New("no trusted_packet_sequence_id")
	}
	sq := c.seqs[p.seq]
	if sq == nil {
		sq = &seqState{names: map[uint64]string{}, cats: map[uint64]bool{}, annNames: map[uint64]string{}}
		c.seqs[p.seq] = sq
	}
	if p.hasTs {
		if sq.haveTs && p.ts < sq.lastTs {
			return fmt.Errorf("timestamp %d before %d, the previous one of sequence %d", p.ts, sq.lastTs, p.seq)
		}
		sq.lastTs, sq.haveTs = p.ts, true
	}
	if p.flags&seqIncrClear != 0 {
		sq.cleared = true
		clear(sq.names)
		clear(sq.cats)
		clear(sq.annNames)
	}
	if err := sq.intern(p.interned); err != nil {
		return err
	}
	if td := p.track; td != nil {
		if err := c.track(td); err != nil {
			return err
		}
	}
	if te := p.event; te != nil {
		if !p.hasTs {
			return errors.New("track event without timestamp")
		}
		if p.flags&seqNeedsIncrState != 0 && !sq.cleared {
			return errors.New("event needs incremental state that was never cleared")
		}
		return c.event(sq, p.ts, te)
	}
	return nil
}

func (sq *seqState) intern(entries []internEntry) error {
	for _, e := range entries {
		var dst map[uint64]string
		switch e.field {
		case fIDEventNames:
			dst = sq.names
		case fIDDebugAnnNames:
			dst = sq.annNames
		case fIDEventCategories:
			sq.cats[e.iid] = true
			continue
		}
		if _, dup := dst[e.iid]; dup || e.iid == 0 {
			return fmt.Errorf("interned id %d of field %d defined twice or zero", e.iid, e.field)
		}
		dst[e.iid] = e.name
	}
	if len(entries) > 0 && !sq.cleared {
		return errors.New("interned data before incremental state was cleared")
	}
	return nil
}

func (c *checker) track(td *trackDesc) error {
	if td.uuid == 0 {
		return errors.New("track descriptor without uuid")
	}
	if _, dup := c.tracks[td.uuid]; dup {
		return fmt.Errorf("track %#x declared twice", td.uuid)
	}
	if td.parent != 0 {
		if _, ok := c.tracks[td.parent]; !ok {
			return fmt.Errorf("track %#x names parent %#x before it is declared", td.uuid, td.parent)
		}
	}
	c.tracks[td.uuid] = &trackState{parent: td.parent, name: td.name, counter: td.counter}
	c.s.Tracks++
	if td.counter {
		c.s.CounterTrack++
	}
	return nil
}

func (c *checker) event(sq *seqState, ts uint64, te *trackEvent) error {
	s := c.s
	if !s.haveTs {
		s.MinTs, s.MaxTs, s.haveTs = ts, ts, true
	}
	s.MinTs, s.MaxTs = min(s.MinTs, ts), max(s.MaxTs, ts)
	tr, ok := c.tracks[te.track]
	if !ok {
		return fmt.Errorf("event on track %#x before the track is declared", te.track)
	}
	name := te.name
	if te.nameIID != 0 {
		if name, ok = sq.names[te.nameIID]; !ok {
			return fmt.Errorf("name iid %d not interned", te.nameIID)
		}
	}
	for _, cat := range te.catIIDs {
		if !sq.cats[cat] {
			return fmt.Errorf("category iid %d not interned", cat)
		}
	}
	var cycles, regs uint64
	for _, a := range te.anns {
		an, ok := sq.annNames[a.nameIID]
		if a.nameIID != 0 && !ok {
			return fmt.Errorf("debug annotation name iid %d not interned", a.nameIID)
		}
		switch an {
		case "cycles":
			cycles = a.u
		case "regions":
			regs = a.u
		}
	}
	switch te.typ {
	case TypeSliceBegin:
		if tr.counter {
			return fmt.Errorf("slice on counter track %#x", te.track)
		}
		if name == "" {
			return errors.New("slice begin without a name")
		}
		tr.open = append(tr.open, openSlice{ts: ts, name: name, cycles: cycles, regs: regs})
		s.MaxDepth = max(s.MaxDepth, len(tr.open))
	case TypeSliceEnd:
		if len(tr.open) == 0 {
			return fmt.Errorf("slice end on track %#x (%s) with no open slice", te.track, tr.name)
		}
		o := tr.open[len(tr.open)-1]
		tr.open = tr.open[:len(tr.open)-1]
		if ts < o.ts {
			return fmt.Errorf("slice %q on track %s ends at %d before it begins at %d", o.name, tr.name, ts, o.ts)
		}
		st := s.Slices[o.name]
		if st == nil {
			st = &SliceStats{}
			s.Slices[o.name] = st
		}
		st.Count++
		st.DurNs += ts - o.ts
		st.Cycles += o.cycles
		st.Regions += o.regs
	case TypeCounter:
		if !tr.counter {
			return fmt.Errorf("counter event on non-counter track %#x", te.track)
		}
		if !te.hasValue {
			return errors.New("counter event without a value")
		}
		s.Counters++
	case TypeInstant:
	default:
		return fmt.Errorf("track event type %d", te.typ)
	}
	return nil
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func readVarint(r *bufio.Reader) (uint64, error) {
	var v uint64
	for i := 0; i < 10; i++ {
		b, err := r.ReadByte()
		if err != nil {
			if i > 0 {
				return 0, noEOF(err)
			}
			return 0, err
		}
		v |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("perfetto: varint too long")
}

type internEntry struct {
	field protowire.Number
	iid   uint64
	name  string
}

type trackDesc struct {
	uuid, parent uint64
	name         string
	counter      bool
}

type annotation struct {
	nameIID uint64
	u       uint64
}

type trackEvent struct {
	typ      uint64
	track    uint64
	nameIID  uint64
	name     string
	catIIDs  []uint64
	anns     []annotation
	hasValue bool
}

type packet struct {
	ts       uint64
	hasTs    bool
	seq      uint64
	flags    uint64
	interned []internEntry
	track    *trackDesc
	event    *trackEvent
}

// fieldFunc handles one field of a message; v is the varint/fixed value or
// b the bytes.
type fieldFunc func(num protowire.Number, typ protowire.Type, v uint64, b []byte) error

// walk parses msg field by field and calls f; unknown fields are f's to
// reject.
func walk(msg []byte, f fieldFunc) error {
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return protowire.ParseError(n)
		}
		msg = msg[n:]
		var v uint64
		var b []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(msg)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(msg)
		case protowire.Fixed32Type:
			var v32 uint32
			v32, n = protowire.ConsumeFixed32(msg)
			v = uint64(v32)
		case protowire.BytesType:
			b, n = protowire.ConsumeBytes(msg)
		default:
			return fmt.Errorf("field %d: unsupported wire type %d", num, typ)
		}
		if n < 0 {
			return fmt.Errorf("field %d: %v", num, protowire.ParseError(n))
		}
		msg = msg[n:]
		if err := f(num, typ, v, b); err != nil {
			return err
		}
	}
	return nil
}

func want(num protowire.Number, got, want protowire.Type) error {
	if got != want {
		return fmt.Errorf("field %d has wire type %d, want %d", num, got, want)
	}
	return nil
}

func unknown(msg string, num protowire.Number) error {
	return fmt.Errorf("unknown field %d in %s", num, msg)
}

func parsePacket(b []byte) (*packet, error) {
	p := &packet{}
	err := walk(b, func(num protowire.Number, typ protowire.Type, v uint64, sub []byte) error {
		switch num {
		case fPktTimestamp:
			p.ts, p.hasTs = v, true
			return want(num, typ, protowire.VarintType)
		case fPktSeqID:
			p.seq = v
			return want(num, typ, protowire.VarintType)
		case fPktSeqFlags:
			p.flags = v
			return want(num, typ, protowire.VarintType)
		case fPktFirstOnSeq:
			return want(num, typ, protowire.VarintType)
		case fPktInternedData:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			return walk(sub, func(num protowire.Number, typ protowire.Type, _ uint64, e []byte) error {
				switch num {
				case fIDEventCategories, fIDEventNames, fIDDebugAnnNames:
				default:
					return unknown("InternedData", num)
				}
				if err := want(num, typ, protowire.BytesType); err != nil {
					return err
				}
				ie := internEntry{field: num}
				err := walk(e, func(n2 protowire.Number, t2 protowire.Type, v uint64, s []byte) error {
					switch n2 {
					case fInternIID:
						ie.iid = v
						return want(n2, t2, protowire.VarintType)
					case fInternName:
						ie.name = string(s)
						return want(n2, t2, protowire.BytesType)
					}
					return unknown("interned entry", n2)
				})
				p.interned = append(p.interned, ie)
				return err
			})
		case fPktTrackDesc:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			td := &trackDesc{}
			p.track = td
			return walk(sub, func(num protowire.Number, typ protowire.Type, v uint64, s []byte) error {
				switch num {
				case fTDUuid:
					td.uuid = v
					return want(num, typ, protowire.VarintType)
				case fTDParent:
					td.parent = v
					return want(num, typ, protowire.VarintType)
				case fTDName:
					td.name = string(s)
					return want(num, typ, protowire.BytesType)
				case fTDDescription:
					return want(num, typ, protowire.BytesType)
				case fTDChildOrder, fTDSiblingRank:
					return want(num, typ, protowire.VarintType)
				case fTDCounter:
					td.counter = true
					if err := want(num, typ, protowire.BytesType); err != nil {
						return err
					}
					return walk(s, func(n2 protowire.Number, t2 protowire.Type, _ uint64, _ []byte) error {
						switch n2 {
						case fCDUnitName:
							return want(n2, t2, protowire.BytesType)
						case fCDIsIncrement:
							return want(n2, t2, protowire.VarintType)
						}
						return unknown("CounterDescriptor", n2)
					})
				}
				return unknown("TrackDescriptor", num)
			})
		case fPktTrackEvent:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			te := &trackEvent{}
			p.event = te
			return walk(sub, func(num protowire.Number, typ protowire.Type, v uint64, s []byte) error {
				switch num {
				case fTEType:
					te.typ = v
					return want(num, typ, protowire.VarintType)
				case fTETrackUUID:
					te.track = v
					return want(num, typ, protowire.VarintType)
				case fTENameIID:
					te.nameIID = v
					return want(num, typ, protowire.VarintType)
				case fTEName:
					te.name = string(s)
					return want(num, typ, protowire.BytesType)
				case fTECategoryIIDs:
					te.catIIDs = append(te.catIIDs, v)
					return want(num, typ, protowire.VarintType)
				case fTECategories:
					return want(num, typ, protowire.BytesType)
				case fTECounterInt:
					te.hasValue = true
					return want(num, typ, protowire.VarintType)
				case fTECounterDbl:
					te.hasValue = true
					if math.IsNaN(math.Float64frombits(v)) {
						return errors.New("NaN counter value")
					}
					return want(num, typ, protowire.Fixed64Type)
				case fTEDebugAnn:
					if err := want(num, typ, protowire.BytesType); err != nil {
						return err
					}
					var a annotation
					err := walk(s, func(n2 protowire.Number, t2 protowire.Type, v uint64, _ []byte) error {
						switch n2 {
						case fDANameIID:
							a.nameIID = v
							return want(n2, t2, protowire.VarintType)
						case fDAUint, fDAInt, fDABool:
							a.u = v
							return want(n2, t2, protowire.VarintType)
						case fDADouble:
							return want(n2, t2, protowire.Fixed64Type)
						case fDAString, fDAName:
							return want(n2, t2, protowire.BytesType)
						}
						return unknown("DebugAnnotation", n2)
					})
					te.anns = append(te.anns, a)
					return err
				}
				return unknown("TrackEvent", num)
			})
		}
		return unknown("TracePacket", num)
	})
	if err != nil {
		return nil, err
	}
	if p.track != nil && p.event != nil {
		return nil, errors.New("packet has both a track descriptor and a track event")
	}
	return p, nil
}
