package replay

import "sync/atomic"

// watchdog lets another goroutine stop a running kernel: once fired, the
// next instruction any warp executes faults as runaway, so the report names
// a warp that was still running (for a spinning kernel, a spinning warp:
// its PC, CTA, warp and source line) instead of the run hanging until the
// instruction budget runs out.
type watchdog struct{ f atomic.Bool }

func (w *watchdog) fired() bool { return w.f.Load() }

// Interrupt fires k's watchdog: the run ends with a FaultRunaway report of
// the next warp to execute an instruction. It may be called from any
// goroutine, before or during Run and RunModel.
func (k *Kernel) Interrupt() { k.stop.f.Store(true) }
