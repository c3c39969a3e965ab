package replay

import (
	"math/bits"

	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// cp.async (non-bulk): an asynchronous copy of cp-size bytes (4, 8 or 16;
// .cg only 16) from global to shared memory, per thread (PTX ISA,
// "Data Movement and Conversion Instructions: cp.async").
//
//	cp.async.ca.shared{::cta}.global [dst], [src], cp-size{, src-size};
//	cp.async.ca.shared{::cta}.global [dst], [src], cp-size{, ignore-src};
//	cp.async.cg.shared{::cta}.global [dst], [src], 16{, src-size};
//
// Only the first src-size bytes are read from src (src-size <= cp-size,
// a u32 register or immediate); the rest of the destination is zero-filled.
// A true ignore-src predicate reads nothing and zero-fills all cp-size
// bytes. The copies a thread issues belong to the group that its next
// cp.async.commit_group closes; cp.async.wait_group N waits until at most
// the N most recent committed groups of the thread are pending;
// cp.async.wait_all is commit_group followed by wait_group 0.
//
// Replay performs the copy when it is issued (the source is read then) and
// keeps the destination range pending until the issuing thread's wait
// covers its group. The ISA leaves the destination undefined until then,
// so any shared-memory access overlapping a pending destination — by any
// thread of the CTA, another cp.async included — is an async-race fault;
// a program that reads the data only after the wait (and a barrier, for
// other threads) observes exactly the copied bytes. Writes to the global
// source while a copy is pending are not checked (a race the ISA leaves
// undefined too).
//
// Timing (docs/model.md): cp.async is a global load without a destination
// register (model.Inst.Async: the warp does not stall at issue; the model
// times the read through L1/L2/DRAM and counts it as outstanding);
// cp.async.commit_group closes the warp's group (model.Inst.AsyncCommit);
// cp.async.wait_group N is an async wait for the model
// (model.Inst.AsyncWait) until the warp's copies of every group but the N
// most recent have completed, wait_all until all have.

// asyncCopy is a pending cp.async destination.
type asyncCopy struct {
	warp, lane int
	group      int32  // the thread's group number (committed count + 1 at issue)
	lo, hi     uint64 // shared-memory destination bytes [lo, hi)
	pc         int
	line       int
	tma        int // > 0: the destination of pending TMA copy number tma (exec_tma.go)
}

// cp.async sub-operations (inst.sub2): the optional fourth operand.
const (
	cpNoSize    = 0
	cpSrcSize   = 1 // in.s[3] holds src-size
	cpIgnoreSrc = 2 // in.s[3] is the ignore-src predicate
)

// lowerCpAsync lowers cp.async.{ca,cg}.shared{::cta}.global.
func (l *lowerer) lowerCpAsync(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a, name := p.Op, p.Args, f.Name
	var ca, cg, shared, global bool
	for _, m := range opMods(op, name) {
		switch m {
		case ".ca":
			ca = true
		case ".cg":
			cg = true
		case ".shared", ".shared::cta":
			shared = true
		case ".global":
			global = true
		default:
			return refuse(name, "modifier %s is not implemented (only .ca/.cg .shared{::cta}.global)", m)
		}
	}
	if ca == cg || !shared || !global {
		return refuse(name, "needs exactly one of .ca/.cg and .shared{::cta}.global")
	}
	if err := need(a, 3); err != nil {
		return err
	}
	if len(a) > 4 {
		return refuse(name, "a cache-policy operand is not implemented")
	}
	if a[2].Kind != ptx.OpImm {
		return refuse(name, "cp-size must be an immediate")
	}
	size, err := immBits(a[2].Name, ptx.U32, false)
	if err != nil {
		return err
	}
	if size != 4 && size != 8 && size != 16 || cg && size != 16 {
		return refuse(name, "cp-size %d is invalid (.ca: 4, 8 or 16; .cg: 16)", size)
	}
	dbase, doff, _, err := l.addr(a[0])
	if err != nil {
		return err
	}
	sbase, soff, _, err := l.addr(a[1])
	if err != nil {
		return err
	}
	in.s[0], in.s[1] = dbase, sbase
	in.s[2] = l.constReg(regInit{kind: initImm, v: uint64(doff)})
	in.ns = 3
	in.esize = uint8(size)
	in.sub2 = cpNoSize
	if len(a) == 4 {
		in.sub2 = cpSrcSize
		if a[3].Kind == ptx.OpReg || a[3].Kind == ptx.OpPredNeg {
			if r, ok := l.regs[a[3].Name]; ok && l.rtypes[r] == ptx.Pred {
				in.sub2 = cpIgnoreSrc
				if a[3].Kind == ptx.OpPredNeg {
					in.sneg |= 1 << 3
				}
			}
		}
		r, err := l.src(a[3], ptx.U32)
		if err != nil {
			return err
		}
		in.s[3], in.ns = r, 4
	}
	in.off = soff
	in.space = spGlobal
	in.m.Mem = model.MemLoad
	in.m.Space = model.SpaceGlobal
	in.m.Size = int(size)
	in.m.Async = true
	in.exec = execCpAsync
	return nil
}

func execCpAsync(w *warp, in *inst, m uint32) {
	dst, src, doff := w.r(in.s[0]), w.r(in.s[1]), w.r(in.s[2])
	var ext *[32]uint64
	if in.ns > 3 {
		ext = w.r(in.s[3])
	}
	n := int(in.esize)
	w.eff.Addr = w.addrs[:]
	w.eff.Space = model.SpaceGlobal
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d := dst[l] + doff[l]
		s := src[l] + uint64(in.off)
		w.addrs[l] = s
		if d%uint64(n) != 0 || s%uint64(n) != 0 {
			w.faultf(in, l, FaultMisaligned, "cp.async of %d bytes: destination %#x or source %#x is not %d-byte aligned", n, d, s, n)
			return
		}
		rd := n
		switch in.sub2 {
		case cpSrcSize:
			rd = int(uint32(ext[l]))
			if rd > n {
				w.faultf(in, l, FaultInvalid, "cp.async: src-size %d exceeds cp-size %d", rd, n)
				return
			}
		case cpIgnoreSrc:
			p := ext[l]&1 != 0
			if in.sneg>>3&1 != 0 {
				p = !p
			}
			if p {
				rd = 0
			}
		}
		var buf [16]byte
		for i := 0; i < rd; i++ {
			v, ok := w.load(in, spGlobal, l, s+uint64(i), 1)
			if !ok {
				return
			}
			buf[i] = byte(v)
		}
		// the destination must not overlap a pending copy either
		if !w.asyncCheck(in, l, d, n) {
			return
		}
		for i := 0; i < n; i += 8 {
			k := min(8, n-i)
			if !w.store(in, spShared, l, d+uint64(i), k, le(buf[i:i+k], k)) {
				return
			}
		}
		c := w.c
		if c.asyncCnt == nil {
			c.asyncCnt = make([]int32, len(c.shared)/16+1)
		}
		for ch := d / 16; ch <= (d+uint64(n)-1)/16; ch++ {
			c.asyncCnt[ch]++
		}
		c.async = append(c.async, asyncCopy{warp: w.id, lane: l, group: w.agroup[l] + 1,
			lo: d, hi: d + uint64(n), pc: in.m.PC, line: in.m.Line})
	}
}

