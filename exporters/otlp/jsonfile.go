package otlp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// JSONBatch is the number of spans per line of an OTLP/JSON file.
const JSONBatch = 512

// NewFile returns an exporter writing OTLP/JSON to w as the OpenTelemetry
// Collector's file exporter does: JSON lines, each one
// ExportTraceServiceRequest (resourceSpans → scopeSpans → spans) with the
// protobuf JSON mapping of OTLP (trace and span ids as lowercase hex,
// times as decimal strings of Unix nanoseconds, enums as integers, 64-bit
// integers as decimal strings). Spans are written at End in the order they
// end, at most JSONBatch per line; the output is byte-identical for the
// same trace and options.
func NewFile(w io.Writer, opt Options) *Exporter {
	return New(context.Background(), &jsonFile{w: w}, opt)
}

// jsonFile is an sdktrace.SpanExporter that buffers spans and writes them
// as OTLP/JSON lines at Shutdown (the span count is bounded by MaxSpans).
type jsonFile struct {
	w     io.Writer
	mu    sync.Mutex
	spans []sdktrace.ReadOnlySpan
	done  bool
}

func (j *jsonFile) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done {
		return errors.New("otlp: export after shutdown")
	}
	j.spans = append(j.spans, spans...)
	return nil
}

func (j *jsonFile) Shutdown(context.Context) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done {
		return nil
	}
	j.done = true
	bw := bufio.NewWriter(j.w)
	for i := 0; i < len(j.spans); i += JSONBatch {
		line, err := json.Marshal(request(j.spans[i:min(i+JSONBatch, len(j.spans))]))
		if err != nil {
			return fmt.Errorf("otlp: %w", err)
		}
		bw.Write(line)
		bw.WriteByte('\n')
	}
	j.spans = nil
	return bw.Flush()
}

// The OTLP/JSON message shapes (opentelemetry-proto, JSON mapping).
type (
	jRequest struct {
		ResourceSpans []jResourceSpans `json:"resourceSpans"`
	}
	jResourceSpans struct {
		Resource   jResource     `json:"resource"`
		ScopeSpans []jScopeSpans `json:"scopeSpans"`
		SchemaURL  string        `json:"schemaUrl,omitempty"`
	}
	jResource struct {
		Attributes []jKeyValue `json:"attributes"`
	}
	jScopeSpans struct {
		Scope     jScope  `json:"scope"`
		Spans     []jSpan `json:"spans"`
		SchemaURL string  `json:"schemaUrl,omitempty"`
	}
	jScope struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	}
	jSpan struct {
		TraceID           string      `json:"traceId"`
		SpanID            string      `json:"spanId"`
		ParentSpanID      string      `json:"parentSpanId,omitempty"`
		Flags             uint32      `json:"flags,omitempty"`
		Name              string      `json:"name"`
		Kind              int         `json:"kind"`
		StartTimeUnixNano string      `json:"startTimeUnixNano"`
		EndTimeUnixNano   string      `json:"endTimeUnixNano"`
		Attributes        []jKeyValue `json:"attributes,omitempty"`
		DroppedAttributes int         `json:"droppedAttributesCount,omitempty"`
		Status            jStatus     `json:"status"`
	}
	jStatus struct {
		Message string `json:"message,omitempty"`
		Code    int    `json:"code,omitempty"`
	}
	jKeyValue struct {
		Key   string    `json:"key"`
		Value jAnyValue `json:"value"`
	}
	jAnyValue struct {
		String *string         `json:"stringValue,omitempty"`
		Bool   *bool           `json:"boolValue,omitempty"`
		Int    *string         `json:"intValue,omitempty"`
		Double json.RawMessage `json:"doubleValue,omitempty"`
		Array  *jArrayValue    `json:"arrayValue,omitempty"`
	}
	jArrayValue struct {
		Values []jAnyValue `json:"values"`
	}
)

