package replay

import (
	"math/bits"
)

// Register access helpers. Lane l of the register at offset r is
// w.regs[r+l].

func (w *warp) r(off int32) *[32]uint64 { return (*[32]uint64)(w.regs[off : off+32]) }

// srcs returns the register files of in's first three sources; a missing
// source reads as zero (z, which the caller provides and does not write).
func (w *warp) srcs(in *inst, z *[32]uint64) (a, b, c *[32]uint64) {
	a, b, c = w.r(in.s[0]), z, z
	if in.ns > 1 {
		b = w.r(in.s[1])
	}
	if in.ns > 2 {
		c = w.r(in.s[2])
	}
	return a, b, c
}

func sext(v uint64, n uint8) uint64 {
	s := 64 - n
	return uint64(int64(v<<s) >> s)
}

func widthMask(n uint8) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<n - 1
}

// Generic lane loops. f gets the operands and the instruction.

func op1(w *warp, in *inst, m uint32, f func(a uint64, in *inst) uint64) {
	d, a := w.r(in.d[0]), w.r(in.s[0])
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = f(a[l], in) & in.mask
	}
}

func op2(w *warp, in *inst, m uint32, f func(a, b uint64, in *inst) uint64) {
	d, a, b := w.r(in.d[0]), w.r(in.s[0]), w.r(in.s[1])
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = f(a[l], b[l], in) & in.mask
	}
}

func op3(w *warp, in *inst, m uint32, f func(a, b, c uint64, in *inst) uint64) {
	d, a, b, c := w.r(in.d[0]), w.r(in.s[0]), w.r(in.s[1]), w.r(in.s[2])
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = f(a[l], b[l], c[l], in) & in.mask
	}
}

// Hot integer operations, specialised.

func execAdd(w *warp, in *inst, m uint32) {
	d, a, b := w.r(in.d[0]), w.r(in.s[0]), w.r(in.s[1])
	mask := in.mask
	if m == ^uint32(0) { // every lane: no mask walk
		for l := range d {
			d[l] = (a[l] + b[l]) & mask
		}
		return
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = (a[l] + b[l]) & mask
	}
}

func execSub(w *warp, in *inst, m uint32) {
	d, a, b := w.r(in.d[0]), w.r(in.s[0]), w.r(in.s[1])
	mask := in.mask
	if m == ^uint32(0) { // every lane: no mask walk
		for l := range d {
			d[l] = (a[l] - b[l]) & mask
		}
		return
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = (a[l] - b[l]) & mask
	}
}

func execMulLo(w *warp, in *inst, m uint32) {
	d, a, b := w.r(in.d[0]), w.r(in.s[0]), w.r(in.s[1])
	mask := in.mask
	if m == ^uint32(0) { // every lane: no mask walk
		for l := range d {
			d[l] = (a[l] * b[l]) & mask
		}
		return
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = (a[l] * b[l]) & mask
	}
}

func execMadLo(w *warp, in *inst, m uint32) {
	d, a, b, c := w.r(in.d[0]), w.r(in.s[0]), w.r(in.s[1]), w.r(in.s[2])
	mask := in.mask
	if m == ^uint32(0) { // every lane: no mask walk
		for l := range d {
			d[l] = (a[l]*b[l] + c[l]) & mask
		}
		return
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = (a[l]*b[l] + c[l]) & mask
	}
}

func execMov(w *warp, in *inst, m uint32) {
	d, a := w.r(in.d[0]), w.r(in.s[0])
	mask := in.mask
	if m == ^uint32(0) { // every lane: no mask walk
		for l := range d {
			d[l] = a[l] & mask
		}
		return
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = a[l] & mask
	}
}

// execMovSpecial is mov from a static special register (in.sub): the
// value fillSpecial gives that register at frame creation, written into
// the destination without reading the special's register.
func execMovSpecial(w *warp, in *inst, m uint32) {
	d := w.r(in.d[0])
	mask := in.mask
	if m == ^uint32(0) {
		w.fillSpecial(d[:], special(in.sub))
		for l := range d {
			d[l] &= mask
		}
		return
	}
	var v [32]uint64
	w.fillSpecial(v[:], special(in.sub))
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = v[l] & mask
	}
}

