package model

import (
	"fmt"
	"math/bits"
	"strings"
)

// This file is the issue-policy seam: which warp a warp scheduler issues
// from in a cycle. Whether a warp can issue (the in-order scoreboard, the
// barrier and fence rules, a free unit, the memory pipeline) is the SM's
// business (smState.ready); the policy only chooses the order in which the
// scheduler tries its warps.

// PolicyName is the name of a built-in issue policy, the value of
// Spec.SM.Scheduler in Spec files.
type PolicyName string

// Built-in issue policies.
const (
	// GTO (greedy then oldest) keeps issuing from the warp that issued
	// last while it can, then tries the others oldest first.
	GTO PolicyName = "gto"
	// LRR (loose round robin) tries the warps in turn, starting after the
	// one that issued last.
	LRR PolicyName = "lrr"
	// TwoLevel is round robin over an active pool of SM.TwoLevelActive
	// warps; a warp waiting for a memory result of unknown time moves to
	// the back of the queue (the pending pool) and the next one moves up.
	TwoLevel PolicyName = "two-level"
)

// PolicyNames returns the names of the built-in issue policies.
func PolicyNames() []PolicyName { return []PolicyName{GTO, LRR, TwoLevel} }

// IssuePolicy decides, for one warp scheduler of one SM, in which order the
// scheduler tries its warps in a cycle. Each scheduler has its own policy
// value, so a policy may keep per-scheduler state (a greedy warp, a
// round-robin pointer) in its fields. A policy is called only on the
// goroutine simulating its SM (see Options.Policy).
type IssuePolicy interface {
	// Issue is called once per cycle in which the scheduler has at least
	// one resident warp and the SM simulates that cycle (cycles in which no
	// warp can issue are skipped). It tries warps with q.TryIssue, which
	// issues at most one instruction per cycle.
	Issue(q *IssueQueue)
	// Removed tells the policy that the warp at position i of the queue
	// retired: the warps after it have moved up by one. (Warps join at the
	// back of the queue when their CTA starts.) For a warp that retires
	// inside Issue (see TryIssue) it is called after Issue returns.
	Removed(i int)
}

// NewPolicy returns a fresh built-in policy for one scheduler of an SM of s,
// chosen by name.
func NewPolicy(s *Spec, name PolicyName) (IssuePolicy, error) {
	switch name {
	case GTO:
		return &gtoPolicy{greedy: -1}, nil
	case LRR:
		return &lrrPolicy{}, nil
	case TwoLevel:
		if s.SM.TwoLevelActive <= 0 {
			return nil, &FieldError{"sm.two_level_active", fmt.Sprintf("must be > 0, got %d", s.SM.TwoLevelActive)}
		}
		return &twoLevelPolicy{active: s.SM.TwoLevelActive}, nil
	}
	names := make([]string, 0, 3)
	for _, n := range PolicyNames() {
		names = append(names, string(n))
	}
	return nil, &FieldError{"sm.scheduler", fmt.Sprintf("must be %s, got %q", strings.Join(names, ", "), string(name))}
}

// IssueQueue is what an IssuePolicy sees of its warp scheduler: the
// scheduler's resident warps in age order (oldest first, by the time their
// CTA started; position 0 is the oldest) and the operations that try to
// issue from them. It is valid only during the Issue call.
type IssueQueue struct {
	warps   []*warpState
	waits   []*waitState // waits[j] == warps[j].waitState
	sm      *smState
	s       int
	now     Time        // sm.now during Issue
	wake    Time        // WakeAt of the last Issue, never if none
	best    StallReason // most nearly ready reason of the warps tried
	issued  bool
	inIssue bool  // the policy's Issue is running
	removed []int // positions retired during Issue, reported after it
	// idleUntil, idleBest, idlePipe, idleLdSt: the built-in GTO policy
	// issued nothing because every warp of the queue either waits
	// (notBefore > now; the earliest until idleUntil) or has its operands
	// ready and a memory instruction at its head that the memory pipeline
	// cannot take (idleLdSt: some warp does), ldstStall being idlePipe;
	// the stall reason was idleBest. While now < idleUntil and ldstStall
	// is still idlePipe, and unless a warp's state is changed from outside
	// the scheduler's own issue (invalidate), a cycle of this scheduler
	// issues nothing and reports idleBest, so schedule and nextEvent skip
	// the scan. idleUntil 0: no such knowledge.
	idleUntil Time
	idleBest  StallReason
	idlePipe  StallReason
	idleLdSt  bool
	// sleep has bit j set when the GTO scan found warps[j] (j < 64)
	// waiting with notBefore == never: only an event (a memory response,
	// a barrier release: unsleep) ends such a wait, so the scan skips the
	// warp until then. Bits follow the warps when positions change.
	sleep uint64
	// sleepBest is the least reason of the sleeping warps (NumStallReasons
	// if none) while sleepOK: a sleeping warp's reason does not change, so
	// it changes only when a warp falls asleep (min) or leaves the set
	// (sleepOK false: recomputed by the next GTO scan that needs it)
	sleepBest StallReason
	sleepOK   bool
}

