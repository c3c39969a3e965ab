package replay

import (
	"slices"

	"github.com/ptxtrace/ptxtrace/model"
)

// Spin detection: a warp whose state repeats exactly at the same
// instruction, with nothing but register-only work in between, is in a
// loop that never exits, and the launch faults at once (FaultRunaway,
// "spinning") instead of running into the instruction budget minutes later.
//
// The proof is exact. Every spinCheck instructions of its own a warp takes
// a probe: it remembers the next instruction (the anchor) and a hash of its
// state there. The state is everything the warp's future depends on when it
// reads no memory: the entry frame's registers (predicates included) of all
// 32 lanes, the reconvergence stack, the exited lanes and the carry flags.
// From then on every instruction must be pure: its result a function of that
// state alone (integer, floating-point, conversion, warp-collective and
// plain branch instructions; stores and reductions, which read nothing back;
// loads from the read-only constant bank and kernel parameters). Loads
// from writable memory and atomics that changed no byte of memory keep the
// probe open but make it a memory probe (spinmem.go), which may not also
// store. Anything else — an atomic that wrote, a barrier, a clock or other
// dynamic special register, a call, an asynchronous copy, a texture,
// surface or tensor instruction — ends the probe. When the warp comes back
// to the anchor with the same hash, its state is copied; when it comes back
// again with exactly that state, the pure instructions in between will
// repeat forever, and the warp is reported spinning at the anchor (the
// loop's PTX line); a memory probe is a cycle that repeats only while
// nobody writes the memory it read, and spinmem.go decides whether nobody
// ever will. A probe also ends after spinRevisits visits of the anchor
// without a match (a loop whose state changes, such as a counter) or
// spinSpan instructions without reaching it (the anchor was not in a
// loop); the next probe comes spinCheck instructions later.
//
// The probe costs nothing on the hot path but the instruction-count
// comparison that was already there for the budget, and one state hash per
// anchor visit while a probe is open. It never fires on a loop that can
// exit: a loop that can exit changes its state on every iteration, or reads
// something that may change (a flag in memory some warp can still write,
// the clock), and such loops are left to Launch.MaxWarpInsts and the
// caller's Interrupt.

// DefaultSpinCheck is the default number of instructions a warp executes
// between spin probes (Kernel.SetSpinCheck).
const DefaultSpinCheck = 1 << 18

const (
	spinRevisits = 64      // anchor visits per probe before giving up
	spinSpan     = 1 << 16 // instructions per probe without a visit before giving up
)

// spinProbe is one open spin probe of a warp.
type spinProbe struct {
	pc     int32  // the anchor: the entry frame's next instruction
	depth  int    // reconvergence stack depth at the anchor
	hash   uint64 // state hash at the first visit
	since  uint64 // w.icount at the last anchor visit
	visits int
	copyAt uint64 // w.icount when the exact copy was taken
	// exact copy of the state at the visit whose hash matched (regs nil:
	// no match yet)
	regs   []uint64
	stack  []simtEntry
	exited uint32
	carry  uint32

	// memory probes (spinmem.go)
	open   uint64 // CTA clock when the probe opened: no write by the warp since
	reads  bool   // a load or non-writing atomic since open
	global bool   // ... of global or generic memory
	writes bool   // a store or reduction since open
	eq     uint64 // CTA clock at the last visit with the copied state
	eqAll  bool   // every CTA of the grid had been created then (timing mode)
	cyc    [2]uint64
	cycOK  bool // cyc is a cycle: the state at cyc[0] and cyc[1] is the copy
	cycAll bool // eqAll at cyc[0]
	// after a failed proof the warp skips its anchor visits until icount
	// skip (the next visit in the state starts a fresh cycle); backoff
	// doubles with every failure
	skip, backoff uint64
	fresh         bool
}

// SetSpinCheck sets how many instructions a warp executes between spin
// probes (0: no spin detection); the default is DefaultSpinCheck. It must be
// called before Run or RunModel.
func (k *Kernel) SetSpinCheck(every uint64) { k.spinEvery = every }

// spinNext is the instruction count of the warp's next probe.
func (w *warp) spinNext() uint64 {
	if w.k.spinEvery == 0 {
		return ^uint64(0)
	}
	return w.icount + w.k.spinEvery
}

// What an instruction does, for a spin probe.
const (
	spinOther  = iota // ends the probe
	spinPureOp        // a function of the warp's state alone
	spinWrite         // writes memory and reads nothing back
	spinRead          // reads writable memory (a load, an atomic that changed no byte)
)

