package clog2_test

import (
	"bytes"
	"testing"

	"github.com/ptxtrace/ptxtrace/exporters/crosscheck"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// synthTrace decodes a synthetic raw buffer through the real decoder.
func synthTrace(t *testing.T) *trace.Trace {
	t.Helper()
	s := tracetest.Synth{Warps: 48, WarpsPerCTA: 4, Iters: 12, Loads: 3, NumSMs: 5, Timer: 1}
	var raw bytes.Buffer
	if _, err := s.WriteTo(&raw); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Decode(raw.Bytes(), s.Manifest(), tracetest.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(tr.Regions)) != s.Regions() {
		t.Fatalf("decoded %d regions, want %d", len(tr.Regions), s.Regions())
	}
	return tr
}

// TestCrossFormat exports one trace to every format and reads each back
// with its reader: all give the same counts and cycle sums, and the CSV's
// empty cells are the Parquet file's NULLs. (cmd/ptxtrace-full runs the same
// check on a demo run and on a two-launch run.)
func TestCrossFormat(t *testing.T) {
	tr := synthTrace(t)
	want := crosscheck.Of(tr)
	got := crosscheck.Formats(t, tr)
	for f, x := range got {
		if x != want {
			t.Errorf("%s: %+v, want %+v", f, x, want)
		}
	}
	if _, ok := got["otlp"]; len(got) != 7 && (ok || len(got) != 6) {
		t.Errorf("%d formats checked", len(got))
	}
	crosscheck.NullParity(t, tr)
}
