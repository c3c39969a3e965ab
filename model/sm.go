package model

import (
	"fmt"
	"math/bits"
)

// never is a time that does not come: a register whose value waits for a
// memory response, a warp at a barrier.
const never = Time(1<<63 - 1)

// classInfo is the resolved timing of one instruction class.
type classInfo struct {
	unit int  // unit kind
	lat  Time // issue to result
	occ  Time // cycles the unit instance is busy
}

type unitInst struct {
	kind   int
	index  int // instance number within its kind
	sched  int // owning scheduler, -1 = shared
	freeAt Time
	split  bool // issues as two half-warps: twice the occupancy (IssueQueue.SplitUnit)
}

type warpState struct {
	// the fields the schedulers read every cycle come first (one cache
	// line), then those issue reads and writes (the second)
	// *waitState (notBefore, reason) lies in the SM's waits array, at
	// the warp's slot, set when the warp gets its slot (startCTA)
	*waitState
	next      *Inst
	exited    bool
	atBarrier bool
	// opReady: the head instruction's operands are known ready (no
	// pending write to a register it reads or writes, not blocked, not at
	// a barrier or fence). It stays true until the warp issues: only the
	// warp's own issue makes a register pending, blocks it or parks it.
	opReady bool
	w       Warp
	// out-of-order issue (ooo.go): ooo is the warp when it is Reorderable
	// and the SM's window > 1; win its window, pick the entry ready chose.
	ooo Reorderable
	cta *ctaState
	// regs: per register, when its pending write lands and whether that
	// is a memory result (side by side: ready reads both)
	regs []regState
	// blockedUntil: no issue before (branch resolution, fence, barrier
	// release).
	blockedUntil Time
	memDoneAt    Time  // latest known completion of its memory operations
	outstanding  int32 // memory operations whose completion time is unknown
	asyncOut     int32 // of outstanding, the Async ones
	qpos         int   // position in its scheduler's IssueQueue
	sched        int
	slot         int  // hardware warp slot in the SM
	threads      int  // threads of the warp (for barrier counts)
	asyncDoneAt  Time // latest known completion of its Async operations
	// asyncCommits counts the warp's AsyncCommit instructions; an Async
	// operation belongs to group asyncCommits+1 at its issue. groups holds
	// the groups with Async operations not yet waited for, oldest first.
	asyncCommits int32
	groups       []asyncGroup
	// stampAt is when the last StampBegin timer read issued (hasStamp: one
	// did since the last probed access); lastProbe is 1 + the index in
	// sm.probes of the warp's last probed access, 0 for none.
	stampAt   Time
	hasStamp  bool
	lastProbe int32
	win       []*Inst
	pick      int
	_         cachePad // no other SM's warp on its lines (isolate, gpu.go)
}

// waitState is the part of a warp's state that the GTO scan reads for
// every warp it passes over: the SM keeps them side by side, one per
// hardware warp slot (smState.waits), and each scheduler's queue points at
// its warps' in queue order (IssueQueue.waits), so a scan reads a few host
// cache lines instead of one per warp.
type waitState struct {
	// notBefore is a lower bound on the next time the warp can issue; the
	// scheduler skips the warp until then. Events that may make it ready
	// earlier (responses, barrier releases) reset it.
	notBefore Time
	reason    StallReason
}

// asyncGroup is one commit group of a warp's Async operations.
type asyncGroup struct {
	g      int32 // group number
	out    int32 // operations outstanding
	doneAt Time  // latest completion of the completed ones
}

type barrier struct {
	arrived int // threads
	count   int // expected threads (0: all live threads of the CTA)
	waiting []*warpState
}

type ctaState struct {
	id       int
	cta      CTA
	warps    []*warpState
	live     int // warps not yet retired
	threads  int // live threads (barrier count when none is given)
	regs     int
	shared   int
	nthreads int
	bars     [16]barrier
}

type pendingCTA struct {
	at  Time
	id  int
	cta CTA
}

// memOp is one in-flight warp memory instruction with responses pending.
type memOp struct {
	w       *warpState
	in      *Inst
	pending int32
	readyAt Time
	probe   int32
	load    bool  // writes its destination registers
	group   int32 // Async: the warp's group it belongs to
}

