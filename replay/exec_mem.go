package replay

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/ptxtrace/ptxtrace/internal/fpx"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// resolve maps a generic address to its space and the address within it.
func (am *addrMap) resolve(addr uint64) (space, uint64) {
	switch {
	case addr >= am.shared && addr < am.shared+am.size:
		return spShared, addr - am.shared
	case addr >= am.local && addr < am.local+am.size:
		return spLocal, addr - am.local
	case addr >= am.cnst && addr < am.cnst+am.size:
		return spConst, addr - am.cnst
	case addr >= am.param && addr < am.param+am.size:
		return spParam, addr - am.param
	}
	return spGlobal, addr
}

func (am *addrMap) window(sp space) uint64 {
	switch sp {
	case spShared:
		return am.shared
	case spLocal, spFrame:
		return am.local
	case spConst:
		return am.cnst
	case spParam:
		return am.param
	}
	return 0
}

func accessWord(write bool) string {
	if write {
		return "write"
	}
	return "read"
}

// span returns the bytes [a, a+n) of space sp for lane l, or nil after
// recording a fault. Global memory is handled by gload/gstore.
func (w *warp) span(in *inst, sp space, l int, a uint64, n int, write bool) []byte {
	var mem []byte
	switch sp {
	case spShared:
		mem = w.c.shared
	case spLocal, spFrame:
		mem = w.local[l]
	case spConst:
		mem = w.k.l.Const
	case spParam:
		mem = w.k.l.Params
	}
	if a+uint64(n) > uint64(len(mem)) || a+uint64(n) < a {
		w.faultf(in, l, FaultOutOfBounds, "invalid %s %s of %d bytes at %#x (the space holds %d bytes)",
			sp, accessWord(write), n, a, len(mem))
		return nil
	}
	if sp == spShared && len(w.c.async) > 0 && !w.asyncCheck(in, l, a, n) {
		return nil
	}
	if write && (sp == spConst || sp == spParam) {
		w.faultf(in, l, FaultInvalid, "write to read-only %s space at %#x", sp, a)
		return nil
	}
	return mem[a : a+uint64(n)]
}

// galloc finds the allocation for a global access or records a fault.
func (w *warp) galloc(in *inst, l int, a uint64, n int, write bool) *Alloc {
	c := w.c
	al := c.lastA
	if al == nil || a < al.Base || a+uint64(n) > al.End() {
		al = w.k.l.Dev.Find(a)
		if al == nil || a+uint64(n) > al.End() {
			what := "address is not inside any allocation"
			if al != nil {
				what = "access runs past the end of allocation " + al.Name
			}
			w.faultf(in, l, FaultOutOfBounds, "invalid global %s of %d bytes at %#x: %s", accessWord(write), n, a, what)
			return nil
		}
		c.lastA = al
	}
	return al
}

// load reads n bytes (n <= 8) at address a of space sp for lane l.
func (w *warp) load(in *inst, sp space, l int, a uint64, n int) (uint64, bool) {
	if sp == spGlobal {
		al := w.galloc(in, l, a, n, false)
		if al == nil {
			return 0, false
		}
		o := a - al.Base
		if w.c.ov == nil {
			return le(al.Data[o:o+uint64(n)], n), true
		}
		var buf [8]byte
		copy(buf[:n], al.Data[o:o+uint64(n)])
		w.c.ov.read(a, buf[:n])
		return le(buf[:n], n), true
	}
	b := w.span(in, sp, l, a, n, false)
	if b == nil {
		return 0, false
	}
	return le(b, n), true
}

func (w *warp) store(in *inst, sp space, l int, a uint64, n int, v uint64) bool {
	if sp == spGlobal {
		al := w.galloc(in, l, a, n, true)
		if al == nil {
			return false
		}
		if w.c.ov == nil {
			o := a - al.Base
			putLE(al.Data[o:o+uint64(n)], n, v)
			return true
		}
		var buf [8]byte
		putLE(buf[:n], n, v)
		w.c.ov.write(a, buf[:n])
		return true
	}
	b := w.span(in, sp, l, a, n, true)
	if b == nil {
		return false
	}
	putLE(b, n, v)
	return true
}

