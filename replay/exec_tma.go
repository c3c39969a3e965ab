package replay

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// Tensor memory access (TMA): cp.async.bulk.tensor.Nd.shared::cluster.global
// .tile.mbarrier::complete_tx::bytes [dst], [tensorMap, {c0, ..}], [mbar]
// (PTX ISA, "Data Movement: cp.async.bulk.tensor"), the global-to-shared
// tiled load. Each issuing lane copies one box of the tensor its tensor map
// describes, starting at element coordinates (c0, .., cN-1) (innermost
// first, signed), to shared memory at dst, elements outside the tensor
// read as zero, and then performs complete_tx of the box's byte count on
// the mbarrier at mbar. Replay copies when the instruction issues: a
// program may read the destination only after the mbarrier phase
// completes, which is later in every legal execution.
//
// The box lands in shared memory row by row (dimension 0 innermost,
// box0·elemsize bytes per row); with a swizzle of W bytes (32, 64, 128)
// the row must be exactly W bytes and the 16-byte chunks are exchanged as
// for wgmma (address bits 4.. XOR bits 7..), which needs dst aligned to
// 8·W bytes; without a swizzle dst is 128-byte aligned. Replay faults
// otherwise, and refuses multicast, im2col, cache hints and the
// shared-to-global direction.
//
// A CUtensorMap is an opaque 128-byte object on hardware; replay defines
// its own encoding (TensorMap.Encode), which launch inputs must use. A
// tensor map is read from kernel parameter, constant or global memory.

// TensorMap describes a tiled tensor for TMA.
type TensorMap struct {
	Base     uint64    // global address of element (0, .., 0), 16-byte aligned
	Rank     int       // 1..5
	ElemSize int       // bytes per element: 1, 2, 4 or 8
	Dims     [5]uint64 // elements per dimension, innermost first
	Strides  [5]uint64 // byte stride of dimensions 1..Rank-1 (Strides[0] is ignored: ElemSize)
	Box      [5]uint32 // box elements per dimension, 1..256
	Swizzle  int       // 0, 32, 64 or 128 bytes
}

const tensorMapMagic = "ptxtrTM1"

// Encode returns the 128-byte encoding of m: bytes 0–7 "ptxtrTM1", 8 base,
// 16 rank, 17 element size, 18 swizzle (0, 1: 32 B, 2: 64 B, 3: 128 B),
// 24 dims[5] (u64), 64 strides of dims 1..4 (u64), 96 box[5] (u32),
// little endian, the rest zero.
func (m TensorMap) Encode() [128]byte {
	var b [128]byte
	copy(b[:], tensorMapMagic)
	binary.LittleEndian.PutUint64(b[8:], m.Base)
	b[16], b[17] = byte(m.Rank), byte(m.ElemSize)
	b[18] = map[int]byte{32: 1, 64: 2, 128: 3}[m.Swizzle]
	for i := 0; i < 5; i++ {
		binary.LittleEndian.PutUint64(b[24+8*i:], m.Dims[i])
		binary.LittleEndian.PutUint32(b[96+4*i:], m.Box[i])
	}
	for i := 1; i < 5; i++ {
		binary.LittleEndian.PutUint64(b[64+8*(i-1):], m.Strides[i])
	}
	return b
}

// DecodeTensorMap decodes and validates an encoded tensor map.
func DecodeTensorMap(b []byte) (TensorMap, error) {
	var m TensorMap
	if len(b) < 128 || string(b[:8]) != tensorMapMagic {
		return m, fmt.Errorf("not a replay tensor map (no %q header; build it with replay.TensorMap.Encode)", tensorMapMagic)
	}
	m.Base = binary.LittleEndian.Uint64(b[8:])
	m.Rank, m.ElemSize = int(b[16]), int(b[17])
	m.Swizzle = map[byte]int{0: 0, 1: 32, 2: 64, 3: 128}[b[18]]
	for i := 0; i < 5; i++ {
		m.Dims[i] = binary.LittleEndian.Uint64(b[24+8*i:])
		m.Box[i] = binary.LittleEndian.Uint32(b[96+4*i:])
	}
	for i := 1; i < 5; i++ {
		m.Strides[i] = binary.LittleEndian.Uint64(b[64+8*(i-1):])
	}
	return m, m.Validate()
}

