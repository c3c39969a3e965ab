package replay

import (
	"math"
	"math/bits"

	"github.com/ptxtrace/ptxtrace/internal/fpx"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// comparison codes (inst.sub of setp/set)
const (
	cEq = iota
	cNe
	cLt
	cLe
	cGt
	cGe
	cLo
	cLs
	cHi
	cHs
	cEqu
	cNeu
	cLtu
	cLeu
	cGtu
	cGeu
	cNum
	cNan
)

var cmpCodes = map[string]uint8{".eq": cEq, ".ne": cNe, ".lt": cLt, ".le": cLe, ".gt": cGt, ".ge": cGe,
	".lo": cLo, ".ls": cLs, ".hi": cHi, ".hs": cHs, ".equ": cEqu, ".neu": cNeu, ".ltu": cLtu,
	".leu": cLeu, ".gtu": cGtu, ".geu": cGeu, ".num": cNum, ".nan": cNan}

// bool ops (inst.sub2 of setp/set)
const (
	bNone = iota
	bAnd
	bOr
	bXor
)

// operand kinds of comparisons (inst.sub2>>4 … kept in typ)

func cmpInt(a, b uint64, in *inst) bool {
	var lt, eq bool
	if in.signed {
		x, y := sv(a, in), sv(b, in)
		lt, eq = x < y, x == y
	} else {
		x, y := a&in.mask, b&in.mask
		lt, eq = x < y, x == y
	}
	switch in.sub {
	case cEq:
		return eq
	case cNe:
		return !eq
	case cLt, cLo:
		return lt
	case cLe, cLs:
		return lt || eq
	case cGt, cHi:
		return !lt && !eq
	case cGe, cHs:
		return !lt
	}
	return false
}

func cmpFloat(x, y float64, code uint8) bool {
	nan := x != x || y != y
	switch code {
	case cEq:
		return !nan && x == y
	case cNe:
		return !nan && x != y
	case cLt:
		return !nan && x < y
	case cLe:
		return !nan && x <= y
	case cGt:
		return !nan && x > y
	case cGe:
		return !nan && x >= y
	case cEqu:
		return nan || x == y
	case cNeu:
		return nan || x != y
	case cLtu:
		return nan || x < y
	case cLeu:
		return nan || x <= y
	case cGtu:
		return nan || x > y
	case cGeu:
		return nan || x >= y
	case cNum:
		return !nan
	case cNan:
		return nan
	}
	return false
}

// floatVal reads a (scalar) value of float type t as float64; half is 0
// or 1 for the halves of packed types.
func floatVal(v uint64, t ptx.Type, half int, ftz bool) float64 {
	switch t {
	case ptx.F32:
		f := math.Float32frombits(uint32(v))
		if ftz {
			f = fpx.FtzF32(f)
		}
		return float64(f)
	case ptx.F64:
		return math.Float64frombits(v)
	case ptx.F16, ptx.F16x2:
		h := uint16(v >> (16 * half))
		if ftz && h&0x7c00 == 0 {
			h &= 0x8000
		}
		return float64(fpx.F16ToF32(h))
	case ptx.BF16, ptx.BF16x2:
		return float64(fpx.BF16ToF32(uint16(v >> (16 * half))))
	}
	return 0
}

func boolOp(t, c bool, op uint8) bool {
	switch op {
	case bAnd:
		return t && c
	case bOr:
		return t || c
	case bXor:
		return t != c
	}
	return t
}

func (in *inst) compare(a, b uint64, half int) bool {
	if in.typ.IsFloat() {
		ftz := in.flags&fFtz != 0
		return cmpFloat(floatVal(a, in.typ, half, ftz), floatVal(b, in.typ, half, ftz), in.sub)
	}
	return cmpInt(a, b, in)
}

func execSetp(w *warp, in *inst, m uint32) {
	a, b := w.r(in.s[0]), w.r(in.s[1])
	var c *[32]uint64
	if in.ns > 2 {
		c = w.r(in.s[2])
	}
	cneg := uint64(in.sneg >> 2 & 1)
	p := w.r(in.d[0])
	var q *[32]uint64
	if in.nd > 1 {
		q = w.r(in.d[1])
	}
	packed := in.typ == ptx.F16x2 || in.typ == ptx.BF16x2
	if c == nil && !packed && !in.typ.IsFloat() && in.bits > 0 {
		setpInt(in, a, b, p, q, m)
		return
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		cv := true
		if c != nil {
			cv = (c[l]&1)^cneg != 0
		}
		if packed {
			t0 := in.compare(a[l], b[l], 0)
			t1 := in.compare(a[l], b[l], 1)
			if c != nil {
				t0, t1 = boolOp(t0, cv, in.sub2), boolOp(t1, cv, in.sub2)
			}
			p[l] = b2u(t0)
			if q != nil {
				q[l] = b2u(t1)
			}
			continue
		}
		t := in.compare(a[l], b[l], 0)
		if c != nil {
			p[l] = b2u(boolOp(t, cv, in.sub2))
			if q != nil {
				q[l] = b2u(boolOp(!t, cv, in.sub2))
			}
		} else {
			p[l] = b2u(t)
			if q != nil {
				q[l] = b2u(!t)
			}
		}
	}
}

// setpInt is setp on integers without a combining predicate: what cmpInt
// decides lane by lane, without branches. Each operand becomes a key whose
// unsigned order is the compared order: the low in.bits bits shifted to
// the top with the sign bit flipped when signed (sext is monotonic), the
// value under in.mask when not. The comparison's outcome indexes a table
// of the code's results; a code cmpInt does not know gives false, as there.
func setpInt(in *inst, a, b, p, q *[32]uint64, m uint32) {
	mk, sh, flip := in.mask, uint(0), uint64(0)
	if in.signed {
		mk, sh, flip = ^uint64(0), 64-uint(in.bits), 1<<63
	}
	// tab's bit k is the result for k = [x >= y] + [x > y]: 0 less,
	// 1 equal, 2 greater
	var tab uint64
	switch in.sub {
	case cEq:
		tab = 0b010
	case cNe:
		tab = 0b101
	case cLt, cLo:
		tab = 0b001
	case cLe, cLs:
		tab = 0b011
	case cGt, cHi:
		tab = 0b100
	case cGe, cHs:
		tab = 0b110
	}
	if m == ^uint32(0) && q == nil {
		for l := range p {
			x, y := (a[l]&mk)<<(sh&63)^flip, (b[l]&mk)<<(sh&63)^flip
			p[l] = tab >> (b2u(x >= y) + b2u(x > y)) & 1
		}
		return
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		x, y := (a[l]&mk)<<(sh&63)^flip, (b[l]&mk)<<(sh&63)^flip
		t := tab >> (b2u(x >= y) + b2u(x > y)) & 1
		p[l] = t
		if q != nil {
			q[l] = t ^ 1
		}
	}
}

// set.cmp.dtype.stype: in.typ2 is the compared type, in.typ the result type.
func execSet(w *warp, in *inst, m uint32) {
	a, b := w.r(in.s[0]), w.r(in.s[1])
	var c *[32]uint64
	if in.ns > 2 {
		c = w.r(in.s[2])
	}
	cneg := uint64(in.sneg >> 2 & 1)
	d := w.r(in.d[0])
	cmp := *in
	cmp.typ = in.typ2
	cmp.bits = uint8(in.typ2.Size() * 8)
	cmp.mask = widthMask(cmp.bits)
	cmp.signed = in.typ2.IsSigned()
	packed := in.typ2 == ptx.F16x2 || in.typ2 == ptx.BF16x2
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		cv := true
		if c != nil {
			cv = (c[l]&1)^cneg != 0
		}
		res := func(t bool) uint64 {
			if c != nil {
				t = boolOp(t, cv, in.sub2)
			}
			if !t {
				return 0
			}
			switch in.typ {
			case ptx.F32:
				return 0x3f800000
			case ptx.F16x2:
				return 0x3c00
			case ptx.BF16x2:
				return 0x3f80
			}
			return 0xffffffff
		}
		if packed {
			lo, hi := res(cmp.compare(a[l], b[l], 0)), res(cmp.compare(a[l], b[l], 1))
			if in.typ == ptx.U32 || in.typ == ptx.S32 {
				lo, hi = lo&0xffff, hi&0xffff
			}
			d[l] = lo | hi<<16
			continue
		}
		d[l] = res(cmp.compare(a[l], b[l], 0)) & in.mask
	}
}

