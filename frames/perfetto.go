package frames

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// MaxPacket is the largest TracePacket ReadPerfetto accepts.
const MaxPacket = 64 << 20

// Field numbers of the Perfetto protos this reader decodes
// (protos/perfetto/trace/…).
const (
	fTracePacket = 1 // Trace.packet

	fPktFtrace     = 1  // TracePacket.ftrace_events (FtraceEventBundle)
	fPktTimestamp  = 8  // TracePacket.timestamp
	fPktSeqID      = 10 // TracePacket.trusted_packet_sequence_id
	fPktTrackEvent = 11 // TracePacket.track_event
	fPktInterned   = 12 // TracePacket.interned_data
	fPktSeqFlags   = 13 // TracePacket.sequence_flags
	fPktTrackDesc  = 60 // TracePacket.track_descriptor

	fBundleEvent = 2 // FtraceEventBundle.event

	fFtraceTS      = 1   // FtraceEvent.timestamp
	fFtracePID     = 2   // FtraceEvent.pid
	fFtracePrint   = 3   // FtraceEvent.print (PrintFtraceEvent)
	fFtraceGPUFreq = 332 // FtraceEvent.gpu_frequency

	fPrintBuf = 2 // PrintFtraceEvent.buf

	fGPUFreqID    = 1 // GpuFrequencyFtraceEvent.gpu_id
	fGPUFreqState = 2 // GpuFrequencyFtraceEvent.state

	fTEType        = 9  // TrackEvent.type
	fTENameIID     = 10 // TrackEvent.name_iid
	fTETrackUUID   = 11 // TrackEvent.track_uuid
	fTEName        = 23 // TrackEvent.name
	fTECounter     = 30 // TrackEvent.counter_value
	fTEDblCounter  = 44 // TrackEvent.double_counter_value
	teSliceBegin   = 1
	teSliceEnd     = 2
	teCounter      = 4
	seqStateClear  = 1 // SEQ_INCREMENTAL_STATE_CLEARED
	fInternedNames = 2 // InternedData.event_names (EventName: iid 1, name 2)

	fTDUUID    = 1 // TrackDescriptor.uuid
	fTDName    = 2 // TrackDescriptor.name
	fTDProcess = 3 // TrackDescriptor.process (ProcessDescriptor.pid = 1)
	fTDThread  = 4 // TrackDescriptor.thread (ThreadDescriptor.pid 1, tid 2)
)

// ReadPerfetto reads a Perfetto protobuf trace, streaming one TracePacket
// at a time, and calls fn for: atrace markers carried by ftrace print
// events, gpu_frequency ftrace events, and TrackEvent slices and counters
// (names given inline or interned per sequence; counter tracks named by
// their TrackDescriptor). TrackEvent slices on tracks that are not thread
// tracks get a negative synthetic TID derived from the track.
//
// Errors name the byte offset of the malformed field.
func ReadPerfetto(r io.Reader, fn func(Event) error) error {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 1<<16)
	}
	p := pfReader{fn: fn, tracks: map[uint64]track{}, interned: map[uint32]map[uint64]string{}}
	var off int64
	var buf []byte
	for {
		start := off
		tag, n, err := readUvarint(br)
		if errors.Is(err, io.EOF) && n == 0 {
			return nil
		}
		if err != nil {
			return fmt.Errorf("offset %d: %w", start, noEOF(err))
		}
		off += int64(n)
		num, typ := protowire.DecodeTag(tag)
		if num != fTracePacket || typ != protowire.BytesType {
			return fmt.Errorf("offset %d: not a Perfetto trace: field %d type %d at top level", start, num, typ)
		}
		size, n, err := readUvarint(br)
		if err != nil {
			return fmt.Errorf("offset %d: packet length: %w", off, noEOF(err))
		}
		off += int64(n)
		if size > MaxPacket {
			return fmt.Errorf("offset %d: packet of %d bytes exceeds %d", start, size, MaxPacket)
		}
		if cap(buf) < int(size) {
			buf = make([]byte, size)
		}
		buf = buf[:size]
		if _, err := io.ReadFull(br, buf); err != nil {
			return fmt.Errorf("offset %d: packet truncated: %w", off, noEOF(err))
		}
		if err := p.packet(buf, off); err != nil {
			return err
		}
		off += int64(size)
	}
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func readUvarint(br *bufio.Reader) (uint64, int, error) {
	var v uint64
	for i := 0; i < 10; i++ {
		c, err := br.ReadByte()
		if err != nil {
			return 0, i, err
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1, nil
		}
	}
	return 0, 10, errors.New("varint overflows 64 bits")
}