// Validate checks the rules of a tiled tensor map (those of
// cuTensorMapEncodeTiled that replay relies on).
func (m TensorMap) Validate() error {
	switch {
	case m.Rank < 1 || m.Rank > 5:
		return fmt.Errorf("tensor map rank %d is outside 1..5", m.Rank)
	case m.ElemSize != 1 && m.ElemSize != 2 && m.ElemSize != 4 && m.ElemSize != 8:
		return fmt.Errorf("tensor map element size %d is not 1, 2, 4 or 8", m.ElemSize)
	case m.Base%16 != 0:
		return fmt.Errorf("tensor map base %#x is not 16-byte aligned", m.Base)
	case m.Swizzle != 0 && m.Swizzle != 32 && m.Swizzle != 64 && m.Swizzle != 128:
		return fmt.Errorf("tensor map swizzle %d is not 0, 32, 64 or 128", m.Swizzle)
	}
	for i := 0; i < m.Rank; i++ {
		if m.Dims[i] == 0 || m.Box[i] == 0 || m.Box[i] > 256 {
			return fmt.Errorf("tensor map dimension %d: size %d, box %d (sizes ≥ 1, boxes 1..256)", i, m.Dims[i], m.Box[i])
		}
		if i > 0 && m.Strides[i]%16 != 0 {
			return fmt.Errorf("tensor map stride of dimension %d (%d bytes) is not a multiple of 16", i, m.Strides[i])
		}
	}
	row := int(m.Box[0]) * m.ElemSize
	switch {
	case row%16 != 0:
		return fmt.Errorf("tensor map box row of %d bytes is not a multiple of 16", row)
	case m.Swizzle != 0 && row != m.Swizzle:
		return fmt.Errorf("tensor map box row of %d bytes with a %d-byte swizzle: replay implements rows of exactly the swizzle width", row, m.Swizzle)
	}
	return nil
}

// lowerTma lowers cp.async.bulk.tensor (the tiled global→shared load).
func (l *lowerer) lowerTma(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a, name := p.Op, p.Args, f.Name
	rank := 0
	var toShared, fromGlobal, mbar bool
	for _, m := range opMods(op, name) {
		switch m {
		case ".1d", ".2d", ".3d", ".4d", ".5d":
			rank = int(m[1] - '0')
		case ".shared::cluster", ".shared::cta":
			toShared = !fromGlobal // the destination comes first
		case ".global":
			fromGlobal = true
		case ".mbarrier::complete_tx::bytes":
			mbar = true
		case ".tile":
		default:
			return refuse(name, "modifier %s is not implemented (only the tiled global→shared load with an mbarrier)", m)
		}
	}
	if rank == 0 || !toShared || !fromGlobal || !mbar || len(a) != 3 {
		return refuse(name, "only cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [map, {coords}], [mbar] is implemented")
	}
	src := a[1]
	if src.Kind != ptx.OpAddr || len(src.Elems) != 1 || src.Elems[0].Kind != ptx.OpVec || len(src.Elems[0].Elems) != rank {
		return refuse(name, "the source must be [tensorMap, {%d coordinates}]", rank)
	}
	dst, doff, _, err := l.addr(a[0])
	if err != nil {
		return err
	}
	tm, toff, _, err := l.addr(ptx.Operand{Kind: ptx.OpAddr, Name: src.Name, Offset: src.Offset, Pos: src.Pos})
	if err != nil {
		return err
	}
	mb, moff, _, err := l.addr(a[2])
	if err != nil {
		return err
	}
	if doff != 0 || toff != 0 || moff != 0 {
		return refuse(name, "address offsets are not implemented")
	}
	in.s[0], in.s[1], in.s[2], in.ns = dst, tm, mb, 3
	for _, o := range src.Elems[0].Elems {
		r, err := l.src(o, ptx.S32)
		if err != nil {
			return err
		}
		in.targets = append(in.targets, r)
	}
	in.vec = uint8(rank)
	in.space = spGlobal
	in.m.Mem = model.MemLoad
	in.m.Space = model.SpaceGlobal
	in.m.Size = 16
	in.m.Async = true
	in.exec = execTma
	return nil
}