// spinKind classifies the instruction in that the warp has just executed
// (see the comment at the top of this file and spinmem.go).
func (w *warp) spinKind(in *inst) int {
	if in.m.Clock || in.flags&fDyn != 0 || in.callee != nil || in.callees != nil {
		return spinOther
	}
	switch in.m.Class {
	case model.ClassInt, model.ClassFP32, model.ClassFP64, model.ClassSFU, model.ClassConv,
		model.ClassBranch, model.ClassWarpSync, model.ClassFence:
		return spinPureOp
	case model.ClassLdSt:
		if in.m.Async {
			return spinOther
		}
		switch in.m.Mem {
		case model.MemStore, model.MemReduce, model.MemSurfStore:
			return spinWrite
		case model.MemLoad:
			if in.m.Space == model.SpaceConst || in.m.Space == model.SpaceParam && in.space == spParam {
				return spinPureOp
			}
			return spinRead
		case model.MemAtomic:
			// only atom itself (execAtom), and only when no lane changed a
			// byte of memory: a failed atom.cas, atom.add of 0, atom.or of 0
			// and the like read memory and write nothing
			if w.atomIn == in && !w.atomWrote {
				return spinRead
			}
		}
	}
	return spinOther
}

// spinStep runs once the warp's instruction count reached w.spinAt, after
// instruction in executed and the warp did not exit: it opens a probe, or
// advances the open one, and faults the warp when it is proven spinning.
func (w *warp) spinStep(in *inst) {
	p := w.spin
	if p == nil {
		if len(w.frames) != 1 {
			w.spinAt = w.spinNext()
			return
		}
		st := w.frames[0].stack
		w.spin = &spinProbe{pc: st[len(st)-1].pc, depth: len(st), hash: w.spinHash(), since: w.icount, open: w.c.spinTick()}
		w.spinAt = 0 // every instruction until the probe ends
		return
	}
	switch w.spinKind(in) {
	case spinOther:
		w.spinEnd()
		return
	case spinWrite:
		p.writes = true
	case spinRead:
		p.reads = true
		if in.space != spShared && in.space != spLocal && in.space != spFrame {
			p.global = true
		}
	}
	if p.reads && p.writes || len(w.frames) != 1 || w.icount-p.since > spinSpan {
		w.spinEnd()
		return
	}
	st := w.frames[0].stack
	if st[len(st)-1].pc != p.pc || len(st) != p.depth {
		return
	}
	p.since = w.icount
	p.visits++
	if w.icount < p.skip {
		p.visits = 0 // backing off after a failed proof (spinmem.go)
		return
	}
	if p.regs != nil && w.spinSame(p) {
		fr := &w.frames[0]
		at := &fr.f.code[p.pc]
		if !p.reads {
			w.faultf(at, -1, FaultRunaway, "warp is spinning: its state (registers, predicates, active lanes, pc %d) repeated after %d more instructions that read no memory, so the loop never exits", p.pc, w.icount-p.copyAt)
			return
		}
		// a cycle that read memory: it repeats only while nobody writes
		// that memory (spinmem.go)
		now := w.c.spinTick()
		p.visits = 0
		cycle := !p.fresh
		if cycle {
			p.cyc, p.cycOK, p.cycAll = [2]uint64{p.eq, now}, true, p.eqAll
		}
		p.eq, p.eqAll, p.fresh = now, w.k.spinAllCreated(), false
		if cycle {
			w.spinProve(at, p)
		}
		return
	}
	if p.regs == nil && w.spinHash() == p.hash {
		p.regs = slices.Clone(w.frames[0].regs)
		p.stack = slices.Clone(st)
		p.exited, p.carry = w.exited, w.carry
		p.visits, p.copyAt = 0, w.icount
		p.eq, p.eqAll = w.c.spinTick(), w.k.spinAllCreated()
		return
	}
	if p.visits >= spinRevisits {
		w.spinEnd()
	}
}

func (w *warp) spinEnd() {
	w.spin = nil
	w.spinAt = w.spinNext()
}

// spinHash hashes the warp's state at the anchor (entry frame only).
func (w *warp) spinHash() uint64 {
	const prime = 0x100000001b3
	h := uint64(0xcbf29ce484222325)
	mix := func(v uint64) {
		h ^= v
		h *= prime
		h ^= h >> 29
	}
	fr := &w.frames[0]
	for _, v := range fr.regs {
		mix(v)
	}
	for _, e := range fr.stack {
		mix(uint64(uint32(e.pc))<<32 | uint64(uint32(e.rpc)))
		mix(uint64(e.mask)<<8 | uint64(e.bar))
	}
	mix(uint64(w.exited)<<32 | uint64(w.carry))
	return h
}

// spinSame reports whether the warp's state equals p's exact copy.
func (w *warp) spinSame(p *spinProbe) bool {
	fr := &w.frames[0]
	return w.exited == p.exited && w.carry == p.carry && slices.Equal(fr.stack, p.stack) && slices.Equal(fr.regs, p.regs)
}