func execSelp(w *warp, in *inst, m uint32) {
	d, a, b, c := w.r(in.d[0]), w.r(in.s[0]), w.r(in.s[1]), w.r(in.s[2])
	neg := uint64(in.sneg >> 2 & 1)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		if (c[l]&1)^neg != 0 {
			d[l] = a[l] & in.mask
		} else {
			d[l] = b[l] & in.mask
		}
	}
}

func execSlct(w *warp, in *inst, m uint32) {
	d, a, b, c := w.r(in.d[0]), w.r(in.s[0]), w.r(in.s[1]), w.r(in.s[2])
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		var ge bool
		if in.typ2 == ptx.F32 {
			f := f32(c[l])
			if in.flags&fFtz != 0 {
				f = fpx.FtzF32(f)
			}
			ge = f >= 0
		} else {
			ge = int32(c[l]) >= 0
		}
		if ge {
			d[l] = a[l] & in.mask
		} else {
			d[l] = b[l] & in.mask
		}
	}
}

// cvt: in.typ destination type, in.typ2 source type; in.sub is
// cvtSatFinite for .satfinite.
const cvtSatFinite = 1

func intBits(t ptx.Type) int { return t.Size() * 8 }

func isHalfT(t ptx.Type) bool { return t == ptx.F16 || t == ptx.BF16 }

