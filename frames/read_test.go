package frames

import (
	"bytes"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

func collect(t *testing.T, in string) []Event {
	t.Helper()
	var evs []Event
	if _, err := Read(strings.NewReader(in), func(e Event) error { evs = append(evs, e); return nil }); err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestReadTextFormats(t *testing.T) {
	in := "# tracer: nop\n" +
		"  RenderThread-1234  ( 1200) [003] ...1  100.000001: tracing_mark_write: B|1200|queueBuffer\n" +
		"  RenderThread-1234  ( 1200) [003] ...1  100.000002: tracing_mark_write: E|1200\n" +
		" surface flinger-500 [000] d..2 100.5: tracing_mark_write: C|500|VSYNC-sf|1\n" +
		"  kgsl-3d0-77 [001] 101.25: gpu_frequency: state=585000 gpu_id=0\n" +
		"  atrace-1 [000] 101.3: sched_switch: prev_comm=a ==> next_comm=b\n"
	evs := collect(t, in)
	want := []Event{
		{Kind: Begin, TS: 100_000_001_000, TID: 1234, TGID: 1200, Name: "queueBuffer", Comm: "RenderThread"},
		{Kind: End, TS: 100_000_002_000, TID: 1234, TGID: 1200, Comm: "RenderThread"},
		{Kind: Counter, TS: 100_500_000_000, TID: 500, TGID: 500, Name: "VSYNC-sf", Value: 1, Comm: "surface flinger"},
		{Kind: GPUFreq, TS: 101_250_000_000, TID: 77, TGID: 0, Value: 585000, Comm: "kgsl-3d0"},
	}
	if len(evs) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(evs), len(want), evs)
	}
	for i := range want {
		if evs[i] != want[i] {
			t.Errorf("event %d = %+v, want %+v", i, evs[i], want[i])
		}
	}
}

func TestReadHTMLBlocks(t *testing.T) {
	in := "<!DOCTYPE html>\n<html><script>var x = 1;</script>\n" +
		`<script class="trace-data" type="application/text">{"traceEvents": []}</script>` + "\n" +
		`<script class="trace-data" type="application/text">` + "\n" +
		"  app-10 [000] 1.0: tracing_mark_write: B|10|eglSwapBuffers\n" +
		"</script>\n" +
		`<script class="trace-data">` + "\n" +
		"  app-10 [000] 1.5: tracing_mark_write: E\n</script></html>\n" +
		"  not-1 [000] 9.0: tracing_mark_write: B|1|outside\n"
	evs := collect(t, in)
	if len(evs) != 2 || evs[0].Name != "eglSwapBuffers" || evs[1].Kind != End || evs[1].TS != 1_500_000_000 {
		t.Errorf("events %+v", evs)
	}
}

func TestReadTextErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"# c\n  a-1 [000] 1.0: tracing_mark_write: B|x|name\n", "line 2: "},
		{"  a-1 [000] 1.0: tracing_mark_write: C|1|n|notanumber\n", "line 1: "},
		{"garbage without columns\n", "line 1: no [CPU]"},
		{"  a-1 [000] abc: x: y\n", "line 1: bad timestamp"},
		{"  a [000] 1.0: x: y\n", "line 1: task"},
		{"  a-1 [000] 1.0: gpu_frequency: foo\n", "line 1: gpu_frequency"},
		{"<html>\n<script>var linuxPerfData = \"\\\n  a-1 [000] 1.0: x: y\n", "line 3: trace string"},
	}
	for _, c := range cases {
		_, err := Read(strings.NewReader(c.in), func(Event) error { return nil })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want containing %q", c.in, err, c.want)
		}
	}
}

// pfPacket encodes one TracePacket holding one ftrace event.
func pfPrint(ts uint64, pid uint32, buf string) []byte {
	var pr, ev, bundle, pkt []byte
	pr = protowire.AppendTag(pr, fPrintBuf, protowire.BytesType)
	pr = protowire.AppendString(pr, buf)
	ev = protowire.AppendTag(ev, fFtraceTS, protowire.VarintType)
	ev = protowire.AppendVarint(ev, ts)
	ev = protowire.AppendTag(ev, fFtracePID, protowire.VarintType)
	ev = protowire.AppendVarint(ev, uint64(pid))
	ev = protowire.AppendTag(ev, fFtracePrint, protowire.BytesType)
	ev = protowire.AppendBytes(ev, pr)
	bundle = protowire.AppendTag(bundle, fBundleEvent, protowire.BytesType)
	bundle = protowire.AppendBytes(bundle, ev)
	pkt = protowire.AppendTag(pkt, fPktFtrace, protowire.BytesType)
	pkt = protowire.AppendBytes(pkt, bundle)
	var out []byte
	out = protowire.AppendTag(out, fTracePacket, protowire.BytesType)
	return protowire.AppendBytes(out, pkt)
}