// txn is one line-sized transaction of a warp memory access.
type txn struct {
	addr  uint64 // line address
	mask  uint32 // sectors of the accessing cache
	units uint32 // 32-byte units
	lanes int32
}

type smState struct {
	id     int
	spec   *Spec
	obs    Observer // nil: none attached
	memObs Observer // obs, unless it declines Mem events (MemFilter)
	now    Time
	nsch   int

	issueObs Observer // obs, unless it declines Issue events (IssueFilter)

	classes [NumClasses]classInfo
	units   []unitInst
	byKind  [NumUnitKinds][]int // instance indices per kind that may issue
	allKind [NumUnitKinds][]int // every instance index per kind (IssueQueue.LimitUnits)

	scheds   []IssueQueue  // per warp scheduler: its warps in age order
	policies []IssuePolicy // per warp scheduler
	slots    []*warpState  // hardware warp slots (nil = free)
	waits    []waitState   // per slot: its warp's notBefore and reason
	pool     []*warpState  // retired warpStates for reuse
	ctaPool  []*ctaState   // finished ctaStates for reuse
	ctas     []*ctaState
	start    []pendingCTA

	// resources in use
	usedThreads, usedWarps, usedRegs, usedShared int

	// memory pipeline
	l1, tex, cnst *cache
	l1Free        Time
	portFree      Time
	missq         []Time // departure times of packets in the miss queue
	blocked       bool   // an instruction's transactions wait for a resource
	blockedIcnt   bool
	retryAt       Time
	// bk is the memory instruction whose transactions are being looked
	// up (at most one: the next cannot issue before it is done).
	bk struct {
		op     int32 // memOp
		mode   int
		space  Space
		target int
		c      *cache
		tx     []txn
		k      int  // next transaction
		t0     Time // lookup time of transaction k0
		k0     int
		minEnd Time // the pipeline is busy at least until then
	}
	ops    []memOp
	opfree []int32
	outbox []memReq
	inbox  timeHeap // responses; the payload is the request tag

	// words scratch for bank conflicts / const serialisation
	words []uint64

	// statistics
	warpInsts, threadInsts uint64
	stalls                 [NumStallReasons]uint64
	active                 Time
	lastActive             Time
	ctasDone               int
	mem                    MemStats
	shared                 SharedStats
	icntQueue              uint64
	probes                 []ProbeAccess
	lastDone               Time
	freed                  []Time // CTA completions this epoch
	reasons                []StallReason
	err                    error
	stuck                  bool
	window                 int      // out-of-order issue window (ooo.go); <= 1: in order
	memOrder               MemOrder // its memory ordering
	oooSrc, oooDst         []Reg    // readyOoO's scratch: registers of older window entries
	// gt is the global timer of cycle gtAt-1 (issue's Clocks; gtAt 0:
	// none yet)
	gt   uint64
	gtAt Time
}

// newSM makes SM id of s with one issue policy per scheduler.
func newSM(id int, s *Spec, policies []IssuePolicy, obs Observer) *smState {
	sm := &smState{id: id, spec: s, obs: obs, nsch: s.SM.Schedulers, policies: policies}
	if f, ok := obs.(MemFilter); obs != nil && (!ok || f.ObservesMem()) {
		sm.memObs = obs
	}
	if f, ok := obs.(IssueFilter); obs != nil && (!ok || f.ObservesIssue()) {
		sm.issueObs = obs
	}
	kinds := s.SM.Units.list()
	for k, u := range kinds {
		for i := 0; i < u.Count; i++ {
			owner := -1
			if s.SM.Partitioned && u.Count >= sm.nsch {
				owner = i % sm.nsch
			}
			sm.byKind[k] = append(sm.byKind[k], len(sm.units))
			sm.units = append(sm.units, unitInst{kind: k, index: i, sched: owner})
		}
		sm.allKind[k] = sm.byKind[k]
	}
	for c := Class(0); c < NumClasses; c++ {
		cs := s.SM.Classes.of(c)
		k := unitIndex(cs.Unit)
		u := kinds[k]
		passes := (WarpSize + u.Lanes*u.ClockMul - 1) / (u.Lanes * u.ClockMul)
		sm.classes[c] = classInfo{unit: k, lat: Time(cs.Latency), occ: Time(passes * cs.Interval)}
	}
	sm.scheds = make([]IssueQueue, sm.nsch)
	for i := range sm.scheds {
		sm.scheds[i] = IssueQueue{sm: sm, s: i, wake: never}
	}
	sm.reasons = make([]StallReason, sm.nsch)
	sm.slots = make([]*warpState, s.SM.MaxWarps)
	// padded: no other SM's data on its end lines; never reallocated
	// (warpState points into it)
	sm.waits = isolated(make([]waitState, s.SM.MaxWarps))
	sm.l1 = newCache(s.L1D.Sets, s.L1D.Ways, s.L1D.LineBytes, s.L1D.SectorBytes, s.L1D.MSHRs)
	sm.tex = newCache(s.Tex.Sets, s.Tex.Ways, s.Tex.LineBytes, s.Tex.SectorBytes, s.Tex.MSHRs)
	sm.cnst = newCache(s.Const.Sets, s.Const.Ways, s.Const.LineBytes, s.Const.SectorBytes, s.Const.MSHRs)
	sm.bk.op = -1
	return sm
}

