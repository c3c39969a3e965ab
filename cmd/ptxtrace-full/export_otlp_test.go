package main

import (
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/ptxtrace/ptxtrace/trace"
)

// otlpHTTPReceiver is a loopback OTLP/HTTP receiver that decodes requests
// with the official proto types and counts spans by name.
type otlpHTTPReceiver struct {
	mu    sync.Mutex
	names map[string]int
}

func startOTLPHTTP(t *testing.T) (addr string, r *otlpHTTPReceiver) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r = &otlpHTTPReceiver{names: map[string]int{}}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var m coltrace.ExportTraceServiceRequest
		if req.URL.Path != "/v1/traces" || proto.Unmarshal(body, &m) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		for _, rs := range m.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					r.names[s.Name]++
				}
			}
		}
		r.mu.Unlock()
		out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), r
}

func TestExportOTLPEndpoint(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run.bundle")
	writeBundle(t, run, smallSynth, trace.RunMeta{ClockHz: 1e9})
	addr, recv := startOTLPHTTP(t)
	r := runCLI(t, "", "export", "--format", "otlp-http", "--endpoint", "http://"+addr, run)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	recv.mu.Lock()
	defer recv.mu.Unlock()
	// Warp granularity: one run span, one launch span, CTAs and warps.
	if recv.names["ptxtrace.run"] != 1 {
		t.Errorf("received spans %v, want one ptxtrace.run", recv.names)
	}
	total := 0
	for _, n := range recv.names {
		total += n
	}
	if total < 2+smallSynth.Warps {
		t.Errorf("received %d spans, want at least %d", total, 2+smallSynth.Warps)
	}
}

// TestExportOTLPNoCollector checks that a missing collector fails within the
// timeout with an error, not a hang.
func TestExportOTLPNoCollector(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run.bundle")
	writeBundle(t, run, smallSynth, trace.RunMeta{ClockHz: 1e9})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	start := time.Now()
	r := runCLI(t, "", "export", "--format", "otlp-http", "--endpoint", "http://"+addr, "--timeout", "2s", run)
	if r.code == 0 {
		t.Fatal("export to a closed port succeeded")
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("took %v with --timeout 2s", el)
	}
	if !strings.Contains(r.stderr, "ptxtrace:") {
		t.Errorf("stderr %q", r.stderr)
	}
}
