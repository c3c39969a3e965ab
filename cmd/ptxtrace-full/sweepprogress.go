package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ptxtrace/ptxtrace/sweep"
)

// sweepProgress draws a sweep's progress line ("\r" updates, at most five
// a second): runs done of total, simulated cycles and their rate, elapsed
// time and an ETA. Simulated cycles are the finished runs' plus the
// running runs' current ones, as last reported (the model reports every 64
// quanta, so a run's last few cycles may be missing). The ETA extrapolates
// the elapsed time over the fraction done, a running run counting by its
// CTAs dispatched: an estimate, labelled so. The callbacks may come from
// several goroutines; now is the clock (time.Now outside tests).
type sweepProgress struct {
	mu      sync.Mutex
	w       io.Writer
	label   string
	now     func() time.Time
	start   time.Time
	last    time.Time
	enabled bool
	shown   bool
	done    int
	total   int
	ended   uint64 // cycles of the runs that ended
	running map[int]sweep.EntryProgress
}

func newSweepProgress(w io.Writer, label string, now func() time.Time, enabled bool) *sweepProgress {
	return &sweepProgress{w: w, label: label, now: now, start: now(), enabled: enabled, running: map[int]sweep.EntryProgress{}}
}

// entry is sweep.RunOptions.Entry.
func (p *sweepProgress) entry(i int, e sweep.EntryProgress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Ended {
		p.ended += uint64(p.running[i].Cycle)
		delete(p.running, i)
		return
	}
	p.running[i] = e
	p.draw(false)
}

// runs is sweep.RunOptions.Progress.
func (p *sweepProgress) runs(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total = done, total
	p.draw(done == total)
}

// draw writes the line unless disabled or drawn less than 200 ms ago
// (call with mu held; final draws regardless of the interval).
func (p *sweepProgress) draw(final bool) {
	now := p.now()
	if !p.enabled || (!final && p.shown && now.Sub(p.last) < 200*time.Millisecond) {
		return
	}
	p.last, p.shown = now, true
	fmt.Fprintf(p.w, "\r%s\033[K", p.line(now))
}

// line is the progress line at time now (call with mu held).
func (p *sweepProgress) line(now time.Time) string {
	cycles, frac := p.ended, float64(p.done)
	for _, e := range p.running {
		cycles += uint64(e.Cycle)
		if e.CTAs > 0 {
			frac += float64(e.Dispatched) / float64(e.CTAs)
		}
	}
	el := now.Sub(p.start)
	s := fmt.Sprintf("%s: %d/%d runs, %.1f Mcycles simulated", p.label, p.done, p.total, float64(cycles)/1e6)
	if sec := el.Seconds(); sec > 0 {
		s += fmt.Sprintf(" (%.2f Mcycles/s)", float64(cycles)/sec/1e6)
	}
	s += ", " + fmtDur(el)
	switch {
	case p.total > 0 && p.done == p.total:
	case frac > 0 && p.total > 0:
		left := time.Duration(float64(el) * (float64(p.total) - frac) / frac)
		s += ", ETA ≈ " + fmtDur(left)
	default:
		s += ", ETA ?"
	}
	return s
}

// finish ends the line.
func (p *sweepProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
}

// fmtDur formats d to the second: "45s", "3m05s", "1h02m03s".
func fmtDur(d time.Duration) string {
	t := int64(d.Round(time.Second) / time.Second)
	switch h, m, s := t/3600, t/60%60, t%60; {
	case h > 0:
		return fmt.Sprintf("%dh%02dm%02ds", h, m, s)
	case m > 0:
		return fmt.Sprintf("%dm%02ds", m, s)
	default:
		return fmt.Sprintf("%ds", s)
	}
}