// laneAddr computes the address of lane l and its space, checks alignment,
// and records it for the model.
func (w *warp) laneAddr(in *inst, base *[32]uint64, l int) (space, uint64, bool) {
	a := base[l] + uint64(in.off)
	sp := in.space
	if sp == spGeneric {
		sp, a = w.k.code.am.resolve(a)
	}
	w.addrs[l] = a
	total := uint64(in.esize) * uint64(max(in.vec, 1))
	if total&(total-1) == 0 && a&(total-1) != 0 {
		w.faultf(in, l, FaultMisaligned, "misaligned %s access of %d bytes at %#x", sp, total, a)
		return sp, a, false
	}
	return sp, a, true
}

func (w *warp) setSpace(sp space) {
	w.eff.Space = sp.model()
}

// flatMem returns, for a scalar access of in by the lanes in m, the bytes
// that hold every lane's access and their base address, when the access
// can take the fast path: a space other than generic, an element of 1, 2,
// 4 or 8 bytes, every lane aligned and inside one block of memory (for
// global memory: one allocation, read and written through the CTA's
// overlay when it has one; shared memory without pending cp.async). Otherwise ok is false and the caller
// takes the general path, which finds faults and the allocation lane by
// lane; nothing has been changed then.
func (w *warp) flatMem(in *inst, base *[32]uint64, m uint32, write bool) (mem []byte, lo uint64, ok bool) {
	n := uint64(in.esize)
	if m == 0 || in.vec > 1 || (n != 1 && n != 2 && n != 4 && n != 8) {
		return nil, 0, false
	}
	c := w.c
	al := c.lastA
	switch in.space {
	case spGlobal:
		// the allocation of the first lane's address: the general path
		// would look it up there and keep it as the CTA's last (below,
		// once the access qualifies)
		a0 := base[bits.TrailingZeros32(m)] + uint64(in.off)
		if al == nil || a0 < al.Base || a0 >= al.End() {
			if al = w.k.l.Dev.Find(a0); al == nil {
				return nil, 0, false
			}
		}
		mem, lo = al.Data, al.Base
	case spShared:
		if len(c.async) > 0 {
			return nil, 0, false
		}
		mem = c.shared
	case spParam:
		if write {
			return nil, 0, false
		}
		mem = w.k.l.Params
	case spConst:
		if write {
			return nil, 0, false
		}
		mem = w.k.l.Const
	default:
		return nil, 0, false
	}
	// every lane's address into w.addrs (the general path rewrites them
	// when it runs); their lowest, highest and OR for the checks
	off, size := uint64(in.off), uint64(len(mem))
	mn, mx, or := ^uint64(0), uint64(0), uint64(0)
	if m == ^uint32(0) {
		for l, b := range base {
			a := b + off
			w.addrs[l] = a
			mn, mx, or = min(mn, a), max(mx, a), or|a
		}
	} else {
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			a := base[l] + off
			w.addrs[l] = a
			mn, mx, or = min(mn, a), max(mx, a), or|a
		}
	}
	if or&(n-1) != 0 || mn < lo || mx-lo > size || size-(mx-lo) < n {
		return nil, 0, false
	}
	c.lastA = al // unchanged unless the access is global
	return mem, lo, true
}

// execLdUniform is execLd for a scalar load of 1, 2, 4 or 8 bytes from
// the param or const space whose address register holds the same value in
// every lane (fUniAddr): every active lane reads the same bytes, so they
// are read once. What it leaves behind (w.addrs of the active lanes, the
// effect, the destination lanes) is what execLd's flat path leaves; an
// address outside the space or misaligned takes execLd.
func execLdUniform(w *warp, in *inst, m uint32) {
	if m == 0 {
		ldUniformSlow(w, in, m)
		return
	}
	mem := w.k.l.Params
	if in.space == spConst {
		mem = w.k.l.Const
	}
	n := uint64(in.esize)
	var a uint64
	if in.flags&fUniConst != 0 && w.k.entryPart {
		// the template's constant: the frame's copy was skipped
		a = w.k.entryRegs[in.s[0]] + uint64(in.off)
	} else {
		a = w.regs[in.s[0]+int32(bits.TrailingZeros32(m))] + uint64(in.off)
	}
	if a&(n-1) != 0 || a > uint64(len(mem)) || uint64(len(mem))-a < n {
		ldUniformSlow(w, in, m)
		return
	}
	var v uint64
	switch n {
	case 4:
		v = uint64(binary.LittleEndian.Uint32(mem[a:]))
	case 8:
		v = binary.LittleEndian.Uint64(mem[a:])
	default:
		v = le(mem[a:a+n], int(n))
	}
	if in.signed {
		v = sext(v, uint8(n*8))
	}
	w.eff.Addr = w.addrs[:]
	w.setSpace(in.space)
	d := w.regs[in.d[0] : in.d[0]+32 : in.d[0]+32]
	if m == ^uint32(0) {
		for l := range d {
			w.addrs[l] = a
			d[l] = v
		}
		return
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		w.addrs[l] = a
		d[l] = v
	}
}

