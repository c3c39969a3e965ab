package replay

import (
	"math/bits"

	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// mbarrier objects (PTX ISA, "Parallel Synchronization and Communication
// Instructions: mbarrier"). An mbarrier is a 64-bit object in shared
// memory with a current phase, a pending arrival count, an expected
// arrival count and a transaction count (tx-count). A phase completes when
// the pending count and the tx-count are both zero: the phase advances and
// the pending count is reset to the expected count.
//
// The hardware layout of the object is opaque; replay's own encoding of the
// 64-bit word (a program must not read it directly) is:
//
//	bits 0..19   pending arrival count
//	bits 20..39  expected arrival count
//	bits 40..61  tx-count, two's complement in 22 bits
//	bit 62       valid (set by init, cleared by inval)
//	bit 63       current phase parity
//
// The state returned by arrive is the phase parity at the arrival in bit 63
// (other bits zero); test_wait/try_wait with a state are true when that
// phase has completed (the current parity differs), with .parity when the
// phase of the given parity has completed (likewise). try_wait never
// suspends: it returns the same answer as test_wait, which the ISA allows
// (a try_wait may return false before its time limit). Operations on a word
// without the valid bit (never initialised, or invalidated) fault; so does
// an arrival that would make the pending count negative or a count outside
// 1..2^20-1. Lanes of a warp apply their operations in lane order.
// mbarrier.pending_count is refused: replay's state does not carry a count.

const (
	mbCountMask  = 1<<20 - 1
	mbTxShift    = 40
	mbTxBits     = 22
	mbValid      = uint64(1) << 62
	mbPhase      = uint64(1) << 63
	mbMaxTxCount = 1<<20 - 1
)

// mbarrier operations (inst.sub)
const (
	mbInit = iota + 1
	mbInval
	mbArrive     // in.sub2: 1 with .expect_tx, 2 arrive_drop
	mbExpectTx   // expect_tx
	mbCompleteTx // complete_tx
	mbTestWait   // in.sub2: 1 with .parity
)

func (l *lowerer) lowerMbarrier(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a, name := p.Op, p.Args, f.Name
	parity := false
	expect := false
	for _, m := range opMods(op, name) {
		switch m {
		case ".shared", ".shared::cta", ".b64", ".release", ".acquire", ".relaxed", ".cta":
		case ".parity":
			parity = true
		case ".expect_tx":
			expect = true
		default:
			return refuse(name, "modifier %s is not implemented", m)
		}
	}
	sp := spaceOf(op.Space)
	if op.Space == ptx.SpaceNone || op.Space == ptx.SpaceGeneric {
		sp = spGeneric
	}
	if sp != spShared && sp != spGeneric {
		return refuse(name, "only .shared{::cta} mbarrier objects are implemented")
	}
	addrAt := func(i int) error {
		if err := need(a, i+1); err != nil {
			return err
		}
		base, off, symSp, err := l.addr(a[i])
		if err != nil {
			return err
		}
		if sp == spGeneric && symSp == spShared {
			sp = spShared
		}
		in.s[0], in.off = base, off
		return nil
	}
	srcAt := func(i, slotI int) error {
		r, err := l.src(a[i], ptx.U32)
		if err != nil {
			return err
		}
		in.s[slotI] = r
		if int(in.ns) < slotI+1 {
			in.ns = uint8(slotI + 1)
		}
		return nil
	}
	in.ns = 1
	switch name {
	case "mbarrier.init":
		in.sub = mbInit
		if err := addrAt(0); err != nil {
			return err
		}
		if err := srcAt(1, 1); err != nil {
			return err
		}
	case "mbarrier.inval":
		in.sub = mbInval
		if err := addrAt(0); err != nil {
			return err
		}
	case "mbarrier.arrive", "mbarrier.arrive_drop":
		in.sub = mbArrive
		if name == "mbarrier.arrive_drop" {
			in.sub2 = 2
			if expect {
				return refuse(name, ".expect_tx with arrive_drop is not implemented")
			}
		}
		if err := addrAt(1); err != nil {
			return err
		}
		if expect {
			in.sub2 = 1
			if err := need(a, 3); err != nil {
				return err
			}
			if err := srcAt(2, 1); err != nil { // tx count
				return err
			}
		} else if len(a) > 2 {
			if err := srcAt(2, 2); err != nil { // arrival count
				return err
			}
		}
		if a[0].Kind != ptx.OpSink {
			if err := l.setD(in, a[0]); err != nil {
				return err
			}
		}
	case "mbarrier.expect_tx", "mbarrier.complete_tx":
		in.sub = mbExpectTx
		if name == "mbarrier.complete_tx" {
			in.sub = mbCompleteTx
		}
		if err := addrAt(0); err != nil {
			return err
		}
		if err := srcAt(1, 1); err != nil {
			return err
		}
	case "mbarrier.test_wait", "mbarrier.try_wait":
		in.sub = mbTestWait
		if parity {
			in.sub2 = 1
		}
		if err := addrAt(1); err != nil {
			return err
		}
		if err := need(a, 3); err != nil {
			return err
		}
		r, err := l.src(a[2], ptx.U64)
		if err != nil {
			return err
		}
		in.s[1], in.ns = r, 2
		if err := l.setD(in, a[0]); err != nil {
			return err
		}
	default:
		return refuse(name, "not implemented")
	}
	in.space = sp
	in.m.Class = model.ClassLdSt
	in.m.Mem = model.MemAtomic
	in.m.Space = model.SpaceShared
	in.m.Size = 8
	if in.sub == mbTestWait {
		// a wait is an async wait for the model (docs/model.md,
		// "mbarrier"): it issues once the TMA and bulk copies (and
		// cp.async copies) the warp issued have completed
		in.m.Class, in.m.AsyncWait, in.m.AsyncKeep = model.ClassFence, true, -1
		in.m.Mem, in.m.Space, in.m.Size = model.MemNone, model.SpaceNone, 0
	}
	in.exec = execMbarrier
	return nil
}

func mbTx(v uint64) int64 {
	x := int64(v>>mbTxShift) & (1<<mbTxBits - 1)
	if x&(1<<(mbTxBits-1)) != 0 {
		x -= 1 << mbTxBits
	}
	return x
}

func mbPack(pending, expected uint64, tx int64, phase uint64) uint64 {
	return pending | expected<<20 | (uint64(tx)&(1<<mbTxBits-1))<<mbTxShift | mbValid | phase
}

func execMbarrier(w *warp, in *inst, m uint32) {
	base := w.r(in.s[0])
	var s1, s2 *[32]uint64
	if in.ns > 1 {
		s1 = w.r(in.s[1])
	}
	if in.ns > 2 {
		s2 = w.r(in.s[2])
	}
	w.eff.Addr = w.addrs[:]
	w.eff.Space = model.SpaceShared
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		a := base[l] + uint64(in.off)
		sp := in.space
		if sp == spGeneric {
			sp, a = w.k.code.am.resolve(a)
			if sp != spShared {
				w.faultf(in, l, FaultInvalid, "%s: generic address %#x is not in shared memory", opName(in), base[l]+uint64(in.off))
				return
			}
		}
		w.addrs[l] = a
		if a%8 != 0 {
			w.faultf(in, l, FaultMisaligned, "%s: mbarrier object at %#x is not 8-byte aligned", opName(in), a)
			return
		}
		v, ok := w.load(in, spShared, l, a, 8)
		if !ok {
			return
		}
		if in.sub == mbInit {
			n := s1[l] & 0xffffffff
			if n < 1 || n > mbCountMask {
				w.faultf(in, l, FaultInvalid, "mbarrier.init: count %d is outside 1..%d", n, mbCountMask)
				return
			}
			w.store(in, spShared, l, a, 8, mbPack(n, n, 0, 0))
			continue
		}
		if v&mbValid == 0 {
			w.faultf(in, l, FaultInvalid, "%s: the object at shared %#x is not an initialised mbarrier", opName(in), a)
			return
		}
		pending, expected, tx, phase := v&mbCountMask, v>>20&mbCountMask, mbTx(v), v&mbPhase
		switch in.sub {
		case mbInval:
			w.store(in, spShared, l, a, 8, 0)
			continue
		case mbTestWait:
			want := s1[l] & mbPhase // the phase asked about (state: bit 63)
			if in.sub2 == 1 {
				want = (s1[l] & 1) << 63
			}
			if phase == want && w.completeTMA(in, l, a) {
				// pending TMA copies signal this barrier: they
				// complete now, as late as the wait allows
				if v, ok = w.load(in, spShared, l, a, 8); !ok {
					return
				}
				phase = v & mbPhase
			}
			w.regs[in.d[0]+int32(l)] = b2u(phase != want)
			if w.k.onMbar != nil && l == bits.TrailingZeros32(m) {
				w.k.onMbar(MbarEvent{CTA: w.c.linear, Warp: w.id, Wait: true, Bar: a, Parity: uint8(want >> 63), OK: phase != want, Probe: in.m.Probe})
			}
			continue
		case mbExpectTx, mbCompleteTx:
			n := int64(s1[l] & 0xffffffff)
			if n > mbMaxTxCount {
				w.faultf(in, l, FaultInvalid, "%s: tx count %d exceeds %d", opName(in), n, mbMaxTxCount)
				return
			}
			if in.sub == mbExpectTx {
				tx += n
			} else {
				tx -= n
			}
		case mbArrive:
			cnt := uint64(1)
			if in.sub2 == 1 {
				tx += int64(s1[l] & 0xffffffff)
			}
			if s2 != nil {
				cnt = s2[l] & 0xffffffff
			}
			if cnt < 1 || cnt > pending {
				w.faultf(in, l, FaultInvalid, "%s: arrival count %d with %d arrivals pending", opName(in), cnt, pending)
				return
			}
			if in.nd > 0 {
				w.regs[in.d[0]+int32(l)] = phase
			}
			pending -= cnt
			if in.sub2 == 2 {
				expected--
			}
		}
		if tx <= -(1<<(mbTxBits-1)) || tx >= 1<<(mbTxBits-1) {
			w.faultf(in, l, FaultInvalid, "%s: tx-count %d out of range", opName(in), tx)
			return
		}
		if pending == 0 && tx == 0 {
			pending, phase = expected, phase^mbPhase
		}
		w.store(in, spShared, l, a, 8, mbPack(pending, expected, tx, phase))
	}
}