// unsleep clears w's sleep bit (w belongs to q): its wait has ended.
func (q *IssueQueue) unsleep(w *warpState) {
	if w.qpos < 64 && q.sleep>>uint(w.qpos)&1 != 0 {
		q.sleep &^= 1 << uint(w.qpos)
		q.sleepOK = false
	}
}

// nextAwake is the first position >= j whose sleep bit is clear (positions
// from 64 on have none); it may be >= len(q.warps).
func (q *IssueQueue) nextAwake(j int) int {
	if j >= 64 {
		return j
	}
	m := ^q.sleep >> uint(j)
	if m == 0 {
		return 64
	}
	return j + bits.TrailingZeros64(m)
}

// dropBit removes bit i of m, moving the bits above it down by one.
func dropBit(m uint64, i int) uint64 {
	if i >= 64 {
		return m
	}
	low := m & (1<<uint(i) - 1)
	return low | m>>uint(i+1)<<uint(i)
}

// renumber sets the queue positions of warps[i:].
func (q *IssueQueue) renumber(i int) {
	for j := i; j < len(q.warps); j++ {
		q.warps[j].qpos = j
	}
}

// invalidate forgets what the scheduler knows about its idle warps: a
// warp joined or left the queue, or a waiting warp's notBefore or reason
// changed other than by its own issue (a memory response, a barrier
// release).
func (q *IssueQueue) invalidate() { q.idleUntil = 0 }

// reportRemoved tells p about the warps that retired during its Issue.
func (q *IssueQueue) reportRemoved(p IssuePolicy) {
	for _, i := range q.removed {
		p.Removed(i)
	}
	q.removed = q.removed[:0]
}

// remove takes the warp at position i out of the queue.
func (q *IssueQueue) remove(i int, p IssuePolicy) {
	copy(q.warps[i:], q.warps[i+1:])
	q.warps = q.warps[:len(q.warps)-1]
	copy(q.waits[i:], q.waits[i+1:])
	q.waits = q.waits[:len(q.waits)-1]
	if i < 64 && q.sleep>>uint(i)&1 != 0 {
		q.sleepOK = false
	}
	q.sleep = dropBit(q.sleep, i)
	q.renumber(i)
	if q.inIssue {
		q.removed = append(q.removed, i)
	} else {
		p.Removed(i)
	}
}

// Len is the number of warps in the queue.
func (q *IssueQueue) Len() int { return len(q.warps) }

// Now is the current cycle.
func (q *IssueQueue) Now() Time { return q.sm.now }

// SM is the index of the scheduler's SM; Scheduler its index within the SM.
func (q *IssueQueue) SM() int        { return q.sm.id }
func (q *IssueQueue) Scheduler() int { return q.s }

// Slot is the hardware warp slot of warp i (stable while it is resident).
func (q *IssueQueue) Slot(i int) int { return q.warps[i].slot }

// Head is the next instruction warp i would issue.
func (q *IssueQueue) Head(i int) *Inst { return q.warps[i].next }

// Window appends to buf up to n decoded instructions of warp i in program
// order, the head first (see Windowed). Only the head can be issued today.
func (q *IssueQueue) Window(i int, buf []*Inst, n int) []*Inst {
	w := q.warps[i]
	if w.next == nil || n <= 0 {
		return buf
	}
	return Window(w.w, buf, n)
}

// TryIssue issues warp i's head instruction now if the warp can issue (no
// pending write to a register the instruction reads or writes, not at a
// barrier or fence, a free unit) and nothing was issued yet this cycle. It
// reports whether it issued. A warp that cannot issue contributes its
// reason to the cycle's stall reason. When the issued instruction was the
// warp's last and it has no memory operation in flight, the warp retires
// at once: it leaves the queue before TryIssue returns (the warps after it
// move up), and the policy's Removed(i) is called after Issue returns.
func (q *IssueQueue) TryIssue(i int) bool {
	w := q.warps[i]
	if w.notBefore > q.now {
		q.best = min(q.best, w.reason)
		return false
	}
	return q.tryReady(w)
}

// tryRing is the built-in policies' scan: TryIssue on count positions
// starting at first and wrapping at ring (count <= ring), skipping position
// skip. It returns the position that issued, or -1.
func (q *IssueQueue) tryRing(first, count, ring, skip int) int {
	if q.issued {
		return -1
	}
	end := first + count
	if j := q.scan(first, min(end, ring), skip); j >= 0 || end <= ring {
		return j
	}
	return q.scan(0, end-ring, skip)
}

