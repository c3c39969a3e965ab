package otlp

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	sdktracetest "go.opentelemetry.io/otel/sdk/trace/tracetest"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/ptxtrace/ptxtrace/exporters"
	"github.com/ptxtrace/ptxtrace/exporters/otlp/otlptest"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/trace/tracetest"
)

func writeFile(t *testing.T, tr *trace.Trace, opt Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := exporters.Run(context.Background(), tr.Source(), NewFile(&b, opt)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestFileReadByCollector writes OTLP/JSON files and reads them with the
// OpenTelemetry Collector's JSON unmarshaler: every span arrives, with
// names, parent links, times and attributes checked as for gRPC/HTTP.
func TestFileReadByCollector(t *testing.T) {
	bin := otlptest.Checker(t)
	tr := tracetest.Fixture(3, 2, 5, trace.TimerClock64)
	for _, g := range []Granularity{Launch, CTA, Warp, Region} {
		out := writeFile(t, tr, Options{Granularity: g})
		file := filepath.Join(t.TempDir(), "t.otlp.json")
		if err := os.WriteFile(file, out, 0o644); err != nil {
			t.Fatal(err)
		}
		c := &collector{}
		c.add(otlptest.Read(t, bin, file))
		// 3 CTAs of 2 warps; the fixture's warps all have regions.
		want := map[Granularity]int{Launch: 2, CTA: 5, Warp: 11, Region: 11 + len(tr.Regions)}[g]
		if len(c.spans) != want {
			t.Errorf("%v: the Collector read %d spans, want %d", g, len(c.spans), want)
		}
		checkSpans(t, tr, c, g, DefaultMaxSpans)
	}
}

// TestFileLines checks the line structure: one request per line, at most
// JSONBatch spans each, ids as hex and times as decimal strings.
func TestFileLines(t *testing.T) {
	tr := tracetest.Fixture(40, 4, 5, trace.TimerClock64)
	out := writeFile(t, tr, Options{Granularity: Region})
	lines := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
	total := 0
	for i, l := range lines {
		var req struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []map[string]any
				}
			}
		}
		if err := json.Unmarshal(l, &req); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		n := 0
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					n++
					id, _ := s["spanId"].(string)
					tid, _ := s["traceId"].(string)
					st, _ := s["startTimeUnixNano"].(string)
					if len(id) != 16 || len(tid) != 32 || st == "" {
						t.Fatalf("line %d: span %v", i+1, s)
					}
				}
			}
		}
		if n == 0 || n > JSONBatch {
			t.Errorf("line %d: %d spans", i+1, n)
		}
		total += n
	}
	want := 2 + 40 + 160 + len(tr.Regions)
	if total != want || len(lines) != (want+JSONBatch-1)/JSONBatch {
		t.Errorf("%d spans in %d lines, want %d", total, len(lines), want)
	}
	if again := writeFile(t, tr, Options{Granularity: Region}); !bytes.Equal(again, out) {
		t.Error("two exports of one trace differ")
	}
}

// TestKernelStartAndBaseTime: for a model run (timestamps from kernel
// start) the launch span starts at the base time and lasts TotalCycles at
// the clock rate; the first region starts at its own tick, not at the base.
func TestKernelStartAndBaseTime(t *testing.T) {
	tr := tracetest.Fixture(2, 2, 3, trace.TimerClock64)
	tr.Header.Meta.Source = "model"
	tr.Header.Meta.ClockHz = 1e9   // 1 cycle = 1 ns
	tr.Header.Meta.StartUnixNs = 0 // no recorded start: BaseTime anchors
	var first, last uint64 = ^uint64(0), 0
	for _, r := range tr.Regions {
		first, last = min(first, r.Start), max(last, r.End)
	}
	if first == 0 {
		t.Fatal("fixture's first region starts at tick 0: cannot tell the origins apart")
	}
	tr.Header.Meta.TotalCycles = last + 1000
	base := time.Date(2026, 11, 24, 1, 2, 3, 4, time.UTC)
	c := &collector{}
	c.add(decodeJSON(t, writeFile(t, tr, Options{Granularity: Region, BaseTime: base})))
	b := uint64(base.UnixNano())
	for _, s := range c.spans {
		switch s.Name {
		case "kern", "ptxtrace.run":
			if s.StartTimeUnixNano != b || s.EndTimeUnixNano != b+last+1000 {
				t.Errorf("%s: [%d,%d], want [%d,%d]", s.Name, s.StartTimeUnixNano, s.EndTimeUnixNano, b, b+last+1000)
			}
		case "warp", "cta":
		default:
			if s.StartTimeUnixNano < b+first {
				t.Errorf("region at %d, before the first region's tick %d", s.StartTimeUnixNano-b, first)
			}
		}
	}
	var minStart uint64 = ^uint64(0)
	for _, s := range c.spans {
		if s.Name != "kern" && s.Name != "ptxtrace.run" {
			minStart = min(minStart, s.StartTimeUnixNano)
		}
	}
	if minStart != b+first {
		// With the old origin (earliest region) the first child would
		// start at the base.
		t.Errorf("earliest child span at base+%d, want base+%d", minStart-b, first)
	}
}

