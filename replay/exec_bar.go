package replay

import (
	"math/bits"
	"slices"
)

// Barriers (bar, barrier: .sync, .arrive, .red).
//
// PTX ISA: a thread executing a barrier waits for all non-exited threads of
// its warp to arrive at it, then the warp's arrival is marked; .sync and
// .red then wait for the non-exited threads of the other participating
// warps (all warps of the CTA, or count/32 warps with a thread count), and
// .arrive does not wait. Exited threads never take part, so the common
// `if (i >= n) return; ... __syncthreads();` runs when a warp straddles n.
//
// Within a warp, lanes may reach the barrier on different paths of the
// reconvergence stack (the early-return lanes sit on a sibling path that
// has not yet run to its exit). A path that reaches a barrier while other
// non-exited lanes of its warp are elsewhere is parked (its stack entry
// stays at the barrier, bar = entParked) and a pending sibling path of the
// same call frame runs instead. When the lanes gathered at the barrier are
// all non-exited lanes of the warp, the warp arrives once with their union
// (their bar.red votes combined); the parked entries become entReleased and
// pass through the barrier instruction when they run again (writing their
// own bar.red destination). Lanes that can reach the barrier only through
// an outer frame, or that wait at a different barrier, or that reached the
// reconvergence point without passing the barrier, are a real divergence:
// a barrier-divergence fault. A .aligned barrier (bar.sync, bar.red,
// bar.arrive are .aligned) must be reached at the same instruction by all
// of them; a non-.aligned barrier with the same barrier id.

// stack entry barrier states (simtEntry.bar)
const (
	entRun      uint8 = iota // ordinary path
	entParked                // waiting at the barrier instruction at pc
	entReleased              // its barrier completed: pass through the instruction at pc once
)

// warpBar is a warp's gathering of lanes at a barrier (lanes 0: none).
type warpBar struct {
	lanes uint32 // lanes parked at the barrier
	vote  uint32 // their bar.red predicate votes
	id    int
	pc    int32
	fn    *fnCode
}

func (w *warp) barrierArgs(in *inst) (id, count int) {
	id = int(w.regs[in.s[0]+int32(bits.TrailingZeros32(w.cur|1))] & 15)
	if in.ns > 1 && in.s[1] >= 0 {
		count = int(w.regs[in.s[1]+int32(bits.TrailingZeros32(w.cur|1))] & 0xffffffff)
	}
	return
}

// barVote returns the bar.red predicate of the lanes in m.
func (w *warp) barVote(in *inst, m uint32) uint32 {
	if in.sub != 2 {
		return 0
	}
	c := w.r(in.s[2])
	neg := uint64(in.sneg >> 2 & 1)
	var vote uint32
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		if (c[l]&1)^neg != 0 {
			vote |= 1 << l
		}
	}
	return vote
}

// warpSyncID is the gather id of bar.warp.sync (CTA barriers are 0..15).
const warpSyncID = 16

// execWarpSync implements bar.warp.sync membermask: the executing lanes
// wait until every non-exited lane of membermask has executed a
// bar.warp.sync (at any instruction). Lanes of membermask on another
// path of the warp run first (the parking of execBar), so that memory
// written before the sync on one path is seen after it on the other.
func execWarpSync(w *warp, in *inst, m uint32) {
	top := w.topEntry()
	if top.bar == entReleased {
		top.bar = entRun
		return
	}
	if m == 0 {
		return
	}
	mask := uint32(w.regs[in.s[0]+int32(bits.TrailingZeros32(m))])
	if m&^mask != 0 {
		w.faultf(in, bits.TrailingZeros32(m&^mask), FaultInvalid,
			"bar.warp.sync: executing lanes %#08x are not all in membermask %#08x", m, mask)
		return
	}
	want := mask & w.live &^ w.exited
	g := &w.gather
	if g.lanes != 0 && (g.id != warpSyncID || g.fn != in.fn) {
		w.faultf(in, -1, FaultBarrierDiverg,
			"barrier divergence: lanes %#08x reached bar.warp.sync (PC %d) while lanes %#08x of the warp wait at barrier %d (PC %d)",
			m, in.m.PC, g.lanes, g.id, g.pc)
		return
	}
	lanes := m | g.lanes
	if lanes&want != want {
		if m != w.cur || !w.yieldPath(in) {
			w.faultf(in, -1, FaultBarrierDiverg,
				"barrier divergence: bar.warp.sync reached by lanes %#08x; lanes %#08x of membermask %#08x can no longer reach one",
				lanes, want&^lanes, mask)
			return
		}
		g.lanes, g.id, g.pc, g.fn = lanes, warpSyncID, int32(in.m.PC), in.fn
		w.eff.Active = 0
		return
	}
	w.releaseParked()
}

