package perfetto

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/ptxtrace/ptxtrace/trace"
)

// gpuPid is the Chrome JSON process of GPU-wide counters (SM −1).
const gpuPid = 1 << 20

// JSONExporter writes the Chrome JSON trace event format
// ({"traceEvents":[…]}), which Perfetto and chrome://tracing load. It
// implements exporters.Exporter and exporters.WarpWriter and streams like
// Exporter. Processes are SMs (pid = SM + 1), threads are warps (tid =
// segment + 1, plus lane × stride for overlap lanes), regions are complete
// ("X") events with ts and dur in µs (ns precision).
type JSONExporter struct {
	timeline
	out    io.Writer
	w      *bufio.Writer
	buf    []byte
	first  bool
	smSeen map[uint32]bool
	lanes  int
	stride uint64
	names  map[int]string
	cur    *trace.Region  // region whose arguments regionArgs writes
	locArg map[int][]byte // region id → `,"loc_file":"…"` (none without .loc)
}

// NewJSON returns an exporter writing Chrome JSON to w.
func NewJSON(w io.Writer, opt Options) *JSONExporter {
	e := &JSONExporter{out: w}
	e.opt = opt
	e.emitFunc = e.emit
	return e
}

// Begin implements exporters.Exporter.
func (e *JSONExporter) Begin(h *trace.Header) error {
	if e.began {
		return errors.New("perfetto: Begin called twice")
	}
	e.began = true
	e.h = h
	if !e.opt.BaseTime.IsZero() {
		return errors.New("perfetto: Chrome JSON cannot carry a wall-clock base time exactly (readers parse ts as a double of µs); use the perfetto format")
	}
	shift, err := transferShift(h)
	if err != nil {
		return err
	}
	e.base += shift
	e.w = bufio.NewWriterSize(e.out, 1<<16)
	e.smSeen = map[uint32]bool{}
	e.names = make(map[int]string, len(h.Regions))
	e.locArg = map[int][]byte{}
	for i := range h.Regions {
		ri := &h.Regions[i]
		e.names[ri.ID] = RegionName(ri)
		if ri.LocFile != "" {
			q, err := json.Marshal(ri.LocFile)
			if err != nil {
				return err
			}
			e.locArg[ri.ID] = append([]byte(`,"loc_file":`), q...)
		}
	}
	e.stride = uint64(h.Segments) + 1
	if h.Segments == 0 {
		e.stride = 1 << 24
	}
	e.first = true
	b := append(e.buf[:0], `{"displayTimeUnit":"ns","otherData":{"kernel":`...)
	b = appendJSONString(b, h.Kernel)
	b = append(b, `,"timer":`...)
	b = appendJSONString(b, h.Timer.String())
	b = append(b, `,"instrumentation_id":`...)
	b = appendJSONString(b, h.IDHex())
	b = append(b, `,"time_unit":`...)
	b = appendJSONString(b, kernelDescription(h))
	b = append(b, `},"traceEvents":[`...)
	e.buf = b
	_, err = e.w.Write(b)
	return err
}

// event starts one event object in e.buf (with the separating comma).
func (e *JSONExporter) event() []byte {
	b := e.buf[:0]
	if !e.first {
		b = append(b, ",\n"...)
	} else {
		b = append(b, '\n')
		e.first = false
	}
	return b
}

func (e *JSONExporter) flush(b []byte) error {
	e.buf = b
	_, err := e.w.Write(b)
	return err
}

// appendMicros writes ns as µs with three decimals.
func appendMicros(b []byte, ns uint64) []byte {
	b = strconv.AppendUint(b, ns/1000, 10)
	f := ns % 1000
	b = append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
	return b
}

