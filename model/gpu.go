package model

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync/atomic"
)

// Options are run-time settings of one simulation; none changes its
// result.
type Options struct {
	// Hooks observe activity (nil fields cost nothing). When SMs run in
	// parallel, hooks of different SMs may be called concurrently; the
	// calls of one SM are sequential and in cycle order.
	Hooks Hooks
	// Workers is the number of goroutines simulating SMs within an epoch
	// (0: runtime.GOMAXPROCS(0)). SMs run concurrently only for a kernel
	// that is a ConcurrentKernel answering true; otherwise, and with 1,
	// they run one after another.
	Workers int
	// MaxCycles aborts the simulation after that many cycles (0: none).
	MaxCycles Time
	Progress  ProgressFunc // progress.go: called every 64 quanta (nil: none)
}

// ConcurrentKernel is implemented by kernels whose warps on different SMs
// may Issue concurrently. Answering true promises that replay's functional
// state is safe for that and that the kernel's outcome does not depend on
// the order of its CTAs' global-memory accesses within one epoch (no
// inter-CTA communication through global memory or atomics whose returned
// values matter). The timing result is the same either way; only the
// functional interleaving across SMs within an epoch could differ.
type ConcurrentKernel interface {
	ConcurrentIssue() bool
}

// Run simulates kernel k on the GPU described by spec and returns the
// timing result. An error from Warp.Issue or Kernel.NewCTA (a kernel
// fault) ends the run and is returned wrapped with the SM and cycle.
func Run(ctx context.Context, spec Spec, k Kernel, opt Options) (*Result, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	s := &spec
	var hooks *Hooks
	if opt.Hooks.Issue != nil || opt.Hooks.UnitBusy != nil {
		h := opt.Hooks
		hooks = &h
	}
	threads := k.ThreadsPerCTA()
	if threads <= 0 {
		return nil, fmt.Errorf("model: kernel has %d threads per CTA", threads)
	}
	regs := regsPerCTA(s, k.RegsPerThread(), threads)
	shared := roundUp(k.SharedPerCTA(), s.SM.SharedAllocUnit)
	if err := checkFits(s, threads, regs, shared); err != nil {
		return nil, err
	}

	q := Time(s.Quantum())
	mem := newMemSide(s)
	sms := make([]*smState, s.NumSMs)
	for i := range sms {
		sms[i] = newSM(i, s, hooks)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if ck, ok := k.(ConcurrentKernel); !ok || !ck.ConcurrentIssue() {
		workers = 1
	}
	if workers > len(sms) {
		workers = len(sms)
	}

	var wp *workerPool
	if workers > 1 {
		wp = newWorkerPool(sms, k, workers)
		defer wp.stop()
	}

	ncta := k.NumCTAs()
	next := 0
	dispatch := func(sm *smState, at Time) error {
		c, err := k.NewCTA(next, sm.id)
		if err != nil {
			return fmt.Errorf("model: CTA %d on SM %d: %w", next, sm.id, err)
		}
		sm.reserve(at, next, c, threads, regs, shared)
		next++
		return nil
	}
	// Initial dispatch: one CTA per SM per round, as long as they fit.
	for progress := true; progress && next < ncta; {
		progress = false
		for _, sm := range sms {
			if next < ncta && sm.fits(threads, regs, shared) {
				if err := dispatch(sm, 0); err != nil {
					return nil, err
				}
				progress = true
			}
		}
	}

	type freed struct {
		at Time
		sm int
	}
	var frees []freed
	var b Time
	for epoch := 0; ; epoch++ {
		if epoch%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			opt.Progress.report(b, next, ncta)
		}
		end := b + q
		for _, sm := range sms {
			sm.freed = sm.freed[:0]
		}
		if wp != nil {
			wp.runEpoch(end)
		} else {
			runEpoch(sms, end, k)
		}
		for _, sm := range sms {
			if sm.err != nil {
				return nil, fmt.Errorf("model: SM %d cycle %d: %w", sm.id, sm.now, sm.err)
			}
		}
		// memory side: requests in SM order, then everything earlier than
		// the horizon no later request can precede
		for _, sm := range sms {
			for _, r := range sm.outbox {
				mem.submit(r)
			}
			sm.outbox = sm.outbox[:0]
		}
		// The memory side and the CTA refill below touch disjoint state
		// (memSide vs. the SMs' CTA queues and the kernel), so with workers
		// the memory side runs on a worker while this goroutine refills.
		if wp != nil {
			wp.startJob(func() { mem.advance(end + mem.icnt) })
		} else {
			mem.advance(end + mem.icnt)
		}
		// refill freed CTA slots in (time, SM) order
		frees = frees[:0]
		for _, sm := range sms {
			for _, t := range sm.freed {
				frees = append(frees, freed{t, sm.id})
			}
		}
		sort.Slice(frees, func(i, j int) bool {
			if frees[i].at != frees[j].at {
				return frees[i].at < frees[j].at
			}
			return frees[i].sm < frees[j].sm
		})
		var derr error
		for _, f := range frees {
			sm := sms[f.sm]
			if next < ncta && sm.fits(threads, regs, shared) {
				at := f.at + Time(s.SM.CTALaunchLatency)
				if at < end {
					at = end
				}
				if err := dispatch(sm, at); err != nil {
					derr = err
					break
				}
			}
		}
		if wp != nil {
			wp.waitJob()
		}
		for i, sm := range sms {
			for _, r := range mem.out[i] {
				if r.t < end {
					return nil, fmt.Errorf("model: internal error: response at %d before epoch end %d", r.t, end)
				}
				sm.inbox.push(r)
			}
			mem.out[i] = mem.out[i][:0]
		}
		if derr != nil {
			return nil, derr
		}
		b = end

		busy, stuck := false, true
		for _, sm := range sms {
			if sm.busy() {
				busy = true
				if !sm.stuck || len(sm.inbox) > 0 || len(sm.start) > 0 {
					stuck = false
				}
			}
		}
		if !busy && next >= ncta {
			break
		}
		if busy && stuck && mem.idle() {
			return nil, deadlock(sms, b)
		}
		if opt.MaxCycles > 0 && b >= opt.MaxCycles {
			return nil, fmt.Errorf("model: kernel still running after %d cycles (MaxCycles)", b)
		}
	}
	return collect(s, sms, mem, ncta), nil
}