// regsPerCTA is the register allocation of a CTA of k.
func regsPerCTA(s *Spec, regsPerThread, threads int) int {
	warps := (threads + WarpSize - 1) / WarpSize
	perWarp := roundUp(regsPerThread*WarpSize, s.SM.RegAllocUnit)
	return perWarp * warps
}

func roundUp(v, unit int) int { return (v + unit - 1) / unit * unit }

// fits reports whether one more CTA with the given needs fits now.
func (sm *smState) fits(threads, regs, shared int) bool {
	s := &sm.spec.SM
	warps := (threads + WarpSize - 1) / WarpSize
	return len(sm.ctas)+len(sm.start) < s.MaxCTAs &&
		sm.usedThreads+threads <= s.MaxThreads &&
		sm.usedWarps+warps <= s.MaxWarps &&
		sm.usedRegs+regs <= s.Registers &&
		sm.usedShared+shared <= sm.spec.Shared.Bytes
}

// reserve books a CTA's resources at dispatch; it starts at time at.
func (sm *smState) reserve(at Time, id int, c CTA, threads, regs, shared int) {
	sm.usedThreads += threads
	sm.usedWarps += (threads + WarpSize - 1) / WarpSize
	sm.usedRegs += regs
	sm.usedShared += shared
	sm.start = append(sm.start, pendingCTA{at: at, id: id, cta: c})
}

// busy reports whether the SM has resident or starting CTAs.
func (sm *smState) busy() bool { return len(sm.ctas) > 0 || len(sm.start) > 0 }

// launch makes pending CTAs whose time has come resident.
func (sm *smState) launch(k Kernel) {
	n := 0
	for _, p := range sm.start {
		if p.at > sm.now {
			sm.start[n] = p
			n++
			continue
		}
		sm.startCTA(p, k)
	}
	sm.start = sm.start[:n]
}

func (sm *smState) startCTA(p pendingCTA, k Kernel) {
	threads := k.ThreadsPerCTA()
	if len(sm.ctas) == 0 {
		sm.lastActive = sm.now
	}
	var cs *ctaState
	if n := len(sm.ctaPool); n > 0 {
		cs = sm.ctaPool[n-1]
		sm.ctaPool = sm.ctaPool[:n-1]
		ws := cs.warps[:0]
		*cs = ctaState{warps: ws}
	} else {
		cs = &ctaState{}
	}
	cs.id, cs.cta, cs.nthreads, cs.threads = p.id, p.cta, threads, threads
	cs.regs = regsPerCTA(sm.spec, k.RegsPerThread(), threads)
	cs.shared = roundUp(k.SharedPerCTA(), sm.spec.SM.SharedAllocUnit)
	ws := p.cta.Warps()
	for i, w := range ws {
		var st *warpState
		if n := len(sm.pool); n > 0 {
			st = sm.pool[n-1]
			sm.pool = sm.pool[:n-1]
			regs, win := st.regs[:0], st.win[:0]
			*st = warpState{regs: regs, win: win}
		} else {
			st = &warpState{}
		}
		st.w, st.cta = w, cs
		if sm.window > 1 {
			st.ooo, _ = w.(Reorderable)
		}
		t := threads - i*WarpSize
		if t > WarpSize {
			t = WarpSize
		}
		if t < 0 {
			t = 0
		}
		st.threads = t
		st.next = w.Peek()
		slot := -1
		for j, s := range sm.slots {
			if s == nil {
				slot = j
				break
			}
		}
		if slot < 0 { // more warps than MaxWarps: cannot happen after fits
			sm.err = fmt.Errorf("model: SM %d: no free warp slot for CTA %d", sm.id, p.id)
			return
		}
		st.slot = slot
		st.waitState = &sm.waits[slot]
		*st.waitState = waitState{notBefore: sm.now}
		sm.slots[slot] = st
		st.sched = slot % sm.nsch
		cs.warps = append(cs.warps, st)
		cs.live++
		if st.next == nil {
			st.exited = true
		}
		sc := &sm.scheds[st.sched]
		st.qpos = len(sc.warps)
		sc.warps = append(sc.warps, st)
		sc.waits = append(sc.waits, st.waitState)
		sc.invalidate()
	}
	sm.ctas = append(sm.ctas, cs)
	if sm.obs != nil {
		sm.obs.CTAStart(CTAEvent{SM: sm.id, CTA: cs.id, Warps: len(cs.warps), Cycle: sm.now})
	}
	// warps that have nothing to run retire at once
	for _, st := range cs.warps {
		if st.exited {
			sm.retire(st)
		}
	}
}