// scan tries positions lo..hi-1 in order. Waiting warps cost no call and
// no store: this loop is the simulator's hottest.
func (q *IssueQueue) scan(lo, hi, skip int) int {
	sm, now, best := q.sm, q.now, q.best
	pipe := sm.ldstStall()
	for k, w := range q.warps[lo:hi] {
		if w.notBefore > now {
			best = min(best, w.reason)
			continue
		}
		j := lo + k
		if j == skip {
			continue
		}
		if pipe < NumStallReasons && w.opReady && !w.exited && w.next.Class == ClassLdSt {
			best = min(best, pipe)
			continue
		}
		ok, r := sm.ready(w, q.s)
		if ok {
			q.issued = true
			sm.issue(w, q.s)
			return j
		}
		best = min(best, r)
	}
	q.best = best
	return -1
}

// tryReady is TryIssue for a warp that may be ready now.
func (q *IssueQueue) tryReady(w *warpState) bool {
	if q.issued {
		return false
	}
	ok, r := q.sm.ready(w, q.s)
	if !ok {
		q.best = min(q.best, r)
		return false
	}
	q.issued = true
	q.sm.issue(w, q.s)
	return true
}

// Ready reports whether warp i could issue now, without issuing it or
// counting it towards the stall reason. It refreshes the warp's wake-up
// time, which the SM uses to skip idle cycles.
func (q *IssueQueue) Ready(i int) bool {
	w, sm := q.warps[i], q.sm
	if w.notBefore > sm.now {
		return false
	}
	ok, _ := sm.ready(w, q.s)
	return ok
}

// WakeAt asks the SM to simulate cycle t (> Now) even if no warp's state
// changes before it. The SM skips cycles in which no warp can become ready
// (it knows each warp's wake-up time); a policy that passes over a warp
// that could issue, or whose choice depends on time itself, calls WakeAt
// to be asked again. Without any issue, WakeAt or event, the SM sleeps
// and a run in which nothing can happen any more ends in a deadlock error.
func (q *IssueQueue) WakeAt(t Time) {
	if t > q.now && t < q.wake {
		q.wake = t
	}
}

// WaitingForMemory reports whether warp i waits for a memory result whose
// arrival time is not yet known (a load that missed, an atomic).
func (q *IssueQueue) WaitingForMemory(i int) bool {
	w := q.warps[i]
	return w.notBefore == never && w.reason == StallMemory
}

// MoveToBack moves warp i to the back of the queue; the warps after it move
// up by one. The policy adjusts its own positions.
func (q *IssueQueue) MoveToBack(i int) {
	w := q.warps[i]
	copy(q.warps[i:], q.warps[i+1:])
	copy(q.waits[i:], q.waits[i+1:])
	n := len(q.warps) - 1
	q.warps[n] = w
	q.waits[n] = w.waitState
	slept := i < 64 && q.sleep>>uint(i)&1 != 0
	q.sleep = dropBit(q.sleep, i)
	if slept && n < 64 {
		q.sleep |= 1 << uint(n)
	} else if slept {
		q.sleepOK = false // the warp left the positions with a bit
	}
	q.renumber(i)
}

// LimitUnits lets instructions of unit kind k issue only to the first n
// instances of that kind on this scheduler's SM (n is clamped to 1 … the
// kind's count), until changed; the others idle and can be power-gated
// (seed 000 §3.2.1, SIMD-unit issue control). The setting is the SM's,
// shared by its schedulers; it changes timing only, never what a warp
// computes. A policy that limits units of a partitioned SM must keep an
// instance its scheduler owns.
func (q *IssueQueue) LimitUnits(k UnitKind, n int) {
	sm := q.sm
	if int(k) >= len(sm.allKind) || len(sm.allKind[k]) == 0 {
		return
	}
	all := sm.allKind[k]
	sm.byKind[k] = all[:max(1, min(n, len(all)))]
}

// SplitUnit makes instance index of unit kind k run each warp as two
// half-warps on the lower half of its lanes (seed 000 §3.2.1, warp
// splitting): it is busy twice as long per instruction, and UnitEvent.Split
// is set. Timing only, as LimitUnits.
func (q *IssueQueue) SplitUnit(k UnitKind, index int, split bool) {
	sm := q.sm
	if int(k) >= len(sm.allKind) || index < 0 || index >= len(sm.allKind[k]) {
		return
	}
	sm.units[sm.allKind[k][index]].split = split
}

// gtoPolicy is GTO.
type gtoPolicy struct {
	greedy int // position of the last issued warp, -1: none
	_      cachePad
}