func execAnd(w *warp, in *inst, m uint32) {
	op2(w, in, m, func(a, b uint64, in *inst) uint64 { return a & b })
}
func execOr(w *warp, in *inst, m uint32) {
	op2(w, in, m, func(a, b uint64, in *inst) uint64 { return a | b })
}
func execXor(w *warp, in *inst, m uint32) {
	op2(w, in, m, func(a, b uint64, in *inst) uint64 { return a ^ b })
}
func execNot(w *warp, in *inst, m uint32) {
	op1(w, in, m, func(a uint64, in *inst) uint64 { return ^a })
}
func execCnot(w *warp, in *inst, m uint32) {
	op1(w, in, m, func(a uint64, in *inst) uint64 {
		if a&in.mask == 0 {
			return 1
		}
		return 0
	})
}

// predicate logic with negated sources (!p)
func execPredLogic(w *warp, in *inst, m uint32) {
	d := w.r(in.d[0])
	a := w.r(in.s[0])
	var b *[32]uint64
	if in.ns > 1 {
		b = w.r(in.s[1])
	}
	na, nb := uint64(in.sneg&1), uint64(in.sneg>>1&1)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		x := a[l]&1 ^ na
		var y uint64
		if b != nil {
			y = b[l]&1 ^ nb
		}
		switch in.sub {
		case lAnd:
			d[l] = x & y
		case lOr:
			d[l] = x | y
		case lXor:
			d[l] = x ^ y
		case lNot:
			d[l] = x ^ 1
		case lMov:
			d[l] = x
		}
	}
}

const (
	lAnd = iota
	lOr
	lXor
	lNot
	lMov
)

func execShl(w *warp, in *inst, m uint32) {
	d, a, b := w.r(in.d[0]), w.r(in.s[0]), w.r(in.s[1])
	mask, n := in.mask, uint64(in.bits)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		s := b[l] & 0xffffffff
		if s >= n {
			d[l] = 0
		} else {
			d[l] = (a[l] << s) & mask
		}
	}
}

func execShr(w *warp, in *inst, m uint32) {
	d, a, b := w.r(in.d[0]), w.r(in.s[0]), w.r(in.s[1])
	mask, n := in.mask, in.bits
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		s := b[l] & 0xffffffff
		if s >= uint64(n) {
			s = uint64(n)
		}
		if in.signed {
			d[l] = uint64(int64(sext(a[l], n))>>s) & mask
		} else {
			if s >= 64 {
				d[l] = 0
			} else {
				d[l] = (a[l] & mask) >> s
			}
		}
	}
}

// integer sub-operations of execInt2 / execInt3
const (
	iMulHi = iota
	iMulWide
	iMadHi
	iMadWide
	iMul24Lo
	iMul24Hi
	iMad24Lo
	iMad24Hi
	iSad
	iDiv
	iRem
	iAbs
	iNeg
	iMin
	iMax
	iPopc
	iClz
	iBfind
	iBrev
	iBfe
	iBfi
	iLop3
	iShfL
	iShfR
	iPrmt
	iAddSat
	iSubSat
	iDp4a
	iDp2aLo
	iDp2aHi
	iBmsk
	iSzext
	iMadHiSat
	iFns
	iMad24HiSat
)

// signed value of a as an in.bits-bit integer
func sv(a uint64, in *inst) int64 { return int64(sext(a, in.bits)) }

func mulHi(a, b uint64, in *inst) uint64 {
	n := in.bits
	if n == 64 {
		if in.signed {
			hi, _ := bits.Mul64(a, b)
			if int64(a) < 0 {
				hi -= b
			}
			if int64(b) < 0 {
				hi -= a
			}
			return hi
		}
		hi, _ := bits.Mul64(a, b)
		return hi
	}
	if in.signed {
		return uint64(sv(a, in)*sv(b, in)) >> n
	}
	return ((a & in.mask) * (b & in.mask)) >> n
}

func mulWide(a, b uint64, in *inst) uint64 {
	if in.signed {
		return uint64(sv(a, in) * sv(b, in))
	}
	return (a & widthMask(in.bits)) * (b & widthMask(in.bits))
}

