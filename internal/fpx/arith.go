package fpx

import "math"

// Arithmetic with an explicit rounding direction (PTX add/sub/mul/fma/div/
// sqrt/rcp with .rn/.rz/.rm/.rp). Every function returns the IEEE 754-2008
// correctly rounded result of the exact operation (clause 5.4.1: "as if
// computed with unbounded precision and range, then rounded"), with exact
// zero sums signed per clause 6.3 and NaN results replaced by the canonical
// NaN of the format. Subnormals are honoured; .ftz is left to callers
// (FtzF32 on operands and result).
//
// Implementation: RN uses Go's native IEEE operations (binary32 arithmetic
// for float32 operands; each result is wrapped in an explicit conversion so
// the compiler cannot contract a*b+c into a fused multiply-add across calls,
// Go spec "Floating-point operators"). Directed modes use error-free
// transformations in float64 (TwoSum; the FMA-computed remainder of a
// product, quotient or square root) to learn on which side of the rounded
// float64 result the exact value lies, then round once more to the target
// with that information in the sticky bit (see withDir). Where the
// transformations are not exact (float64 results near the underflow
// threshold) the float64 operations fall back to exact math/big arithmetic.
// The fuzz targets compare both paths.

// nonFinite reports whether x is NaN or ±Inf.
func nonFinite(x float64) bool { return x-x != 0 }

func f32FromEnc(e uint64) float32 { return math.Float32frombits(uint32(e)) }

func canon32(x float32) float32 {
	if x != x {
		return canonNaN32()
	}
	return x
}

func canon64(x float64) float64 {
	if x != x {
		return canonNaN64()
	}
	return x
}

// sumTo rounds the exact sum x + y (float64 operands whose exact sum is the
// value wanted) to f under r. Operands must be finite. It is exact for any
// float64 operands; the result format must have at most 51 significand bits
// (f16, bf16, tf32, f32).
func sumTo(f format, x, y float64, r Round) uint64 {
	s, t := twoSum(x, y)
	if s == 0 {
		// s == 0 implies x + y == 0 exactly (t == 0).
		z := zeroSum(x, y, r)
		if math.Signbit(z) {
			return f.signBit()
		}
		return 0
	}
	return f.encode(withDir(s, t), r, false)
}

// AddF32 returns a + b rounded to binary32 in direction r (PTX add.rnd.f32).
func AddF32(a, b float32, r Round) float32 {
	if r == RN {
		return canon32(float32(a + b))
	}
	x, y := float64(a), float64(b)
	if nonFinite(x) || nonFinite(y) {
		return canon32(float32(a + b))
	}
	return f32FromEnc(sumTo(fmtF32, x, y, r))
}

// SubF32 returns a - b rounded in direction r (PTX sub.rnd.f32).
func SubF32(a, b float32, r Round) float32 { return AddF32(a, -b, r) }

// MulF32 returns a * b rounded in direction r (PTX mul.rnd.f32). The product
// of two binary32 values is exact in binary64 (48 significand bits, exponent
// within range), so one rounding of it is correct.
func MulF32(a, b float32, r Round) float32 {
	if r == RN {
		return canon32(float32(a * b))
	}
	p := float64(float64(a) * float64(b))
	if nonFinite(p) || p == 0 {
		return canon32(float32(a * b))
	}
	return f32FromEnc(fmtF32.encode(unpack64(p), r, false))
}

// FmaF32 returns a*b + c with a single rounding (PTX fma.rnd.f32; IEEE
// fusedMultiplyAdd). The product is exact in float64 and TwoSum makes the
// sum exact, so even RN is rounded once (float32(math.FMA(...)) would round
// twice).
func FmaF32(a, b, c float32, r Round) float32 {
	p := float64(float64(a) * float64(b))
	z := float64(c)
	if nonFinite(p) || nonFinite(z) {
		return canon32(float32(math.FMA(float64(a), float64(b), z)))
	}
	if r == RN {
		// Fast path: rounding the binary64 FMA result to binary32 can only
		// differ from one rounding when the binary64 result is exactly a
		// binary32 midpoint (low 29 fraction bits 1000...0). Restricted to
		// the binary32 normal range, where that pattern is fixed.
		v := math.FMA(float64(a), float64(b), z)
		if av := math.Abs(v); av >= 0x1p-126 && av < 0x1p128 && math.Float64bits(v)&(1<<29-1) != 1<<28 {
			return float32(v)
		}
	}
	return f32FromEnc(sumTo(fmtF32, p, z, r))
}