func TestReadPerfettoSynthetic(t *testing.T) {
	var in []byte
	in = append(in, pfPrint(5, 42, "B|40|queueBuffer\n")...)
	in = append(in, pfPrint(7, 42, "E|40\n")...)
	// A counter track and a TrackEvent counter on it.
	var td, te, pkt []byte
	td = protowire.AppendTag(td, fTDUUID, protowire.VarintType)
	td = protowire.AppendVarint(td, 9)
	td = protowire.AppendTag(td, fTDName, protowire.BytesType)
	td = protowire.AppendString(td, "VSYNC-app")
	pkt = protowire.AppendTag(pkt, fPktTrackDesc, protowire.BytesType)
	pkt = protowire.AppendBytes(pkt, td)
	in = protowire.AppendTag(in, fTracePacket, protowire.BytesType)
	in = protowire.AppendBytes(in, pkt)
	te = protowire.AppendTag(te, fTEType, protowire.VarintType)
	te = protowire.AppendVarint(te, teCounter)
	te = protowire.AppendTag(te, fTETrackUUID, protowire.VarintType)
	te = protowire.AppendVarint(te, 9)
	te = protowire.AppendTag(te, fTECounter, protowire.VarintType)
	te = protowire.AppendVarint(te, 1)
	pkt = protowire.AppendTag(nil, fPktTimestamp, protowire.VarintType)
	pkt = protowire.AppendVarint(pkt, 11)
	pkt = protowire.AppendTag(pkt, fPktTrackEvent, protowire.BytesType)
	pkt = protowire.AppendBytes(pkt, te)
	in = protowire.AppendTag(in, fTracePacket, protowire.BytesType)
	in = protowire.AppendBytes(in, pkt)

	evs := collect(t, string(in))
	if len(evs) != 3 {
		t.Fatalf("%+v", evs)
	}
	if evs[0] != (Event{Kind: Begin, TS: 5, TID: 42, TGID: 40, Name: "queueBuffer"}) || evs[1].Kind != End {
		t.Errorf("%+v", evs[:2])
	}
	if evs[2].Kind != Counter || evs[2].Name != "VSYNC-app" || evs[2].Value != 1 || evs[2].TS != 11 {
		t.Errorf("%+v", evs[2])
	}
	// Truncation: the error names a byte offset.
	_, err := Read(bytes.NewReader(in[:len(in)-3]), func(Event) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "offset ") {
		t.Errorf("truncated: %v", err)
	}
	bad := pfPrint(1, 1, "C|1|x|y\n")
	_, err = Read(bytes.NewReader(bad), func(Event) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "offset ") {
		t.Errorf("bad counter: %v", err)
	}
}

func FuzzReadText(f *testing.F) {
	f.Add([]byte("  a-1 [000] 1.0: tracing_mark_write: B|1|queueBuffer\n  a-1 [000] 1.1: tracing_mark_write: E\n"))
	f.Add([]byte("<html><script class=\"trace-data\">\n  a-1 (  1) [000] .... 1.0: tracing_mark_write: C|1|VSYNC|1\n</script>"))
	f.Add([]byte("<html>\nvar linuxPerfData = \"\\\n  a-1 [000] 1.0: 0: B|1|x\\n\\\n\";\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		b := NewBuilder()
		if err := ReadText(bytes.NewReader(in), b.Add); err == nil {
			b.Finish("fuzz", BuildOptions{}) //nolint:errcheck // only must not panic
		}
	})
}

