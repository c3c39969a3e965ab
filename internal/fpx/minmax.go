package fpx

import "math"

// FtzF32 flushes a binary32 subnormal to a zero of the same sign (PTX .ftz:
// "flushes subnormal inputs and results to sign-preserving zero"). Other
// values, NaNs included, are returned unchanged.
func FtzF32(x float32) float32 {
	b := math.Float32bits(x)
	if b&0x7f800000 == 0 {
		return math.Float32frombits(b & 0x80000000)
	}
	return x
}

// FtzF64 flushes a binary64 subnormal to a zero of the same sign (used by
// the few .f64 forms with .ftz, e.g. rcp.approx.ftz.f64).
func FtzF64(x float64) float64 {
	b := math.Float64bits(x)
	if b&0x7ff0000000000000 == 0 {
		return math.Float64frombits(b & (1 << 63))
	}
	return x
}

// SatF32 applies PTX .sat to a binary32 result: "limits the result to the
// range [0.0, 1.0]. NaN results are flushed to positive zero" (PTX ISA,
// cvt/add .sat). -0.0 becomes +0.0 (the clamp is max(x, +0.0) with
// +0.0 > -0.0 as in PTX max).
func SatF32(x float32) float32 {
	switch {
	case x != x || x <= 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}

// SatF64 is SatF32 for binary64 results.
func SatF64(x float64) float64 {
	switch {
	case x != x || x <= 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}

// less orders x < y with -0.0 < +0.0 (PTX min/max: "note: -0.0 < +0.0
// here"); operands are not NaN.
func less64(x, y float64) bool {
	if x == 0 && y == 0 {
		return math.Signbit(x) && !math.Signbit(y)
	}
	return x < y
}

// MinF32 implements PTX min.f32 (PTX ISA 9.7.3.11, min_num/min_nan): without
// .NaN (propagateNaN false) a NaN operand is ignored and the other operand
// returned; if both are NaN, or with .NaN if either is, the result is the
// canonical NaN. -0.0 is smaller than +0.0.
func MinF32(a, b float32, propagateNaN bool) float32 {
	v, nan := minmax(float64(a), float64(b), propagateNaN, false)
	if nan {
		return canonNaN32()
	}
	return float32(v) // exact: v is a or b
}

// MaxF32 implements PTX max.f32 with the same NaN and signed-zero rules.
func MaxF32(a, b float32, propagateNaN bool) float32 {
	v, nan := minmax(float64(a), float64(b), propagateNaN, true)
	if nan {
		return canonNaN32()
	}
	return float32(v)
}

// MinF64 implements PTX min.f64 (which has no .NaN form; propagateNaN
// selects the min_nan semantics anyway).
func MinF64(a, b float64, propagateNaN bool) float64 {
	v, nan := minmax(a, b, propagateNaN, false)
	if nan {
		return canonNaN64()
	}
	return v
}

// MaxF64 implements PTX max.f64.
func MaxF64(a, b float64, propagateNaN bool) float64 {
	v, nan := minmax(a, b, propagateNaN, true)
	if nan {
		return canonNaN64()
	}
	return v
}

// minmax reports nan = true where PTX gives the canonical NaN.
func minmax(a, b float64, propagateNaN, isMax bool) (v float64, nan bool) {
	an, bn := a != a, b != b
	switch {
	case an && bn, propagateNaN && (an || bn):
		return 0, true
	case an:
		return b, false
	case bn:
		return a, false
	}
	if less64(a, b) != isMax {
		return a, false
	}
	return b, false
}