// retire removes an exited warp once its memory operations are done.
func (sm *smState) retire(w *warpState) {
	if w.outstanding > 0 || w.slot < 0 {
		return
	}
	if w.memDoneAt > sm.lastDone {
		sm.lastDone = w.memDoneAt
	}
	sc := &sm.scheds[w.sched]
	sc.invalidate()
	sc.remove(w.qpos, sm.policies[w.sched])
	sm.slots[w.slot] = nil
	w.slot = -1
	cs := w.cta
	cs.live--
	if cs.live == 0 {
		sm.finishCTA(cs)
	}
}

func (sm *smState) finishCTA(cs *ctaState) {
	for i, x := range sm.ctas {
		if x == cs {
			copy(sm.ctas[i:], sm.ctas[i+1:])
			sm.ctas = sm.ctas[:len(sm.ctas)-1]
			break
		}
	}
	sm.usedThreads -= cs.nthreads
	sm.usedWarps -= len(cs.warps)
	sm.usedRegs -= cs.regs
	sm.usedShared -= cs.shared
	sm.ctasDone++
	sm.freed = append(sm.freed, sm.now)
	if sm.obs != nil {
		sm.obs.CTAFinish(CTAEvent{SM: sm.id, CTA: cs.id, Warps: len(cs.warps), Cycle: sm.now})
	}
	end := sm.now
	if sm.lastDone < end {
		sm.lastDone = end
	}
	for _, w := range cs.warps {
		w.w, w.cta, w.next = nil, nil, nil
		sm.pool = append(sm.pool, w)
	}
	if r, ok := cs.cta.(Releaser); ok {
		r.Release()
	}
	clear(cs.warps)
	cs.cta = nil
	sm.ctaPool = append(sm.ctaPool, cs)
	if len(sm.ctas) == 0 {
		sm.active += sm.now - sm.lastActive
	}
}

// run simulates the SM until (exclusive).
func (sm *smState) run(until Time, k Kernel) {
	sm.stuck = false
	for sm.now < until && sm.err == nil {
		for len(sm.inbox) > 0 && sm.inbox[0].t <= sm.now {
			sm.deliver(sm.inbox.pop())
		}
		if len(sm.start) > 0 {
			sm.launch(k)
		}
		if sm.blocked && sm.retryAt <= sm.now {
			sm.drainBlocked()
		}
		if len(sm.ctas) == 0 {
			// idle: jump to the next CTA start or response
			next := until
			if len(sm.inbox) > 0 && sm.inbox[0].t < next {
				next = sm.inbox[0].t
			}
			for _, p := range sm.start {
				if p.at < next {
					next = p.at
				}
			}
			sm.now = next
			continue
		}
		issued := 0
		for s := range sm.scheds {
			ok, r := sm.schedule(s)
			if sm.err != nil {
				return
			}
			if ok {
				issued++
				continue
			}
			sm.reasons[s] = r
			sm.stalls[r]++
			if sm.obs != nil {
				sm.obs.Stall(StallEvent{SM: sm.id, Sched: s, From: sm.now, To: sm.now + 1, Reason: r})
			}
		}
		if issued > 0 || len(sm.ctas) == 0 {
			sm.now++
			continue
		}
		next := sm.nextEvent()
		if next > until {
			sm.stuck = next == never
			next = until
		}
		if span := uint64(next - sm.now - 1); span > 0 {
			for s := range sm.scheds {
				sm.stalls[sm.reasons[s]] += span
			}
			if sm.obs != nil {
				for s, r := range sm.reasons {
					sm.obs.Stall(StallEvent{SM: sm.id, Sched: s, From: sm.now + 1, To: next, Reason: r})
				}
			}
		}
		sm.now = next
	}
}

