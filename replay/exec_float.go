package replay

import (
	"math"
	"math/bits"

	"github.com/ptxtrace/ptxtrace/internal/fpx"
)

const canonNaN32 = 0x7fffffff

// float sub-operations
const (
	fAdd = iota
	fSub
	fMul
	fFma
	fDiv
	fRcp
	fSqrt
	fRsqrt
	fSin
	fCos
	fLg2
	fEx2
	fTanh
	fAbsV
	fNeg
	fMin
	fMax
	fCopysign
	fMov
)

func (in *inst) round() fpx.Round {
	if in.rnd == rndNone {
		return fpx.RN
	}
	return fpx.Round(in.rnd)
}

func f32(v uint64) float32 { return math.Float32frombits(uint32(v)) }
func b32(x float32) uint64 { return uint64(math.Float32bits(x)) }
func f64(v uint64) float64 { return math.Float64frombits(v) }
func b64(x float64) uint64 { return math.Float64bits(x) }
func canon32(x float32) float32 {
	if x != x {
		return math.Float32frombits(canonNaN32)
	}
	return x
}

// fast paths: f32 add/mul/fma in RN without ftz/sat

func execFAdd32(w *warp, in *inst, m uint32) {
	d, a, b := w.r(in.d[0]), w.r(in.s[0]), w.r(in.s[1])
	if m == ^uint32(0) { // every lane: no mask walk
		for l := range d {
			d[l] = b32(canon32(float32(f32(a[l]) + f32(b[l]))))
		}
		return
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = b32(canon32(float32(f32(a[l]) + f32(b[l]))))
	}
}

func execFSub32(w *warp, in *inst, m uint32) {
	d, a, b := w.r(in.d[0]), w.r(in.s[0]), w.r(in.s[1])
	if m == ^uint32(0) { // every lane: no mask walk
		for l := range d {
			d[l] = b32(canon32(float32(f32(a[l]) - f32(b[l]))))
		}
		return
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = b32(canon32(float32(f32(a[l]) - f32(b[l]))))
	}
}

func execFMul32(w *warp, in *inst, m uint32) {
	d, a, b := w.r(in.d[0]), w.r(in.s[0]), w.r(in.s[1])
	if m == ^uint32(0) { // every lane: no mask walk
		for l := range d {
			d[l] = b32(canon32(float32(f32(a[l]) * f32(b[l]))))
		}
		return
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = b32(canon32(float32(f32(a[l]) * f32(b[l]))))
	}
}

func execFFma32(w *warp, in *inst, m uint32) {
	d, a, b, c := w.r(in.d[0]), w.r(in.s[0]), w.r(in.s[1]), w.r(in.s[2])
	if m == ^uint32(0) { // every lane: no mask walk
		for l := range d {
			d[l] = b32(fmaRN32(f32(a[l]), f32(b[l]), f32(c[l])))
		}
		return
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = b32(fmaRN32(f32(a[l]), f32(b[l]), f32(c[l])))
	}
}

// f32op is the general f32 operation with .ftz/.sat and rounding.
func f32op(x, y, z float32, in *inst) float32 {
	ftz := in.flags&fFtz != 0
	if ftz {
		x, y, z = fpx.FtzF32(x), fpx.FtzF32(y), fpx.FtzF32(z)
	}
	r := in.round()
	var v float32
	switch in.sub {
	case fAdd:
		v = fpx.AddF32(x, y, r)
	case fSub:
		v = fpx.SubF32(x, y, r)
	case fMul:
		v = fpx.MulF32(x, y, r)
	case fFma:
		v = fpx.FmaF32(x, y, z, r)
	case fDiv:
		if in.flags&fApprox != 0 {
			// div.approx: x · (1/y), with the reciprocal's special cases
			v = fpx.MulF32(x, fpx.RcpApprox(y), fpx.RN)
			if math.IsInf(float64(y), 0) || math.Abs(float64(y)) >= 0x1p126 && !math.IsInf(float64(x), 0) {
				v = fpx.DivF32(x, y, fpx.RN)
			}
		} else {
			v = fpx.DivF32(x, y, r)
		}
	case fRcp:
		if in.flags&fApprox != 0 {
			v = fpx.RcpApprox(x)
		} else {
			v = fpx.RcpF32(x, r)
		}
	case fSqrt:
		if in.flags&fApprox != 0 {
			v = fpx.SqrtApprox(x)
		} else {
			v = fpx.SqrtF32(x, r)
		}
	case fRsqrt:
		v = fpx.RsqrtApprox(x)
	case fSin:
		v = fpx.SinApprox(x)
	case fCos:
		v = fpx.CosApprox(x)
	case fLg2:
		v = fpx.Lg2Approx(x)
	case fEx2:
		v = fpx.Ex2Approx(x)
	case fTanh:
		v = fpx.TanhApprox(x)
	case fAbsV:
		v = math.Float32frombits(math.Float32bits(x) &^ (1 << 31))
		if ftz || x == x {
			return v
		}
		return v
	case fNeg:
		v = math.Float32frombits(math.Float32bits(x) ^ (1 << 31))
	case fMin:
		v = fpx.MinF32(x, y, in.flags&fNaN != 0)
		if in.flags&fAbs != 0 && v == v {
			v = float32(math.Abs(float64(v)))
		}
		if in.flags&fXorSign != 0 && v == v {
			v = math.Float32frombits(math.Float32bits(v) ^ (math.Float32bits(x)^math.Float32bits(y))&(1<<31))
		}
	case fMax:
		v = fpx.MaxF32(x, y, in.flags&fNaN != 0)
		if in.flags&fXorSign != 0 && v == v {
			v = math.Float32frombits(math.Float32bits(v) ^ (math.Float32bits(x)^math.Float32bits(y))&(1<<31))
		}
	case fCopysign:
		v = math.Float32frombits(math.Float32bits(y)&^(1<<31) | math.Float32bits(x)&(1<<31))
	case fMov:
		v = x
	}
	if ftz {
		v = fpx.FtzF32(v)
	}
	if in.flags&fSat != 0 {
		v = fpx.SatF32(v)
	}
	if in.flags&fRelu != 0 && (v < 0 || v != v) {
		v = 0
	}
	return v
}

