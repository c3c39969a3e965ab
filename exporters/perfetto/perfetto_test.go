package perfetto

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptxtrace/ptxtrace/exporters"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/trace/tracetest"
)

func run(t testing.TB, tr *trace.Trace, e exporters.Exporter) {
	t.Helper()
	if err := exporters.Run(context.Background(), tr.Source(), e); err != nil {
		t.Fatal(err)
	}
}

// exportProto exports tr and runs Check on the result (every test trace
// goes through the checker, per-sequence monotonicity included).
func exportProto(t testing.TB, tr *trace.Trace, opt Options) []byte {
	t.Helper()
	var b bytes.Buffer
	run(t, tr, New(&b, opt))
	if _, err := Check(bytes.NewReader(b.Bytes())); err != nil {
		t.Fatalf("Check: %v", err)
	}
	return b.Bytes()
}

// TestBaseTime: a model run's timestamps shift by the base time's Unix
// ns; a hardware run's do not; Chrome JSON refuses a base time.
func TestBaseTime(t *testing.T) {
	tr := tracetest.Fixture(2, 2, 5, trace.TimerClock64)
	tr.Header.Meta.Source, tr.Header.Meta.TotalCycles = "gpu", 0
	plain, err := Check(bytes.NewReader(exportProto(t, tr, Options{})))
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	hw, err := Check(bytes.NewReader(exportProto(t, tr, Options{BaseTime: base})))
	if err != nil {
		t.Fatal(err)
	}
	if hw.MinTs != plain.MinTs {
		t.Errorf("hardware run shifted: %d, want %d", hw.MinTs, plain.MinTs)
	}
	tr.Header.Meta.Source = "model"
	m, err := Check(bytes.NewReader(exportProto(t, tr, Options{BaseTime: base})))
	if err != nil {
		t.Fatal(err)
	}
	b := uint64(base.UnixNano())
	if m.MinTs != plain.MinTs+b || m.MaxTs != plain.MaxTs+b {
		t.Errorf("model run: [%d,%d], want [%d,%d]+%d", m.MinTs, m.MaxTs, plain.MinTs, plain.MaxTs, b)
	}
	var out bytes.Buffer
	if err := exporters.Run(context.Background(), tr.Source(), NewJSON(&out, Options{BaseTime: base})); err == nil {
		t.Error("Chrome JSON accepted a base time")
	}
}

func exportJSON(t testing.TB, tr *trace.Trace, opt Options) []byte {
	var b bytes.Buffer
	run(t, tr, NewJSON(&b, opt))
	return b.Bytes()
}

// expected sums the fixture's regions by slice name.
func expected(tr *trace.Trace) map[string]*SliceStats {
	m := map[string]*SliceStats{}
	for _, r := range tr.Regions {
		n := RegionName(r.Info)
		s := m[n]
		if s == nil {
			s = &SliceStats{}
			m[n] = s
		}
		s.Count++
		s.Cycles += r.Cycles
		s.DurNs += uint64(math.Round(r.EndNs)) - uint64(math.Round(r.StartNs))
	}
	return m
}

func compare(t *testing.T, what string, got *Summary, want map[string]*SliceStats) {
	t.Helper()
	if len(got.Slices) != len(want) {
		t.Errorf("%s: %d slice names, want %d", what, len(got.Slices), len(want))
	}
	for n, w := range want {
		g := got.Slices[n]
		if g == nil {
			t.Errorf("%s: no slices named %q", what, n)
			continue
		}
		if g.Count != w.Count || g.Cycles != w.Cycles || g.DurNs != w.DurNs {
			t.Errorf("%s: %q: got %+v, want %+v", what, n, *g, *w)
		}
	}
}