// ldUniformSlow is execLdUniform's way out to execLd. When the address
// register is a template constant whose frame copy entryCopy skipped
// (fUniConst), the frame gets the template's value first, so execLd reads
// the address every lane of a full copy would hold.
func ldUniformSlow(w *warp, in *inst, m uint32) {
	if in.flags&fUniConst != 0 && w.k.entryPart {
		r := in.s[0]
		copy(w.regs[r:r+32], w.k.entryRegs[r:r+32])
	}
	execLd(w, in, m)
}

func execLd(w *warp, in *inst, m uint32) {
	base := w.r(in.s[0])
	if mem, lo, ok := w.flatMem(in, base, m, false); ok {
		w.eff.Addr = w.addrs[:]
		w.setSpace(in.space)
		n := int(in.esize)
		var ov *overlay
		if in.space == spGlobal && w.c.ov != nil && len(w.c.ov.keys) > 0 {
			ov = w.c.ov // (an overlay with no page holds no write)
		}
		d := w.regs[in.d[0] : in.d[0]+32 : in.d[0]+32]
		if ov == nil && n == 4 && !in.signed {
			if m == ^uint32(0) {
				for l, a := range w.addrs {
					d[l] = uint64(binary.LittleEndian.Uint32(mem[a-lo:]))
				}
				return
			}
			for mm := m; mm != 0; mm &= mm - 1 {
				l := bits.TrailingZeros32(mm)
				d[l] = uint64(binary.LittleEndian.Uint32(mem[w.addrs[l]-lo:]))
			}
			return
		}
		// the overlay page of the last lane's address (lanes mostly share one)
		key, pg := ^uint64(0), (*ovPage)(nil)
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			o := w.addrs[l] - lo
			var v uint64
			switch n {
			case 4:
				v = uint64(binary.LittleEndian.Uint32(mem[o:]))
			case 8:
				v = binary.LittleEndian.Uint64(mem[o:])
			default:
				v = le(mem[o:o+uint64(n)], n)
			}
			if ov != nil {
				if k := w.addrs[l] >> ovShift; k != key {
					key, pg = k, ov.page(k, false)
				}
			}
			if pg != nil {
				// the CTA's own writes over the device bytes
				var buf [8]byte
				putLE(buf[:n], n, v)
				ov.read(w.addrs[l], buf[:n])
				v = le(buf[:n], n)
			}
			if in.signed {
				v = sext(v, uint8(n*8))
			}
			d[l] = v
		}
		return
	}
	w.eff.Addr = w.addrs[:]
	n := int(in.esize)
	vec := max(int(in.vec), 1)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		sp, a, ok := w.laneAddr(in, base, l)
		if !ok {
			return
		}
		if l == bits.TrailingZeros32(m) {
			w.setSpace(sp)
		}
		for i := 0; i < vec; i++ {
			if n > 8 { // .b128: two registers? treat as 2×8 into one 64-bit pair is unsupported
				w.faultf(in, l, FaultUnsupported, "128-bit loads are not supported")
				return
			}
			v, ok := w.load(in, sp, l, a+uint64(i*n), n)
			if !ok {
				return
			}
			if in.signed {
				v = sext(v, uint8(n*8))
			}
			w.regs[in.d[i]+int32(l)] = v
		}
	}
}