func execTma(w *warp, in *inst, m uint32) {
	dst, tmr, mbr := w.r(in.s[0]), w.r(in.s[1]), w.r(in.s[2])
	w.eff.Addr = w.addrs[:]
	w.eff.Space = model.SpaceGlobal
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		sp, ta := w.k.code.am.resolve(tmr[l])
		if sp != spParam && sp != spConst && sp != spGlobal {
			w.faultf(in, l, FaultInvalid, "cp.async.bulk.tensor: tensor map address %#x is not in parameter, constant or global memory", tmr[l])
			return
		}
		if ta%64 != 0 {
			w.faultf(in, l, FaultMisaligned, "cp.async.bulk.tensor: tensor map at %#x is not 64-byte aligned", ta)
			return
		}
		var raw [128]byte
		for i := 0; i < 128; i += 8 {
			v, ok := w.load(in, sp, l, ta+uint64(i), 8)
			if !ok {
				return
			}
			binary.LittleEndian.PutUint64(raw[i:], v)
		}
		tm, err := DecodeTensorMap(raw[:])
		if err == nil && tm.Rank != int(in.vec) {
			err = fmt.Errorf("the tensor map has rank %d, the instruction %dd", tm.Rank, in.vec)
		}
		if err != nil {
			w.faultf(in, l, FaultInvalid, "cp.async.bulk.tensor: %v", err)
			return
		}
		var c [5]int64
		for d := 0; d < tm.Rank; d++ {
			c[d] = int64(int32(uint32(w.regs[in.targets[d]+int32(l)])))
		}
		w.addrs[l] = tm.origin(c)
		d0 := dst[l] & 0xffffffff
		align := uint64(128)
		if tm.Swizzle != 0 {
			align = 8 * uint64(tm.Swizzle)
		}
		if d0%align != 0 {
			w.faultf(in, l, FaultMisaligned, "cp.async.bulk.tensor: shared destination %#x is not %d-byte aligned", d0, align)
			return
		}
		writes, ok := w.tmaCopy(in, l, tm, c, d0)
		if !ok {
			return
		}
		total := uint64(tm.ElemSize)
		for d := 0; d < tm.Rank; d++ {
			total *= uint64(tm.Box[d])
		}
		if !w.pendTma(in, l, d0, total, mbr[l]&0xffffffff, writes) {
			return
		}
		w.mbarCopy(in, m, l, mbr[l]&0xffffffff)
	}
}

// pendTma registers a copy of total bytes to shared [d0, d0+total) whose
// writes wait for a wait on the mbarrier at mb.
func (w *warp) pendTma(in *inst, l int, d0, total, mb uint64, writes []tmaWrite) bool {
	if mb%8 != 0 || mb+8 > uint64(len(w.c.shared)) {
		w.faultf(in, l, FaultInvalid, "%s: mbarrier address %#x is not an 8-byte aligned shared address", opName(in), mb)
		return false
	}
	if !w.asyncCheck(in, l, d0, int(total)) {
		return false
	}
	cta := w.c
	cta.tmaSeq++
	cta.tma = append(cta.tma, pendingTma{id: cta.tmaSeq, mbar: mb, bytes: total, writes: writes, lo: d0, hi: d0 + total})
	if cta.asyncCnt == nil {
		cta.asyncCnt = make([]int32, len(cta.shared)/16+1)
	}
	for ch := d0 / 16; ch <= (d0+total-1)/16; ch++ {
		cta.asyncCnt[ch]++
	}
	cta.async = append(cta.async, asyncCopy{warp: w.id, lane: l, lo: d0, hi: d0 + total, pc: in.m.PC, line: in.m.Line, tma: cta.tmaSeq})
	return true
}

// pendingTma is a TMA copy whose data has been read but not yet written:
// it completes (writes shared memory, then complete_tx on its mbarrier)
// when a wait on that mbarrier would otherwise fail. Until then its
// destination is a pending asynchronous range: reading it faults.
type pendingTma struct {
	id     int
	mbar   uint64
	bytes  uint64
	writes []tmaWrite
	lo, hi uint64
}

type tmaWrite struct {
	addr uint64
	size int
	v    uint64
}

// completeTMA completes, in issue order, the pending TMA copies that
// signal the mbarrier at shared address mb; false when there were none.
func (w *warp) completeTMA(in *inst, l int, mb uint64) bool {
	c := w.c
	done := false
	keep := c.tma[:0]
	var now []pendingTma
	for _, t := range c.tma {
		if t.mbar == mb {
			now = append(now, t)
			continue
		}
		keep = append(keep, t)
	}
	c.tma = keep
	for _, t := range now {
		for _, wr := range t.writes {
			putLE(c.shared[wr.addr:wr.addr+uint64(wr.size)], wr.size, wr.v)
		}
		out := c.async[:0]
		for _, p := range c.async {
			if p.tma == t.id {
				for ch := p.lo / 16; ch <= (p.hi-1)/16; ch++ {
					c.asyncCnt[ch]--
				}
				continue
			}
			out = append(out, p)
		}
		c.async = out
		if !w.mbCompleteTx(in, l, t.mbar, t.bytes) {
			return true
		}
		done = true
	}
	return done
}