// nextEvent is the earliest time after now at which anything can change.
func (sm *smState) nextEvent() Time {
	next := never
	lo := sm.now + 1
	up := func(t Time) {
		if t < lo {
			t = lo
		}
		if t < next {
			next = t
		}
	}
	if len(sm.inbox) > 0 {
		up(sm.inbox[0].t)
	}
	for _, p := range sm.start {
		up(p.at)
	}
	if sm.blocked && sm.retryAt != never {
		up(sm.retryAt)
	}
	for i := range sm.scheds {
		if t := sm.scheds[i].wake; t != never {
			up(t)
		}
	}
	var seen uint32 // classes of warps ready but waiting for a unit or the memory pipeline
	for i := range sm.scheds {
		q := &sm.scheds[i]
		if q.idleUntil > sm.now {
			// schedule found this cycle that every warp waits (the
			// earliest until idleUntil) or is held by the memory pipeline
			if q.idleUntil != never {
				up(q.idleUntil)
			}
			if q.idleLdSt {
				seen |= 1 << ClassLdSt
			}
			continue
		}
		for _, w := range q.warps {
			if !w.exited && w.notBefore != never {
				if w.notBefore > sm.now {
					up(w.notBefore)
				} else {
					seen |= 1 << w.next.Class
				}
			}
		}
	}
	for ; seen != 0; seen &= seen - 1 {
		c := Class(bits.TrailingZeros32(seen))
		for _, u := range sm.byKind[sm.classes[c].unit] {
			if sm.units[u].freeAt > sm.now {
				up(sm.units[u].freeAt)
			}
		}
		if ag := sm.classes[ClassLdSt].lat; c == ClassLdSt && sm.l1Free > ag {
			up(sm.l1Free - ag)
		}
	}
	return next
}

// schedule lets scheduler s issue at most one instruction now, in the
// order its policy tries its warps. When it issues nothing it returns the
// stall reason of its most nearly ready warp.
func (sm *smState) schedule(s int) (bool, StallReason) {
	q := &sm.scheds[s]
	if len(q.warps) == 0 {
		q.wake = never
		return false, StallNoWarp
	}
	if q.idleUntil > sm.now && (!q.idleLdSt || q.idlePipe == sm.ldstStall()) {
		// GTO found no warp that could issue and none has changed since
		q.wake = never
		return false, q.idleBest
	}
	// IssueQueue.run, inlined by hand: this runs every simulated cycle
	p := sm.policies[s]
	q.idleUntil = 0
	q.now, q.best, q.issued, q.inIssue, q.wake = sm.now, StallNoWarp, false, true, never
	p.Issue(q)
	q.inIssue = false
	if len(q.removed) > 0 {
		q.reportRemoved(p)
	}
	if q.issued && sm.err == nil {
		return true, 0
	}
	return false, q.best
}

