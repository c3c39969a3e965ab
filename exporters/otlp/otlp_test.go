package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/ptxtrace/ptxtrace/exporters"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// collector keeps what a receiver got.
type collector struct {
	mu    sync.Mutex
	spans []*tracepb.Span
	res   []*commonpb.KeyValue
}

func (c *collector) add(req *coltracepb.ExportTraceServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		c.res = rs.GetResource().GetAttributes()
		for _, ss := range rs.ScopeSpans {
			c.spans = append(c.spans, ss.Spans...)
		}
	}
}

type grpcReceiver struct {
	coltracepb.UnimplementedTraceServiceServer
	c *collector
}

func (g *grpcReceiver) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	g.c.add(req)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

func startGRPC(t *testing.T) (string, *collector) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	s := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(s, &grpcReceiver{c: c})
	go s.Serve(l)
	t.Cleanup(s.Stop)
	return l.Addr().String(), c
}

func startHTTP(t *testing.T) (string, *collector) {
	c := &collector{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/traces" || r.Method != http.MethodPost {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.add(&req)
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), c
}

func attrs(s *tracepb.Span) map[string]*commonpb.AnyValue {
	m := map[string]*commonpb.AnyValue{}
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value
	}
	return m
}

// checkSpans verifies names, parent links, timestamps and attributes.
func checkSpans(t *testing.T, tr *trace.Trace, c *collector, g Granularity, maxSpans int) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	byID := map[string]*tracepb.Span{}
	count := map[string]int{}
	for _, s := range c.spans {
		byID[string(s.SpanId)] = s
		count[s.Name]++
	}
	if len(c.spans) > maxSpans {
		t.Fatalf("%d spans over the cap %d", len(c.spans), maxSpans)
	}
	base := uint64(tr.Header.Meta.StartUnixNs)
	var regionSpans int
	var cyc int64
	for _, s := range c.spans {
		if s.StartTimeUnixNano < base || s.EndTimeUnixNano < s.StartTimeUnixNano {
			t.Errorf("span %s: times %d..%d, base %d", s.Name, s.StartTimeUnixNano, s.EndTimeUnixNano, base)
		}
		if s.Name == "ptxtrace.run" {
			if len(s.ParentSpanId) != 0 {
				t.Error("run span has a parent")
			}
			continue
		}
		p := byID[string(s.ParentSpanId)]
		if p == nil {
			t.Fatalf("span %s: parent %x not received", s.Name, s.ParentSpanId)
		}
		if s.StartTimeUnixNano < p.StartTimeUnixNano || s.EndTimeUnixNano > p.EndTimeUnixNano {
			t.Errorf("span %s [%d,%d] outside parent %s [%d,%d]", s.Name, s.StartTimeUnixNano, s.EndTimeUnixNano, p.Name, p.StartTimeUnixNano, p.EndTimeUnixNano)
		}
		if string(s.TraceId) != string(p.TraceId) {
			t.Error("trace id differs from parent's")
		}
		want := map[string]string{"kern": "ptxtrace.run", "cta": "kern", "warp": "cta"}[s.Name]
		if want == "" {
			want = "warp"
			regionSpans++
			a := attrs(s)
			cyc += a["ptxtrace.cycles"].GetIntValue()
			if a["ptxtrace.region.id"] == nil || a["gpu.sm"] == nil || a["ptxtrace.probe.mode"].GetStringValue() != "fence" {
				t.Errorf("region span attributes %v", a)
			}
			// Duration: cycles at 1.5 GHz.
			d := float64(s.EndTimeUnixNano - s.StartTimeUnixNano)
			if w := float64(a["ptxtrace.cycles"].GetIntValue()) / 1.5; d < w-1 || d > w+1 {
				t.Errorf("region span lasts %g ns, want %g", d, w)
			}
		}
		if p.Name != want {
			t.Errorf("span %s has parent %s, want %s", s.Name, p.Name, want)
		}
	}
	if count["ptxtrace.run"] != 1 || count["kern"] != 1 {
		t.Errorf("span counts %v", count)
	}
	var total int64
	for _, r := range tr.Regions {
		total += int64(r.Cycles)
	}
	for _, s := range c.spans {
		if s.Name == "kern" {
			a := attrs(s)
			if a["ptxtrace.cycles"].GetIntValue() != total || a["ptxtrace.regions"].GetIntValue() != int64(len(tr.Regions)) {
				t.Errorf("launch attributes %v", a)
			}
			if g == Region && regionSpans < len(tr.Regions) && a["ptxtrace.spans.dropped"] == nil {
				t.Error("dropped spans not counted")
			}
		}
	}
	if g == Region && regionSpans == len(tr.Regions) && cyc != total {
		t.Errorf("region spans carry %d cycles, want %d", cyc, total)
	}
	if g >= Warp && count["warp"] != len(tr.Warps) && len(c.spans) < maxSpans {
		t.Errorf("%d warp spans, want %d", count["warp"], len(tr.Warps))
	}
	var svc string
	for _, kv := range c.res {
		if kv.Key == "service.name" {
			svc = kv.Value.GetStringValue()
		}
	}
	if svc != "ptxtrace" {
		t.Errorf("service.name %q", svc)
	}
}