func cvtVal(a uint64, in *inst) uint64 {
	dt, st := in.typ, in.typ2
	r := in.round()
	ftz := in.flags&fFtz != 0
	sat := in.flags&fSat != 0
	switch {
	case !dt.IsFloat() && !st.IsFloat():
		sb := intBits(st)
		var v int64
		var u uint64
		if st.IsSigned() {
			v = int64(sext(a, uint8(sb)))
		} else {
			u = a & widthMask(uint8(sb))
		}
		db := intBits(dt)
		if sat {
			lo, hi := int64(0), int64(0)
			if dt.IsSigned() {
				hi = int64(1)<<(db-1) - 1
				lo = -hi - 1
			}
			if st.IsSigned() {
				if dt.IsSigned() {
					v = max(lo, min(hi, v))
				} else {
					if v < 0 {
						v = 0
					}
					if db < 64 && uint64(v) > widthMask(uint8(db)) {
						v = int64(widthMask(uint8(db)))
					}
				}
				return uint64(v) & widthMask(uint8(db))
			}
			if dt.IsSigned() {
				if u > uint64(hi) {
					u = uint64(hi)
				}
			} else if db < 64 && u > widthMask(uint8(db)) {
				u = widthMask(uint8(db))
			}
			return u & widthMask(uint8(db))
		}
		if st.IsSigned() {
			return uint64(v) & widthMask(uint8(db))
		}
		return u & widthMask(uint8(db))
	case dt.IsFloat() && !st.IsFloat():
		sb := intBits(st)
		switch dt {
		case ptx.F32:
			f := fpx.IntToF32(a, st.IsSigned(), sb, r)
			if sat {
				f = fpx.SatF32(f)
			}
			return b32(f)
		case ptx.F64:
			f := fpx.IntToF64(a, st.IsSigned(), sb, r)
			if sat {
				f = fpx.SatF64(f)
			}
			return b64(f)
		case ptx.F16:
			f := intToF64Odd(a, st.IsSigned(), sb)
			h := fpx.F64ToF16(f, r)
			if sat {
				h = fpx.F32ToF16(fpx.SatF32(fpx.F16ToF32(h)), fpx.RN)
			}
			return uint64(h)
		case ptx.BF16:
			return uint64(fpx.F64ToBF16(intToF64Odd(a, st.IsSigned(), sb), r))
		}
	case !dt.IsFloat() && st.IsFloat():
		x := floatVal(a, st, 0, ftz)
		return fpx.FloatToInt(x, r, intBits(dt), dt.IsSigned())
	default: // float -> float
		switch {
		case dt == st:
			if dt == ptx.F32 {
				f := f32(a)
				if ftz {
					f = fpx.FtzF32(f)
				}
				if in.rnd != rndNone {
					f = fpx.RoundToInt32(f, r)
				} else {
					f = canon32(f)
				}
				if ftz {
					f = fpx.FtzF32(f)
				}
				if sat {
					f = fpx.SatF32(f)
				}
				return b32(f)
			}
			if dt == ptx.F64 {
				f := f64(a)
				if in.rnd != rndNone {
					f = fpx.RoundToInt64(f, r)
				}
				if sat {
					f = fpx.SatF64(f)
				}
				return b64(f)
			}
			x := floatVal(a, st, 0, false)
			if in.rnd != rndNone {
				x = fpx.RoundToInt64(x, r)
			}
			if dt == ptx.F16 {
				return uint64(fpx.F64ToF16(x, fpx.RN))
			}
			return uint64(fpx.F64ToBF16(x, fpx.RN))
		case dt == ptx.F64:
			x := floatVal(a, st, 0, ftz)
			if sat {
				x = fpx.SatF64(x)
			}
			return b64(x)
		case dt == ptx.F32:
			var f float32
			if st == ptx.F64 {
				f = fpx.F64ToF32(f64(a), r)
			} else {
				f = float32(floatVal(a, st, 0, false))
			}
			if ftz {
				f = fpx.FtzF32(f)
			}
			if sat {
				f = fpx.SatF32(f)
			}
			return b32(f)
		case dt == ptx.F16 || dt == ptx.BF16:
			var h uint16
			if st == ptx.F64 {
				if dt == ptx.F16 {
					h = fpx.F64ToF16(f64(a), r)
				} else {
					h = fpx.F64ToBF16(f64(a), r)
				}
			} else {
				x := float32(floatVal(a, st, 0, ftz))
				if sat {
					x = fpx.SatF32(x)
				}
				if dt == ptx.F16 {
					h = fpx.F32ToF16(x, r)
				} else {
					h = fpx.F32ToBF16(x, r)
				}
			}
			if in.sub == cvtSatFinite {
				// ±inf (from overflow or an infinite input) -> ±MAX_NORM
				if dt == ptx.F16 && h&0x7fff == 0x7c00 {
					h = h&0x8000 | 0x7bff
				} else if dt == ptx.BF16 && h&0x7fff == 0x7f80 {
					h = h&0x8000 | 0x7f7f
				}
			}
			if in.flags&fRelu != 0 && (h&0x8000 != 0 || (dt == ptx.F16 && h&0x7c00 == 0x7c00 && h&0x3ff != 0)) {
				h = 0
			}
			return uint64(h)
		case dt == ptx.TF32:
			t := fpx.F32ToTF32(f32(a), r)
			if in.sub == cvtSatFinite && t&0x7fffffff == 0x7f800000 {
				t = t&0x80000000 | 0x7f7fe000
			}
			return uint64(t)
		}
	}
	return 0
}