// mulWideAll is mulWide, masked, in every lane.
func mulWideAll(in *inst, a, b, d *[32]uint64) {
	mask := in.mask
	switch {
	case in.bits == 32 && in.signed: // mul.wide.s32, the common one
		for l := range d {
			d[l] = uint64(int64(int32(a[l]))*int64(int32(b[l]))) & mask
		}
		return
	case in.bits == 32:
		for l := range d {
			d[l] = uint64(uint32(a[l])) * uint64(uint32(b[l])) & mask
		}
		return
	case in.signed:
		s := 64 - in.bits
		for l := range d {
			d[l] = uint64(int64(a[l]<<s)>>s*(int64(b[l]<<s)>>s)) & mask
		}
		return
	}
	wm := widthMask(in.bits)
	for l := range d {
		d[l] = (a[l] & wm) * (b[l] & wm) & mask
	}
}

func s24(a uint64, signed bool) int64 {
	if signed {
		return int64(sext(a, 24))
	}
	return int64(a & 0xffffff)
}

func intOp(a, b, c uint64, in *inst) uint64 {
	n := in.bits
	switch in.sub {
	case iMulHi:
		return mulHi(a, b, in)
	case iMulWide:
		return mulWide(a, b, in)
	case iMadHi:
		return mulHi(a, b, in) + c
	case iMadHiSat:
		v := int64(int32(mulHi(a, b, in))) + int64(int32(c))
		return uint64(clampS(v, 32))
	case iMadWide:
		return mulWide(a, b, in) + c
	case iMul24Lo:
		return uint64(s24(a, in.signed) * s24(b, in.signed))
	case iMul24Hi:
		return uint64(s24(a, in.signed)*s24(b, in.signed)) >> 16
	case iMad24Lo:
		return uint64(s24(a, in.signed)*s24(b, in.signed)) + c
	case iMad24Hi:
		return uint64(s24(a, in.signed)*s24(b, in.signed))>>16 + c
	case iMad24HiSat:
		// .sat (.hi.s32 only): product bits 47..16 plus c, clamped
		v := int64(int32(uint64(s24(a, true)*s24(b, true))>>16)) + int64(int32(c))
		return uint64(clampS(v, 32))
	case iSad:
		if in.signed {
			x, y := sv(a, in), sv(b, in)
			if x < y {
				return c + uint64(y-x)
			}
			return c + uint64(x-y)
		}
		x, y := a&in.mask, b&in.mask
		if x < y {
			return c + y - x
		}
		return c + x - y
	case iDiv:
		if in.signed {
			x, y := sv(a, in), sv(b, in)
			if y == 0 {
				return ^uint64(0)
			}
			if y == -1 {
				return uint64(-x)
			}
			return uint64(x / y)
		}
		x, y := a&in.mask, b&in.mask
		if y == 0 {
			return ^uint64(0)
		}
		return x / y
	case iRem:
		if in.signed {
			x, y := sv(a, in), sv(b, in)
			if y == 0 {
				return uint64(x)
			}
			if y == -1 {
				return 0
			}
			return uint64(x % y)
		}
		x, y := a&in.mask, b&in.mask
		if y == 0 {
			return x
		}
		return x % y
	case iAbs:
		x := sv(a, in)
		if x < 0 {
			return uint64(-x)
		}
		return uint64(x)
	case iNeg:
		return -a
	case iMin, iMax:
		var less bool
		if in.signed {
			less = sv(a, in) < sv(b, in)
		} else {
			less = a&in.mask < b&in.mask
		}
		r := b
		if less == (in.sub == iMin) {
			r = a
		}
		if in.flags&fRelu != 0 && int64(sext(r, n)) < 0 {
			r = 0
		}
		return r
	case iPopc:
		return uint64(bits.OnesCount64(a & widthMask(n)))
	case iClz:
		return uint64(bits.LeadingZeros64(a&widthMask(n)) - (64 - int(n)))
	case iBfind:
		x := a & widthMask(n)
		if in.signed && sext(x, n)>>63 != 0 {
			x = ^x & widthMask(n)
		}
		if x == 0 {
			return 0xffffffff
		}
		p := uint64(63 - bits.LeadingZeros64(x))
		if in.flags&fShiftAmt != 0 {
			return uint64(n) - 1 - p
		}
		return p
	case iBrev:
		return bits.Reverse64(a) >> (64 - n)
	case iBfe:
		msb := uint64(n) - 1
		pos, ln := b&0xff, c&0xff
		var sbit uint64
		if in.signed && ln != 0 {
			sb := pos + ln - 1
			if sb > msb {
				sb = msb
			}
			sbit = a >> sb & 1
		}
		var d uint64
		for i := uint64(0); i <= msb; i++ {
			var bit uint64
			if i < ln && pos+i <= msb {
				bit = a >> (pos + i) & 1
			} else {
				bit = sbit
			}
			d |= bit << i
		}
		return d
	case iShfL, iShfR:
		sh := c & 0xffffffff
		if in.flags&fClamp != 0 {
			if sh > 32 {
				sh = 32
			}
		} else {
			sh &= 31
		}
		v := (b&0xffffffff)<<32 | a&0xffffffff
		if in.sub == iShfL {
			return (v << sh) >> 32
		}
		return v >> sh
	case iPrmt:
		return prmt(a, b, c, in.sub2)
	case iAddSat:
		return uint64(clampS(int64(int32(a))+int64(int32(b)), 32))
	case iSubSat:
		return uint64(clampS(int64(int32(a))-int64(int32(b)), 32))
	case iDp4a:
		sa, sb := in.sub2&1 != 0, in.sub2&2 != 0
		acc := c
		for i := 0; i < 4; i++ {
			x := a >> (8 * i) & 0xff
			y := b >> (8 * i) & 0xff
			if sa {
				x = sext(x, 8)
			}
			if sb {
				y = sext(y, 8)
			}
			acc += x * y
		}
		return acc
	case iDp2aLo, iDp2aHi:
		sa, sb := in.sub2&1 != 0, in.sub2&2 != 0
		acc := c
		base := 0
		if in.sub == iDp2aHi {
			base = 2
		}
		for i := 0; i < 2; i++ {
			x := a >> (16 * i) & 0xffff
			y := b >> (8 * (base + i)) & 0xff
			if sa {
				x = sext(x, 16)
			}
			if sb {
				y = sext(y, 8)
			}
			acc += x * y
		}
		return acc
	case iBmsk:
		pos, ln := a&0xffffffff, b&0xffffffff
		if in.flags&fClamp != 0 {
			pos, ln = min(pos, 32), min(ln, 32)
		} else {
			pos, ln = pos&31, ln&31
		}
		if pos >= 32 {
			return 0
		}
		var msk uint64 = 1<<ln - 1
		return (msk << pos) & 0xffffffff
	case iSzext:
		pos := b & 0xffffffff
		if in.flags&fClamp != 0 {
			pos = min(pos, 32)
		} else {
			pos &= 31
		}
		if pos == 0 {
			return 0
		}
		if pos >= 32 {
			return a
		}
		if in.signed {
			return sext(a, uint8(pos))
		}
		return a & (1<<pos - 1)
	case iFns:
		// fns.b32 d, mask, base, offset: n-th set bit
		msk, base, off := uint32(a), int(uint32(b)), int32(c)
		if off == 0 {
			return 0xffffffff
		}
		if off > 0 {
			cnt := int32(0)
			for i := base; i < 32; i++ {
				if msk>>i&1 != 0 {
					cnt++
					if cnt == off {
						return uint64(i)
					}
				}
			}
			return 0xffffffff
		}
		cnt := int32(0)
		for i := base; i >= 0; i-- {
			if msk>>i&1 != 0 {
				cnt--
				if cnt == off {
					return uint64(i)
				}
			}
		}
		return 0xffffffff
	}
	return 0
}