// tmaCopy reads one box (zeros outside the tensor) and returns the shared
// memory writes that place it.
func (w *warp) tmaCopy(in *inst, l int, tm TensorMap, c [5]int64, dst uint64) ([]tmaWrite, bool) {
	es := tm.ElemSize
	var box [5]int
	for d := 0; d < 5; d++ {
		box[d] = 1
		if d < tm.Rank {
			box[d] = int(tm.Box[d])
		}
	}
	row := uint64(box[0] * es)
	mask := uint64(tm.Swizzle/16) - 1
	if tm.Swizzle == 0 {
		mask = 0
	}
	var idx [5]int
	rowN := uint64(0)
	var out []tmaWrite
	for idx[4] = 0; idx[4] < box[4]; idx[4]++ {
		for idx[3] = 0; idx[3] < box[3]; idx[3]++ {
			for idx[2] = 0; idx[2] < box[2]; idx[2]++ {
				for idx[1] = 0; idx[1] < box[1]; idx[1]++ {
					for idx[0] = 0; idx[0] < box[0]; idx[0]++ {
						var v uint64
						inside := true
						ga := tm.Base
						for d := 0; d < tm.Rank; d++ {
							x := c[d] + int64(idx[d])
							if x < 0 || uint64(x) >= tm.Dims[d] {
								inside = false
								break
							}
							st := uint64(es)
							if d > 0 {
								st = tm.Strides[d]
							}
							ga += uint64(x) * st
						}
						if inside {
							var ok bool
							if v, ok = w.load(in, spGlobal, l, ga, es); !ok {
								return nil, false
							}
						}
						a := dst + rowN*row + uint64(idx[0]*es)
						a ^= (a >> 7 & mask) << 4
						if a+uint64(es) > uint64(len(w.c.shared)) {
							w.faultf(in, l, FaultOutOfBounds, "cp.async.bulk.tensor: shared destination byte %#x is outside the CTA's %d bytes", a, len(w.c.shared))
							return nil, false
						}
						out = append(out, tmaWrite{addr: a, size: es, v: v})
					}
					rowN++
				}
			}
		}
	}
	return out, true
}

// origin is the global address the model times a TMA load at: the box's
// first element, each coordinate clamped into the tensor.
func (m TensorMap) origin(c [5]int64) uint64 {
	a := m.Base
	for d := 0; d < m.Rank; d++ {
		x := min(max(c[d], 0), int64(m.Dims[d])-1)
		st := uint64(m.ElemSize)
		if d > 0 {
			st = m.Strides[d]
		}
		a += uint64(x) * st
	}
	return a
}

// mbCompleteTx performs mbarrier complete_tx of n bytes on the object at
// shared address a (the semantics of execMbarrier's complete_tx).
func (w *warp) mbCompleteTx(in *inst, l int, a uint64, n uint64) bool {
	if a%8 != 0 {
		w.faultf(in, l, FaultMisaligned, "%s: mbarrier object at %#x is not 8-byte aligned", opName(in), a)
		return false
	}
	v, ok := w.load(in, spShared, l, a, 8)
	if !ok {
		return false
	}
	if v&mbValid == 0 {
		w.faultf(in, l, FaultInvalid, "%s: the object at shared %#x is not an initialised mbarrier", opName(in), a)
		return false
	}
	pending, expected, tx, phase := v&mbCountMask, v>>20&mbCountMask, mbTx(v), v&mbPhase
	if n > mbMaxTxCount {
		w.faultf(in, l, FaultInvalid, "%s: tx count %d exceeds %d", opName(in), n, mbMaxTxCount)
		return false
	}
	tx -= int64(n)
	if tx <= -(1<<(mbTxBits-1)) || tx >= 1<<(mbTxBits-1) {
		w.faultf(in, l, FaultInvalid, "%s: tx-count %d out of range", opName(in), tx)
		return false
	}
	if pending == 0 && tx == 0 {
		pending, phase = expected, phase^mbPhase
	}
	return w.store(in, spShared, l, a, 8, mbPack(pending, expected, tx, phase))
}

