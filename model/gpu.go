package model

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"unsafe"
)

// Options are run-time settings of one simulation. Workers and Observe
// never change the result; Policy replaces the issue policy and so can.
type Options struct {
	// Workers is the number of goroutines simulating SMs within an epoch
	// (0: runtime.GOMAXPROCS(0)). SMs run concurrently only for a kernel
	// that is a ConcurrentKernel answering true; otherwise, and with 1,
	// they run one after another.
	Workers int
	// MaxCycles aborts the simulation after that many cycles (0: none).
	MaxCycles Time
	// Policy, when non-nil, makes the issue policy of warp scheduler sched
	// of SM sm in place of the built-in one Spec.SM.Scheduler names. Run
	// calls it once per scheduler, on its own goroutine, before the first
	// cycle; each call must return a distinct, non-nil value (a policy
	// keeps per-scheduler state). The policy is then called only on its
	// SM's goroutine (see IssuePolicy).
	Policy func(sm, sched int) IssuePolicy
	// Observe, when non-nil, attaches observers to the SMs and the memory
	// side (hooks.go states on which goroutine and in which order each is
	// called). Nothing attached costs nothing.
	Observe func(part int) Observer
	// Progress, when non-nil, is called every 64 quanta (progress.go).
	Progress ProgressFunc
	// Window > 1 lets warps that implement Reorderable issue any of the
	// first Window instructions of their window whose operands are ready
	// (out-of-order issue, ooo.go); MemOrder is its memory-ordering rule.
	Window   int
	MemOrder MemOrder
	// Wrap, when non-nil, replaces the kernel by Wrap(k) for the run (for
	// example to present its warps in another instruction set).
	Wrap func(Kernel) Kernel
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
	if opt.Wrap != nil {
		k = opt.Wrap(k)
	}
	g, err := newGPU(&spec, k, &opt)
	if err != nil {
		return nil, err
	}
	defer g.close()
	if err := g.dispatchInitial(); err != nil {
		return nil, err
	}
	if err := g.simulate(ctx, opt.MaxCycles, opt.Progress); err != nil {
		return nil, err
	}
	r := collect(g.spec, g.sms, g.mem, g.ncta)
	r.Carveout = g.carveout
	return r, nil
}

// gpu is one simulation in progress.
type gpu struct {
	spec *Spec
	k    Kernel
	sms  []*smState
	mem  *memSide
	wp   *workerPool // nil: SMs run one after another on Run's goroutine

	threads, regs, shared int       // per CTA
	carveout              *Carveout // the shared/L1 split taken (nil: spec's own)
	ncta, next            int       // CTAs in the grid, next CTA to dispatch
	frees                 []freed

	// overlap: the memory side advances during the next epoch's parallel
	// phase (overlapMemory). memPending: requests were submitted and the
	// memory side has not yet advanced to memHorizon.
	overlap    bool
	memPending bool
	memHorizon Time
	begin      Time // start of the epoch being run (overlap)
	memJob     bool // the memory side's job runs on helper 1 (overlap)

	// With the overlap, an SM's traffic stays with the worker that runs
	// it: sent[i] holds SM i's requests of the last epoch, which the
	// memory side's job reads itself (submitSent) while the SM fills its
	// outbox again, and recv[i] the responses the memory side produced
	// during the last epoch, which SM i's worker moves into its inbox
	// before running it (takeResponses). The serial phase only swaps these
	// buffers with the outboxes and the memory side's output; nothing is
	// copied on the caller's core, and each buffer is reused every other
	// epoch.
	sent [][]memReq
	recv [][]memResp
}

// freed is a CTA slot of SM sm freed at cycle at.
type freed struct {
	at Time
	sm int
}

