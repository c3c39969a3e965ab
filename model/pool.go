package model

import (
	"runtime"
	"sync/atomic"
	"time"
)

// workerPool runs the SMs of an epoch on persistent goroutines: the
// calling goroutine (worker 0) and workers-1 helpers. SMs are independent
// within an epoch, so who runs which does not change the result; each
// worker first runs its own contiguous block of SMs, in index order, then
// takes the SMs no one has claimed yet from the other end (the highest
// index below its block first, wrapping around), claiming each with a
// compare-and-swap of the SM's claim slot. So the split adapts to workers
// that run at different speeds, an SM mostly runs on the same worker epoch
// after epoch, and two workers run neighbouring SMs at once only where
// their ranges meet. Helper 1 first runs the epoch's side job (the
// overlapped memory side), if any. A helper can also run one job alone
// (startJob/waitJob) in a serial phase.
//
// Hand-off: a waiting goroutine (a helper between epochs, the caller at the
// end of one) first spins for up to spinFor on the atomic it waits for and
// only then parks on a channel. Parking at every epoch boundary (901 of them
// in the 1M vecadd) let the Go scheduler swap the two goroutines between
// its threads: a goroutine readied by a channel operation runs on the
// readier's thread, so the worker that finished last handed its thread to
// the caller, and the SMs of a worker ran on the other core every other
// epoch (docs/performance.md, "Parallel scaling, fifth round"). Spinning
// keeps each goroutine on its thread and so, as far as the OS keeps a
// running thread on its core, an SM's data in one core's cache. It is on
// only when every worker can have a processor of its own (workers <=
// GOMAXPROCS when the pool is made); otherwise a spinning goroutine would
// hold a processor the one it waits for needs.
type workerPool struct {
	sms   []*smState
	k     Kernel
	end   Time
	side  func()
	epoch uint64      // the epoch being run, from 1; written only between epochs
	claim []claimSlot // per SM: the last epoch a worker took it in
	order [][]int     // per worker: the SMs in the order it tries them
	run   []func()    // per helper: its part of an epoch
	// before, when non-nil, runs on the worker that runs SM i, just
	// before it does, in every epoch (gpu.takeResponses)
	before func(i int)
	spin   bool

	helpers []helper
	left    atomic.Int32 // helpers still running the current job
	_       cachePad
	caller  parker // the caller waiting for left to reach 0
	_       cachePad
}

// helper is one helper goroutine's mailbox, alone on its cache lines.
type helper struct {
	posted atomic.Uint64 // jobs posted so far
	// jobs[n%2] is job n (nil: stop); at most two are outstanding (a
	// job from startJob, then an epoch's part), so the caller never
	// writes the slot of a job the helper has not yet taken
	jobs [2]func()
	gate parker
	_    cachePad
}

// claimSlot is an SM's claim, alone on its cache lines.
type claimSlot struct {
	ep atomic.Uint64
	_  cachePad
}

// spinFor bounds a waiting goroutine's spin before it parks: longer than
// the serial phase between two epochs (the CTA refill: 60-130 µs at its
// 90th-99th percentile) and than the imbalance of one SM's epoch between
// workers, far shorter than an OS time slice. A park costs far more than
// the spin it saves: the futex wake-up of a parked helper took 100-500 µs
// at its 99th percentile on the shared 2-vCPU machine
// (docs/performance.md, "Parallel scaling, sixth round").
const spinFor = 100 * time.Microsecond

// parkRun is how many waits in a row must park before a waiter spins only
// a tenth of spinFor: then the goroutine waited for is evidently not
// running (its core is taken by other work) and a long spin only burns
// that work's time.
const parkRun = 4

// yieldAfter is how long a waiter spins before it also yields its
// processor now and then (runtime.Gosched) while it spins.
const yieldAfter = 2 * time.Microsecond

// parker lets one goroutine wait for a condition that other goroutines
// make true and then call notify: it spins (when asked), then parks. After
// parkRun waits in a row that had to park, the next spin only a tenth as
// long: on a machine whose cores are taken by other work the goroutine
// waited for is often not running, and a long spin then only burns their
// time. One park alone (a long refill, a preempted worker) does not shorten
// the spins: with a short spin the next ordinary wait (tens of µs at the
// epoch's end) parked too, and parks came in runs (docs/performance.md,
// "Parallel scaling, sixth round").
type parker struct {
	sleeping atomic.Bool
	wake     chan struct{}
	parks    int // the waits in a row that parked (the waiter's own)
}

func newParker() parker { return parker{wake: make(chan struct{}, 1)} }

