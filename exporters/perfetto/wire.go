package perfetto

import (
	"bufio"
	"io"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of perfetto.protos messages (protos/perfetto/trace/
// perfetto_trace.proto) that this package writes and checks.
const (
	fTracePacket = 1 // Trace.packet

	// TracePacket
	fPktTimestamp     = 8
	fPktSeqID         = 10 // trusted_packet_sequence_id
	fPktTrackEvent    = 11
	fPktInternedData  = 12
	fPktSeqFlags      = 13
	fPktTrackDesc     = 60
	fPktFirstOnSeq    = 87 // first_packet_on_sequence
	seqIncrClear      = 1  // SEQ_INCREMENTAL_STATE_CLEARED
	seqNeedsIncrState = 2  // SEQ_NEEDS_INCREMENTAL_STATE

	// TrackDescriptor
	fTDUuid         = 1
	fTDName         = 2
	fTDParent       = 5
	fTDCounter      = 8
	fTDChildOrder   = 11
	fTDSiblingRank  = 12
	fTDDescription  = 14
	childOrderExpl  = 3 // ChildTracksOrdering.EXPLICIT
	fCDUnitName     = 6 // CounterDescriptor.unit_name
	fCDIsIncrement  = 5
	fTECategoryIIDs = 3
	fTEDebugAnn     = 4
	fTEType         = 9
	fTENameIID      = 10
	fTETrackUUID    = 11
	fTECategories   = 22
	fTEName         = 23
	fTECounterInt   = 30
	fTECounterDbl   = 44

	// TrackEvent.Type
	TypeSliceBegin = 1
	TypeSliceEnd   = 2
	TypeInstant    = 3
	TypeCounter    = 4

	// DebugAnnotation
	fDANameIID = 1
	fDABool    = 2
	fDAUint    = 3
	fDAInt     = 4
	fDADouble  = 5
	fDAString  = 6
	fDAName    = 10

	// InternedData and its entries ({iid = 1, name = 2} for all three)
	fIDEventCategories = 1
	fIDEventNames      = 2
	fIDDebugAnnNames   = 3
	fInternIID         = 1
	fInternName        = 2
)

// Track is a TrackDescriptor.
type Track struct {
	UUID        uint64
	Parent      uint64 // 0: top level
	Name        string
	Description string
	Counter     bool   // a counter track (CounterDescriptor present)
	Unit        string // counter unit name
	Explicit    bool   // children ordered by their SiblingRank
	SiblingRank int32  // order among the parent's children (parent Explicit)
}

// Annotation is a DebugAnnotation with an interned name and one value.
type Annotation struct {
	NameIID uint64
	Kind    byte // 'u' uint, 'i' int, 'd' double, 's' string, 'b' bool
	U       uint64
	I       int64
	D       float64
	S       string
}

// Writer writes a Perfetto trace: a sequence of Trace.packet fields, each
// a length-delimited TracePacket, on the sequence last set (NewWriter,
// SetSequence).
type Writer struct {
	w    *bufio.Writer
	seq  uint32
	pkt  []byte
	body []byte
	sub  []byte
	ann  []byte // one debug annotation, reused
	n    int64  // packets written
}

// NewWriter returns a Writer whose packets carry trusted_packet_sequence_id
// seq (non-zero).
func NewWriter(w io.Writer, seq uint32) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, 1<<16), seq: seq}
}

// SetSequence makes the following packets carry
// trusted_packet_sequence_id seq (non-zero). A new sequence starts without
// incremental state: write Interned on it before events that use names.
func (w *Writer) SetSequence(seq uint32) { w.seq = seq }

// Packets returns the number of packets written.
func (w *Writer) Packets() int64 { return w.n }

// Flush flushes buffered packets.
func (w *Writer) Flush() error { return w.w.Flush() }

// packet frames body (the TracePacket's fields) as Trace.packet.
func (w *Writer) packet(body []byte) error {
	w.pkt = protowire.AppendTag(w.pkt[:0], fTracePacket, protowire.BytesType)
	w.pkt = protowire.AppendVarint(w.pkt, uint64(len(body)))
	if _, err := w.w.Write(w.pkt); err != nil {
		return err
	}
	_, err := w.w.Write(body)
	w.n++
	return err
}

