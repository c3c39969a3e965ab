package fpx

import (
	"math"
	"math/big"
	"sync"
)

// Approximate PTX instructions (.approx). NVIDIA documents only error bounds
// for these (PTX ISA 9.7.3, quoted on each function), not the bit patterns
// its special-function unit produces, so no CPU model can be bit-exact to a
// given GPU without measured tables. This package returns, for every input,
// a deterministic value that is the correctly rounded binary32 result except
// possibly when the exact result lies within about 2^-45 relative of a
// rounding boundary; that is at most 0.5 ulp plus a hair, inside every
// documented bound. The special-case tables of the PTX ISA are followed
// exactly. NaN results are the canonical NaN 0x7fffffff.
//
// Determinism: every function is computed with float64 additions,
// multiplications and divisions whose results are wrapped in explicit
// float64 conversions (the Go spec then forbids fusing them into FMAs), with
// math.Sqrt (IEEE correctly rounded on every platform) and math/big; no
// libm-style routine whose last bits depend on the platform is used. The same
// input therefore yields the same bits on every GOARCH.
//
// .ftz handling is left to callers: apply FtzF32 to the operand and to the
// result.

// mad returns a*b + c with the product rounded separately (never fused).
func mad(a, b, c float64) float64 { return float64(a*b) + c }

// exp2Coef[k] = ln(2)^k / k!, the Taylor coefficients of 2^f = e^(f ln 2),
// folded by the compiler from the exact constant math.Ln2.
var exp2Coef = [...]float64{
	1,
	math.Ln2,
	math.Ln2 * math.Ln2 / 2,
	math.Ln2 * math.Ln2 * math.Ln2 / 6,
	math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 / 24,
	math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 / 120,
	math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 / 720,
	math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 / 5040,
	math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 / 40320,
	math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 / 362880,
	math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 / 3628800,
	math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 / 39916800,
	math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 / 479001600,
	math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 * math.Ln2 / 6227020800,
}

// exp2Frac returns 2^f for |f| <= 0.5 with a relative error near 2^-53
// (the truncated Taylor term is below 2^-58).
func exp2Frac(f float64) float64 {
	p := exp2Coef[len(exp2Coef)-1]
	for k := len(exp2Coef) - 2; k >= 0; k-- {
		p = mad(p, f, exp2Coef[k])
	}
	return p
}

// exp2Wide returns 2^x for finite x in [-1100, 1100] as a float64.
func exp2Wide(x float64) float64 {
	n := math.RoundToEven(x)
	return math.Ldexp(exp2Frac(float64(x-n)), int(n))
}

// Ex2Approx models ex2.approx.f32: 2^x. PTX ISA 9.7.3.21: "The maximum ulp
// error is 2 ulp from correctly rounded result across the full range of
// inputs"; -Inf -> +0, ±0 -> +1, +Inf -> +Inf, NaN -> NaN. Subnormal results
// are produced (non-.ftz form).
func Ex2Approx(x float32) float32 {
	v := float64(x)
	switch {
	case x != x:
		return canonNaN32()
	case v >= 128:
		return float32(math.Inf(1))
	case v <= -150: // 2^-150 is half the smallest subnormal: ties to +0
		return 0
	}
	// x - n is exact (x has 24 bits, |n| < 2^8); 2^n scaling is exact.
	return float32(exp2Wide(v))
}

// lg2Coef[k] = 1/(2k+1): log(m) = 2 atanh(s) = 2 sum s^(2k+1)/(2k+1).
var lg2Coef = [...]float64{1, 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11, 1.0 / 13,
	1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21, 1.0 / 23}

// log2Wide returns log2(v) for finite v > 0 (a normal float64).
func log2Wide(v float64) float64 {
	b := math.Float64bits(v)
	e := int(b>>52&0x7ff) - 1023
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52) // [1, 2)
	if m > math.Sqrt2 {
		m *= 0.5
		e++
	}
	// m in [sqrt(1/2), sqrt(2)]: s = (m-1)/(m+1) in [-0.1716, 0.1716];
	// m-1 and m+1 are exact for the 24-bit m of a binary32 operand.
	s := float64((m - 1) / (m + 1))
	w := float64(s * s)
	p := lg2Coef[len(lg2Coef)-1]
	for k := len(lg2Coef) - 2; k >= 0; k-- {
		p = mad(p, w, lg2Coef[k])
	}
	const twoOverLn2 = 2 / math.Ln2
	l := float64(float64(twoOverLn2*s) * p)
	return float64(e) + l
}