// releaseParked lets the parked paths of the current frame pass through
// their barrier instruction and clears the gathering.
func (w *warp) releaseParked() {
	if w.gather.lanes == 0 {
		return
	}
	fr := &w.frames[len(w.frames)-1]
	for i := range fr.stack {
		if fr.stack[i].bar == entParked {
			fr.stack[i].bar = entReleased
		}
	}
	w.gather = warpBar{}
}

func execBar(w *warp, in *inst, m uint32) {
	top := w.topEntry()
	if top.bar == entReleased {
		// this path's lanes were counted when the barrier completed
		top.bar = entRun
		w.eff.Active = 0
		if in.sub == 2 {
			for mm := m; mm != 0; mm &= mm - 1 {
				w.regs[in.d[0]+int32(bits.TrailingZeros32(mm))] = w.redVal
			}
		}
		return
	}
	if m == 0 {
		return
	}
	id, count := w.barrierArgs(in)
	g := &w.gather
	if g.lanes != 0 && (g.id != id || g.fn != in.fn || in.flags&fAligned != 0 && g.pc != int32(in.m.PC)) {
		w.faultf(in, -1, FaultBarrierDiverg,
			"barrier divergence: lanes %#08x reached barrier %d (PC %d) while lanes %#08x of the warp wait at barrier %d (PC %d)",
			m, id, in.m.PC, g.lanes, g.id, g.pc)
		return
	}
	want := w.live &^ w.exited
	lanes := m | g.lanes
	if lanes != want {
		// other non-exited lanes of the warp are elsewhere: park this
		// path and run one of theirs
		if m != w.cur || !w.yieldPath(in) {
			w.faultf(in, -1, FaultBarrierDiverg,
				"barrier divergence: barrier %d reached by lanes %#08x; the warp's other non-exited lanes %#08x can no longer reach it",
				id, lanes, want&^lanes)
			return
		}
		g.lanes, g.id, g.pc, g.fn = lanes, id, int32(in.m.PC), in.fn
		g.vote |= w.barVote(in, m)
		w.eff.Active = 0
		return
	}
	vote := g.vote | w.barVote(in, m)
	w.releaseParked()
	w.eff.Active = lanes
	w.eff.Barrier = in.sub != 1
	w.eff.Arrive = in.sub == 1
	w.eff.BarrierID = id
	w.eff.BarrierCount = count
	if in.sub == 2 { // bar.red: contribute and wait for the result
		b := w.c.bar(id)
		if !b.redSeen {
			b.redSeen = true
			b.popc, b.and, b.or = 0, true, false
		}
		b.popc += uint32(bits.OnesCount32(vote))
		b.and = b.and && vote == lanes
		b.or = b.or || vote != 0
		w.redPend, w.redDst, w.redMask, w.redBar, w.redKind = true, in.d[0], m, id, in.sub2
		w.redGen, w.redInst = b.gen, in
	}
	w.c.arrive(w, id, count, in.sub != 1)
}