func TestProtoRoundTrip(t *testing.T) {
	tr := tracetest.Fixture(6, 3, 40, trace.TimerClock64)
	b := exportProto(t, tr, Options{Counters: tr.Counters})
	s, err := Check(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	compare(t, "proto", s, expected(tr))
	// kernel + 4 SMs + 6 CTAs + 18 warps + overlap lanes + 2 counters
	if s.Tracks < 1+4+6+18+2 || s.CounterTrack != 2 || s.Counters != 4 {
		t.Errorf("tracks %d, counter tracks %d, counters %d", s.Tracks, s.CounterTrack, s.Counters)
	}
	if s.MaxDepth != 2 {
		t.Errorf("max depth %d, want 2 (user region around loads)", s.MaxDepth)
	}
	if !bytes.Equal(b, exportProto(t, tr, Options{Counters: tr.Counters})) {
		t.Error("two exports differ")
	}
}

func TestJSONRoundTrip(t *testing.T) {
	tr := tracetest.Fixture(6, 3, 40, trace.TimerClock64)
	b := exportJSON(t, tr, Options{Counters: tr.Counters})
	s, err := CheckJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	compare(t, "json", s, expected(tr))
	if s.Counters != 4 || s.MaxDepth != 2 {
		t.Errorf("counters %d, depth %d", s.Counters, s.MaxDepth)
	}
	if !bytes.Equal(b, exportJSON(t, tr, Options{Counters: tr.Counters})) {
		t.Error("two exports differ")
	}
}

// TestOverlapLanes: regions that overlap without nesting go to extra
// tracks, so every track's slices nest.
func TestOverlapLanes(t *testing.T) {
	tr := tracetest.Fixture(1, 1, 6, trace.TimerGlobaltimer)
	b := exportProto(t, tr, Options{})
	s, err := Check(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if s.Tracks < 5 { // kernel, SM, CTA, warp, overlap lane
		t.Fatalf("tracks %d: want an overlap lane", s.Tracks)
	}
	if !bytes.Contains(b, []byte("warp 0 overlap 1")) {
		t.Error("no overlap lane track")
	}
}

func TestMaxSlices(t *testing.T) {
	tr := tracetest.Fixture(4, 4, 20, trace.TimerClock64)
	total := len(tr.Regions)
	var cyc uint64
	for _, r := range tr.Regions {
		cyc += r.Cycles
	}
	for _, kind := range []string{"proto", "json"} {
		var s *Summary
		var err error
		if kind == "proto" {
			s, err = Check(bytes.NewReader(exportProto(t, tr, Options{MaxSlices: 300})))
		} else {
			s, err = CheckJSON(bytes.NewReader(exportJSON(t, tr, Options{MaxSlices: 300})))
		}
		if err != nil {
			t.Fatal(err)
		}
		var slices, regions int64
		var cycles uint64
		agg := s.Slices["aggregated regions"]
		for n, st := range s.Slices {
			cycles += st.Cycles
			if n != "aggregated regions" {
				slices += st.Count
			}
		}
		if agg == nil || slices > 300 {
			t.Fatalf("%s: %d region slices, aggregated %+v", kind, slices, agg)
		}
		regions = slices + int64(agg.Regions)
		if regions != int64(total) || cycles != cyc {
			t.Errorf("%s: regions %d cycles %d, want %d and %d", kind, regions, cycles, total, cyc)
		}
		if agg.Count != 16-int64(slices)/int64(total/16) {
			t.Errorf("%s: %d summary slices for %d warps with %d region slices", kind, agg.Count, 16, slices)
		}
	}
}

func TestCheckRejects(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b, 1)
	w.Interned([]string{"c"}, []string{"n"}, nil)
	w.Track(&Track{UUID: 7, Name: "t"})
	w.Flush()
	good := append([]byte(nil), b.Bytes()...)
	cases := []struct {
		name string
		f    func(w *Writer)
		want string
	}{
		{"undeclared track", func(w *Writer) { w.SliceBegin(1, 8, 1, 1, nil); w.SliceEnd(2, 8) }, "before the track is declared"},
		{"unbalanced end", func(w *Writer) { w.SliceEnd(2, 7) }, "no open slice"},
		{"never ends", func(w *Writer) { w.SliceBegin(1, 7, 1, 1, nil) }, "never end"},
		{"end before begin", func(w *Writer) {
			// The end comes on another sequence, so that only the slice
			// stack can see it.
			w.SliceBegin(5, 7, 1, 1, nil)
			w.SetSequence(2)
			w.Interned([]string{"c"}, []string{"n"}, nil)
			w.SliceEnd(2, 7)
		}, "before it begins"},
		{"time goes back on a sequence", func(w *Writer) {
			w.SliceBegin(5, 7, 1, 1, nil)
			w.SliceEnd(6, 7)
			w.SliceBegin(3, 7, 1, 1, nil)
			w.SliceEnd(4, 7)
		}, "timestamp 3 before 6"},
		{"interned on another sequence", func(w *Writer) {
			w.SetSequence(2)
			w.Interned([]string{"c"}, nil, nil)
			w.SliceBegin(1, 7, 1, 1, nil)
			w.SliceEnd(2, 7)
		}, "not interned"},
		{"name not interned", func(w *Writer) { w.SliceBegin(1, 7, 9, 1, nil); w.SliceEnd(2, 7) }, "not interned"},
		{"parent undeclared", func(w *Writer) { w.Track(&Track{UUID: 9, Parent: 10}) }, "parent"},
		{"counter on slice track", func(w *Writer) { w.Counter(1, 7, 3) }, "non-counter"},
		{"duplicate track", func(w *Writer) { w.Track(&Track{UUID: 7}) }, "twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b2 bytes.Buffer
			b2.Write(good)
			w := NewWriter(&b2, 1)
			c.f(w)
			w.Flush()
			_, err := Check(&b2)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	// An unknown field is rejected.
	bad := append([]byte(nil), good...)
	bad = append(bad, 0x0a, 0x03, 0xf8, 0x07, 0x01) // packet{ field 127 varint 1 }
	if _, err := Check(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "unknown field 127") {
		t.Fatalf("unknown field: %v", err)
	}
}

// TestProtoc decodes the output with protoc and Perfetto's merged proto
// (PTXTRACE_PERFETTO_PROTO = path to perfetto_trace.proto) and checks that
// it reports no unknown fields.
func TestProtoc(t *testing.T) {
	proto := os.Getenv("PTXTRACE_PERFETTO_PROTO")
	protoc, err := exec.LookPath("protoc")
	if proto == "" || err != nil {
		t.Skip("set PTXTRACE_PERFETTO_PROTO to perfetto_trace.proto and install protoc (Debian protobuf-compiler) to run")
	}
	tr := tracetest.Fixture(3, 2, 10, trace.TimerClock64)
	b := exportProto(t, tr, Options{Counters: tr.Counters, MaxSlices: 200})
	cmd := exec.Command(protoc, "--proto_path="+filepath.Dir(proto), "--decode=perfetto.protos.Trace", filepath.Base(proto))
	cmd.Stdin = bytes.NewReader(b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("protoc: %v\n%s", err, stderr.String())
	}
	// protoc prints unknown fields by number ("127: 1") instead of name.
	if m := regexp.MustCompile(`(?m)^\s*\d+\s*[:{]`).Find(out); m != nil {
		t.Fatalf("protoc reports an unknown field: %q", m)
	}
	for _, want := range []string{"track_descriptor", "TYPE_SLICE_BEGIN", "TYPE_SLICE_END", "TYPE_COUNTER", "interned_data", "parent_uuid", "double_counter_value", "debug_annotations"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("protoc output lacks %s", want)
		}
	}
	if n := bytes.Count(out, []byte("packet {")); int64(n) != mustCheck(t, b).Packets {
		t.Errorf("protoc decoded %d packets, Check %d", n, mustCheck(t, b).Packets)
	}
}

func mustCheck(t *testing.T, b []byte) *Summary {
	s, err := Check(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCheckJSONRejects(t *testing.T) {
	head := `{"traceEvents":[{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"w"}},`
	cases := map[string]string{
		"overlap":      head + `{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":5},{"ph":"X","name":"b","pid":1,"tid":1,"ts":3,"dur":5}]}`,
		"no tid name":  `{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":2,"ts":1,"dur":5}]}`,
		"negative dur": head + `{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":-1}]}`,
		"no events":    `{"other":[]}`,
		"bad phase":    head + `{"ph":"Q","name":"a","pid":1}]}`,
	}
	for name, doc := range cases {
		if _, err := CheckJSON(strings.NewReader(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	ok := head + `{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":5},{"ph":"X","name":"b","pid":1,"tid":1,"ts":3,"dur":3}]}`
	if _, err := CheckJSON(strings.NewReader(ok)); err != nil {
		t.Errorf("nested slices rejected: %v", err)
	}
}

// TestSliceNamesAndProbe: slice names carry the .loc file's base name, the
// loc_file argument the full path, and probe the region's begin probe id
// (end_probe the instance's end probe), in Chrome JSON and protobuf.
func TestSliceNamesAndProbe(t *testing.T) {
	tr := tracetest.Fixture(1, 2, 3, trace.TimerClock64)
	for i := range tr.Header.Regions {
		tr.Header.Regions[i].LocFile = "/src/dir/kern.cu"
	}
	var doc struct {
		TraceEvents []struct {
			Ph, Name string
			Args     map[string]any
		}
	}
	if err := json.Unmarshal(exportJSON(t, tr, Options{}), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range doc.TraceEvents {
		if ev.Ph != "X" {
			continue
		}
		n++
		ri := tr.Header.Region(int(ev.Args["region"].(float64)))
		if ri == nil {
			t.Fatalf("event %v: no region", ev)
		}
		if want := " kern.cu:" + strconv.Itoa(ri.LocLine); !strings.HasSuffix(ev.Name, want) || strings.Contains(ev.Name, "/") {
			t.Errorf("slice name %q, want a base name ending in %q", ev.Name, want)
		}
		if ev.Args["loc_file"] != "/src/dir/kern.cu" || ev.Args["probe"] != float64(ri.BeginProbe) {
			t.Errorf("args %v, want loc_file /src/dir/kern.cu and probe %d", ev.Args, ri.BeginProbe)
		}
		if _, ok := ev.Args["end_probe"]; !ok {
			t.Errorf("args %v lack end_probe", ev.Args)
		}
	}
	if n != len(tr.Regions) {
		t.Errorf("%d slices, want %d", n, len(tr.Regions))
	}
	s, err := Check(bytes.NewReader(exportProto(t, tr, Options{})))
	if err != nil {
		t.Fatal(err)
	}
	for name := range s.Slices {
		if strings.Contains(name, "/") {
			t.Errorf("protobuf slice name %q has a path", name)
		}
	}
}
