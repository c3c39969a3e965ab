package replay

import (
	"fmt"
	"math/bits"

	"github.com/ptxtrace/ptxtrace/model"
)

// simtEntry is one entry of a warp's reconvergence stack: the lanes in
// mask execute from pc until they reach rpc, where the entry is popped and
// the lanes rejoin the entry below.
type simtEntry struct {
	pc   int32
	rpc  int32
	mask uint32
	bar  uint8 // barrier state: entRun, entParked, entReleased (exec_bar.go)
}

// frame is one activation of a function on a warp.
type frame struct {
	f     *fnCode
	regs  []uint64
	stack []simtEntry
	fp    int   // local-memory base of the frame
	call  *inst // the call instruction in the caller (nil for the entry)
}

const maxCallDepth = 1024
const maxLocalPerThread = 1 << 20

// warp is one warp of a CTA. It implements model.Warp.
//
// The fields every instruction reads or writes (Issue, step, Peek,
// normalize, the entry frame and its first stack entries, the effect) come
// first and lie together in a few host cache lines: a warp's state is
// mostly cold when the model issues its next instruction, so each line
// touched is a cache miss. The per-lane arrays that only some instructions
// use come after them; the slices of warpLanes, which few kernels use, are
// cleared on recycling only when one was set.
type warp struct {
	warpCore
	warpLanes
	_ [8]byte // a whole number of cache lines (a slab's warps start at line boundaries; TestWarpLayout)
}

// warpLanes are a warp's per-lane slices.
type warpLanes struct {
	local  [32][]byte
	texels [32][]model.Texel
	// lanesSet: some slice above may be non-nil (initWarp clears them)
	lanesSet bool
}

// warpCore is the rest of a warp (see warp).
type warpCore struct {
	c      *CTA
	k      *Kernel
	frames []frame
	regs   []uint64 // registers of the current frame

	icount uint64
	spinAt uint64 // icount at which spinStep runs next (spin.go)
	fault  *Fault
	clk    model.Clocks
	live   uint32 // lanes that exist
	exited uint32
	cur    uint32 // active mask of the instruction executing (before the guard)
	done   bool
	// redPend: a bar.red is pending (see the red fields below)
	redPend bool
	// the last atom executed and whether it changed a byte of memory
	// (execAtom; spin.go)
	atomWrote bool

	// storage of the entry frame and its first reconvergence entries, so
	// that a warp costs no allocation beyond its CTA's
	frame0 [1]frame
	eff    model.Effect
	stack0 [4]simtEntry

	id     int
	sp     int
	carry  uint32     // carry flag per lane
	wgSeq  int        // wgmma.mma_async instructions executed
	spin   *spinProbe // the open spin probe, or nil
	atomIn *inst

	waitBar int // functional scheduler: barrier waited on, or -1
	redDst  int32
	redMask uint32
	redBar  int
	redKind uint8
	redVal  uint64  // the last bar.red result (for released parked paths)
	redGen  uint64  // generation of the barrier the pending bar.red arrived in
	redInst *inst   // the pending bar.red
	gather  warpBar // lanes gathered at a barrier on parked paths

	regs0  []uint64 // the entry frame's registers, kept when the warp is recycled
	addrs  [32]uint64
	agroup [32]int32 // cp.async groups committed per lane
}

// warpSlab is the storage of one CTA's warps. A released CTA's slab goes
// back to Kernel.slabs for a later CTA of the launch.
type warpSlab struct {
	ws  []warp
	ptr []*warp
	mw  []model.Warp
}

// initWarp makes the zero warp w warp wi of c, at the kernel's entry.
func initWarp(w *warp, c *CTA, wi int) {
	k := c.k
	r0 := w.regs0
	w.warpCore = warpCore{regs0: r0}
	if w.lanesSet {
		w.warpLanes = warpLanes{}
	}
	w.c, w.k, w.id, w.live, w.waitBar = c, k, wi, lanesOf(k.nthreads, wi), -1
	w.frames = w.frame0[:0]
	w.spinAt = w.spinNext()
	w.pushFrame(k.code.entry, nil, w.live)
	w.normalize()
}

// ID implements model.Warp.
func (w *warp) ID() int { return w.id }