// newGPU validates the spec and the kernel's needs and builds the SMs, the
// memory side, their policies and observers, and the worker pool.
func newGPU(s *Spec, k Kernel, opt *Options) (*gpu, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	g := &gpu{spec: s, k: k, ncta: k.NumCTAs()}
	g.threads = k.ThreadsPerCTA()
	if g.threads <= 0 {
		return nil, fmt.Errorf("model: kernel has %d threads per CTA", g.threads)
	}
	g.regs = regsPerCTA(s, k.RegsPerThread(), g.threads)
	g.shared = roundUp(k.SharedPerCTA(), s.SM.SharedAllocUnit)
	if cs, c := s.ForShared(g.shared); c != nil {
		s, g.spec, g.carveout = &cs, &cs, c
	}
	if err := checkFits(s, g.threads, g.regs, g.shared); err != nil {
		return nil, err
	}
	g.mem = newMemSide(s)
	if opt.Observe != nil {
		g.mem.obs = opt.Observe(MemorySide)
	}
	g.sms = make([]*smState, s.NumSMs)
	for i := range g.sms {
		pols, err := policiesOf(s, i, opt.Policy)
		if err != nil {
			return nil, err
		}
		var obs Observer
		if opt.Observe != nil {
			obs = opt.Observe(i)
		}
		g.sms[i] = newSM(i, s, pols, obs)
		isolate(g.sms[i])
		if opt.Window > 1 {
			g.sms[i].window, g.sms[i].memOrder = opt.Window, opt.MemOrder
		}
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if ck, ok := k.(ConcurrentKernel); !ok || !ck.ConcurrentIssue() {
		workers = 1
	}
	workers = min(workers, len(g.sms))
	if workers > 1 {
		g.wp = newWorkerPool(g.sms, k, workers)
		// hooks.go: the memory side's observer is called while no SM
		// runs, so with one attached the memory side does not overlap
		g.overlap = overlapMemory(s) && g.mem.obs == nil
	}
	if g.overlap {
		g.sent = make([][]memReq, len(g.sms))
		g.recv = make([][]memResp, len(g.sms))
		for i := range g.sms {
			g.sent[i] = isolated(make([]memReq, 0, 64))
			g.recv[i] = isolated(make([]memResp, 0, 64))
			g.mem.out[i] = isolated(make([]memResp, 0, 64))
		}
		g.wp.before = g.takeResponses
	}
	return g, nil
}

// cachePad keeps data that different workers write apart: two 64-byte
// cache lines, since x86 cores may prefetch lines in adjacent pairs.
type cachePad [128]byte

// isolate moves the arrays SM sm writes in nearly every simulated cycle
// (its schedulers' queues, stall reasons, unit timers, warp slots, the
// caches' MSHRs) and the ones it appends to per memory event into storage
// of their own, padded on both sides. Built one SM after another, small
// arrays of different SMs would otherwise share cache lines, and with
// workers two SMs running at once on different cores would pass those
// lines back and forth every cycle (false sharing; docs/performance.md,
// "Parallel scaling, fourth round"). The policies pad themselves
// (sched.go), as does warpState (sm.go), made while the SMs run.
func isolate(sm *smState) {
	sm.scheds = isolated(sm.scheds)
	sm.reasons = isolated(sm.reasons)
	sm.units = isolated(sm.units)
	sm.slots = isolated(sm.slots)
	for _, c := range []*cache{sm.l1, sm.tex, sm.cnst} {
		c.mshrs = isolated(c.mshrs)
		c.free = isolated(c.free)
	}
	sm.missq = isolated(make([]Time, 0, sm.spec.Icnt.MissQueue+1))
	sm.outbox = isolated(make([]memReq, 0, 64))
	sm.inbox = isolated(make(timeHeap, 0, 64))
	sm.ops = isolated(make([]memOp, 0, 64))
	sm.opfree = isolated(make([]int32, 0, 64))
	sm.freed = isolated(make([]Time, 0, sm.spec.SM.MaxCTAs))
}

// isolated returns a copy of s (length and capacity) in an array of its own
// with at least a cachePad of unused elements on either side.
func isolated[S ~[]E, E any](s S) S {
	size := unsafe.Sizeof(*new(E))
	if size == 0 {
		return s
	}
	pad := int((unsafe.Sizeof(cachePad{}) + size - 1) / size)
	buf := make(S, pad+cap(s)+pad)
	copy(buf[pad:], s[:cap(s)])
	return buf[pad : pad+len(s) : pad+cap(s)]
}

// overlapMemory reports whether the memory side may lag one epoch behind
// the SMs: an event the memory side processes in the horizon of epoch e
// happens no earlier than the start of epoch e plus Icnt.Latency, and its
// response reaches its SM L2.Latency + Icnt.Latency after it (memside.go,
// respond); if that is no earlier than the end of epoch e+1, two quanta
// after the start of e, no SM needs it before it is delivered at the end
// of e+1.
func overlapMemory(s *Spec) bool {
	return 2*s.Quantum() <= 2*s.Icnt.Latency+s.L2.Latency
}

// policiesOf makes the issue policies of SM sm's schedulers: the caller's
// when given, else the built-in one the spec names.
func policiesOf(s *Spec, sm int, custom func(sm, sched int) IssuePolicy) ([]IssuePolicy, error) {
	pols := make([]IssuePolicy, s.SM.Schedulers)
	for i := range pols {
		if custom != nil {
			pols[i] = custom(sm, i)
			if pols[i] == nil {
				return nil, fmt.Errorf("model: Options.Policy returned nil for SM %d scheduler %d", sm, i)
			}
			continue
		}
		p, err := NewPolicy(s, s.SM.Scheduler)
		if err != nil {
			return nil, err
		}
		pols[i] = p
	}
	return pols, nil
}

func (g *gpu) close() {
	if g.wp != nil {
		g.wp.stop()
	}
}

// dispatch creates the next CTA on sm, starting at cycle at.
func (g *gpu) dispatch(sm *smState, at Time) error {
	c, err := g.k.NewCTA(g.next, sm.id)
	if err != nil {
		return fmt.Errorf("model: CTA %d on SM %d: %w", g.next, sm.id, err)
	}
	sm.reserve(at, g.next, c, g.threads, g.regs, g.shared)
	g.next++
	return nil
}

// dispatchInitial hands out one CTA per SM per round, as long as they fit
// (SM.CTAPlacement "consolidate": each SM in turn as many as fit).
func (g *gpu) dispatchInitial() error {
	sms := g.sms
	if n := g.spec.SM.CTASMs; n > 0 && n < len(sms) {
		sms = sms[:n] // the rest get no CTA (refill only refills SMs that had one)
	}
	if g.spec.SM.CTAPlacement == "consolidate" {
		for _, sm := range sms {
			for g.next < g.ncta && sm.fits(g.threads, g.regs, g.shared) {
				if err := g.dispatch(sm, 0); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for progress := true; progress && g.next < g.ncta; {
		progress = false
		for _, sm := range sms {
			if g.next < g.ncta && sm.fits(g.threads, g.regs, g.shared) {
				if err := g.dispatch(sm, 0); err != nil {
					return err
				}
				progress = true
			}
		}
	}
	return nil
}

// simulate runs epochs until every CTA has finished.
func (g *gpu) simulate(ctx context.Context, maxCycles Time, progress ProgressFunc) error {
	q := Time(g.spec.Quantum())
	var b Time
	for epoch := 0; ; epoch++ {
		if epoch%64 == 0 {
			if err := ctx.Err(); err != nil {
				g.finishMem()
				return err
			}
			progress.report(b, g.next, g.ncta)
		}
		end := b + q
		if err := g.epoch(end); err != nil {
			return err
		}
		b = end
		busy, stuck := false, true
		for _, sm := range g.sms {
			if sm.busy() {
				busy = true
				if !sm.stuck || g.hasResponses(sm) || len(sm.start) > 0 {
					stuck = false
				}
			}
		}
		if !busy && g.next >= g.ncta {
			g.finishMem() // the memory side's statistics include its last horizon
			return nil
		}
		if busy && stuck && g.memPending {
			// The overlapped memory side is one horizon behind: catch
			// it up before deciding (responses it produces end the
			// suspicion exactly as they would have without overlap).
			if err := g.finishMem(); err != nil {
				return err
			}
			stuck = true
			for _, sm := range g.sms {
				if sm.busy() && (!sm.stuck || g.hasResponses(sm) || len(sm.start) > 0) {
					stuck = false
				}
			}
		}
		if busy && stuck && g.mem.idle() {
			return deadlock(g.sms, b)
		}
		if maxCycles > 0 && b >= maxCycles {
			return fmt.Errorf("model: kernel still running after %d cycles (MaxCycles)", b)
		}
	}
}

// epoch simulates the SMs up to end (parallel phase), then, serially,
// hands their requests to the memory side, refills freed CTA slots and
// delivers the memory side's responses.
//
// Without overlap (serial path) the memory side advances to end+Icnt in
// the serial phase and its responses are delivered before the next epoch.
// With overlap (g.overlap) it advances to that horizon during the next
// epoch's parallel phase, on a worker next to the SMs, and its responses
// are delivered at the end of that epoch: every one of them arrives no
// earlier (checked below), because an event at or after the previous
// horizon end-q+Icnt answers no earlier than L2.Latency+Icnt.Latency later,
// which overlapMemory requires to be at least end+q.
func (g *gpu) epoch(end Time) error {
	for _, sm := range g.sms {
		sm.freed = sm.freed[:0]
	}
	if g.overlap {
		return g.epochOverlap(end)
	}
	mem := g.mem
	if g.wp == nil {
		runEpoch(g.sms, end, g.k)
	} else {
		g.wp.runEpoch(end, nil)
	}
	for _, sm := range g.sms {
		if sm.err != nil {
			return fmt.Errorf("model: SM %d cycle %d: %w", sm.id, sm.now, sm.err)
		}
	}
	// memory side: requests in SM order, then everything earlier than
	// the horizon no later request can precede
	for _, sm := range g.sms {
		for j := range sm.outbox {
			mem.submit(&sm.outbox[j])
		}
		sm.outbox = sm.outbox[:0]
	}
	g.memHorizon, g.memPending = end+mem.icnt, true
	if g.wp != nil {
		// memSide and the CTA refill touch disjoint state (memSide vs.
		// the SMs' CTA queues and the kernel)
		g.wp.startJob(g.advanceMem)
	} else {
		g.advanceMem()
	}
	derr := g.refill(end)
	if g.wp != nil {
		g.wp.waitJob()
	}
	if err := g.deliver(end); err != nil {
		return err
	}
	return derr
}

// epochOverlap is epoch with the memory side overlapped. The memory
// side's job for the previous boundary (memJob) is still running on helper
// 1 when the SMs start: it takes the requests of the epoch before (sent)
// and advances to that epoch's horizon, then helper 1 joins the SMs. Each
// SM's worker first moves the responses of the horizon before that (recv)
// into the SM's inbox. Then, serially, the buffers change hands, the
// memory side's next job starts on helper 1 and, meanwhile, freed CTA
// slots are refilled on the caller (the two touch disjoint state).
func (g *gpu) epochOverlap(end Time) error {
	g.begin = end - Time(g.spec.Quantum())
	g.wp.runEpoch(end, nil) // returns when memJob has finished too
	g.memJob = false
	for _, sm := range g.sms {
		if sm.err != nil {
			return fmt.Errorf("model: SM %d cycle %d: %w", sm.id, sm.now, sm.err)
		}
	}
	mem := g.mem
	for i, sm := range g.sms {
		g.sent[i], sm.outbox = sm.outbox, g.sent[i][:0]
		g.recv[i], mem.out[i] = mem.out[i], g.recv[i][:0]
	}
	g.memHorizon, g.memPending = end+mem.icnt, true
	g.wp.startJob(g.sideMem)
	g.memJob = true
	return g.refill(end)
}

// sideMem is the memory side's job (overlap): the requests in sent, in
// SM order, then everything earlier than memHorizon. It runs on helper 1
// and touches only the memory side, sent and the memory side's output.
func (g *gpu) sideMem() {
	g.submitSent()
	g.mem.advance(g.memHorizon)
}

// submitSent hands the requests in sent to the memory side, in SM order
// (the serial phase empties sent).
func (g *gpu) submitSent() {
	for _, rs := range g.sent {
		for j := range rs {
			g.mem.submit(&rs[j])
		}
	}
}

// takeResponses moves the responses the memory side produced for SM i
// during the last epoch into its inbox; it runs on the worker that runs
// SM i, before it does. None may arrive before the epoch starts (begin).
func (g *gpu) takeResponses(i int) {
	sm := g.sms[i]
	for _, r := range g.recv[i] {
		if r.t < g.begin {
			sm.err = fmt.Errorf("internal error: response at %d before epoch end %d", r.t, g.begin)
			return
		}
		sm.inbox.push(r)
	}
	// recv[i] is emptied in the serial phase: its header shares a cache
	// line with other SMs' headers
}

// hasResponses reports whether responses wait for sm, in its inbox or,
// with the overlap, not yet moved there.
func (g *gpu) hasResponses(sm *smState) bool {
	return len(sm.inbox) > 0 || g.recv != nil && len(g.recv[sm.id]) > 0
}

// advanceMem advances the memory side to its pending horizon.
func (g *gpu) advanceMem() {
	g.mem.advance(g.memHorizon)
	g.memPending = false
}

// finishMem advances the memory side to its pending horizon now, when the
// overlap left one, and delivers the responses.
func (g *gpu) finishMem() error {
	if !g.memPending {
		return nil
	}
	if !g.overlap {
		g.advanceMem()
		return g.deliver(g.memHorizon - g.mem.icnt)
	}
	if g.memJob {
		g.wp.waitJob()
		g.memJob = false
	} else {
		g.sideMem()
	}
	for i := range g.sent {
		g.sent[i] = g.sent[i][:0]
	}
	g.memPending = false
	// responses of the horizon before, then of this one
	end := g.memHorizon - g.mem.icnt
	if err := g.deliverFrom(g.recv, end); err != nil {
		return err
	}
	return g.deliver(end)
}

// deliver moves the memory side's responses into the SMs' inboxes; none
// may arrive before end, the end of the epoch the SMs have simulated.
func (g *gpu) deliver(end Time) error {
	return g.deliverFrom(g.mem.out, end)
}

// deliverFrom moves the responses of lists (one list per SM) into the
// SMs' inboxes and empties the lists; none may arrive before end.
func (g *gpu) deliverFrom(lists [][]memResp, end Time) error {
	for i, sm := range g.sms {
		for _, r := range lists[i] {
			if r.t < end {
				return fmt.Errorf("model: internal error: response at %d before epoch end %d", r.t, end)
			}
			sm.inbox.push(r)
		}
		lists[i] = lists[i][:0]
	}
	return nil
}

// refill dispatches CTAs into the slots freed in the epoch ending at end,
// in (free time, SM) order.
func (g *gpu) refill(end Time) error {
	frees := g.frees[:0]
	for _, sm := range g.sms {
		for _, t := range sm.freed {
			frees = append(frees, freed{t, sm.id})
		}
	}
	g.frees = frees
	sort.Slice(frees, func(i, j int) bool {
		if frees[i].at != frees[j].at {
			return frees[i].at < frees[j].at
		}
		return frees[i].sm < frees[j].sm
	})
	for _, f := range frees {
		sm := g.sms[f.sm]
		if g.next < g.ncta && sm.fits(g.threads, g.regs, g.shared) {
			at := max(f.at+Time(g.spec.SM.CTALaunchLatency), end)
			if err := g.dispatch(sm, at); err != nil {
				return err
			}
		}
	}
	return nil
}

// runEpoch simulates every SM up to end, one after another.
func runEpoch(sms []*smState, end Time, k Kernel) {
	for _, sm := range sms {
		sm.run(end, k)
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