// cp.async.bulk.shared::{cluster,cta}.global.mbarrier::complete_tx::bytes
// [dst], [src], size, [mbar]: a bulk copy of size bytes (a multiple of 16;
// both addresses 16-byte aligned) from global to shared memory, completed
// like a TMA load (read at issue, written when a wait on mbar would
// otherwise fail, destination pending until then).
func (l *lowerer) lowerBulk(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op, a, name := p.Op, p.Args, f.Name
	var toShared, fromGlobal, mbar bool
	for _, m := range opMods(op, name) {
		switch m {
		case ".shared::cluster", ".shared::cta":
			toShared = !fromGlobal
		case ".global":
			fromGlobal = true
		case ".mbarrier::complete_tx::bytes":
			mbar = true
		default:
			return refuse(name, "modifier %s is not implemented (only the global→shared copy with an mbarrier)", m)
		}
	}
	if !toShared || !fromGlobal || !mbar || len(a) != 4 {
		return refuse(name, "only cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [mbar] is implemented")
	}
	dst, doff, _, err := l.addr(a[0])
	if err != nil {
		return err
	}
	src, soff, _, err := l.addr(a[1])
	if err != nil {
		return err
	}
	mb, moff, _, err := l.addr(a[3])
	if err != nil {
		return err
	}
	if doff != 0 || moff != 0 {
		return refuse(name, "shared address offsets are not implemented")
	}
	in.s[0], in.s[1], in.s[2], in.ns = dst, src, mb, 3
	if err := l.setS(in, ptx.U32, a[2]); err != nil {
		return err
	}
	in.off = soff
	in.space = spGlobal
	in.m.Mem = model.MemLoad
	in.m.Space = model.SpaceGlobal
	in.m.Size = 16
	in.m.Async = true
	in.exec = execBulk
	return nil
}

func execBulk(w *warp, in *inst, m uint32) {
	dst, src, mbr, sz := w.r(in.s[0]), w.r(in.s[1]), w.r(in.s[2]), w.r(in.s[3])
	w.eff.Addr = w.addrs[:]
	w.eff.Space = model.SpaceGlobal
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d, s, n := dst[l]&0xffffffff, src[l]+uint64(in.off), uint64(uint32(sz[l]))
		w.addrs[l] = s
		if n == 0 || n%16 != 0 || d%16 != 0 || s%16 != 0 {
			w.faultf(in, l, FaultMisaligned, "cp.async.bulk: size %d, destination %#x and source %#x must be multiples of 16", n, d, s)
			return
		}
		if d+n > uint64(len(w.c.shared)) {
			w.faultf(in, l, FaultOutOfBounds, "cp.async.bulk: shared destination [%#x, %#x) is outside the CTA's %d bytes", d, d+n, len(w.c.shared))
			return
		}
		writes := make([]tmaWrite, 0, n/8)
		for i := uint64(0); i < n; i += 8 {
			v, ok := w.load(in, spGlobal, l, s+i, 8)
			if !ok {
				return
			}
			writes = append(writes, tmaWrite{addr: d + i, size: 8, v: v})
		}
		if !w.pendTma(in, l, d, n, mbr[l]&0xffffffff, writes) {
			return
		}
		w.mbarCopy(in, m, l, mbr[l]&0xffffffff)
	}
}

// MbarEvent is a TMA or bulk copy, or an mbarrier test_wait/try_wait, as
// executed (ObserveMbarrier): the ground truth of run-time paired TMA
// probes (analysis/accuracy) pairs copies with waits from it without the
// probes' records.
type MbarEvent struct {
	CTA, Warp int // linear CTA id, warp in the CTA
	// Wait: a test_wait/try_wait (else a copy that signals the barrier).
	Wait bool
	// Bar is the mbarrier's shared address. Parity is, for a copy, the
	// parity of the barrier's phase when it issued (the phase its
	// complete_tx counts toward in a correct program); for a wait, the
	// parity it asked about (a state operand: the state's phase).
	Bar    uint64
	Parity uint8
	// OK: the wait found the phase complete (its loop exits).
	OK bool
	// Probe is the instruction's probe-site id (model.Inst.Probe), -1
	// when none.
	Probe int
}

// ObserveMbarrier makes k call f for every TMA/bulk copy and mbarrier
// wait executed, one event per warp instruction (its lowest lane that
// executed it), in the warp's program order; f is called from the
// goroutines that run CTAs, so it must be safe for concurrent use. Set it
// before Run.
func (k *Kernel) ObserveMbarrier(f func(MbarEvent)) { k.onMbar = f }

// mbarCopy reports a copy by lane l (of the lanes m executing the
// instruction) to the barrier at shared address mb.
func (w *warp) mbarCopy(in *inst, m uint32, l int, mb uint64) {
	if w.k.onMbar == nil || l != bits.TrailingZeros32(m) {
		return
	}
	var v uint64
	if mb+8 <= uint64(len(w.c.shared)) {
		v = binary.LittleEndian.Uint64(w.c.shared[mb:])
	}
	w.k.onMbar(MbarEvent{CTA: w.c.linear, Warp: w.id, Bar: mb, Parity: uint8(v >> 63), Probe: in.m.Probe})
}