// ready reports whether w can issue now on scheduler s, else why not. It
// updates w.notBefore.
func (sm *smState) ready(w *warpState, s int) (bool, StallReason) {
	if w.exited {
		return false, StallNoWarp
	}
	if w.notBefore > sm.now {
		return false, w.reason
	}
	if w.ooo != nil {
		return sm.readyOoO(w, s)
	}
	in := w.next
	if !w.opReady {
		t := w.blockedUntil
		reason := StallScoreboard
		if w.atBarrier {
			t, reason = never, StallBarrier
		} else {
			if t > sm.now {
				reason = w.reason
			}
			rr := w.regs
			for _, r := range in.Src {
				if int(r) < len(rr) && rr[r].ready() > t {
					t = rr[r].ready()
					reason = StallScoreboard
					if rr[r].mem() {
						reason = StallMemory
					}
				}
			}
			for _, r := range in.Dst {
				if int(r) < len(rr) && rr[r].ready() > t {
					t = rr[r].ready()
					reason = StallFalseDep // WAW: only the write is pending
				}
			}
			if in.Class == ClassFence && t <= sm.now {
				t, reason = w.fenceWait(in, t, reason)
			}
		}
		if t > sm.now {
			w.notBefore, w.reason = t, reason
			return false, reason
		}
		w.opReady = true
	}
	// operands ready: is a unit free?
	ci := &sm.classes[in.Class]
	if in.Class == ClassLdSt {
		if sm.blocked {
			if sm.blockedIcnt {
				return false, StallInterconnect
			}
			return false, StallPipeline
		}
		// the instruction reaches the memory pipeline after address
		// generation; it issues when the pipeline is free by then
		if sm.l1Free > sm.now+sm.classes[ClassLdSt].lat {
			return false, StallPipeline
		}
	}
	if sm.freeUnit(ci.unit, s) < 0 {
		return false, StallPipeline
	}
	return true, 0
}

// ldstStall is the reason ready gives for a warp whose operands are ready
// and whose head is a memory instruction when the memory pipeline cannot
// take it now (blocked, or busy beyond address generation), else
// NumStallReasons. It depends only on SM state that changes when an
// instruction issues or a response arrives.
func (sm *smState) ldstStall() StallReason {
	if sm.blocked {
		if sm.blockedIcnt {
			return StallInterconnect
		}
		return StallPipeline
	}
	if sm.l1Free > sm.now+sm.classes[ClassLdSt].lat {
		return StallPipeline
	}
	return NumStallReasons
}

// freeUnit returns a free instance of kind k usable by scheduler s, or -1.
func (sm *smState) freeUnit(k, s int) int {
	for _, u := range sm.byKind[k] {
		ui := &sm.units[u]
		if ui.freeAt <= sm.now && (ui.sched < 0 || ui.sched == s) {
			return u
		}
	}
	return -1
}

// regState is the scoreboard entry of one register of a warp: when its
// pending write lands (bits 0-62; never fits) and whether that write is a
// memory result (bit 63). One word per register: a warp's scoreboard is
// half the host cache lines of a two-field struct.
type regState uint64

const regMemBit = regState(1) << 63

// regAt is the entry of a register whose write lands at t (mem: a memory
// result).
func regAt(t Time, mem bool) regState {
	r := regState(t)
	if mem {
		r |= regMemBit
	}
	return r
}

// ready is when the register's pending write lands.
func (r regState) ready() Time { return Time(r &^ regMemBit) }

// mem reports whether that write is a memory result.
func (r regState) mem() bool { return r&regMemBit != 0 }

func (w *warpState) growRegs(r Reg) {
	if cap(w.regs) == 0 { // whole cache lines: no other SM's data on them (isolate, gpu.go)
		w.regs = make([]regState, 0, 64)
	}
	for int(r) >= len(w.regs) {
		w.regs = append(w.regs, 0)
	}
}

