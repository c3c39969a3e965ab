package fpx

import (
	"math"
	"math/big"
)

// Exact reference arithmetic with math/big. big.Float has an unbounded
// exponent and no subnormals, so it is never asked to round to the target
// format (that would round twice near the underflow threshold). Instead it
// computes the exact result (sums and products of binary64 values fit in
// exactPrec bits) or a truncation with a sticky flag (quotients, square
// roots), and format.encode performs the single IEEE rounding. These are the
// slow paths of the float64 functions and the oracle of the fuzz targets.

// exactPrec holds any exact sum of binary64 values of products of two
// binary64 values: the span from 2^2048 down to 2^-2148 is under 4300 bits.
const exactPrec = 4400

func bigOf(x float64) *big.Float { return new(big.Float).SetPrec(exactPrec).SetFloat64(x) }

// unpackBig converts a finite nonzero big.Float (plus an external sticky flag
// for discarded bits below it) to the unpacked form: the leading 64 bits of
// the significand and a sticky bit for anything below them.
func unpackBig(z *big.Float, sticky bool) unpacked {
	m := new(big.Float)
	e := z.MantExp(m) // z = m * 2^e, 0.5 <= |m| < 1
	neg := m.Signbit()
	m.Abs(m)
	m.SetMantExp(m, 64) // [2^63, 2^64)
	u, acc := m.Uint64()
	return unpacked{neg: neg, mant: u, exp: e - 64, sticky: sticky || acc != big.Exact}
}

// roundBig rounds the exact value z (+ sticky) to f; zero is the caller's.
func roundBig(f format, z *big.Float, sticky bool, r Round) uint64 {
	return f.encode(unpackBig(z, sticky), r, false)
}

func zeroEnc(f format, z float64) uint64 {
	if math.Signbit(z) {
		return f.signBit()
	}
	return 0
}

// refAdd rounds the exact a + b to f (finite operands).
func refAdd(f format, a, b float64, r Round) uint64 {
	z := bigOf(a)
	z.Add(z, bigOf(b))
	if z.Sign() == 0 {
		return zeroEnc(f, zeroSum(a, b, r))
	}
	return roundBig(f, z, false, r)
}

// refMul rounds the exact a * b to f (finite operands).
func refMul(f format, a, b float64, r Round) uint64 {
	if a == 0 || b == 0 {
		return zeroEnc(f, a*b)
	}
	z := bigOf(a)
	z.Mul(z, bigOf(b))
	return roundBig(f, z, false, r)
}

// refFma rounds the exact a*b + c to f (finite operands).
func refFma(f format, a, b, c float64, r Round) uint64 {
	z := bigOf(a)
	z.Mul(z, bigOf(b))
	z.Add(z, bigOf(c))
	if z.Sign() == 0 {
		return zeroEnc(f, zeroSum(a*b, c, r)) // a*b only supplies the sign of a zero product
	}
	return roundBig(f, z, false, r)
}

// refDiv rounds a / b to f (finite, nonzero operands): the quotient is
// truncated to 200 bits (far more than any format needs) and the accuracy
// tells whether anything was discarded.
func refDiv(f format, a, b float64, r Round) uint64 {
	z := new(big.Float).SetPrec(200).SetMode(big.ToZero)
	z.Quo(bigOf(a), bigOf(b))
	return roundBig(f, z, z.Acc() != big.Exact, r)
}

// refSqrt rounds sqrt(x) to f for finite x > 0 using an integer square root:
// x = m * 2^e with e even, scaled so the root has at least 128 bits; the
// truncated integer root and the exactness of its square give the sticky
// bit.
func refSqrt(f format, x float64, r Round) uint64 {
	u := unpack64(x)
	m := new(big.Int).SetUint64(u.mant)
	e := u.exp
	sh := 256
	if (e-sh)%2 != 0 {
		sh++
	}
	m.Lsh(m, uint(sh))
	e -= sh
	s := new(big.Int).Sqrt(m)
	sq := new(big.Int).Mul(s, s)
	sticky := sq.Cmp(m) != 0
	z := new(big.Float).SetInt(s)
	z.SetMantExp(z, e/2)
	return roundBig(f, z, sticky, r)
}

func refMul64(a, b float64, r Round) float64 {
	return math.Float64frombits(refMul(fmtF64, a, b, r))
}

func refDiv64(a, b float64, r Round) float64 {
	return math.Float64frombits(refDiv(fmtF64, a, b, r))
}

func refSqrt64(x float64, r Round) float64 {
	return math.Float64frombits(refSqrt(fmtF64, x, r))
}

func refFma64(a, b, c float64, r Round) float64 {
	return math.Float64frombits(refFma(fmtF64, a, b, c, r))
}