func clampS(v int64, n int) int64 {
	hi := int64(1)<<(n-1) - 1
	lo := -hi - 1
	if v > hi {
		return hi
	}
	if v < lo {
		return lo
	}
	return v
}

func execInt(w *warp, in *inst, m uint32) {
	var z [32]uint64
	a, b, c := w.srcs(in, &z)
	d := w.r(in.d[0])
	mask := in.mask
	if m == ^uint32(0) { // every lane: no mask walk
		if in.sub == iMulWide {
			mulWideAll(in, a, b, d)
			return
		}
		for l := range d {
			d[l] = intOp(a[l], b[l], c[l], in) & mask
		}
		return
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = intOp(a[l], b[l], c[l], in) & mask
	}
}

func execBfi(w *warp, in *inst, m uint32) {
	d, a, b, c, e := w.r(in.d[0]), w.r(in.s[0]), w.r(in.s[1]), w.r(in.s[2]), w.r(in.s[3])
	msb := uint64(in.bits) - 1
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		f := b[l]
		pos, ln := c[l]&0xff, e[l]&0xff
		for i := uint64(0); i < ln && pos+i <= msb; i++ {
			bit := a[l] >> i & 1
			f = f&^(1<<(pos+i)) | bit<<(pos+i)
		}
		d[l] = f & in.mask
	}
}

