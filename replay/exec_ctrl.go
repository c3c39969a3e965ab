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
	if in.callees != nil {
		if f = w.indirectCallee(in, m); f == nil {
			return
		}
	}
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

// indirectCallee resolves a call through a register. When the calling
// lanes name different functions, the warp splits as for brx.idx: one
// entry per function re-executes the call (in lane order of the lowest
// lane) and all reconverge after it; indirectCallee then returns nil.
func (w *warp) indirectCallee(in *inst, m uint32) *fnCode {
	addr := w.r(in.s[0])
	fr := &w.frames[len(w.frames)-1]
	top := &fr.stack[len(fr.stack)-1]
	callPC, next := top.pc-1, top.pc
	var groups []simtEntry
	var gf []*fnCode
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		a := addr[l]
		i := (a - FuncAddrBase) / 16
		if a < FuncAddrBase || a%16 != 0 || i >= uint64(len(in.callees)) {
			w.faultf(in, l, FaultInvalid, "indirect call to %#x, which is not a function address", a)
			return nil
		}
		f := in.callees[i]
		if f == nil {
			w.faultf(in, l, FaultInvalid, "indirect call of %s: %s", w.k.l.Code.Prog.fnames[i], in.calleeErr[i])
			return nil
		}
		found := false
		for g := range gf {
			if gf[g] == f {
				groups[g].mask |= 1 << l
				found = true
			}
		}
		if !found {
			gf = append(gf, f)
			groups = append(groups, simtEntry{pc: callPC, rpc: next, mask: 1 << l})
		}
	}
	if len(gf) == 1 {
		return gf[0]
	}
	for i := len(groups) - 1; i >= 0; i-- {
		fr.stack = append(fr.stack, groups[i])
	}
	return nil
}
