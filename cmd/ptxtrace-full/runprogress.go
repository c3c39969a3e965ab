package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/replay"
)

// progressDelay is how long a run goes before its progress line appears.
const progressDelay = 2 * time.Second

// runProgress draws `ptxtrace run`'s progress line ("\r" updates): CTAs
// done and their rate in functional mode, simulated cycles, CTAs started
// and the simulation rate in timing mode, launches for multi-launch specs.
// It also remembers the last state for the --timeout message. The
// callbacks may come from several goroutines.
type runProgress struct {
	mu      sync.Mutex
	w       io.Writer
	kernel  string
	start   time.Time
	last    time.Time
	enabled bool
	shown   bool
	done    int // CTAs done (functional) or started (timing)
	total   int
	cycle   model.Time
}

func newRunProgress(w io.Writer, kernel string, start time.Time, enabled bool) *runProgress {
	return &runProgress{w: w, kernel: kernel, start: start, enabled: enabled}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// due reports whether a line may be drawn now (call with mu held).
func (p *runProgress) due(final bool) bool {
	now := time.Now()
	if !p.enabled || now.Sub(p.start) < progressDelay || (!final && now.Sub(p.last) < 200*time.Millisecond) {
		return false
	}
	p.last = now
	p.shown = true
	return true
}

// ctas is launch.ExecOptions.Progress (functional mode).
func (p *runProgress) ctas(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total = done, total
	if p.due(done == total) {
		el := time.Since(p.start).Seconds()
		fmt.Fprintf(p.w, "\rrun %s: %d/%d CTAs (%d%%), %.0f CTAs/s ", p.kernel, done, total, done*100/max(total, 1), float64(done)/el)
	}
}

// cycles is model.Options.Progress (timing mode).
func (p *runProgress) cycles(cycle model.Time, started, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cycle, p.done, p.total = cycle, started, total
	if p.due(false) {
		el := time.Since(p.start).Seconds()
		fmt.Fprintf(p.w, "\rrun %s: cycle %d, %d/%d CTAs started, %.2f Mcycles/s ", p.kernel, cycle, started, total, float64(cycle)/el/1e6)
	}
}

// launch is launch.ExecOptions.OnLaunch.
func (p *runProgress) launch(i int, _ *launch.LaunchResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.due(false) {
		fmt.Fprintf(p.w, "\rrun: %d launches done ", i+1)
	}
}

// finish ends the progress line.
func (p *runProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
}

// state describes how far the run got, for the --timeout message.
func (p *runProgress) state() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cycle > 0 {
		return fmt.Sprintf("simulated cycle %d, %d of %d CTAs started", p.cycle, p.done, p.total)
	}
	return fmt.Sprintf("%d of %d CTAs ended", p.done, p.total)
}

// runWatchdog sets each kernel's spin probe interval (--spin-check,
// replay.Kernel.SetSpinCheck: a provably spinning warp faults at once) and
// interrupts the running kernel (replay.Kernel.Interrupt) once the
// --timeout has passed, so the run ends with a fault report naming a warp
// that was still executing (PC, CTA, warp, source line).
type runWatchdog struct {
	mu    sync.Mutex
	timer *time.Timer
	cur   *replay.Kernel
	fired bool
	spin  uint64
}

func newRunWatchdog(d time.Duration, spin uint64) *runWatchdog {
	w := &runWatchdog{spin: spin}
	if d > 0 {
		w.timer = time.AfterFunc(d, func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.fired = true
			if w.cur != nil {
				w.cur.Interrupt()
			}
		})
	}
	return w
}

// watch is launch.ExecOptions.OnKernel.
func (w *runWatchdog) watch(k *replay.Kernel) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cur = k
	k.SetSpinCheck(w.spin)
	if w.fired {
		k.Interrupt()
	}
}

func (w *runWatchdog) hasFired() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
}

func (w *runWatchdog) stop() {
	if w.timer != nil {
		w.timer.Stop()
	}
}