// pushFrame creates an activation of f for the lanes in mask.
func (w *warp) pushFrame(f *fnCode, call *inst, mask uint32) bool {
	if len(w.frames) >= maxCallDepth {
		return false
	}
	fp := alignUp(w.sp, 16)
	need := fp + f.frameSize
	if need > maxLocalPerThread {
		return false
	}
	if f.frameSize > 0 {
		for l := 0; l < 32; l++ {
			if mask>>l&1 == 0 {
				continue
			}
			if len(w.local[l]) < need {
				n := make([]byte, max(need, 2*len(w.local[l])))
				copy(n, w.local[l])
				w.local[l] = n
				w.lanesSet = true
			}
		}
	}
	w.sp = need
	var regs []uint64
	n := f.nregs * 32
	switch {
	case len(w.frames) > 0:
		regs = w.k.getRegs(n)
	case cap(w.regs0) >= n:
		regs = w.regs0[:n]
	default:
		regs = w.k.entryFrameRegs(n)
		w.regs0 = regs
	}
	if t := w.k.entryRegs; len(w.frames) == 0 && fp == 0 && f == w.k.code.entry && len(t) == n {
		// the entry frame from its template: only the special
		// registers differ between warps
		inits := f.inits
		if w.k.entryPart {
			for _, r := range w.k.entryRuns {
				copy(regs[r[0]:r[1]], t[r[0]:r[1]])
			}
			inits = w.k.entryFill // the specials read
		} else {
			copy(regs, t)
		}
		for _, ri := range inits {
			if ri.kind == initSpecial {
				w.fillSpecial(regs[ri.reg:ri.reg+32], special(ri.idx))
			}
		}
		w.activate(f, regs, fp, call, mask)
		return true
	}
	if len(w.frames) == 0 {
		clear(regs) // (getRegs returns zeroed registers)
	}
	for _, ri := range f.inits {
		v := ri.v
		switch ri.kind {
		case initGlobal:
			v += w.k.l.Globals[ri.idx]
		case initFrame:
			v += uint64(fp)
		case initSpecial:
			w.fillSpecial(regs[ri.reg:ri.reg+32], special(ri.idx))
			continue
		}
		r := regs[ri.reg : ri.reg+32]
		for l := range r {
			r[l] = v
		}
	}
	w.activate(f, regs, fp, call, mask)
	return true
}

// activate pushes the activation of f with its initialised registers.
func (w *warp) activate(f *fnCode, regs []uint64, fp int, call *inst, mask uint32) {
	var st []simtEntry
	if len(w.frames) == 0 {
		st = w.stack0[:1]
		st[0] = simtEntry{pc: 0, rpc: -1, mask: mask}
	} else {
		st = []simtEntry{{pc: 0, rpc: -1, mask: mask}}
	}
	w.frames = append(w.frames, frame{f: f, regs: regs, stack: st, fp: fp, call: call})
	w.regs = regs
}

// fillSpecial writes the per-lane values of a special register.
func (w *warp) fillSpecial(r []uint64, s special) {
	k := w.k
	b, g := k.l.Block, k.l.Grid
	r = r[:32]
	switch s {
	case srTidX, srTidY, srTidZ:
		if b[0] > 0 && b[1] > 0 {
			// thread t = w.id*32+l has x = t%b0, y = t/b0%b1, z =
			// t/(b0*b1): step them lane by lane instead of dividing
			t0 := w.id * 32
			x, y, z := t0%b[0], t0/b[0]%b[1], t0/(b[0]*b[1])
			if s == srTidX && x+32 <= b[0] {
				// the warp inside one row of x: x, x+1, ... (the
				// common 1-D block)
				for l := range r {
					r[l] = uint64(x + l)
				}
				return
			}
			for l := range r {
				switch s {
				case srTidX:
					r[l] = uint64(x)
				case srTidY:
					r[l] = uint64(y)
				default:
					r[l] = uint64(z)
				}
				if x++; x == b[0] {
					x = 0
					if y++; y == b[1] {
						y = 0
						z++
					}
				}
			}
			return
		}
		for l := range r {
			t := w.id*32 + l
			switch s {
			case srTidX:
				r[l] = uint64(t % b[0])
			case srTidY:
				r[l] = uint64(t / b[0] % b[1])
			default:
				r[l] = uint64(t / (b[0] * b[1]))
			}
		}
		return
	case srLaneid:
		for l := range r {
			r[l] = uint64(l)
		}
		return
	case srLanemaskEq, srLanemaskLe, srLanemaskLt, srLanemaskGe, srLanemaskGt:
		for l := range r {
			var v uint64
			switch s {
			case srLanemaskEq:
				v = 1 << l
			case srLanemaskLe:
				v = uint64(uint32(2<<l) - 1)
			case srLanemaskLt:
				v = 1<<l - 1
			case srLanemaskGe:
				v = uint64(^uint32(0) << l)
			case srLanemaskGt:
				v = uint64(^uint32(0) << l << 1)
			}
			r[l] = v
		}
		return
	}
	var v uint64
	switch s {
	case srNtidX, srNtidY, srNtidZ:
		v = uint64(b[s-srNtidX])
	case srCtaidX, srCtaidY, srCtaidZ:
		v = uint64(w.c.id[s-srCtaidX])
	case srNctaidX, srNctaidY, srNctaidZ:
		v = uint64(g[s-srNctaidX])
	case srWarpid:
		v = uint64(w.id)
	case srNwarpid:
		v = 64
	case srNsmid:
		v = uint64(k.l.NumSMs)
	case srGridid:
		v = uint64(k.grid + 2) // 1 for the host-launched grid, then device launches in order (cdp.go)
	case srDynSmem:
		v = uint64(k.l.DynShared)
	case srTotalSmem:
		v = uint64(k.shared)
	case srSmid:
		v = uint64(w.clk.SMID)
	case srClock:
		v = uint64(uint32(w.clk.Cycle))
	case srClockHi:
		v = uint64(w.clk.Cycle) >> 32
	case srClock64:
		v = uint64(w.clk.Cycle)
	case srGlobaltimer:
		v = w.clk.GlobalTimer
	case srGlobaltimerLo:
		v = w.clk.GlobalTimer & 0xffffffff
	case srGlobaltimerHi:
		v = w.clk.GlobalTimer >> 32
	}
	for l := range r {
		r[l] = v
	}
}