func (e *JSONExporter) meta(name string, pid uint64, tid uint64, hasTid bool, argKey string, str string, num int64) error {
	b := e.event()
	b = append(b, `{"ph":"M","name":"`...)
	b = append(b, name...)
	b = append(b, `","pid":`...)
	b = strconv.AppendUint(b, pid, 10)
	if hasTid {
		b = append(b, `,"tid":`...)
		b = strconv.AppendUint(b, tid, 10)
	}
	b = append(b, `,"args":{"`...)
	b = append(b, argKey...)
	b = append(b, `":`...)
	if argKey == "name" {
		b = appendJSONString(b, str)
	} else {
		b = strconv.AppendInt(b, num, 10)
	}
	b = append(b, "}}"...)
	return e.flush(b)
}

func (e *JSONExporter) declareSM(sm uint32) error {
	if e.smSeen[sm] {
		return nil
	}
	e.smSeen[sm] = true
	pid := uint64(sm) + 1
	if err := e.meta("process_name", pid, 0, false, "name", "SM "+strconv.Itoa(int(sm)), 0); err != nil {
		return err
	}
	return e.meta("process_sort_index", pid, 0, false, "sort_index", "", int64(sm))
}

func (e *JSONExporter) tid(lane int) uint64 {
	return uint64(e.warp.Segment) + 1 + uint64(lane)*e.stride
}

func (e *JSONExporter) declareLane(lane int) error {
	w := &e.warp
	if err := e.declareSM(w.SM); err != nil {
		return err
	}
	pid := uint64(w.SM) + 1
	for ; e.lanes <= lane; e.lanes++ {
		name := fmt.Sprintf("CTA (%d,%d,%d) warp %d", w.CTA[0], w.CTA[1], w.CTA[2], w.WarpInCTA)
		if e.lanes > 0 {
			name += " overlap " + strconv.Itoa(e.lanes)
		}
		tid := e.tid(e.lanes)
		if err := e.meta("thread_name", pid, tid, true, "name", name, 0); err != nil {
			return err
		}
		if err := e.meta("thread_sort_index", pid, tid, true, "sort_index", "", int64(tid)); err != nil {
			return err
		}
	}
	return nil
}

// WriteWarp implements exporters.WarpWriter.
func (e *JSONExporter) WriteWarp(w *trace.Warp, _ []trace.Issue) error {
	if err := e.finishWarp(); err != nil {
		return err
	}
	return e.startWarp(w)
}

func (e *JSONExporter) startWarp(w *trace.Warp) error {
	e.warp, e.haveWarp = *w, true
	e.agg = false
	e.aggSum = summary{}
	e.lanes = 0
	e.lay.reset()
	return nil
}

// complete writes one "X" event; args appends the arguments (nil: none).
func (e *JSONExporter) complete(lane int, name, cat string, ts, end uint64, args func(*JSONExporter, []byte) []byte) error {
	if lane >= e.lanes {
		if err := e.declareLane(lane); err != nil {
			return err
		}
	}
	e.see(ts)
	e.see(end)
	b := e.event()
	b = append(b, `{"ph":"X","name":`...)
	b = appendJSONString(b, name)
	b = append(b, `,"cat":"`...)
	b = append(b, cat...)
	b = append(b, `","pid":`...)
	b = strconv.AppendUint(b, uint64(e.warp.SM)+1, 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendUint(b, e.tid(lane), 10)
	b = append(b, `,"ts":`...)
	b = appendMicros(b, ts)
	b = append(b, `,"dur":`...)
	b = appendMicros(b, end-ts)
	if args != nil {
		b = append(b, `,"args":{`...)
		b = args(e, b)
		b = append(b, '}')
	}
	b = append(b, '}')
	return e.flush(b)
}

func appendArg(b []byte, first bool, key string, v uint64) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	b = append(b, `":`...)
	return strconv.AppendUint(b, v, 10)
}