func appendString(b []byte, f protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, f, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendVarint(b []byte, f protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, f, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendBytes(b []byte, f protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, f, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func (w *Writer) header(b []byte, flags uint32) []byte {
	b = appendVarint(b, fPktSeqID, uint64(w.seq))
	if flags != 0 {
		b = appendVarint(b, fPktSeqFlags, uint64(flags))
	}
	return b
}

// Interned writes the first packet of the sequence: it clears incremental
// state and interns event categories, event names and debug annotation
// names, each mapping iid → name (iids start at 1).
func (w *Writer) Interned(categories, names, annNames []string) error {
	w.sub = w.sub[:0]
	for _, l := range []struct {
		f  protowire.Number
		ss []string
	}{{fIDEventCategories, categories}, {fIDEventNames, names}, {fIDDebugAnnNames, annNames}} {
		for i, s := range l.ss {
			e := appendVarint(w.ann[:0], fInternIID, uint64(i+1))
			e = appendString(e, fInternName, s)
			w.ann = e
			w.sub = appendBytes(w.sub, l.f, e)
		}
	}
	b := w.header(w.body[:0], seqIncrClear)
	b = appendVarint(b, fPktFirstOnSeq, 1)
	b = appendBytes(b, fPktInternedData, w.sub)
	w.body = b
	return w.packet(b)
}

// Track writes a TrackDescriptor packet.
func (w *Writer) Track(t *Track) error {
	d := appendVarint(w.sub[:0], fTDUuid, t.UUID)
	if t.Name != "" {
		d = appendString(d, fTDName, t.Name)
	}
	if t.Parent != 0 {
		d = appendVarint(d, fTDParent, t.Parent)
	}
	if t.Counter {
		var c []byte
		if t.Unit != "" {
			c = appendString(c, fCDUnitName, t.Unit)
		}
		d = appendBytes(d, fTDCounter, c)
	}
	if t.Explicit {
		d = appendVarint(d, fTDChildOrder, childOrderExpl)
	}
	if t.SiblingRank != 0 {
		d = appendVarint(d, fTDSiblingRank, uint64(int64(t.SiblingRank)))
	}
	if t.Description != "" {
		d = appendString(d, fTDDescription, t.Description)
	}
	w.sub = d
	b := w.header(w.body[:0], 0)
	b = appendBytes(b, fPktTrackDesc, d)
	w.body = b
	return w.packet(b)
}

// SliceBegin writes a TYPE_SLICE_BEGIN event with an interned name and
// category.
func (w *Writer) SliceBegin(ts, track, nameIID, catIID uint64, anns []Annotation) error {
	e := appendVarint(w.sub[:0], fTEType, TypeSliceBegin)
	e = appendVarint(e, fTETrackUUID, track)
	e = appendVarint(e, fTENameIID, nameIID)
	if catIID != 0 {
		e = appendVarint(e, fTECategoryIIDs, catIID)
	}
	for i := range anns {
		e = w.appendAnnotation(e, &anns[i])
	}
	return w.event(ts, e)
}

// SliceEnd writes a TYPE_SLICE_END event.
func (w *Writer) SliceEnd(ts, track uint64) error {
	e := appendVarint(w.sub[:0], fTEType, TypeSliceEnd)
	e = appendVarint(e, fTETrackUUID, track)
	return w.event(ts, e)
}

// Counter writes a TYPE_COUNTER event with a double value.
func (w *Writer) Counter(ts, track uint64, v float64) error {
	e := appendVarint(w.sub[:0], fTEType, TypeCounter)
	e = appendVarint(e, fTETrackUUID, track)
	e = protowire.AppendTag(e, fTECounterDbl, protowire.Fixed64Type)
	e = protowire.AppendFixed64(e, math.Float64bits(v))
	return w.event(ts, e)
}

func (w *Writer) event(ts uint64, e []byte) error {
	w.sub = e
	b := appendVarint(w.body[:0], fPktTimestamp, ts)
	b = w.header(b, seqNeedsIncrState)
	b = appendBytes(b, fPktTrackEvent, e)
	w.body = b
	return w.packet(b)
}

func (w *Writer) appendAnnotation(b []byte, a *Annotation) []byte {
	d := appendVarint(w.ann[:0], fDANameIID, a.NameIID)
	switch a.Kind {
	case 'u':
		d = appendVarint(d, fDAUint, a.U)
	case 'i':
		d = appendVarint(d, fDAInt, uint64(a.I))
	case 'b':
		d = appendVarint(d, fDABool, a.U)
	case 'd':
		d = protowire.AppendTag(d, fDADouble, protowire.Fixed64Type)
		d = protowire.AppendFixed64(d, math.Float64bits(a.D))
	case 's':
		d = appendString(d, fDAString, a.S)
	}
	w.ann = d // reused: string values can outgrow any fixed buffer
	return appendBytes(b, fTEDebugAnn, d)
}