// normalize pops finished stack entries and frames so that the top entry
// is the next instruction to execute; it marks the warp done when nothing
// is left.
func (w *warp) normalize() {
	for {
		n := len(w.frames)
		if n == 0 {
			w.done = true
			return
		}
		fr := &w.frames[n-1]
		st := fr.stack
		if len(st) == 0 {
			w.returnFrame()
			continue
		}
		top := &st[len(st)-1]
		mask := top.mask &^ w.exited
		switch {
		case mask == 0:
		case int(top.pc) >= len(fr.f.code):
			if n == 1 {
				// Reaching the end of the entry is exiting.
				w.exited |= mask
			}
		case top.pc == top.rpc:
		default:
			return
		}
		fr.stack = st[:len(st)-1]
	}
}

// returnFrame pops the current frame (its stack is empty) and copies the
// return values to the caller.
func (w *warp) returnFrame() {
	n := len(w.frames)
	fr := w.frames[n-1]
	w.frames = w.frames[:n-1]
	w.sp = fr.fp
	if n == 1 {
		w.regs = nil // the entry frame's registers are w.regs0
		return
	}
	defer w.k.putRegs(fr.regs)
	caller := &w.frames[n-2]
	w.regs = caller.regs
	call := fr.call
	if call == nil {
		return
	}
	// the lanes that made the call and did not exit
	mask := uint32(0)
	if st := caller.stack; len(st) > 0 {
		mask = st[len(st)-1].mask &^ w.exited
	}
	for i, r := range call.rets {
		if i >= len(fr.f.rets) {
			break
		}
		w.copySlot(caller.regs, r, fr.regs, fr.f.rets[i], fr.fp, caller.fp, mask)
	}
}

// copySlot copies a parameter value between frames for the lanes in mask.
func (w *warp) copySlot(dregs []uint64, d slot, sregs []uint64, s slot, sfp, dfp int, mask uint32) {
	n := min(d.size, s.size)
	if n <= 0 {
		n = max(d.size, s.size)
	}
	for mm := mask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		var v uint64
		var buf [8]byte
		if s.reg >= 0 {
			v = sregs[int(s.reg)+l]
		} else {
			loc := w.local[l]
			if n > 8 {
				if d.reg < 0 {
					copy(w.local[l][d.off+dfp:d.off+dfp+n], loc[s.off+sfp:s.off+sfp+n])
				}
				continue
			}
			copy(buf[:], loc[s.off+sfp:s.off+sfp+n])
			v = le(buf[:], 8)
		}
		if d.reg >= 0 {
			dregs[int(d.reg)+l] = v
		} else {
			putLE(buf[:], 8, v)
			copy(w.local[l][d.off+dfp:d.off+dfp+min(n, 8)], buf[:])
		}
	}
}

// Peek implements model.Warp.
func (w *warp) Peek() *model.Inst {
	if w.done {
		return nil
	}
	fr := &w.frames[len(w.frames)-1]
	return &fr.f.code[fr.stack[len(fr.stack)-1].pc].m
}