func (e *JSONExporter) emit(ev *laneEvent) error {
	if !ev.begin {
		return nil // X events carry their duration
	}
	r := ev.r
	cat := "user"
	if r.Info != nil && r.Info.Memory() {
		cat = "load"
	}
	name, ok := e.names[r.ID]
	if !ok {
		return fmt.Errorf("perfetto: region id %d is not in the header", r.ID)
	}
	var args func(*JSONExporter, []byte) []byte
	if !e.opt.NoArgs {
		e.cur = r
		args = (*JSONExporter).regionArgs
	}
	return e.complete(ev.lane, name, cat, e.startTs(r), e.endTs(r), args)
}

// regionArgs appends the arguments of the region e.cur.
func (e *JSONExporter) regionArgs(b []byte) []byte {
	r := e.cur
	b = appendArg(b, true, "cycles", r.Cycles)
	b = appendArg(b, false, "region", uint64(r.ID))
	b = appendArg(b, false, "instance", uint64(r.Instance))
	b = appendArg(b, false, "probe", beginProbe(r))
	b = appendArg(b, false, "end_probe", uint64(r.EndProbe))
	b = append(b, e.locArg[r.ID]...)
	if r.HasTruth && r.TruthComplete >= r.TruthIssue {
		b = appendArg(b, false, "truth_cycles", r.TruthComplete-r.TruthIssue)
	}
	return b
}

// summaryArgs appends the arguments of the current warp's summary.
func (e *JSONExporter) summaryArgs(b []byte) []byte {
	s := &e.aggSum
	b = appendArg(b, true, "regions", uint64(s.n))
	b = appendArg(b, false, "cycles", s.cycles)
	b = appendArg(b, false, "memory_regions", uint64(s.memN))
	return appendArg(b, false, "memory_cycles", s.memCyc)
}

func (e *JSONExporter) finishWarp() error {
	if !e.haveWarp {
		return nil
	}
	e.haveWarp = false
	if err := e.lay.finish(e.emit); err != nil {
		return err
	}
	s := e.aggSum
	if !e.agg || s.n == 0 {
		return nil
	}
	return e.complete(0, "aggregated regions", "summary", s.start, s.end, (*JSONExporter).summaryArgs)
}

// WriteRegions implements exporters.Exporter.
func (e *JSONExporter) WriteRegions(rs []trace.Region) error {
	return e.regions(rs, e.startWarp, e.finishWarp)
}

// End implements exporters.Exporter.
func (e *JSONExporter) End() error {
	if !e.began || e.ended {
		return errors.New("perfetto: End without Begin, or twice")
	}
	if err := e.finishWarp(); err != nil {
		return err
	}
	e.ended = true
	if err := e.writeTransfers(); err != nil {
		return err
	}
	gpuNamed := false
	for _, c := range e.opt.Counters {
		if math.IsNaN(c.Value) || math.IsInf(c.Value, 0) {
			continue // JSON has no such numbers
		}
		pid := uint64(gpuPid)
		if c.SM >= 0 {
			if err := e.declareSM(uint32(c.SM)); err != nil {
				return err
			}
			pid = uint64(c.SM) + 1
		} else if !gpuNamed {
			gpuNamed = true
			if err := e.meta("process_name", pid, 0, false, "name", "GPU", 0); err != nil {
				return err
			}
		}
		for _, ts := range []uint64{e.minTs, e.maxTs} {
			b := e.event()
			b = append(b, `{"ph":"C","name":`...)
			b = appendJSONString(b, c.Name)
			b = append(b, `,"pid":`...)
			b = strconv.AppendUint(b, pid, 10)
			b = append(b, `,"ts":`...)
			b = appendMicros(b, ts)
			b = append(b, `,"args":{"value":`...)
			b = strconv.AppendFloat(b, c.Value, 'g', -1, 64)
			b = append(b, "}}"...)
			if err := e.flush(b); err != nil {
				return err
			}
		}
	}
	if _, err := e.w.WriteString("\n]}\n"); err != nil {
		return err
	}
	return e.w.Flush()
}

// appendJSONString appends s as a JSON string literal (invalid UTF-8
// becomes U+FFFD).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, "\ufffd"...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}