func execSt(w *warp, in *inst, m uint32) {
	base := w.r(in.s[0])
	if mem, lo, ok := w.flatMem(in, base, m, true); ok {
		w.eff.Addr = w.addrs[:]
		w.setSpace(in.space)
		n := int(in.esize)
		v := w.r(in.s[1])
		if ov := w.c.ov; ov != nil && in.space == spGlobal {
			// ov.write per lane, written out: an aligned access of 1, 2, 4
			// or 8 bytes lies inside one page and one word of dirty bits
			key, pg := ^uint64(0), (*ovPage)(nil)
			for mm := m; mm != 0; mm &= mm - 1 {
				l := bits.TrailingZeros32(mm)
				a := w.addrs[l]
				if k := a >> ovShift; k != key {
					key, pg = k, ov.page(k, true)
				}
				off := a & (ovSize - 1)
				putLE(pg.data[off:off+uint64(n)], n, v[l])
				pg.dirty[off>>6] |= (1<<uint(n) - 1) << (off & 63)
			}
			return
		}
		if m == ^uint32(0) && n == 4 {
			for l, a := range w.addrs {
				binary.LittleEndian.PutUint32(mem[a-lo:], uint32(v[l]))
			}
			return
		}
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			o := w.addrs[l] - lo
			switch n {
			case 4:
				binary.LittleEndian.PutUint32(mem[o:], uint32(v[l]))
			case 8:
				binary.LittleEndian.PutUint64(mem[o:], v[l])
			default:
				putLE(mem[o:o+uint64(n)], n, v[l])
			}
		}
		return
	}
	w.eff.Addr = w.addrs[:]
	n := int(in.esize)
	vec := max(int(in.vec), 1)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		sp, a, ok := w.laneAddr(in, base, l)
		if !ok {
			return
		}
		if l == bits.TrailingZeros32(m) {
			w.setSpace(sp)
		}
		for i := 0; i < vec; i++ {
			v := w.regs[in.s[1+i]+int32(l)]
			if !w.store(in, sp, l, a+uint64(i*n), n, v) {
				return
			}
		}
	}
}

// atomic operations (inst.sub)
const (
	aAdd = iota
	aMin
	aMax
	aInc
	aDec
	aAnd
	aOr
	aXor
	aExch
	aCas
)

var atomCodes = map[string]uint8{".add": aAdd, ".min": aMin, ".max": aMax, ".inc": aInc, ".dec": aDec,
	".and": aAnd, ".or": aOr, ".xor": aXor, ".exch": aExch, ".cas": aCas}

func atomApply(old, b, c uint64, in *inst, sp space) uint64 {
	n := in.bits
	mask := in.mask
	switch in.sub {
	case aAdd:
		switch in.typ {
		case ptx.F32:
			if sp == spGlobal {
				// PTX ISA (atom): atom.add.f32 on global memory flushes
				// subnormal inputs and results to sign-preserving zero;
				// on shared memory it does not
				x, y := fpx.FtzF32(f32(old)), fpx.FtzF32(f32(b))
				return b32(fpx.FtzF32(fpx.AddF32(x, y, fpx.RN)))
			}
			return b32(fpx.AddF32(f32(old), f32(b), fpx.RN))
		case ptx.F64:
			return b64(fpx.AddF64(f64(old), f64(b), fpx.RN))
		case ptx.F16:
			return uint64(fpx.AddF16(uint16(old), uint16(b), fpx.RN))
		case ptx.BF16:
			return uint64(fpx.AddBF16(uint16(old), uint16(b), fpx.RN))
		case ptx.F16x2:
			return uint64(fpx.AddF16(uint16(old), uint16(b), fpx.RN)) | uint64(fpx.AddF16(uint16(old>>16), uint16(b>>16), fpx.RN))<<16
		case ptx.BF16x2:
			return uint64(fpx.AddBF16(uint16(old), uint16(b), fpx.RN)) | uint64(fpx.AddBF16(uint16(old>>16), uint16(b>>16), fpx.RN))<<16
		}
		return (old + b) & mask
	case aMin, aMax:
		var less bool
		switch {
		case in.typ == ptx.F32:
			if in.sub == aMin {
				return b32(fpx.MinF32(f32(old), f32(b), false))
			}
			return b32(fpx.MaxF32(f32(old), f32(b), false))
		case in.typ == ptx.F64:
			if in.sub == aMin {
				return b64(fpx.MinF64(f64(old), f64(b), false))
			}
			return b64(fpx.MaxF64(f64(old), f64(b), false))
		case in.signed:
			less = int64(sext(b, n)) < int64(sext(old, n))
		default:
			less = b&mask < old&mask
		}
		if less == (in.sub == aMin) {
			return b & mask
		}
		return old & mask
	case aInc:
		if old&mask >= b&mask {
			return 0
		}
		return (old + 1) & mask
	case aDec:
		if old&mask == 0 || old&mask > b&mask {
			return b & mask
		}
		return (old - 1) & mask
	case aAnd:
		return old & b
	case aOr:
		return old | b
	case aXor:
		return old ^ b
	case aExch:
		return b
	case aCas:
		if old&mask == b&mask {
			return c & mask
		}
		return old
	}
	return old
}