// Issue implements model.Warp: it executes the next warp-instruction.
func (w *warp) Issue(c model.Clocks) (*model.Effect, error) {
	if w.done {
		return nil, fmt.Errorf("warp %d of CTA %d has exited", w.id, w.c.linear)
	}
	w.clk = c
	w.step()
	if w.fault != nil {
		return &w.eff, w.fault
	}
	return &w.eff, nil
}

// step executes one warp-instruction.
func (w *warp) step() {
	if w.redPend {
		w.finishRed()
	}
	fr := &w.frames[len(w.frames)-1]
	top := &fr.stack[len(fr.stack)-1]
	in := &fr.f.code[top.pc]
	act := top.mask &^ w.exited
	w.cur = act
	m := act
	if in.guard >= 0 {
		g := w.regs[in.guard : in.guard+32 : in.guard+32]
		var gm uint32
		if act == ^uint32(0) {
			for l, v := range g {
				gm |= uint32(v&1) << l
			}
		} else {
			for mm := act; mm != 0; mm &= mm - 1 {
				l := bits.TrailingZeros32(mm)
				gm |= uint32(g[l]&1) << l
			}
		}
		if in.gneg {
			gm = ^gm
		}
		m = act & gm
	}
	top.pc++
	e := &w.eff
	e.Active = m
	e.Addr = nil
	e.Texels = nil
	e.Exited = false
	e.Barrier = false
	e.Arrive = false
	if in.m.Clock || in.flags&fDyn != 0 {
		for _, ri := range fr.f.dyn {
			w.fillSpecial(w.regs[ri.reg:ri.reg+32], special(ri.idx))
		}
	}
	in.exec(w, in, m)
	w.icount++
	w.c.winsts++
	w.c.tinsts += uint64(bits.OnesCount32(m))
	if w.fault != nil {
		return
	}
	if w.k.stop.fired() {
		w.faultf(in, -1, FaultRunaway, "still executing when the watchdog fired, after %d instructions of this warp (a spinning warp, or a kernel slower than the watchdog allows)", w.icount)
		return
	}
	if w.icount > w.k.budget {
		w.faultf(in, -1, FaultRunaway, "warp executed more than %d instructions (runaway execution; raise the budget with max_warp_insts)", w.k.budget)
		return
	}
	w.normalize()
	if w.done {
		e.Exited = true
		w.c.ndone++
		w.c.spinMark()
		return
	}
	if w.icount >= w.spinAt {
		w.spinStep(in)
	}
}

// faultf records a fault at instruction in (lane -1: the whole warp).
func (w *warp) faultf(in *inst, lane int, kind FaultKind, format string, args ...any) {
	if w.fault != nil {
		return
	}
	k := w.k
	f := &Fault{Kind: kind, Msg: fmt.Sprintf(format, args...), Kernel: k.code.Name, CTA: w.c.id,
		Warp: w.id, Lane: lane, File: k.code.Prog.Name}
	if in != nil {
		f.PC, f.Line, f.Inst, f.Func = in.m.PC, in.m.Line, in.text, in.fn.name
	}
	if lane >= 0 {
		t := w.id*32 + lane
		b := k.l.Block
		f.Thread = [3]int{t % b[0], t / b[0] % b[1], t / (b[0] * b[1])}
	}
	w.fault = f
	if w.c.fault == nil {
		w.c.fault = f
	}
}

// top returns the current stack entry.
func (w *warp) topEntry() *simtEntry {
	fr := &w.frames[len(w.frames)-1]
	return &fr.stack[len(fr.stack)-1]
}

// branch implements a possibly divergent jump of the lanes in taken to
// target; the other active lanes continue at the next instruction.
func (w *warp) branch(in *inst, taken uint32, target int32) {
	fr := &w.frames[len(w.frames)-1]
	top := &fr.stack[len(fr.stack)-1]
	act := w.cur
	nt := act &^ taken
	switch {
	case taken == 0:
		return // top.pc already advanced
	case nt == 0:
		top.pc = target
		return
	}
	// Divergence: the current entry waits at the reconvergence point;
	// the not-taken path runs first, then the taken path.
	rpc := in.rpc
	next := top.pc
	top.pc = rpc
	if rpc < 0 {
		// no reconvergence (paths never meet): keep both paths as
		// separate entries under an entry that never runs
		top.mask &^= act
	}
	fr.stack = append(fr.stack, simtEntry{pc: target, rpc: rpc, mask: taken}, simtEntry{pc: next, rpc: rpc, mask: nt})
}