// runEpoch simulates every SM up to end, one after another.
func runEpoch(sms []*smState, end Time, k Kernel) {
	for _, sm := range sms {
		sm.run(end, k)
	}
}

// workerPool runs the SMs of an epoch on persistent goroutines: the
// calling goroutine and workers-1 helpers take SMs from a shared counter
// (SMs are independent within an epoch, so who runs which does not matter).
// A helper can also run one side job (startJob/waitJob) in a serial phase.
type workerPool struct {
	sms  []*smState
	k    Kernel
	end  Time
	next atomic.Int32
	wake []chan func()
	done chan struct{}
	run  func()
}

func newWorkerPool(sms []*smState, k Kernel, workers int) *workerPool {
	p := &workerPool{sms: sms, k: k, done: make(chan struct{}, workers)}
	p.run = p.drain
	p.wake = make([]chan func(), workers-1)
	for i := range p.wake {
		c := make(chan func(), 1)
		p.wake[i] = c
		go func() {
			for f := range c {
				f()
				p.done <- struct{}{}
			}
		}()
	}
	return p
}

// drain runs SMs until none is left.
func (p *workerPool) drain() {
	for {
		i := int(p.next.Add(1)) - 1
		if i >= len(p.sms) {
			return
		}
		p.sms[i].run(p.end, p.k)
	}
}

func (p *workerPool) runEpoch(end Time) {
	p.end = end
	p.next.Store(0)
	for _, c := range p.wake {
		c <- p.run
	}
	p.drain()
	for range p.wake {
		<-p.done
	}
}

func (p *workerPool) startJob(f func()) { p.wake[0] <- f }
func (p *workerPool) waitJob()          { <-p.done }

func (p *workerPool) stop() {
	for _, c := range p.wake {
		close(c)
	}
}

func checkFits(s *Spec, threads, regs, shared int) error {
	warps := (threads + WarpSize - 1) / WarpSize
	switch {
	case threads > s.SM.MaxThreads:
		return fmt.Errorf("model: CTA of %d threads exceeds sm.max_threads %d", threads, s.SM.MaxThreads)
	case warps > s.SM.MaxWarps:
		return fmt.Errorf("model: CTA of %d warps exceeds sm.max_warps %d", warps, s.SM.MaxWarps)
	case regs > s.SM.Registers:
		return fmt.Errorf("model: CTA needs %d registers, sm.registers is %d", regs, s.SM.Registers)
	case shared > s.Shared.Bytes:
		return fmt.Errorf("model: CTA needs %d bytes of shared memory, shared.bytes is %d", shared, s.Shared.Bytes)
	}
	return nil
}

func deadlock(sms []*smState, t Time) error {
	for _, sm := range sms {
		for _, cs := range sm.ctas {
			for _, w := range cs.warps {
				if w.slot < 0 || w.exited {
					continue
				}
				what := "waiting"
				if w.atBarrier {
					what = "waiting at a barrier"
				}
				pc := -1
				if w.next != nil {
					pc = w.next.PC
				}
				return fmt.Errorf("model: deadlock at cycle %d: CTA %d warp %d on SM %d %s (pc %d)", t, cs.id, w.w.ID(), sm.id, what, pc)
			}
		}
	}
	return fmt.Errorf("model: deadlock at cycle %d", t)
}

func collect(s *Spec, sms []*smState, mem *memSide, ncta int) *Result {
	r := &Result{Spec: s.Name, CTAs: ncta, Quantum: s.Quantum()}
	r.SMs = make([]SMResult, len(sms))
	for i, sm := range sms {
		st := stallsOf(&sm.stalls)
		r.SMs[i] = SMResult{ActiveCycles: sm.active, WarpInsts: sm.warpInsts, ThreadInsts: sm.threadInsts, CTAs: sm.ctasDone, Stalls: st}
		r.Stalls.add(st)
		r.WarpInsts += sm.warpInsts
		r.ThreadInsts += sm.threadInsts
		if sm.lastDone > r.Cycles {
			r.Cycles = sm.lastDone
		}
		r.L1D.add(sm.l1.stats)
		r.Tex.add(sm.tex.stats)
		r.Const.add(sm.cnst.stats)
		r.Shared.Insts += sm.shared.Insts
		r.Shared.Cycles += sm.shared.Cycles
		r.Mem.add(sm.mem)
		r.Icnt.QueueCycles += sm.icntQueue
		r.Probes = append(r.Probes, sm.probes...)
	}
	if r.Cycles > 0 {
		r.IPC = float64(r.WarpInsts) / float64(r.Cycles)
	}
	r.L2 = mem.l2Stats()
	r.DRAM = mem.dram
	ic := mem.icst
	ic.QueueCycles = r.Icnt.QueueCycles
	r.Icnt = ic
	sort.SliceStable(r.Probes, func(i, j int) bool {
		a, b := &r.Probes[i], &r.Probes[j]
		if a.CTA != b.CTA {
			return a.CTA < b.CTA
		}
		if a.Warp != b.Warp {
			return a.Warp < b.Warp
		}
		return a.Issue < b.Issue
	})
	if r.Probes == nil {
		r.Probes = []ProbeAccess{}
	}
	return r
}