func (p *gtoPolicy) Issue(q *IssueQueue) {
	// q.scan written out: GTO is every preset's policy, and this runs
	// for every scheduler in every simulated cycle
	sm, now, best := q.sm, q.now, q.best
	// idle: the earliest notBefore of the waiting warps while every warp
	// waits or is held by the memory pipeline, else now (no knowledge)
	idle, ldst := never, false
	pipe := sm.ldstStall()
	n := len(q.warps)
	g := p.greedy
	if g >= 0 {
		if ws := q.waits[g]; ws.notBefore > now {
			best = min(best, ws.reason)
		} else {
			w := q.warps[g]
			ok, r := sm.ready(w, q.s)
			if ok {
				q.issued = true
				sm.issue(w, q.s)
				return
			}
			best = min(best, r)
			if pipe < NumStallReasons && w.ooo == nil && w.opReady && !w.exited && w.next.Class == ClassLdSt {
				ldst = true // r is pipe, and stays so while pipe does
			} else if w.ooo != nil || w.notBefore <= now {
				idle = now
			} // else ready found it waiting: the loop below counts it
			// as such
		}
	}
	waits := q.waits[:n]
	for j := q.nextAwake(0); j < n; j = q.nextAwake(j + 1) {
		// the wait from the SM's dense array: a waiting warp's own
		// state is not read
		if ws := waits[j]; ws.notBefore > now {
			best = min(best, ws.reason)
			if ws.notBefore == never {
				if j < 64 {
					q.sleep |= 1 << uint(j) // until unsleep
					q.sleepBest = min(q.sleepBest, ws.reason)
				}
			} else {
				idle = min(idle, ws.notBefore)
			}
			continue
		}
		if j == g {
			continue
		}
		w := q.warps[j]
		if pipe < NumStallReasons && w.opReady && !w.exited && w.next.Class == ClassLdSt {
			// what ready would answer, without its call
			best = min(best, pipe)
			ldst = true
			continue
		}
		ok, r := sm.ready(w, q.s)
		if ok {
			p.greedy = j
			q.issued = true
			sm.issue(w, q.s)
			return
		}
		best = min(best, r)
		switch {
		case w.ooo != nil || w.notBefore <= now:
			// ready but held by a unit (or an out-of-order window):
			// other warps' issues can change that
			idle = now
		case w.notBefore != never:
			// ready found its operands waiting until notBefore, which
			// only its own issue or an invalidating event changes; a
			// later scan would see it waiting with reason r
			idle = min(idle, w.notBefore)
		}
	}
	// the sleeping warps' reasons (constant while they sleep)
	if !q.sleepOK {
		sb := NumStallReasons
		for m := q.sleep; m != 0; m &= m - 1 {
			sb = min(sb, q.waits[bits.TrailingZeros64(m)].reason)
		}
		q.sleepBest, q.sleepOK = sb, true
	}
	best = min(best, q.sleepBest)
	q.best = best
	// nothing issued, and every warp waits or is held by the pipeline:
	// the outcome stays the same until the earliest wakes or the pipeline
	// changes (or invalidate)
	q.idleUntil, q.idleBest, q.idlePipe, q.idleLdSt = idle, best, pipe, ldst
}

func (p *gtoPolicy) Removed(i int) {
	switch {
	case p.greedy == i:
		p.greedy = -1
	case p.greedy > i:
		p.greedy--
	}
}

// lrrPolicy is LRR.
type lrrPolicy struct {
	last int // position of the last issued warp
	_    cachePad
}

func (p *lrrPolicy) Issue(q *IssueQueue) {
	n := len(q.warps)
	if j := q.tryRing(p.last+1, n, n, -1); j >= 0 {
		p.last = j
	}
}

func (p *lrrPolicy) Removed(i int) { p.last = removedRR(p.last, i) }

// removedRR moves a round-robin pointer back when a warp at or before it
// retires, so the warp after the last issued one is tried first.
func removedRR(last, i int) int {
	if last >= i && last > 0 {
		return last - 1
	}
	return last
}

// twoLevelPolicy is TwoLevel.
type twoLevelPolicy struct {
	active int // active-pool size
	last   int // round-robin pointer within the active pool
	_      cachePad
}

func (p *twoLevelPolicy) Issue(q *IssueQueue) {
	n := len(q.warps)
	act := min(p.active, n)
	if j := q.tryRing((p.last+1)%act, act, act, -1); j >= 0 {
		p.last = j
	}
	if q.sm.err != nil {
		return
	}
	for i := 0; i < act && act < n; i++ {
		if q.WaitingForMemory(i) {
			q.MoveToBack(i)
			act--
			i--
		}
	}
	if q.issued {
		return
	}
	// the pending pool still counts for the next-event search
	for i := act; i < n; i++ {
		q.Ready(i)
	}
}

func (p *twoLevelPolicy) Removed(i int) { p.last = removedRR(p.last, i) }