func execLop3(w *warp, in *inst, m uint32) {
	d, a, b, c, lut := w.r(in.d[0]), w.r(in.s[0]), w.r(in.s[1]), w.r(in.s[2]), w.r(in.s[3])
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		F := lut[l] & 0xff
		x, y, z := a[l], b[l], c[l]
		var r uint64
		for i := uint(0); i < 8; i++ {
			if F>>i&1 == 0 {
				continue
			}
			t := ^uint64(0)
			if i&4 != 0 {
				t &= x
			} else {
				t &= ^x
			}
			if i&2 != 0 {
				t &= y
			} else {
				t &= ^y
			}
			if i&1 != 0 {
				t &= z
			} else {
				t &= ^z
			}
			r |= t
		}
		d[l] = r & in.mask
	}
}

// prmt modes (sub2)
const (
	prmtDefault = iota
	prmtF4e
	prmtB4e
	prmtRc8
	prmtEcl
	prmtEcr
	prmtRc16
)

var prmtTable = [7][4][4]uint8{
	{},
	{{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},
	{{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},
	{{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},
	{{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},
	{{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},
	{{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},
}

// prmt computes prmt.b32 with selector c; the table rows list d.b0..d.b3.
func prmt(a, b, c uint64, mode uint8) uint64 {
	src := (b&0xffffffff)<<32 | a&0xffffffff
	var d uint64
	if mode == prmtDefault {
		for i := 0; i < 4; i++ {
			sel := c >> (4 * i) & 0xf
			by := src >> (8 * (sel & 7)) & 0xff
			if sel&8 != 0 {
				if by&0x80 != 0 {
					by = 0xff
				} else {
					by = 0
				}
			}
			d |= by << (8 * i)
		}
		return d
	}
	row := prmtTable[mode][c&3]
	for i := 0; i < 4; i++ {
		d |= (src >> (8 * row[i]) & 0xff) << (8 * i)
	}
	return d
}

// Carry chains: add.cc, addc(.cc), sub.cc, subc(.cc), mad.cc, madc.

func execAddCC(w *warp, in *inst, m uint32) {
	d, a, b := w.r(in.d[0]), w.r(in.s[0]), w.r(in.s[1])
	var c *[32]uint64
	if in.ns > 2 {
		c = w.r(in.s[2])
	}
	mask := in.mask
	sub := in.sub == 1
	carry := w.carry
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		x, y := a[l]&mask, b[l]&mask
		if c != nil { // mad.cc / madc: (a*b).lo + c
			x = (a[l] * b[l]) & mask
			if in.flags&fHi != 0 {
				x = mulHi(a[l], b[l], in) & mask
			}
			y = c[l] & mask
		}
		cin := uint64(0)
		if in.flags&fCarry != 0 {
			cin = uint64(carry >> l & 1)
		}
		var r, cout uint64
		if sub {
			if in.bits == 64 {
				r, cout = bits.Sub64(x, y, cin)
			} else {
				t := int64(x) - int64(y) - int64(cin)
				if t < 0 {
					cout = 1
				}
				r = uint64(t) & mask
			}
		} else {
			r = x + y + cin
			if in.bits == 64 {
				s, c1 := bits.Add64(x, y, cin)
				r, cout = s, c1
			} else {
				cout = r >> in.bits & 1
				r &= mask
			}
		}
		d[l] = r
		if in.flags&fCC != 0 {
			w.carry = w.carry&^(1<<l) | uint32(cout)<<l
		}
	}
}