func execF32(w *warp, in *inst, m uint32) {
	var z [32]uint64
	a, b, c := w.srcs(in, &z)
	d := w.r(in.d[0])
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = b32(f32op(f32(a[l]), f32(b[l]), f32(c[l]), in))
	}
}

func f64op(x, y, z float64, in *inst) float64 {
	r := in.round()
	var v float64
	if in.flags&fFtz != 0 {
		x = fpx.FtzF64(x)
	}
	switch in.sub {
	case fAdd:
		v = fpx.AddF64(x, y, r)
	case fSub:
		v = fpx.SubF64(x, y, r)
	case fMul:
		v = fpx.MulF64(x, y, r)
	case fFma:
		v = fpx.FmaF64(x, y, z, r)
	case fDiv:
		v = fpx.DivF64(x, y, r)
	case fRcp:
		if in.flags&fApprox != 0 {
			v = fpx.RcpF64(x, fpx.RN)
			// rcp.approx.ftz.f64: about 20 bits; we return the rounded value
		} else {
			v = fpx.RcpF64(x, r)
		}
	case fSqrt:
		v = fpx.SqrtF64(x, r)
	case fRsqrt:
		v = 1 / math.Sqrt(x)
	case fSin:
		v = math.Sin(x)
	case fCos:
		v = math.Cos(x)
	case fLg2:
		v = math.Log2(x)
	case fEx2:
		v = math.Exp2(x)
	case fTanh:
		v = math.Tanh(x)
	case fAbsV:
		v = math.Float64frombits(math.Float64bits(x) &^ (1 << 63))
	case fNeg:
		v = math.Float64frombits(math.Float64bits(x) ^ (1 << 63))
	case fMin:
		v = fpx.MinF64(x, y, in.flags&fNaN != 0)
	case fMax:
		v = fpx.MaxF64(x, y, in.flags&fNaN != 0)
	case fCopysign:
		v = math.Float64frombits(math.Float64bits(y)&^(1<<63) | math.Float64bits(x)&(1<<63))
	case fMov:
		v = x
	}
	if in.flags&fFtz != 0 {
		v = fpx.FtzF64(v)
	}
	if in.flags&fSat != 0 {
		v = fpx.SatF64(v)
	}
	return v
}

func execF64(w *warp, in *inst, m uint32) {
	var z [32]uint64
	a, b, c := w.srcs(in, &z)
	d := w.r(in.d[0])
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = b64(f64op(f64(a[l]), f64(b[l]), f64(c[l]), in))
	}
}

// Half precision: f16, bf16 and the packed x2 forms. Operations are exact
// through fpx (one rounding to the 16-bit format).