type track struct {
	name     string
	pid, tid int32
	isThread bool
}

type pfReader struct {
	fn       func(Event) error
	tracks   map[uint64]track
	interned map[uint32]map[uint64]string
}

// fieldFn is called per field: v is the varint value or the bytes.
type fieldFn func(num protowire.Number, typ protowire.Type, v uint64, b []byte, at int) error

// walk decodes the fields of msg; base is msg's offset in the file.
func walk(msg []byte, base int64, f fieldFn) error {
	at := 0
	for at < len(msg) {
		num, typ, n := protowire.ConsumeTag(msg[at:])
		if n < 0 {
			return fmt.Errorf("offset %d: bad tag: %v", base+int64(at), protowire.ParseError(n))
		}
		fieldAt := at
		at += n
		var v uint64
		var b []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(msg[at:])
		case protowire.Fixed32Type:
			var x uint32
			x, n = protowire.ConsumeFixed32(msg[at:])
			v = uint64(x)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(msg[at:])
		case protowire.BytesType:
			b, n = protowire.ConsumeBytes(msg[at:])
		default:
			n = protowire.ConsumeFieldValue(num, typ, msg[at:])
		}
		if n < 0 {
			return fmt.Errorf("offset %d: field %d: %v", base+int64(fieldAt), num, protowire.ParseError(n))
		}
		valAt := at
		if typ == protowire.BytesType {
			valAt = at + n - len(b)
		}
		at += n
		if err := f(num, typ, v, b, valAt); err != nil {
			return err
		}
	}
	return nil
}

func (p *pfReader) packet(pkt []byte, base int64) error {
	var ts uint64
	var seq uint32
	var flags uint64
	var ftrace, te, td, intern []byte
	var ftraceAt, teAt, tdAt, internAt int
	err := walk(pkt, base, func(num protowire.Number, typ protowire.Type, v uint64, b []byte, at int) error {
		switch {
		case num == fPktTimestamp && typ == protowire.VarintType:
			ts = v
		case num == fPktSeqID && typ == protowire.VarintType:
			seq = uint32(v)
		case num == fPktSeqFlags && typ == protowire.VarintType:
			flags = v
		case num == fPktFtrace && typ == protowire.BytesType:
			ftrace, ftraceAt = b, at
		case num == fPktTrackEvent && typ == protowire.BytesType:
			te, teAt = b, at
		case num == fPktTrackDesc && typ == protowire.BytesType:
			td, tdAt = b, at
		case num == fPktInterned && typ == protowire.BytesType:
			intern, internAt = b, at
		}
		return nil
	})
	if err != nil {
		return err
	}
	if flags&seqStateClear != 0 {
		delete(p.interned, seq)
	}
	if intern != nil {
		if err := p.internedData(intern, base+int64(internAt), seq); err != nil {
			return err
		}
	}
	if td != nil {
		if err := p.trackDesc(td, base+int64(tdAt)); err != nil {
			return err
		}
	}
	if ftrace != nil {
		if err := p.bundle(ftrace, base+int64(ftraceAt)); err != nil {
			return err
		}
	}
	if te != nil {
		if err := p.trackEvent(te, base+int64(teAt), ts, seq); err != nil {
			return err
		}
	}
	return nil
}

func (p *pfReader) bundle(b []byte, base int64) error {
	return walk(b, base, func(num protowire.Number, typ protowire.Type, _ uint64, ev []byte, at int) error {
		if num == fBundleEvent && typ == protowire.BytesType {
			return p.ftraceEvent(ev, base+int64(at))
		}
		return nil
	})
}

