package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ptxtrace/ptxtrace/sweep"
)

// fakeClock is a settable clock for progress lines.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// TestSweepProgress drives the sweep progress line with a fake clock and
// a writer taken for a terminal (enabled): the expected lines are worked
// out by hand from the reports (cycles summed over runs, rate = cycles /
// elapsed, ETA = elapsed · (total − fraction done) / fraction done).
func TestSweepProgress(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	t0 := clk.t
	var b strings.Builder
	p := newSweepProgress(&b, "sweep vr", clk.now, true)
	at := func(d time.Duration) { clk.t = t0.Add(d) }
	last := func() string {
		s := b.String()
		i := strings.LastIndex(s, "\r")
		return strings.TrimSuffix(s[i+1:], "\033[K")
	}
	steps := []struct {
		at   time.Duration
		do   func()
		want string // "" = no new line drawn
	}{
		{0, func() { p.runs(0, 4) }, "sweep vr: 0/4 runs, 0.0 Mcycles simulated, 0s, ETA ?"},
		// run 0: 2 Mcycles, half its CTAs dispatched: 0.5 of 4 runs in 10 s → 70 s left
		{10 * time.Second, func() { p.entry(0, sweep.EntryProgress{Cycle: 2_000_000, Dispatched: 50, CTAs: 100}) },
			"sweep vr: 0/4 runs, 2.0 Mcycles simulated (0.20 Mcycles/s), 10s, ETA ≈ 1m10s"},
		// within 200 ms of the last line: not drawn
		{10*time.Second + 100*time.Millisecond, func() { p.entry(1, sweep.EntryProgress{Cycle: 500_000, Dispatched: 10, CTAs: 100}) }, ""},
		// 3 Mcycles in 20 s; 0.75 done → 20·3.25/0.75 = 86.7 s
		{20 * time.Second, func() { p.entry(1, sweep.EntryProgress{Cycle: 1_000_000, Dispatched: 25, CTAs: 100}) },
			"sweep vr: 0/4 runs, 3.0 Mcycles simulated (0.15 Mcycles/s), 20s, ETA ≈ 1m27s"},
		// run 0 ends: its 2 Mcycles stay counted; 1.25 done → 30·2.75/1.25 = 66 s
		{30 * time.Second, func() { p.entry(0, sweep.EntryProgress{Ended: true}); p.runs(1, 4) },
			"sweep vr: 1/4 runs, 3.0 Mcycles simulated (0.10 Mcycles/s), 30s, ETA ≈ 1m06s"},
		// the last run is drawn even within 200 ms, without an ETA
		{30*time.Second + 50*time.Millisecond, func() {
			p.entry(1, sweep.EntryProgress{Ended: true})
			p.runs(2, 4)
			p.runs(3, 4)
			at(time.Minute)
			p.runs(4, 4)
		}, "sweep vr: 4/4 runs, 3.0 Mcycles simulated (0.05 Mcycles/s), 1m00s"},
	}
	for i, s := range steps {
		at(s.at)
		before := b.Len()
		s.do()
		switch {
		case s.want == "" && b.Len() != before:
			t.Errorf("step %d: drew %q", i, b.String()[before:])
		case s.want != "" && last() != s.want:
			t.Errorf("step %d: line %q, want %q", i, last(), s.want)
		}
	}
	p.finish()
	if !strings.HasSuffix(b.String(), "\n") {
		t.Errorf("finish did not end the line: %q", b.String())
	}

	// Disabled (no terminal, or --quiet): nothing at all.
	b.Reset()
	q := newSweepProgress(&b, "sweep vr", clk.now, false)
	q.runs(0, 2)
	q.entry(0, sweep.EntryProgress{Cycle: 5, Dispatched: 1, CTAs: 2})
	q.runs(2, 2)
	q.finish()
	if b.Len() != 0 {
		t.Errorf("disabled progress wrote %q", b.String())
	}
}

func TestFmtDur(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{0, "0s"}, {1499 * time.Millisecond, "1s"}, {59 * time.Second, "59s"}, {65 * time.Second, "1m05s"}, {3723 * time.Second, "1h02m03s"}} {
		if got := fmtDur(c.d); got != c.want {
			t.Errorf("fmtDur(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