// yieldPath parks the current path at barrier instruction in and puts
// other lanes of the warp on top of the stack to run; it reports false
// when no lane of the current frame can make progress.
//
// Finished paths (pc == rpc: their lanes wait at the reconvergence point
// in an entry below) are dropped first. The walk then goes down the stack:
//   - an entry whose pc is the rpc of an entry above it is a
//     reconvergence entry: its lanes that are in no entry above it have
//     finished their paths and wait there; they are split off into a path
//     from the reconvergence point to the entry's own rpc, as independent
//     thread scheduling lets them run on;
//   - any other entry (not parked, with non-exited lanes) is a path that
//     has not reached its reconvergence point: it is moved to the top.
//
// A moved or split path pops at its rpc, above its reconvergence entry,
// so the stack stays consistent; the parked path runs again (and
// re-executes the barrier) when it is back on top.
func (w *warp) yieldPath(in *inst) bool {
	fr := &w.frames[len(w.frames)-1]
	top := fr.stack[len(fr.stack)-1]
	top.pc = int32(in.m.PC)
	top.bar = entParked
	st := fr.stack[:0]
	for _, e := range fr.stack[:len(fr.stack)-1] {
		if e.pc == e.rpc && e.bar == entRun {
			continue
		}
		st = append(st, e)
	}
	st = append(st, top)
	fr.stack = st
	n := len(st)
	above := top.mask
	rpcs := []int32{top.rpc}
	for j := n - 2; j >= 0; j-- {
		e := &st[j]
		reconv := e.pc != e.rpc && slices.Contains(rpcs, e.pc)
		switch {
		case e.bar == entParked || e.mask&^w.exited == 0:
		case reconv:
			if wait := e.mask &^ above &^ w.exited; wait != 0 {
				e.mask &^= wait
				fr.stack = append(st, simtEntry{pc: e.pc, rpc: e.rpc, mask: wait})
				return true
			}
		default:
			moved := *e
			copy(st[j:], st[j+1:])
			st[n-1] = moved
			return true
		}
		above |= e.mask
		rpcs = append(rpcs, e.rpc)
	}
	// nothing can run: restore the path as it was (the caller faults)
	st[n-1].bar = entRun
	return false
}

// finishRed writes a completed bar.red result.
func (w *warp) finishRed() {
	w.redPend = false
	b := w.c.bar(w.redBar)
	if b.gen == w.redGen {
		// a timing model released the warp, but by replay's count (warps
		// of the CTA, count/32 with a thread count) the barrier has not
		// completed: there is no result to give
		w.faultf(w.redInst, -1, FaultDeadlock,
			"bar.red released before barrier %d completed (%d warps arrived of %d expected)", w.redBar, b.arrived, b.expected)
		return
	}
	var v uint64
	switch w.redKind {
	case 0:
		v = uint64(b.rPopc)
	case 1:
		v = b2u(b.rAnd)
	default:
		v = b2u(b.rOr)
	}
	w.redVal = v
	for mm := w.redMask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		w.regs[w.redDst+int32(l)] = v
	}
}

// bar is named barrier id (0 … 15) of c; a CTA that never reaches a
// barrier allocates none.
func (c *CTA) bar(id int) *barrier {
	if c.bars == nil {
		c.bars = make([]barrier, 16)
	}
	return &c.bars[id]
}

// arrive records warp w at barrier id. When the barrier completes, the
// waiting warps are released (functional scheduler) and bar.red results
// fixed. Under a timing model the model holds warps itself; the
// bookkeeping here only produces bar.red results.
func (c *CTA) arrive(w *warp, id, count int, wait bool) {
	b := c.bar(id)
	b.arrived++
	c.spinMark()
	if wait {
		w.waitBar = id
		b.waiting = append(b.waiting, w.id)
	}
	c.checkBarrier(id, count)
}

// checkBarrier releases barrier id if enough warps have arrived: count/32
// warps (rounded up) for a barrier with a thread count, else every warp of
// the CTA that has not exited.
func (c *CTA) checkBarrier(id, count int) {
	b := c.bar(id)
	if count > 0 {
		b.expected = (count + 31) / 32
	}
	need := b.expected
	if need == 0 {
		need = c.liveWarps()
	}
	if b.arrived == 0 || b.arrived < need {
		return
	}
	// completed: the bar.red results of this generation
	if b.redSeen {
		b.rPopc, b.rAnd, b.rOr = b.popc, b.and, b.or
	}
	b.gen++
	for _, wi := range b.waiting {
		c.warps[wi].waitBar = -1
	}
	b.waiting = b.waiting[:0]
	b.arrived = 0
	b.expected = 0
	b.redSeen = false
}

// recheckBarriers re-evaluates barriers after a warp finished (fewer live
// warps may complete a barrier).
func (c *CTA) recheckBarriers() {
	for id := range c.bars {
		if c.bars[id].arrived > 0 && c.bars[id].expected == 0 {
			c.checkBarrier(id, 0)
		}
	}
}