// wait returns once ready() holds. Whoever makes ready() true must call
// notify afterwards. Sequentially consistent atomics make the handshake
// safe: either the waiter sees ready() after announcing that it sleeps, or
// the notifier sees the announcement and sends the one wake-up.
func (q *parker) wait(spin bool, ready func() bool) {
	if spin {
		limit := spinFor
		if q.parks >= parkRun {
			limit /= 10
		}
		t0 := time.Now()
		for i := 1; !ready(); i++ {
			if i%64 != 0 {
				continue
			}
			d := time.Since(t0)
			if d > limit {
				break
			}
			if d > yieldAfter {
				// the goroutine waited for may be queued on this
				// processor: a wake-up puts the woken goroutine next
				// to its waker, where it would wait for the spin to
				// end (BenchmarkWorkerPoolEpoch on a loaded machine:
				// 13-42 µs per epoch instead of about 1)
				runtime.Gosched()
			}
		}
	}
	if ready() {
		q.parks = 0
		return
	}
	q.parks++
	for !ready() {
		q.sleeping.Store(true)
		if ready() {
			if !q.sleeping.Swap(false) {
				<-q.wake // the notifier saw us asleep and sends
			}
			return
		}
		<-q.wake
	}
}

// notify wakes the waiter if it parked.
func (q *parker) notify() {
	if q.sleeping.Swap(false) {
		q.wake <- struct{}{}
	}
}

func newWorkerPool(sms []*smState, k Kernel, workers int) *workerPool {
	n := len(sms)
	p := &workerPool{sms: sms, k: k, claim: make([]claimSlot, n), caller: newParker()}
	p.spin = workers <= runtime.GOMAXPROCS(0)
	p.order = make([][]int, workers)
	for w := range p.order {
		lo, hi := w*n/workers, (w+1)*n/workers
		o := make([]int, 0, n)
		for i := lo; i < hi; i++ {
			o = append(o, i)
		}
		for i := lo - 1 + n; i >= hi; i-- {
			o = append(o, i%n)
		}
		p.order[w] = o
	}
	p.helpers = make([]helper, workers-1)
	p.run = make([]func(), workers-1)
	for i := range p.helpers {
		w := i + 1
		p.run[i] = func() { p.drain(w) }
		if i == 0 {
			p.run[i] = func() {
				if p.side != nil {
					p.side()
				}
				p.drain(w)
			}
		}
		h := &p.helpers[i]
		h.gate = newParker()
		go p.serve(h)
	}
	return p
}

// serve is a helper goroutine: it runs the jobs posted to h until a nil one.
func (p *workerPool) serve(h *helper) {
	for seen := uint64(1); ; seen++ {
		h.gate.wait(p.spin, func() bool { return h.posted.Load() >= seen })
		f := h.jobs[seen%2]
		if f == nil {
			return
		}
		f()
		if p.left.Add(-1) == 0 {
			p.caller.notify()
		}
	}
}

// post hands job f to helper h.
func (p *workerPool) post(h *helper, f func()) {
	h.jobs[(h.posted.Load()+1)%2] = f
	h.posted.Add(1)
	h.gate.notify()
}

// wait returns when the helpers have finished their jobs.
func (p *workerPool) wait() {
	p.caller.wait(p.spin, func() bool { return p.left.Load() == 0 })
}

// drain runs, as worker w, the SMs not yet taken in this epoch.
func (p *workerPool) drain(w int) {
	ep := p.epoch
	for _, i := range p.order[w] {
		c := &p.claim[i].ep
		if c.Load() != ep && c.CompareAndSwap(ep-1, ep) {
			if p.before != nil {
				p.before(i)
				if p.sms[i].err != nil {
					continue
				}
			}
			p.sms[i].run(p.end, p.k)
		}
	}
}

// runEpoch runs every SM up to end and side (when non-nil) concurrently,
// and returns when all are done, and so is a job from startJob before it.
func (p *workerPool) runEpoch(end Time, side func()) {
	p.end, p.side = end, side
	p.epoch++
	p.left.Add(int32(len(p.helpers)))
	for i := range p.helpers {
		p.post(&p.helpers[i], p.run[i])
	}
	p.drain(0)
	p.wait()
}

// startJob runs f on helper 1 while the caller goes on; waitJob (or the
// next runEpoch, which helper 1 joins after f) waits for it.
func (p *workerPool) startJob(f func()) {
	p.left.Add(1)
	p.post(&p.helpers[0], f)
}

func (p *workerPool) waitJob() { p.wait() }

func (p *workerPool) stop() {
	for i := range p.helpers {
		p.post(&p.helpers[i], nil)
	}
}
