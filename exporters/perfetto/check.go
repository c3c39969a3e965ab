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

// Check decodes a Perfetto protobuf trace with protowire and checks what
// this package promises: every top-level field is Trace.packet; packet and
// message fields are the known ones with the right wire types (no unknown
// fields); the sequence starts by clearing incremental state and interning
// names, and interned ids are defined before use; a track is declared
// before any event or child uses it, its uuid is unique and its parent
// exists; slices begin and end in a stack per track (an end closes the
// innermost open slice, never before it began) and all are closed at the
// end; counter events go to counter tracks. It returns per-name slice
// counts and sums.
func Check(r io.Reader) (*Summary, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	s := &Summary{Slices: map[string]*SliceStats{}}
	tracks := map[uint64]*trackState{}
	names := map[uint64]string{}
	cats := map[uint64]bool{}
	annNames := map[uint64]string{}
	cleared := false
	var pkt []byte
	for {
		tag, err := readVarint(br)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		num, typ := protowire.DecodeTag(tag)
		if num != fTracePacket || typ != protowire.BytesType {
			return nil, fmt.Errorf("perfetto: packet %d: top-level field %d type %d, want Trace.packet (1, bytes)", s.Packets+1, num, typ)
		}
		n, err := readVarint(br)
		if err != nil {
			return nil, noEOF(err)
		}
		if n > maxPacket {
			return nil, fmt.Errorf("perfetto: packet %d of %d bytes is too large", s.Packets+1, n)
		}
		if cap(pkt) < int(n) {
			pkt = make([]byte, n)
		}
		pkt = pkt[:n]
		if _, err := io.ReadFull(br, pkt); err != nil {
			return nil, noEOF(err)
		}
		s.Packets++
		where := func(format string, a ...any) error {
			return fmt.Errorf("perfetto: packet %d: %s", s.Packets, fmt.Sprintf(format, a...))
		}
		p, err := parsePacket(pkt)
		if err != nil {
			return nil, where("%v", err)
		}
		if p.seq == 0 {
			return nil, where("no trusted_packet_sequence_id")
		}
		if p.flags&seqIncrClear != 0 {
			cleared = true
			clear(names)
			clear(cats)
			clear(annNames)
		}
		for _, e := range p.interned {
			var dst map[uint64]string
			switch e.field {
			case fIDEventNames:
				dst = names
			case fIDDebugAnnNames:
				dst = annNames
			case fIDEventCategories:
				cats[e.iid] = true
				continue
			}
			if _, dup := dst[e.iid]; dup || e.iid == 0 {
				return nil, where("interned id %d of field %d defined twice or zero", e.iid, e.field)
			}
			dst[e.iid] = e.name
		}
		if len(p.interned) > 0 && !cleared {
			return nil, where("interned data before incremental state was cleared")
		}
		if td := p.track; td != nil {
			if td.uuid == 0 {
				return nil, where("track descriptor without uuid")
			}
			if _, dup := tracks[td.uuid]; dup {
				return nil, where("track %#x declared twice", td.uuid)
			}
			if td.parent != 0 {
				if _, ok := tracks[td.parent]; !ok {
					return nil, where("track %#x names parent %#x before it is declared", td.uuid, td.parent)
				}
			}
			tracks[td.uuid] = &trackState{parent: td.parent, name: td.name, counter: td.counter}
			s.Tracks++
			if td.counter {
				s.CounterTrack++
			}
		}
		if te := p.event; te != nil {
			if !p.hasTs {
				return nil, where("track event without timestamp")
			}
			if p.flags&seqNeedsIncrState != 0 && !cleared {
				return nil, where("event needs incremental state that was never cleared")
			}
			ts := p.ts
			tr, ok := tracks[te.track]
			if !ok {
				return nil, where("event on track %#x before the track is declared", te.track)
			}
			name := te.name
			if te.nameIID != 0 {
				if name, ok = names[te.nameIID]; !ok {
					return nil, where("name iid %d not interned", te.nameIID)
				}
			}
			for _, c := range te.catIIDs {
				if !cats[c] {
					return nil, where("category iid %d not interned", c)
				}
			}
			var cycles, regs uint64
			for _, a := range te.anns {
				an, ok := annNames[a.nameIID]
				if a.nameIID != 0 && !ok {
					return nil, where("debug annotation name iid %d not interned", a.nameIID)
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
					return nil, where("slice on counter track %#x", te.track)
				}
				if name == "" {
					return nil, where("slice begin without a name")
				}
				tr.open = append(tr.open, openSlice{ts: ts, name: name, cycles: cycles, regs: regs})
				s.MaxDepth = max(s.MaxDepth, len(tr.open))
			case TypeSliceEnd:
				if len(tr.open) == 0 {
					return nil, where("slice end on track %#x (%s) with no open slice", te.track, tr.name)
				}
				o := tr.open[len(tr.open)-1]
				tr.open = tr.open[:len(tr.open)-1]
				if ts < o.ts {
					return nil, where("slice %q on track %s ends at %d before it begins at %d", o.name, tr.name, ts, o.ts)
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
					return nil, where("counter event on non-counter track %#x", te.track)
				}
				if !te.hasValue {
					return nil, where("counter event without a value")
				}
				s.Counters++
			case TypeInstant:
			default:
				return nil, where("track event type %d", te.typ)
			}
		}
	}
	for u, tr := range tracks {
		if len(tr.open) > 0 {
			return nil, fmt.Errorf("perfetto: %d slices never end on track %#x (%s), e.g. %q", len(tr.open), u, tr.name, tr.open[0].name)
		}
	}
	return s, nil
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