// execAtom implements atom (nd == 1) and red (nd == 0). Lanes are applied
// in lane order.
func execAtom(w *warp, in *inst, m uint32) {
	base := w.r(in.s[0])
	b := w.r(in.s[1])
	var c *[32]uint64
	if in.ns > 2 {
		c = w.r(in.s[2])
	}
	w.eff.Addr = w.addrs[:]
	n := int(in.esize)
	w.atomIn, w.atomWrote = in, n > 8 || n <= 0
	bmask := ^uint64(0) >> (64 - 8*min(n, 8))
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		sp, a, ok := w.laneAddr(in, base, l)
		if !ok {
			return
		}
		if l == bits.TrailingZeros32(m) {
			w.setSpace(sp)
		}
		if sp == spConst || sp == spParam || sp == spLocal {
			if sp != spLocal {
				w.faultf(in, l, FaultInvalid, "atomic on read-only %s space", sp)
				return
			}
		}
		old, ok := w.load(in, sp, l, a, n)
		if !ok {
			return
		}
		var cv uint64
		if c != nil {
			cv = c[l]
		}
		nv := atomApply(old, b[l], cv, in, sp)
		if (nv^old)&bmask != 0 {
			w.atomWrote = true // spin detection: this atom wrote memory
		}
		if !w.store(in, sp, l, a, n, nv) {
			return
		}
		if in.nd > 0 {
			w.regs[in.d[0]+int32(l)] = old
		}
	}
}

// cvta / cvta.to / isspacep

func execCvta(w *warp, in *inst, m uint32) {
	d, a := w.r(in.d[0]), w.r(in.s[0])
	delta := w.k.code.am.window(in.space) // cvta: generic = window + address
	if in.sub == 1 {
		delta = -delta // cvta.to: address = generic − window (mod 2^64)
	}
	if m == ^uint32(0) { // every lane: no mask walk
		for l := range d {
			d[l] = (a[l] + delta) & in.mask
		}
		return
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = (a[l] + delta) & in.mask
	}
}

func execIsspacep(w *warp, in *inst, m uint32) {
	d, a := w.r(in.d[0]), w.r(in.s[0])
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		sp, _ := w.k.code.am.resolve(a[l])
		want := in.space
		if want == spFrame {
			want = spLocal
		}
		d[l] = b2u(sp == want)
	}
}

// mov variants: packing {a, b, ...} into one register and unpacking.

func execMovPack(w *warp, in *inst, m uint32) {
	d := w.r(in.d[0])
	n := int(in.ns)
	ew := uint(in.bits) / uint(n)
	em := widthMask(uint8(ew))
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		var v uint64
		for i := 0; i < n; i++ {
			v |= (w.regs[in.s[i]+int32(l)] & em) << (uint(i) * ew)
		}
		d[l] = v
	}
}

func execMovUnpack(w *warp, in *inst, m uint32) {
	a := w.r(in.s[0])
	n := int(in.nd)
	ew := uint(in.bits) / uint(n)
	em := widthMask(uint8(ew))
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		v := a[l]
		for i := 0; i < n; i++ {
			w.regs[in.d[i]+int32(l)] = v >> (uint(i) * ew) & em
		}
	}
}

func execNop(w *warp, in *inst, m uint32) {}

func execUnsupported(w *warp, in *inst, m uint32) {
	why := in.why
	if why == "" {
		why = "instruction not supported by replay"
	}
	w.faultf(in, -1, FaultUnsupported, "%s", why)
}

var _ = math.Abs
var _ model.Space