// DivF32 returns a / b correctly rounded (PTX div.rnd.f32, the IEEE form;
// div.approx and div.full are different instructions).
func DivF32(a, b float32, r Round) float32 {
	if r == RN {
		return canon32(float32(a / b))
	}
	x, y := float64(a), float64(b)
	if nonFinite(x) || nonFinite(y) || x == 0 || y == 0 {
		return canon32(float32(a / b))
	}
	q := float64(x / y)       // normal in float64 for any binary32 operands
	rem := math.FMA(-q, y, x) // exact remainder: x = q*y + rem
	if y < 0 {
		rem = -rem // the exact quotient is q + rem/y
	}
	return f32FromEnc(fmtF32.encode(withDir(q, rem), r, false))
}

// SqrtF32 returns the correctly rounded square root (PTX sqrt.rnd.f32).
// sqrt(-0) = -0; negative operands give NaN.
func SqrtF32(x float32, r Round) float32 {
	v := float64(x)
	if r == RN || nonFinite(v) || v <= 0 {
		// RN: float64 has >= 2*24+2 bits, so rounding the correctly rounded
		// float64 root again to float32 is correct (Figueroa 1995).
		return canon32(float32(math.Sqrt(v)))
	}
	s := math.Sqrt(v)
	rem := math.FMA(-s, s, v) // exact: s is normal in float64
	return f32FromEnc(fmtF32.encode(withDir(s, rem), r, false))
}

// RcpF32 returns 1/x correctly rounded (PTX rcp.rnd.f32).
func RcpF32(x float32, r Round) float32 { return DivF32(1, x, r) }

// adjust64 returns the float64 rounding of the exact value s + t in direction
// r, given s = RN(exact) and t the exact (or, when tie is impossible, any
// same-signed) difference exact - s.
func adjust64(s, t float64, r Round) float64 {
	if t == 0 {
		return s
	}
	switch r {
	case RNA:
		// RN already matches RNA except at an exact tie that RN resolved
		// toward zero: then t is half the gap toward the away neighbour.
		if math.Signbit(t) == math.Signbit(s) {
			n := math.Nextafter(s, math.Copysign(math.Inf(1), t))
			if float64(n-s) == float64(2*t) {
				return n
			}
		}
	case RZ:
		if math.Signbit(t) != math.Signbit(s) {
			return math.Nextafter(s, 0)
		}
	case RP:
		if t > 0 {
			return math.Nextafter(s, math.Inf(1))
		}
	case RM:
		if t < 0 {
			return math.Nextafter(s, math.Inf(-1))
		}
	}
	return s
}

// side returns 0 for 0 and otherwise a tiny value with the sign of v, for
// adjust64 calls where only the side of the exact value matters.
func side(v float64) float64 {
	if v == 0 {
		return 0
	}
	return math.Copysign(0x1p-1074, v)
}

// overflow64 returns the IEEE 7.4 overflow result for an exact value of sign
// neg whose magnitude rounds beyond MaxFloat64 under RN.
func overflow64(neg bool, r Round) float64 {
	return math.Float64frombits(fmtF64.encode(unpacked{neg: neg, mant: 1, exp: 2000}, r, false))
}

// AddF64 returns a + b rounded in direction r (PTX add.rnd.f64).
func AddF64(a, b float64, r Round) float64 {
	if r == RN || nonFinite(a) || nonFinite(b) {
		return canon64(float64(a + b))
	}
	s, t := twoSum(a, b)
	switch {
	case math.IsInf(s, 0):
		return overflow64(s < 0, r)
	case s == 0:
		return zeroSum(a, b, r)
	}
	return adjust64(s, t, r)
}

// SubF64 returns a - b rounded in direction r.
func SubF64(a, b float64, r Round) float64 { return AddF64(a, -b, r) }

// MulF64 returns a * b rounded in direction r (PTX mul.rnd.f64).
func MulF64(a, b float64, r Round) float64 {
	if r == RN || nonFinite(a) || nonFinite(b) || a == 0 || b == 0 {
		return canon64(float64(a * b))
	}
	p := float64(a * b)
	if math.IsInf(p, 0) {
		return overflow64(p < 0, r)
	}
	if math.Abs(p) < 0x1p-969 {
		// The product error may not be representable: exact fallback.
		return refMul64(a, b, r)
	}
	e := math.FMA(a, b, -p) // exact product error
	return adjust64(p, e, r)
}

// FmaF64 returns a*b + c with one rounding (PTX fma.rnd.f64). RN uses
// math.FMA (IEEE fusedMultiplyAdd, exact on every platform); directed modes
// compute the exact value with math/big.
func FmaF64(a, b, c float64, r Round) float64 {
	if r == RN || nonFinite(a) || nonFinite(b) || nonFinite(c) {
		return canon64(math.FMA(a, b, c))
	}
	return refFma64(a, b, c, r)
}