// issue issues w's next instruction now.
func (sm *smState) issue(w *warpState, s int) {
	in := w.next
	if w.ooo != nil {
		in = w.win[w.pick]
	}
	w.opReady = false
	now := sm.now
	ci := &sm.classes[in.Class]
	u := sm.freeUnit(ci.unit, s)
	if sm.gtAt != now+1 {
		// %globaltimer of this cycle, once per cycle (both schedulers
		// issuing read the same value)
		gt := uint64(float64(now) * 1000 / sm.spec.CoreMHz)
		if r := uint64(sm.spec.GlobalTimerNs); r > 1 {
			gt -= gt % r
		}
		sm.gt, sm.gtAt = gt, now+1
	}
	gt := sm.gt
	var eff *Effect
	var err error
	if w.ooo != nil {
		eff, err = w.ooo.IssueAt(w.pick, Clocks{Cycle: now, GlobalTimer: gt, SMID: sm.id})
	} else {
		eff, err = w.w.Issue(Clocks{Cycle: now, GlobalTimer: gt, SMID: sm.id})
	}
	if err != nil {
		sm.err = err
		return
	}
	if eff == nil {
		eff = &Effect{}
	}
	sm.warpInsts++
	sm.threadInsts += uint64(bits.OnesCount32(eff.Active))
	occ := ci.occ
	if sm.units[u].split {
		occ *= 2
	}
	sm.units[u].freeAt = now + occ
	if sm.obs != nil {
		sm.observeIssue(w, s, in, u, eff.Active, occ)
	}
	for _, r := range in.Dst {
		if int(r) >= len(w.regs) {
			w.growRegs(r)
		}
	}
	for _, r := range in.Src {
		if int(r) >= len(w.regs) {
			w.growRegs(r)
		}
	}
	w.notBefore = now + 1
	switch in.Stamp {
	case StampBegin:
		w.stampAt, w.hasStamp = now, true
	case StampEnd:
		if w.lastProbe > 0 {
			if p := &sm.probes[w.lastProbe-1]; p.End == 0 {
				p.End = now
			}
		}
	}
	switch in.Class {
	case ClassLdSt:
		sm.issueMem(w, in, eff)
	case ClassBranch:
		w.blockedUntil = now + ci.lat
		w.reason = StallScoreboard
	case ClassFence:
		w.blockedUntil = now + Time(sm.spec.SM.FenceLatency)
		w.reason = StallFence
		if in.AsyncWait {
			w.dropWaited(in)
		}
	case ClassBarrier:
		if eff.Barrier {
			sm.barrier(w, eff)
		}
	default:
		for _, r := range in.Dst {
			w.regs[r] = regAt(now+ci.lat, false)
		}
	}
	if in.AsyncCommit {
		w.asyncCommits++ // after an async wait's check: wait_all commits, then waits for all
	}
	if w.blockedUntil > w.notBefore {
		w.notBefore = w.blockedUntil
	}
	if eff.Exited {
		w.next = nil
	} else {
		w.next = w.w.Peek()
	}
	if w.next == nil {
		sm.exit(w)
	}
}

func (sm *smState) exit(w *warpState) {
	if sm.now+1 > sm.lastDone {
		sm.lastDone = sm.now + 1 // the exit instruction's cycle counts
	}
	w.exited = true
	w.notBefore = never
	cs := w.cta
	cs.threads -= w.threads
	for i := range cs.bars {
		sm.checkBarrier(cs, i)
	}
	sm.retire(w)
}

func (sm *smState) barrier(w *warpState, eff *Effect) {
	cs := w.cta
	id := eff.BarrierID & 15
	b := &cs.bars[id]
	b.arrived += w.threads
	b.count = eff.BarrierCount
	if !eff.Arrive {
		w.atBarrier = true
		w.notBefore = never
		w.reason = StallBarrier
		b.waiting = append(b.waiting, w)
	}
	sm.checkBarrier(cs, id)
}

// checkBarrier releases barrier id of cs once enough threads arrived: the
// count of the last bar instruction, or all live threads of the CTA.
func (sm *smState) checkBarrier(cs *ctaState, id int) {
	b := &cs.bars[id]
	if b.arrived == 0 {
		return
	}
	need := b.count
	if need <= 0 || need > cs.threads {
		need = cs.threads
	}
	if b.arrived < need {
		return
	}
	rel := sm.now + Time(sm.spec.SM.BarrierLatency)
	for _, x := range b.waiting {
		x.atBarrier = false
		x.blockedUntil = rel
		x.notBefore = rel
		x.reason = StallBarrier
		sm.scheds[x.sched].invalidate()
		sm.scheds[x.sched].unsleep(x)
	}
	b.waiting = b.waiting[:0]
	b.arrived = 0
}

// deliver applies one response.
func (sm *smState) deliver(r memResp) {
	tag := int32(uint32(r.v))
	idx := tag & tgtMask
	switch tag >> tgtShift {
	case tgtOp:
		sm.opDone(idx, 1)
	case tgtL1:
		sm.fill(sm.l1, idx)
	case tgtTex:
		sm.fill(sm.tex, idx)
	case tgtConst:
		sm.fill(sm.cnst, idx)
	}
	if sm.blocked && !sm.blockedIcnt {
		sm.retryAt = sm.now
	}
}

