package replay

import (
	"math/bits"
)

func execBra(w *warp, in *inst, m uint32) {
	if in.target < 0 {
		w.faultf(in, -1, FaultInvalid, "branch target not found")
		return
	}
	w.branch(in, m, in.target)
}

// execRet: ret jumps to the function's end, which returns from a .func and
// exits from the entry.
func execRet(w *warp, in *inst, m uint32) {
	w.branch(in, m, int32(len(in.fn.code)))
}

func execExit(w *warp, in *inst, m uint32) {
	w.exited |= m
}

func execTrap(w *warp, in *inst, m uint32) {
	if m == 0 {
		return
	}
	w.faultf(in, bits.TrailingZeros32(m), FaultTrap, "trap executed")
}

// brx.idx index, tlist: lanes may pick different targets.
func execBrx(w *warp, in *inst, m uint32) {
	idx := w.r(in.s[0])
	if m == 0 {
		return
	}
	var groups []simtEntry
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		i := idx[l] & 0xffffffff
		if int(i) >= len(in.targets) {
			w.faultf(in, l, FaultInvalid, "brx.idx index %d out of range (%d targets)", i, len(in.targets))
			return
		}
		t := in.targets[i]
		found := false
		for g := range groups {
			if groups[g].pc == t {
				groups[g].mask |= 1 << l
				found = true
			}
		}
		if !found {
			groups = append(groups, simtEntry{pc: t, rpc: in.rpc, mask: 1 << l})
		}
	}
	if len(groups) == 1 && m == w.cur {
		w.topEntry().pc = groups[0].pc
		return
	}
	fr := &w.frames[len(w.frames)-1]
	top := &fr.stack[len(fr.stack)-1]
	if m != w.cur {
		groups = append(groups, simtEntry{pc: top.pc, rpc: in.rpc, mask: w.cur &^ m})
	}
	top.pc = in.rpc
	if in.rpc < 0 {
		top.mask &^= w.cur
	}
	for i := len(groups) - 1; i >= 0; i-- {
		fr.stack = append(fr.stack, groups[i])
	}
}

// execCall: the calling lanes run the callee; the caller's entry (already
// at the next instruction) waits for them.
func execCall(w *warp, in *inst, m uint32) {
	if m == 0 {
		return
	}
	f := in.callee
	caller := &w.frames[len(w.frames)-1]
	if f.builtin != builtinNone {
		w.builtin(in, f, m, caller)
		return
	}
	if !w.pushFrame(f, in, m) {
		w.faultf(in, -1, FaultStack, "call depth or per-thread local memory exhausted (call depth %d)", len(w.frames))
		return
	}
	caller = &w.frames[len(w.frames)-2]
	callee := &w.frames[len(w.frames)-1]
	for i, a := range in.args {
		if i >= len(f.params) {
			break
		}
		w.copySlot(callee.regs, f.params[i], caller.regs, a, caller.fp, callee.fp, m)
	}
	w.normalize()
}

// Barriers. The effect tells the scheduler (functional or the model) to
// hold the warp; see CTA.barrier for the functional bookkeeping.

func (w *warp) barrierArgs(in *inst) (id, count int) {
	id = int(w.regs[in.s[0]+int32(bits.TrailingZeros32(w.cur|1))] & 15)
	if in.ns > 1 && in.s[1] >= 0 {
		count = int(w.regs[in.s[1]+int32(bits.TrailingZeros32(w.cur|1))] & 0xffffffff)
	}
	return
}

func execBar(w *warp, in *inst, m uint32) {
	if m == 0 {
		return
	}
	id, count := w.barrierArgs(in)
	if in.sub == 0 { // sync: every live lane of the warp must be here
		if want := w.live &^ w.exited; m != want {
			w.faultf(in, -1, FaultBarrierDiverg,
				"barrier divergence: bar %d reached by lanes %#08x of the warp's live lanes %#08x", id, m, want)
			return
		}
	}
	w.eff.Barrier = in.sub != 1
	w.eff.Arrive = in.sub == 1
	w.eff.BarrierID = id
	w.eff.BarrierCount = count
	if in.sub == 2 { // bar.red: contribute and wait for the result
		c := w.r(in.s[2])
		neg := uint64(in.sneg >> 2 & 1)
		var vote uint32
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			if (c[l]&1)^neg != 0 {
				vote |= 1 << l
			}
		}
		b := &w.c.bars[id]
		if !b.redSeen {
			b.redSeen = true
			b.popc, b.and, b.or = 0, true, false
		}
		b.popc += uint32(bits.OnesCount32(vote))
		b.and = b.and && vote == m
		b.or = b.or || vote != 0
		w.redPend, w.redDst, w.redMask, w.redBar, w.redKind = true, in.d[0], m, id, in.sub2
	}
	w.c.arrive(w, id, count, in.sub != 1)
}

// finishRed writes a completed bar.red result.
func (w *warp) finishRed() {
	w.redPend = false
	b := &w.c.bars[w.redBar]
	var v uint64
	switch w.redKind {
	case 0:
		v = uint64(b.result)
	default:
		v = uint64(b.result) & 1
	}
	for mm := w.redMask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		w.regs[w.redDst+int32(l)] = v
	}
}

// arrive records warp w at barrier id. When the barrier completes, the
// waiting warps are released (functional scheduler) and bar.red results
// fixed. Under a timing model the model holds warps itself; the
// bookkeeping here only produces bar.red results.
func (c *CTA) arrive(w *warp, id, count int, wait bool) {
	b := &c.bars[id]
	b.arrived++
	if wait {
		w.waitBar = id
		b.waiting = append(b.waiting, w.id)
	}
	c.checkBarrier(id, count)
}

// checkBarrier releases barrier id if enough warps have arrived.
func (c *CTA) checkBarrier(id, count int) {
	b := &c.bars[id]
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
	switch c.warps[0].redKind {
	}
	// completed: bar.red result
	if b.redSeen {
		r := b.popc
		// the kind is per instruction: and/or are encoded by the waiting
		// warps; store all three and let finishRed pick
		b.result = r
		for _, wi := range b.waiting {
			w := c.warps[wi]
			if w.redPend && w.redBar == id {
				switch w.redKind {
				case 1:
					b.result = uint32(b2u(b.and))
				case 2:
					b.result = uint32(b2u(b.or))
				}
			}
		}
	}
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