func TestHTTPAndGRPC(t *testing.T) {
	tr := tracetest.Fixture(3, 2, 5, trace.TimerClock64)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, proto := range []string{"http", "grpc"} {
		t.Run(proto, func(t *testing.T) {
			var addr string
			var c *collector
			var e *Exporter
			var err error
			opt := Options{Granularity: Region}
			if proto == "http" {
				addr, c = startHTTP(t)
				e, err = NewHTTP(ctx, "http://"+addr, opt)
			} else {
				addr, c = startGRPC(t)
				e, err = NewGRPC(ctx, addr, opt)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := exporters.Run(ctx, tr.Source(), e); err != nil {
				t.Fatal(err)
			}
			if n := len(c.spans); n != 2+3+6+len(tr.Regions) {
				t.Errorf("%d spans, want %d", n, 2+3+6+len(tr.Regions))
			}
			checkSpans(t, tr, c, Region, DefaultMaxSpans)
		})
	}
}

func TestCapAndGranularity(t *testing.T) {
	tr := tracetest.Fixture(3, 2, 5, trace.TimerClock64)
	ctx := context.Background()
	for _, g := range []Granularity{Launch, CTA, Warp, Region} {
		addr, c := startHTTP(t)
		e, err := NewHTTP(ctx, addr, Options{Granularity: g, MaxSpans: 40})
		if err != nil {
			t.Fatal(err)
		}
		if err := exporters.Run(ctx, tr.Source(), e); err != nil {
			t.Fatal(err)
		}
		want := map[Granularity]int{Launch: 2, CTA: 5, Warp: 11, Region: 40}[g]
		if len(c.spans) != want {
			t.Errorf("%v: %d spans, want %d", g, len(c.spans), want)
		}
		checkSpans(t, tr, c, g, 40)
	}
}

func TestStdout(t *testing.T) {
	tr := tracetest.Fixture(1, 1, 2, trace.TimerGlobaltimer)
	var b bytes.Buffer
	e, err := NewStdout(&b, Options{Granularity: Region})
	if err != nil {
		t.Fatal(err)
	}
	if err := exporters.Run(context.Background(), tr.Source(), e); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"Name":"ptxtrace.run"`, `"Name":"global load"`, `"Name":"user region"`, "ptxtrace.region.id"} {
		if !bytes.Contains(b.Bytes(), []byte(want)) {
			t.Errorf("stdout lacks %s", want)
		}
	}
}

func TestParseGranularity(t *testing.T) {
	for s, g := range map[string]Granularity{"launch": Launch, "CTA": CTA, "warp": Warp, "region": Region} {
		if got, err := ParseGranularity(s); err != nil || got != g || (s != "CTA" && g.String() != s) {
			t.Errorf("%s: %v %v", s, got, err)
		}
	}
	if _, err := ParseGranularity("thread"); err == nil {
		t.Error("thread accepted")
	}
}