// asyncCheck faults when shared bytes [a, a+n) overlap the destination of
// a cp.async whose wait has not been executed yet.
func (w *warp) asyncCheck(in *inst, l int, a uint64, n int) bool {
	if cnt := w.c.asyncCnt; cnt != nil {
		pending := false
		for ch := a / 16; ch <= (a+uint64(n)-1)/16 && ch < uint64(len(cnt)); ch++ {
			if cnt[ch] != 0 {
				pending = true
				break
			}
		}
		if !pending {
			return true
		}
	}
	for _, p := range w.c.async {
		if a < p.hi && p.lo < a+uint64(n) && p.tma > 0 {
			w.faultf(in, l, FaultAsyncRace,
				"shared bytes [%#x, %#x) are the destination of a cp.async.bulk copy (line %d, warp %d lane %d) whose mbarrier phase has not been observed complete: the data is undefined until then",
				a, a+uint64(n), p.line, p.warp, p.lane)
			return false
		}
		if a < p.hi && p.lo < a+uint64(n) {
			w.faultf(in, l, FaultAsyncRace,
				"shared bytes [%#x, %#x) are the destination of a cp.async (line %d, warp %d lane %d) whose cp.async.wait_group has not been executed: the data is undefined until then",
				a, a+uint64(n), p.line, p.warp, p.lane)
			return false
		}
	}
	return true
}

// lowerCpAsyncGroup lowers cp.async.commit_group (sub 0),
// cp.async.wait_group N (sub 1, in.off = N) and cp.async.wait_all (sub 2).
func (l *lowerer) lowerCpAsyncGroup(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	switch f.Name {
	case "cp.async.commit_group":
		in.sub = 0
	case "cp.async.wait_group":
		in.sub = 1
		if err := need(p.Args, 1); err != nil {
			return err
		}
		if p.Args[0].Kind != ptx.OpImm {
			return refuse(f.Name, "N must be an integer constant")
		}
		v, err := immBits(p.Args[0].Name, ptx.U32, false)
		if err != nil {
			return err
		}
		in.off = int64(v)
	case "cp.async.wait_all":
		in.sub = 2
	}
	if ms := opMods(p.Op, f.Name); len(ms) > 0 {
		return refuse(f.Name, "modifier %s is not implemented", ms[0])
	}
	// for the model (docs/model.md): commit_group and wait_all close the
	// warp's group; wait_group N waits for the copies of the groups
	// before the N most recent, wait_all for all
	in.m.AsyncCommit = in.sub != 1
	if in.sub != 0 {
		in.m.Class = model.ClassFence
		in.m.AsyncWait = true
		in.m.AsyncKeep = int(in.off)
		if in.sub == 2 {
			in.m.AsyncKeep = -1
		}
	}
	in.exec = execCpAsyncGroup
	return nil
}

func execCpAsyncGroup(w *warp, in *inst, m uint32) {
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		keep := int32(-1)
		switch in.sub {
		case 0:
			w.agroup[l]++
			continue
		case 1:
			keep = int32(in.off)
		case 2:
			w.agroup[l]++
			keep = 0
		}
		done := w.agroup[l] - keep // groups <= done complete
		c := w.c
		out := c.async[:0]
		for _, p := range c.async {
			if p.tma == 0 && p.warp == w.id && p.lane == l && p.group <= done {
				for ch := p.lo / 16; ch <= (p.hi-1)/16; ch++ {
					c.asyncCnt[ch]--
				}
				continue
			}
			out = append(out, p)
		}
		c.async = out
	}
}