func FuzzReadPerfetto(f *testing.F) {
	f.Add(pfPrint(5, 42, "B|40|queueBuffer\n"))
	f.Add(append(pfPrint(5, 42, "B|40|queueBuffer\n"), pfPrint(6, 42, "E\n")...))
	f.Fuzz(func(t *testing.T, in []byte) {
		b := NewBuilder()
		if err := ReadPerfetto(bytes.NewReader(in), b.Add); err == nil {
			b.Finish("fuzz", BuildOptions{}) //nolint:errcheck
		}
	})
}

// synthReader generates n bytes (at least) of atrace text on the fly: a
// 60 Hz VSYNC counter, one app drawing 1–2 layers per frame, and sched
// noise, so the benchmark measures the reader, not a 100 MB buffer.
type synthReader struct {
	buf   []byte
	left  int64
	frame int64
	line  int
}

func appendSec(b []byte, t int64) []byte {
	b = strconv.AppendInt(b, t/1e9, 10)
	us := t % 1e9 / 1e3
	b = append(b, '.')
	for d := int64(100000); d > 0; d /= 10 {
		b = append(b, byte('0'+us/d%10))
	}
	return b
}

func (s *synthReader) Read(p []byte) (int, error) {
	for len(s.buf) < len(p) && s.left > 0 {
		ts := s.frame * 16_666_667
		before := len(s.buf)
		s.buf = append(s.buf, "  surfaceflinger-500   (  500) [000] d..1 "...)
		s.buf = appendSec(s.buf, ts)
		s.buf = append(s.buf, ": tracing_mark_write: C|500|VSYNC|"...)
		s.buf = append(s.buf, byte('0'+s.frame&1), '\n')
		for l := int64(0); l <= s.frame%2; l++ {
			s.buf = append(s.buf, "    RenderThread-"...)
			s.buf = strconv.AppendInt(s.buf, 1300+l, 10)
			s.buf = append(s.buf, "   ( 1200) [002] ...1 "...)
			s.buf = appendSec(s.buf, ts+1_000_000+l*3_000_000)
			s.buf = append(s.buf, ": tracing_mark_write: B|1200|eglSwapBuffers\n"...)
			s.buf = append(s.buf, "    RenderThread-"...)
			s.buf = strconv.AppendInt(s.buf, 1300+l, 10)
			s.buf = append(s.buf, "   ( 1200) [002] ...1 "...)
			s.buf = appendSec(s.buf, ts+2_000_000+l*3_000_000)
			s.buf = append(s.buf, ": tracing_mark_write: E|1200\n"...)
		}
		for k := int64(0); k < 20; k++ {
			s.buf = append(s.buf, "          <idle>-0     (-----) [001] d..2 "...)
			s.buf = appendSec(s.buf, ts+k*700_000)
			s.buf = append(s.buf, ": sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=kworker next_pid="...)
			s.buf = strconv.AppendInt(s.buf, 100+k, 10)
			s.buf = append(s.buf, " next_prio=120\n"...)
		}
		s.left -= int64(len(s.buf) - before)
		s.frame++
	}
	if len(s.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.buf)
	s.buf = s.buf[:copy(s.buf, s.buf[n:])]
	return n, nil
}

// BenchmarkReadText100MB reads 100 MB of generated atrace text and builds
// its frames; it reports MB/s (SetBytes) and the peak heap in use.
func BenchmarkReadText100MB(b *testing.B) {
	const size = 100 << 20
	b.SetBytes(size)
	var peak uint64
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var ms runtime.MemStats
		bl := NewBuilder()
		n := 0
		err := ReadText(&synthReader{left: size}, func(e Event) error {
			n++
			if n%10_000 == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
			return bl.Add(e)
		})
		if err != nil {
			b.Fatal(err)
		}
		tr, err := bl.Finish("synth", BuildOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(tr.Frames) < 1000 {
			b.Fatalf("%d frames", len(tr.Frames))
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}

func TestReadJSStringEscapes(t *testing.T) {
	in := "<html>\n<script>\nvar linuxPerfData = \"\\\n" +
		"  app-7 [000] 2.0: tracing_mark_write: B|7|say \\\"hi\\\"\\n\\\n" +
		"  app-7 [000] 2.5: tracing_mark_write: E\\n\";\n</script>\n"
	evs := collect(t, in)
	if len(evs) != 2 || evs[0].Name != `say "hi"` || evs[1].TS != 2_500_000_000 {
		t.Errorf("%+v", evs)
	}
}