// DivF64 returns a / b correctly rounded (PTX div.rnd.f64).
func DivF64(a, b float64, r Round) float64 {
	if r == RN || nonFinite(a) || nonFinite(b) || a == 0 || b == 0 {
		return canon64(float64(a / b))
	}
	q := float64(a / b)
	if math.IsInf(q, 0) {
		return overflow64(q < 0, r)
	}
	if math.Abs(a) < 0x1p-900 || math.Abs(q) < 0x1p-1000 {
		return refDiv64(a, b, r)
	}
	// rem = a - q*b is exact (no underflow); the exact quotient is
	// q + rem/b. A binary64 quotient cannot lie exactly on a midpoint in the
	// normal range, so only the side matters (no RNA tie).
	rem := math.FMA(-q, b, a)
	if b < 0 {
		rem = -rem
	}
	return adjust64(q, side(rem), r)
}

// SqrtF64 returns the correctly rounded square root (PTX sqrt.rnd.f64).
func SqrtF64(x float64, r Round) float64 {
	if r == RN || nonFinite(x) || x <= 0 {
		return canon64(math.Sqrt(x))
	}
	if x < 0x1p-900 {
		return refSqrt64(x, r)
	}
	s := math.Sqrt(x)
	rem := math.FMA(-s, s, x) // exact for x in the normal range used here
	// Square roots of binary64 values are never midpoints: side only.
	return adjust64(s, side(rem), r)
}

// RcpF64 returns 1/x correctly rounded (PTX rcp.rnd.f64).
func RcpF64(x float64, r Round) float64 { return DivF64(1, x, r) }

// Half-precision arithmetic (PTX add/sub/mul/fma .f16 and .bf16): operands
// are widened exactly to float64, the operation is made exact (products of
// two 11- or 8-bit significands are exact; sums are made exact by TwoSum) and
// the result is rounded once to the 16-bit format. NaN results are the
// canonical 0x7fff.

func half16(f format, toF32 func(uint16) float32, a, b uint16, r Round, op byte) uint16 {
	x, y := float64(toF32(a)), float64(toF32(b))
	if op == '*' {
		p := float64(x * y)
		if nonFinite(p) || p != p {
			return finish16(f, p)
		}
		if p == 0 {
			if math.Signbit(p) {
				return uint16(f.signBit())
			}
			return 0
		}
		return uint16(f.encode(unpack64(p), r, false))
	}
	if op == '-' {
		y = -y
	}
	if nonFinite(x) || nonFinite(y) {
		return finish16(f, x+y)
	}
	return uint16(sumTo(f, x, y, r))
}

// finish16 encodes a non-finite float64 result (±Inf or NaN) in f.
func finish16(f format, v float64) uint16 {
	if v != v {
		return uint16(f.nanEnc())
	}
	e := f.infEnc()
	if v < 0 {
		e |= f.signBit()
	}
	return uint16(e)
}

func fma16(f format, toF32 func(uint16) float32, a, b, c uint16, r Round) uint16 {
	x, y, z := float64(toF32(a)), float64(toF32(b)), float64(toF32(c))
	p := float64(x * y) // exact: at most 22 significand bits, in range
	if nonFinite(p) || nonFinite(z) {
		return finish16(f, math.FMA(x, y, z))
	}
	return uint16(sumTo(f, p, z, r))
}

// AddF16 returns a + b for binary16 patterns, rounded once (PTX add.rnd.f16).
func AddF16(a, b uint16, r Round) uint16 { return half16(fmtF16, F16ToF32, a, b, r, '+') }

// SubF16 returns a - b for binary16 patterns (PTX sub.rnd.f16).
func SubF16(a, b uint16, r Round) uint16 { return half16(fmtF16, F16ToF32, a, b, r, '-') }

// MulF16 returns a * b for binary16 patterns (PTX mul.rnd.f16).
func MulF16(a, b uint16, r Round) uint16 { return half16(fmtF16, F16ToF32, a, b, r, '*') }

// FmaF16 returns a*b + c for binary16 patterns with one rounding (PTX fma.rnd.f16).
func FmaF16(a, b, c uint16, r Round) uint16 { return fma16(fmtF16, F16ToF32, a, b, c, r) }

// AddBF16 returns a + b for bfloat16 patterns (PTX add.rnd.bf16).
func AddBF16(a, b uint16, r Round) uint16 { return half16(fmtBF16, BF16ToF32, a, b, r, '+') }

// SubBF16 returns a - b for bfloat16 patterns (PTX sub.rnd.bf16).
func SubBF16(a, b uint16, r Round) uint16 { return half16(fmtBF16, BF16ToF32, a, b, r, '-') }

// MulBF16 returns a * b for bfloat16 patterns (PTX mul.rnd.bf16).
func MulBF16(a, b uint16, r Round) uint16 { return half16(fmtBF16, BF16ToF32, a, b, r, '*') }

// FmaBF16 returns a*b + c for bfloat16 patterns with one rounding (PTX fma.rnd.bf16).
func FmaBF16(a, b, c uint16, r Round) uint16 { return fma16(fmtBF16, BF16ToF32, a, b, c, r) }