// Lg2Approx models lg2.approx.f32: log2(x). PTX ISA 9.7.3.20: "The maximum
// absolute error is 2^-22 when the input operand is in the range (0.5, 2).
// For positive finite inputs outside of this interval, maximum relative error
// is 2^-22"; -Inf and negative -> NaN, ±0 -> -Inf, +Inf -> +Inf.
func Lg2Approx(x float32) float32 {
	v := float64(x)
	switch {
	case x != x || v < 0:
		return canonNaN32()
	case v == 0:
		return float32(math.Inf(-1))
	case math.IsInf(v, 1):
		return x
	}
	return float32(log2Wide(v))
}

// π with 100 decimals (332 bits), enough to reduce any binary32 argument:
// |x| < 2^128 needs 128 + 53 + a few guard bits.
const piDigits = "3.1415926535897932384626433832795028841971693993751058209749445923078164062862089986280348253421170679"

// Cody-Waite split of π/2: pio2a and pio2b have 33 significant bits (n*part
// is exact for |n| < 2^20), pio2c holds the next 53 bits. They are written as
// literals so that the package does no work at init; TestPio2Split derives
// them again from piDigits.
const (
	pio2a = 0x1.921fb544p+00
	pio2b = 0x1.0b4611a6p-34
	pio2c = 0x1.3198a2e037073p-69
)

// bigPi holds π/2 and 2/π at 340 bits for the reduction of huge arguments.
type bigPi struct{ pio2, twoOverPi *big.Float }

// bigPiConsts builds bigPi on first use (never at package init).
var bigPiConsts = sync.OnceValue(func() bigPi {
	pi, _, err := big.ParseFloat(piDigits, 10, 340, big.ToNearestEven)
	if err != nil {
		panic(err) // piDigits is a constant: unreachable
	}
	return bigPi{
		pio2:      new(big.Float).SetPrec(340).Quo(pi, big.NewFloat(2)),
		twoOverPi: new(big.Float).SetPrec(340).Quo(big.NewFloat(2).SetPrec(340), pi),
	}
})

// reducePio2 returns r and q with x = q*(π/2) + r, |r| <= about π/4, for a
// finite binary32 value x (as float64). The absolute error of r is near
// 2^-60 for |x| < 2^19 and below 2^-100 otherwise.
func reducePio2(x float64) (r float64, q int) {
	if math.Abs(x) < 0x1p19 {
		n := math.RoundToEven(float64(x * (2 / math.Pi)))
		r = float64(x - float64(n*pio2a)) // exact (Sterbenz)
		r = float64(r - float64(n*pio2b))
		r = float64(r - float64(n*pio2c))
		return r, int(n) & 3
	}
	// Exact-enough reduction with big.Float for huge arguments.
	X := new(big.Float).SetPrec(340).SetFloat64(x)
	t := new(big.Float).SetPrec(340).Mul(X, bigPiConsts().twoOverPi)
	half := big.NewFloat(0.5)
	if t.Sign() < 0 {
		t.Sub(t, half)
	} else {
		t.Add(t, half)
	}
	ni, _ := t.Int(nil) // truncation of t ± 1/2: nearest integer
	nf := new(big.Float).SetPrec(340).SetInt(ni)
	nf.Mul(nf, bigPiConsts().pio2)
	X.Sub(X, nf)
	r, _ = X.Float64()
	m := new(big.Int).And(ni, big.NewInt(3)) // two's complement semantics
	return r, int(m.Int64())
}

// sinCoef[k] = (-1)^(k+1)/(2k+3)!: sin r = r + r^3 * sum sinCoef[k] r^(2k).
var sinCoef = [...]float64{-1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880,
	-1.0 / 39916800, 1.0 / 6227020800, -1.0 / 1307674368000,
	1.0 / 355687428096000, -1.0 / 121645100408832000}

// cosCoef[k] = (-1)^k/(2k+4)!: cos r = 1 - r^2/2 + r^4 * sum cosCoef[k] r^(2k).
var cosCoef = [...]float64{1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800,
	1.0 / 479001600, -1.0 / 87178291200, 1.0 / 20922789888000,
	-1.0 / 6402373705728000, 1.0 / 2432902008176640000}

func sinPoly(r float64) float64 {
	w := float64(r * r)
	p := sinCoef[len(sinCoef)-1]
	for k := len(sinCoef) - 2; k >= 0; k-- {
		p = mad(p, w, sinCoef[k])
	}
	return r + float64(float64(r*w)*p)
}

func cosPoly(r float64) float64 {
	w := float64(r * r)
	p := cosCoef[len(cosCoef)-1]
	for k := len(cosCoef) - 2; k >= 0; k-- {
		p = mad(p, w, cosCoef[k])
	}
	return float64(1-float64(0.5*w)) + float64(float64(w*w)*p)
}