// request groups spans by resource and instrumentation scope, in order of
// first appearance.
func request(spans []sdktrace.ReadOnlySpan) jRequest {
	var req jRequest
	var resKeys []string
	for _, s := range spans {
		rk := s.Resource().Encoded(attribute.DefaultEncoder())
		ri := -1
		for i, k := range resKeys {
			if k == rk {
				ri = i
			}
		}
		if ri < 0 {
			ri = len(resKeys)
			resKeys = append(resKeys, rk)
			req.ResourceSpans = append(req.ResourceSpans, jResourceSpans{
				Resource:  jResource{Attributes: keyValues(s.Resource().Attributes())},
				SchemaURL: s.Resource().SchemaURL()})
		}
		rs := &req.ResourceSpans[ri]
		sc := s.InstrumentationScope()
		si := -1
		for i := range rs.ScopeSpans {
			if rs.ScopeSpans[i].Scope.Name == sc.Name && rs.ScopeSpans[i].Scope.Version == sc.Version &&
				rs.ScopeSpans[i].SchemaURL == sc.SchemaURL {
				si = i
			}
		}
		if si < 0 {
			si = len(rs.ScopeSpans)
			rs.ScopeSpans = append(rs.ScopeSpans, jScopeSpans{Scope: jScope{Name: sc.Name, Version: sc.Version}, SchemaURL: sc.SchemaURL})
		}
		ss := &rs.ScopeSpans[si]
		ss.Spans = append(ss.Spans, span(s))
	}
	return req
}

func span(s sdktrace.ReadOnlySpan) jSpan {
	sc := s.SpanContext()
	js := jSpan{
		TraceID:           sc.TraceID().String(),
		SpanID:            sc.SpanID().String(),
		Flags:             uint32(sc.TraceFlags()),
		Name:              s.Name(),
		Kind:              int(s.SpanKind()), // the API's kinds number as OTLP's
		StartTimeUnixNano: unixNano(s.StartTime().UnixNano()),
		EndTimeUnixNano:   unixNano(s.EndTime().UnixNano()),
		Attributes:        keyValues(s.Attributes()),
		DroppedAttributes: s.DroppedAttributes(),
	}
	if p := s.Parent(); p.SpanID().IsValid() {
		js.ParentSpanID = p.SpanID().String()
	}
	switch st := s.Status(); st.Code {
	case codes.Ok:
		js.Status.Code = 1 // STATUS_CODE_OK
	case codes.Error:
		js.Status = jStatus{Code: 2, Message: st.Description} // STATUS_CODE_ERROR
	}
	return js
}

func unixNano(ns int64) string {
	if ns < 0 {
		ns = 0
	}
	return strconv.FormatUint(uint64(ns), 10)
}

func keyValues(kv []attribute.KeyValue) []jKeyValue {
	out := make([]jKeyValue, 0, len(kv))
	for _, a := range kv {
		out = append(out, jKeyValue{Key: string(a.Key), Value: anyValue(a.Value)})
	}
	return out
}

func anyValue(v attribute.Value) jAnyValue {
	str := func(s string) jAnyValue { return jAnyValue{String: &s} }
	boolean := func(b bool) jAnyValue { return jAnyValue{Bool: &b} }
	integer := func(i int64) jAnyValue { s := strconv.FormatInt(i, 10); return jAnyValue{Int: &s} }
	double := func(f float64) jAnyValue {
		switch {
		case math.IsNaN(f):
			return jAnyValue{Double: json.RawMessage(`"NaN"`)} // the protobuf JSON mapping's spelling
		case math.IsInf(f, 1):
			return jAnyValue{Double: json.RawMessage(`"Infinity"`)}
		case math.IsInf(f, -1):
			return jAnyValue{Double: json.RawMessage(`"-Infinity"`)}
		}
		return jAnyValue{Double: strconv.AppendFloat(nil, f, 'g', -1, 64)}
	}
	arr := func(n int, at func(i int) jAnyValue) jAnyValue {
		a := &jArrayValue{Values: make([]jAnyValue, n)}
		for i := range n {
			a.Values[i] = at(i)
		}
		return jAnyValue{Array: a}
	}
	switch v.Type() {
	case attribute.BOOL:
		return boolean(v.AsBool())
	case attribute.INT64:
		return integer(v.AsInt64())
	case attribute.FLOAT64:
		return double(v.AsFloat64())
	case attribute.BOOLSLICE:
		s := v.AsBoolSlice()
		return arr(len(s), func(i int) jAnyValue { return boolean(s[i]) })
	case attribute.INT64SLICE:
		s := v.AsInt64Slice()
		return arr(len(s), func(i int) jAnyValue { return integer(s[i]) })
	case attribute.FLOAT64SLICE:
		s := v.AsFloat64Slice()
		return arr(len(s), func(i int) jAnyValue { return double(s[i]) })
	case attribute.STRINGSLICE:
		s := v.AsStringSlice()
		return arr(len(s), func(i int) jAnyValue { return str(s[i]) })
	}
	return str(v.Emit())
}