// intToF64Odd converts an sb-bit integer to f64 rounding to odd: the
// bits lost beyond 53 significant bits are folded into the lowest kept
// bit, so one further rounding to a narrower format (f16, bf16) gives the
// correctly rounded result in every mode. (Truncating first would lose
// the sticky bit: 2^63+2^55+1 would then round to even as a tie.)
func intToF64Odd(a uint64, signed bool, sb int) float64 {
	v := a & widthMask(uint8(sb))
	neg := false
	if signed && sext(v, uint8(sb))>>63 != 0 {
		neg, v = true, -sext(v, uint8(sb))
	}
	f := float64(v)
	if n := bits.Len64(v); n > 53 {
		sh := n - 53
		m := v >> sh
		if v&(1<<sh-1) != 0 {
			m |= 1
		}
		f = math.Ldexp(float64(m), sh)
	}
	if neg {
		f = -f
	}
	return f
}

func execCvt(w *warp, in *inst, m uint32) {
	d, a := w.r(in.d[0]), w.r(in.s[0])
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		v := cvtVal(a[l], in)
		if in.typ.IsSigned() && in.bits < 64 {
			v = sext(v, in.bits) & in.mask
		}
		d[l] = v
	}
}

// cvt.rn{.relu}.f16x2.f32 d, a, b: d.hi = cvt(a), d.lo = cvt(b).
func execCvtPack(w *warp, in *inst, m uint32) {
	d, a, b := w.r(in.d[0]), w.r(in.s[0]), w.r(in.s[1])
	one := *in
	if in.typ == ptx.F16x2 {
		one.typ = ptx.F16
	} else {
		one.typ = ptx.BF16
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		hi := cvtVal(a[l], &one) & 0xffff
		lo := cvtVal(b[l], &one) & 0xffff
		d[l] = hi<<16 | lo
	}
}