func (sm *smState) fill(c *cache, m int32) {
	e := &c.mshrs[m]
	e.outstanding--
	if e.outstanding > 0 {
		return
	}
	l := &c.lines[e.entry]
	l.valid |= l.pending
	if sm.memObs != nil {
		sm.observe(c, (e.tag-1)<<c.lineShift, Fill, e.since, sm.now)
	}
	for _, op := range e.waiters {
		sm.opDone(op, 1)
	}
	c.releaseMSHR(m)
}

// opDone records n responses for op.
func (sm *smState) opDone(id int32, n int32) {
	op := &sm.ops[id]
	op.pending -= n
	if op.readyAt < sm.now {
		op.readyAt = sm.now
	}
	if op.pending > 0 {
		return
	}
	w := op.w
	w.outstanding--
	if op.in.Async {
		w.asyncOut--
		for i := range w.groups {
			if g := &w.groups[i]; g.g == op.group {
				g.out--
				g.doneAt = max(g.doneAt, op.readyAt)
			}
		}
	}
	sm.complete(w, op.in, op.load, op.readyAt, op.probe)
	op.w, op.in = nil, nil
	sm.opfree = append(sm.opfree, id)
	if w.exited {
		sm.retire(w)
	}
}

// complete finishes a memory instruction of w at time t.
func (sm *smState) complete(w *warpState, in *Inst, load bool, t Time, probe int32) {
	if load {
		for _, r := range in.Dst {
			w.regs[r] = regAt(t, true)
		}
	}
	if t > w.memDoneAt {
		w.memDoneAt = t
	}
	if in.Async && t > w.asyncDoneAt {
		w.asyncDoneAt = t
	}
	if probe >= 0 {
		sm.probes[probe].Complete = t
	}
	if w.notBefore > sm.now {
		w.notBefore = sm.now
		sm.scheds[w.sched].invalidate()
		sm.scheds[w.sched].unsleep(w)
	}
}

// observeIssue reports an issue of in by w on unit instance u.
func (sm *smState) observeIssue(w *warpState, s int, in *Inst, u int, active uint32, occ Time) {
	ui := &sm.units[u]
	k := UnitKind(ui.kind)
	if sm.issueObs != nil {
		sm.issueObs.Issue(IssueEvent{SM: sm.id, Sched: s, Slot: w.slot, CTA: w.cta.id, Warp: w.w.ID(), Inst: in,
			Cycle: sm.now, Active: active, Unit: k, UnitIndex: ui.index, Busy: occ})
	}
	sm.obs.UnitBusy(UnitEvent{SM: sm.id, Unit: k, Index: ui.index, Sched: ui.sched, From: sm.now, To: sm.now + occ, Active: active, Split: ui.split})
}

// fenceWait is when the fence in at the head of w may issue, given that
// nothing else holds it before t: once the warp's outstanding memory
// operations (for an AsyncWait, its Async ones) have completed.
func (w *warpState) fenceWait(in *Inst, t Time, reason StallReason) (Time, StallReason) {
	out, done := w.outstanding, w.memDoneAt
	if in.AsyncWait {
		out, done = w.asyncOut, w.asyncDoneAt
		if in.AsyncKeep >= 0 {
			out, done = 0, 0
			for _, g := range w.groups {
				if g.g <= w.asyncCommits-int32(in.AsyncKeep) {
					out += g.out
					done = max(done, g.doneAt)
				}
			}
		}
	}
	if out > 0 {
		return never, StallFence
	}
	if done > t {
		return done, StallFence
	}
	return t, reason
}

// dropWaited forgets the groups the async wait in has just waited for.
func (w *warpState) dropWaited(in *Inst) {
	limit := w.asyncCommits - int32(in.AsyncKeep)
	keep := w.groups[:0]
	for _, g := range w.groups {
		if in.AsyncKeep >= 0 && g.g > limit || g.out > 0 {
			keep = append(keep, g)
		}
	}
	w.groups = keep
}

// asyncIssued counts an Async operation of w in its current group.
func (w *warpState) asyncIssued() int32 {
	g := w.asyncCommits + 1
	if n := len(w.groups); n == 0 || w.groups[n-1].g != g {
		w.groups = append(w.groups, asyncGroup{g: g})
	}
	w.groups[len(w.groups)-1].out++
	return g
}