func h16op(x, y, z uint16, in *inst, bf bool) uint16 {
	r := in.round()
	toF := fpx.F16ToF32
	fromF := func(v float32) uint16 { return fpx.F32ToF16(v, fpx.RN) }
	if bf {
		toF = fpx.BF16ToF32
		fromF = func(v float32) uint16 { return fpx.F32ToBF16(v, fpx.RN) }
	}
	ftz := in.flags&fFtz != 0
	flush := func(h uint16) uint16 {
		if ftz && !bf && h&0x7c00 == 0 {
			return h & 0x8000
		}
		return h
	}
	x, y, z = flush(x), flush(y), flush(z)
	var v uint16
	switch in.sub {
	case fAdd:
		if bf {
			v = fpx.AddBF16(x, y, r)
		} else {
			v = fpx.AddF16(x, y, r)
		}
	case fSub:
		if bf {
			v = fpx.SubBF16(x, y, r)
		} else {
			v = fpx.SubF16(x, y, r)
		}
	case fMul:
		if bf {
			v = fpx.MulBF16(x, y, r)
		} else {
			v = fpx.MulF16(x, y, r)
		}
	case fFma:
		if bf {
			v = fpx.FmaBF16(x, y, z, r)
		} else {
			v = fpx.FmaF16(x, y, z, r)
		}
	case fAbsV:
		v = x &^ 0x8000
	case fNeg:
		v = x ^ 0x8000
	case fMin, fMax:
		a, b := toF(x), toF(y)
		var f float32
		if in.sub == fMin {
			f = fpx.MinF32(a, b, in.flags&fNaN != 0)
		} else {
			f = fpx.MaxF32(a, b, in.flags&fNaN != 0)
		}
		if f != f {
			if bf {
				return 0x7fff
			}
			return 0x7fff
		}
		v = fromF(f)
	case fEx2:
		v = fromF(fpx.Ex2Approx(toF(x)))
	case fTanh:
		v = fromF(fpx.TanhApprox(toF(x)))
	case fRcp:
		v = fromF(fpx.RcpApprox(toF(x)))
	case fSqrt:
		v = fromF(fpx.SqrtApprox(toF(x)))
	case fRsqrt:
		v = fromF(fpx.RsqrtApprox(toF(x)))
	case fSin:
		v = fromF(fpx.SinApprox(toF(x)))
	case fCos:
		v = fromF(fpx.CosApprox(toF(x)))
	case fLg2:
		v = fromF(fpx.Lg2Approx(toF(x)))
	case fMov:
		v = x
	case fCopysign:
		v = y&^0x8000 | x&0x8000
	}
	v = flush(v)
	if in.flags&fSat != 0 {
		f := toF(v)
		v = fromF(fpx.SatF32(f))
	}
	if in.flags&fRelu != 0 {
		if v&0x8000 != 0 || toF(v) != toF(v) {
			v = 0
		}
	}
	return v
}

func execH16(w *warp, in *inst, m uint32) {
	var z [32]uint64
	a, b, c := w.srcs(in, &z)
	d := w.r(in.d[0])
	bf := in.sub2 == 1
	pairs := in.bits == 32
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		lo := h16op(uint16(a[l]), uint16(b[l]), uint16(c[l]), in, bf)
		if pairs {
			hi := h16op(uint16(a[l]>>16), uint16(b[l]>>16), uint16(c[l]>>16), in, bf)
			d[l] = uint64(lo) | uint64(hi)<<16
		} else {
			d[l] = uint64(lo)
		}
	}
}

// testp kinds
const (
	tpFinite = iota
	tpInfinite
	tpNumber
	tpNotANumber
	tpNormal
	tpSubnormal
)

func execTestp(w *warp, in *inst, m uint32) {
	d, a := w.r(in.d[0]), w.r(in.s[0])
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		var x float64
		var sub bool
		if in.bits == 32 {
			f := f32(a[l])
			x = float64(f)
			sub = math.Float32bits(f)&0x7f800000 == 0 && f != 0
		} else {
			x = f64(a[l])
			sub = math.Float64bits(x)&0x7ff0000000000000 == 0 && x != 0
		}
		var r bool
		switch in.sub {
		case tpFinite:
			r = !math.IsInf(x, 0) && x == x
		case tpInfinite:
			r = math.IsInf(x, 0)
		case tpNumber:
			r = x == x
		case tpNotANumber:
			r = x != x
		case tpNormal:
			// PTX ISA (testp): positive and negative zero count as normal
			r = x == x && !math.IsInf(x, 0) && !sub
		case tpSubnormal:
			r = sub
		}
		d[l] = b2u(r)
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// fmaRN32 is fma.rn.f32. The product of two f32 is exact in f64; the f64
// sum rounds once more, which gives the correctly rounded f32 unless the
// f64 sum was inexact and landed exactly on an f32 rounding midpoint, or
// the result is subnormal or not finite in f32; those cases go to fpx.
func fmaRN32(x, y, z float32) float32 {
	p := float64(x) * float64(y)
	s := p + float64(z)
	bits := math.Float64bits(s)
	e := bits >> 52 & 0x7ff
	if e > 1023-126 && e < 1023+127 && bits&0x1fffffff != 0x10000000 {
		return float32(s)
	}
	return fpx.FmaF32(x, y, z, fpx.RN)
}