func (p *pfReader) ftraceEvent(b []byte, base int64) error {
	var ts, pid uint64
	var print, gpu []byte
	var printAt, gpuAt int
	err := walk(b, base, func(num protowire.Number, typ protowire.Type, v uint64, m []byte, at int) error {
		switch {
		case num == fFtraceTS && typ == protowire.VarintType:
			ts = v
		case num == fFtracePID && typ == protowire.VarintType:
			pid = v
		case num == fFtracePrint && typ == protowire.BytesType:
			print, printAt = m, at
		case num == fFtraceGPUFreq && typ == protowire.BytesType:
			gpu, gpuAt = m, at
		}
		return nil
	})
	if err != nil {
		return err
	}
	if print != nil {
		var buf []byte
		err := walk(print, base+int64(printAt), func(num protowire.Number, typ protowire.Type, _ uint64, m []byte, _ int) error {
			if num == fPrintBuf && typ == protowire.BytesType {
				buf = m
			}
			return nil
		})
		if err != nil {
			return err
		}
		ev, ok, err := parseMarker(buf)
		if err != nil {
			return fmt.Errorf("offset %d: print event: %v", base+int64(printAt), err)
		}
		if ok {
			ev.TS, ev.TID = int64(ts), int32(pid)
			return p.fn(ev)
		}
	}
	if gpu != nil {
		var id, state uint64
		err := walk(gpu, base+int64(gpuAt), func(num protowire.Number, typ protowire.Type, v uint64, _ []byte, _ int) error {
			switch {
			case num == fGPUFreqID && typ == protowire.VarintType:
				id = v
			case num == fGPUFreqState && typ == protowire.VarintType:
				state = v
			}
			return nil
		})
		if err != nil {
			return err
		}
		return p.fn(Event{Kind: GPUFreq, TS: int64(ts), TID: int32(pid), TGID: int32(id), Value: float64(state)})
	}
	return nil
}

func (p *pfReader) internedData(b []byte, base int64, seq uint32) error {
	return walk(b, base, func(num protowire.Number, typ protowire.Type, _ uint64, m []byte, at int) error {
		if num != fInternedNames || typ != protowire.BytesType {
			return nil
		}
		var iid uint64
		var name string
		err := walk(m, base+int64(at), func(n protowire.Number, t protowire.Type, v uint64, s []byte, _ int) error {
			switch {
			case n == 1 && t == protowire.VarintType:
				iid = v
			case n == 2 && t == protowire.BytesType:
				name = string(s)
			}
			return nil
		})
		if err != nil {
			return err
		}
		tab := p.interned[seq]
		if tab == nil {
			tab = map[uint64]string{}
			p.interned[seq] = tab
		}
		tab[iid] = name
		return nil
	})
}

func (p *pfReader) trackDesc(b []byte, base int64) error {
	var uuid uint64
	var t track
	err := walk(b, base, func(num protowire.Number, typ protowire.Type, v uint64, m []byte, at int) error {
		switch {
		case num == fTDUUID && typ == protowire.VarintType:
			uuid = v
		case num == fTDName && typ == protowire.BytesType:
			t.name = string(m)
		case (num == fTDProcess || num == fTDThread) && typ == protowire.BytesType:
			if num == fTDThread {
				t.isThread = true
			}
			return walk(m, base+int64(at), func(n protowire.Number, ty protowire.Type, x uint64, _ []byte, _ int) error {
				if ty != protowire.VarintType {
					return nil
				}
				switch n {
				case 1:
					t.pid = int32(x)
				case 2:
					t.tid = int32(x)
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	p.tracks[uuid] = t
	return nil
}

func (p *pfReader) trackEvent(b []byte, base int64, ts uint64, seq uint32) error {
	var typ, uuid, iid uint64
	var name string
	var hasIID, hasCounter bool
	var value float64
	err := walk(b, base, func(num protowire.Number, wt protowire.Type, v uint64, m []byte, _ int) error {
		switch {
		case num == fTEType && wt == protowire.VarintType:
			typ = v
		case num == fTETrackUUID && wt == protowire.VarintType:
			uuid = v
		case num == fTEName && wt == protowire.BytesType:
			name = string(m)
		case num == fTENameIID && wt == protowire.VarintType:
			iid, hasIID = v, true
		case num == fTECounter && wt == protowire.VarintType:
			value, hasCounter = float64(int64(v)), true
		case num == fTEDblCounter && wt == protowire.Fixed64Type:
			value, hasCounter = math.Float64frombits(v), true
		}
		return nil
	})
	if err != nil {
		return err
	}
	if name == "" && hasIID {
		n, ok := p.interned[seq][iid]
		if !ok {
			return fmt.Errorf("offset %d: track event names interned id %d not defined on sequence %d", base, iid, seq)
		}
		name = n
	}
	t := p.tracks[uuid]
	tid := t.tid
	if !t.isThread {
		tid = -int32(uuid&0x3fffffff) - 1
	}
	ev := Event{TS: int64(ts), TID: tid, TGID: t.pid, Name: name}
	switch typ {
	case teSliceBegin:
		ev.Kind = Begin
	case teSliceEnd:
		ev.Kind, ev.Name = End, ""
	case teCounter:
		if !hasCounter {
			return fmt.Errorf("offset %d: counter track event without a value", base)
		}
		ev.Kind, ev.Name, ev.Value = Counter, t.name, value
	default:
		return nil
	}
	return p.fn(ev)
}
