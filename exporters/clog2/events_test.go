package clog2

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/ptxtrace/ptxtrace/exporters"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// synthDecoder decodes a synthetic raw buffer (tracetest.Synth) through
// the real streaming decoder.
func synthDecoder(t testing.TB, s tracetest.Synth) *trace.Decoder {
	t.Helper()
	var raw bytes.Buffer
	if _, err := s.WriteTo(&raw); err != nil {
		t.Fatal(err)
	}
	d, err := trace.NewDecoder(bytes.NewReader(raw.Bytes()), int64(raw.Len()), s.Manifest(), tracetest.Kernel, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

type instTotals struct {
	n      int64
	cycles int64
	states int
	lines  int
}

func checkTotals(t *testing.T, b []byte) instTotals {
	t.Helper()
	var x instTotals
	s, err := Check(bytes.NewReader(b), &CheckOptions{OnInstance: func(in *Instance) {
		ts, _ := CargoFormat(in.State.Format)
		v, err := DecodeCargo(ts, in.Cargo[:])
		if err != nil {
			t.Fatal(err)
		}
		if v[3].(int64) != int64(in.Thread) {
			t.Fatalf("cargo warp %v on thread %d", v[3], in.Thread)
		}
		x.n++
		x.cycles += v[6].(int64)
	}})
	if err != nil {
		t.Fatal(err)
	}
	x.states, x.lines = len(s.States), s.Lines
	return x
}

// TestTimeOrdered: with a *trace.Decoder source, exporters.Run feeds the
// exporter time-ordered events (WriteEvent, spooled blocks); the file has
// the same instances, cycles, states and lines as the buffering path, passes
// Check (and MPE's converter), and the spool file is removed.
func TestTimeOrdered(t *testing.T) {
	for _, timer := range []uint32{0, 1, 2} {
		s := tracetest.Synth{Warps: 40, WarpsPerCTA: 4, Iters: 30, Loads: 3, NumSMs: 3, Timer: timer}
		d := synthDecoder(t, s)
		tr, err := trace.Collect(d)
		if err != nil {
			t.Fatal(err)
		}
		var buffered bytes.Buffer
		if err := exporters.Run(context.Background(), tr.Source(), New(&buffered, Options{BlockSize: 4096})); err != nil {
			t.Fatal(err)
		}
		tmp := t.TempDir()
		var events bytes.Buffer
		e := New(&events, Options{BlockSize: 4096, TempDir: tmp})
		if err := exporters.Run(context.Background(), d, e); err != nil {
			t.Fatal(err)
		}
		if e.spool == nil {
			t.Fatal("Run did not use WriteEvent")
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("spool left behind: %v", left)
		}
		a, b := checkTotals(t, buffered.Bytes()), checkTotals(t, events.Bytes())
		if a != b || a.n != s.Regions() {
			t.Errorf("timer %d: buffered %+v, events %+v, want %d instances", timer, a, b, s.Regions())
		}
		var again bytes.Buffer
		if err := exporters.Run(context.Background(), d, New(&again, Options{BlockSize: 4096, TempDir: tmp})); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), events.Bytes()) {
			t.Errorf("timer %d: two event exports differ", timer)
		}
		if conv := os.Getenv("PTXTRACE_CLOG2TOSLOG2"); conv != "" && timer == 1 {
			f := filepath.Join(t.TempDir(), "m.clog2")
			os.WriteFile(f, events.Bytes(), 0o644)
			out, err := exec.Command(conv, "-tc", "-o", f+".slog2", f).CombinedOutput()
			m := regexp.MustCompile(`Number of Unmatched Events = (\d+)`).FindSubmatch(out)
			if err != nil || m == nil || string(m[1]) != "0" {
				t.Errorf("converter: %v\n%s", err, out)
			}
		}
	}
}