// TestRunSalt: a salt changes every id; the same salt repeats them.
func TestRunSalt(t *testing.T) {
	tr := tracetest.Fixture(1, 2, 2, trace.TimerClock64)
	ids := func(salt string) map[string]bool {
		c := &collector{}
		c.add(decodeJSON(t, writeFile(t, tr, Options{Granularity: Region, RunSalt: salt})))
		m := map[string]bool{}
		for _, s := range c.spans {
			m[string(s.SpanId)] = true
			m[string(s.TraceId)] = true
		}
		return m
	}
	plain, a, a2 := ids(""), ids("a"), ids("a")
	for id := range a {
		if plain[id] {
			t.Errorf("id %x is shared with the unsalted export", id)
		}
		if !a2[id] {
			t.Errorf("id %x not repeated with the same salt", id)
		}
	}
}

// decodeJSON decodes OTLP/JSON lines per the spec's JSON mapping (hex ids,
// decimal-string times) into proto spans: names, ids, times and string or
// int attributes, enough for the tests that do not need the Collector.
func decodeJSON(t *testing.T, out []byte) *coltracepb.ExportTraceServiceRequest {
	t.Helper()
	req := &coltracepb.ExportTraceServiceRequest{}
	for _, l := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var line struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []struct {
						TraceID, SpanID, ParentSpanID, Name string
						StartTimeUnixNano                   uint64 `json:",string"`
						EndTimeUnixNano                     uint64 `json:",string"`
					}
				}
			}
		}
		if err := json.Unmarshal(l, &line); err != nil {
			t.Fatal(err)
		}
		rs := &tracepb.ResourceSpans{}
		ss := &tracepb.ScopeSpans{}
		rs.ScopeSpans = append(rs.ScopeSpans, ss)
		req.ResourceSpans = append(req.ResourceSpans, rs)
		for _, r := range line.ResourceSpans {
			for _, sc := range r.ScopeSpans {
				for _, s := range sc.Spans {
					unhex := func(h string) []byte {
						b, err := hex.DecodeString(h)
						if err != nil {
							t.Fatal(err)
						}
						return b
					}
					ss.Spans = append(ss.Spans, &tracepb.Span{TraceId: unhex(s.TraceID), SpanId: unhex(s.SpanID),
						ParentSpanId: unhex(s.ParentSpanID), Name: s.Name,
						StartTimeUnixNano: s.StartTimeUnixNano, EndTimeUnixNano: s.EndTimeUnixNano})
				}
			}
		}
	}
	return req
}

// TestAttributeValues: every attribute type the SDK has reaches the
// Collector's reader with its type and value (doubles, NaN included).
func TestAttributeValues(t *testing.T) {
	bin := otlptest.Checker(t)
	var b bytes.Buffer
	f := &jsonFile{w: &b}
	kv := []attribute.KeyValue{
		attribute.String("s", "a\"b"), attribute.Bool("b", true), attribute.Int64("i", -1<<62),
		attribute.Float64("d", 1.5e300), attribute.Float64("nan", math.NaN()), attribute.Float64("inf", math.Inf(-1)),
		attribute.Int64Slice("is", []int64{1, 2}), attribute.StringSlice("ss", []string{"x"}),
		attribute.BoolSlice("bs", []bool{false}), attribute.Float64Slice("ds", []float64{0.25}),
	}
	stub := sdktracetest.SpanStub{Name: "n", Attributes: kv, StartTime: time.Unix(1, 2), EndTime: time.Unix(3, 4)}
	if err := f.ExportSpans(context.Background(), []sdktrace.ReadOnlySpan{stub.Snapshot()}); err != nil {
		t.Fatal(err)
	}
	if err := f.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "a.otlp.json")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	req := otlptest.Read(t, bin, file)
	s := req.ResourceSpans[0].ScopeSpans[0].Spans[0]
	if s.StartTimeUnixNano != 1e9+2 || s.EndTimeUnixNano != 3e9+4 {
		t.Errorf("times %d %d", s.StartTimeUnixNano, s.EndTimeUnixNano)
	}
	a := attrs(s)
	if a["s"].GetStringValue() != "a\"b" || !a["b"].GetBoolValue() || a["i"].GetIntValue() != -1<<62 ||
		a["d"].GetDoubleValue() != 1.5e300 || !math.IsNaN(a["nan"].GetDoubleValue()) || !math.IsInf(a["inf"].GetDoubleValue(), -1) {
		t.Errorf("scalars %v", a)
	}
	if v := a["is"].GetArrayValue().GetValues(); len(v) != 2 || v[1].GetIntValue() != 2 {
		t.Errorf("int slice %v", v)
	}
	if v := a["ss"].GetArrayValue().GetValues(); len(v) != 1 || v[0].GetStringValue() != "x" {
		t.Errorf("string slice %v", v)
	}
	if v := a["ds"].GetArrayValue().GetValues(); len(v) != 1 || v[0].GetDoubleValue() != 0.25 {
		t.Errorf("double slice %v", v)
	}
	if v := a["bs"].GetArrayValue().GetValues(); len(v) != 1 || v[0].GetBoolValue() {
		t.Errorf("bool slice %v", v)
	}
}