func sinCos(x float64, wantCos bool) float64 {
	r, q := reducePio2(x)
	if wantCos {
		q++
	}
	switch q & 3 {
	case 0:
		return sinPoly(r)
	case 1:
		return cosPoly(r)
	case 2:
		return -sinPoly(r)
	}
	return -cosPoly(r)
}

// SinApprox models sin.approx.f32. PTX ISA 9.7.3.18: maximum absolute error
// 2^-20.5 in [-2π, 2π] and 2^-14.7 in [-100π, 100π], best effort outside;
// -Inf, +Inf -> NaN, -0 -> -0, +0 -> +0, NaN -> NaN.
func SinApprox(x float32) float32 {
	v := float64(x)
	switch {
	case nonFinite(v):
		return canonNaN32()
	case v == 0:
		return x
	}
	return float32(sinCos(v, false))
}

// CosApprox models cos.approx.f32 (PTX ISA 9.7.3.19, the same bounds as
// sin): ±Inf -> NaN, ±0 -> +1, NaN -> NaN.
func CosApprox(x float32) float32 {
	v := float64(x)
	if nonFinite(v) {
		return canonNaN32()
	}
	return float32(sinCos(v, true))
}

// RcpApprox models rcp.approx.f32: 1/x. PTX ISA 9.7.3.13: "The maximum ulp
// error is 1 across the full range of inputs"; -Inf -> -0, ±0 -> ±Inf,
// +Inf -> +0. The correctly rounded quotient is returned.
func RcpApprox(x float32) float32 { return DivF32(1, x, RN) }

// RsqrtApprox models rsqrt.approx.f32: 1/sqrt(x). PTX ISA 9.7.3.16: "The
// maximum relative error for rsqrt.f32 over the entire positive finite
// floating-point range is 2^-22.9"; -Inf, -normal -> NaN, -0 -> -Inf,
// +0 -> +Inf, +Inf -> +0.
func RsqrtApprox(x float32) float32 {
	v := float64(x)
	switch {
	case x != x:
		return canonNaN32()
	case v == 0:
		return float32(math.Copysign(math.Inf(1), v))
	case v < 0:
		return canonNaN32()
	case math.IsInf(v, 1):
		return 0
	}
	// Two correctly rounded float64 operations: error below 2^-52 relative.
	return float32(float64(1 / math.Sqrt(v)))
}

// SqrtApprox models sqrt.approx.f32. PTX ISA 9.7.3.15: "The maximum relative
// error over the entire positive finite floating-point range is 2^-23";
// -Inf, -normal -> NaN, -0 -> -0, +0 -> +0, +Inf -> +Inf. The correctly
// rounded root is returned.
func SqrtApprox(x float32) float32 { return SqrtF32(x, RN) }

// expm1Coef[k] = 1/(k+2)!: expm1(y) = y + y^2 * sum expm1Coef[k] y^k.
var expm1Coef = [...]float64{1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720,
	1.0 / 5040, 1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800,
	1.0 / 479001600, 1.0 / 6227020800, 1.0 / 87178291200,
	1.0 / 1307674368000, 1.0 / 20922789888000}

// expm1Small returns e^y - 1 for 0 <= y <= 0.5 with relative error near 2^-52.
func expm1Small(y float64) float64 {
	p := expm1Coef[len(expm1Coef)-1]
	for k := len(expm1Coef) - 2; k >= 0; k-- {
		p = mad(p, y, expm1Coef[k])
	}
	return y + float64(float64(y*y)*p)
}

// TanhApprox models tanh.approx.f32. PTX ISA 9.7.3.22: "The maximum relative
// error over the entire floating point range is 2^-11"; -Inf -> -1.0,
// ±0 -> ±0, +Inf -> +1.0, NaN -> NaN, and subnormal inputs pass through.
func TanhApprox(x float32) float32 {
	v := float64(x)
	a := math.Abs(v)
	switch {
	case x != x:
		return canonNaN32()
	case a < 0x1p-13:
		// tanh(x) = x(1 - x^2/3 + ...): within 2^-27 relative of x, which
		// is therefore the correctly rounded result (covers ±0, subnormals).
		return x
	case a >= 10:
		// 1 - tanh(10) < 2^-27, below half an ulp under 1.0.
		return float32(math.Copysign(1, v))
	}
	y := float64(2 * a)
	var em float64
	if y <= 0.5 {
		em = expm1Small(y)
	} else {
		em = float64(exp2Wide(float64(y*math.Log2E)) - 1)
	}
	t := float64(em / float64(em+2))
	return float32(math.Copysign(t, v))
}
