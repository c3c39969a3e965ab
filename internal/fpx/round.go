package fpx

import (
	"math"
	"math/bits"
	"strings"
)

// Round is an IEEE 754-2008 rounding-direction attribute (clause 4.3) as
// selected by a PTX rounding modifier.
type Round uint8

const (
	// RN rounds to nearest, ties to even (IEEE roundTiesToEven; PTX .rn, .rni).
	RN Round = iota
	// RZ rounds toward zero (IEEE roundTowardZero; PTX .rz, .rzi).
	RZ
	// RM rounds toward negative infinity (IEEE roundTowardNegative; PTX .rm, .rmi).
	RM
	// RP rounds toward positive infinity (IEEE roundTowardPositive; PTX .rp, .rpi).
	RP
	// RNA rounds to nearest, ties away from zero (IEEE roundTiesToAway; PTX .rna).
	RNA
)

var roundNames = [...]string{RN: "rn", RZ: "rz", RM: "rm", RP: "rp", RNA: "rna"}

// String returns the PTX spelling of r without the leading dot ("rn", ...).
func (r Round) String() string {
	if int(r) < len(roundNames) {
		return roundNames[r]
	}
	return "Round(" + itoa(int(r)) + ")"
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	neg := v < 0
	if neg {
		v = -v
	}
	var b [20]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// ParseRound maps a PTX rounding modifier to a Round. It accepts the
// floating-point forms ".rn", ".rz", ".rm", ".rp", ".rna" and the integer
// rounding forms ".rni", ".rzi", ".rmi", ".rpi" (PTX ISA, cvt: "integer
// rounding" rounds to an integral value in the given direction, so each maps
// to the same direction). The leading dot is optional.
func ParseRound(mod string) (Round, bool) {
	switch strings.TrimPrefix(mod, ".") {
	case "rn", "rni":
		return RN, true
	case "rz", "rzi":
		return RZ, true
	case "rm", "rmi":
		return RM, true
	case "rp", "rpi":
		return RP, true
	case "rna":
		return RNA, true
	}
	return 0, false
}

// format describes a binary floating-point interchange format (IEEE 754-2008
// clause 3.3: precision p = mbits+1, emax = bias, emin = 1-emax) or one of the
// 8-bit formats of the OCP FP8 specification used by PTX .e4m3/.e5m2.
type format struct {
	mbits uint // trailing significand field width (t in IEEE 754 3.3)
	ebits uint // biased exponent field width (w)
	bias  int
	noInf bool // E4M3: no infinities; only S.1111.111 is NaN, S.1111.xxx otherwise finite
}

var (
	fmtF16  = format{mbits: 10, ebits: 5, bias: 15}
	fmtBF16 = format{mbits: 7, ebits: 8, bias: 127}
	fmtTF32 = format{mbits: 10, ebits: 8, bias: 127}
	fmtF32  = format{mbits: 23, ebits: 8, bias: 127}
	fmtF64  = format{mbits: 52, ebits: 11, bias: 1023}
	fmtE4M3 = format{mbits: 3, ebits: 4, bias: 7, noInf: true}
	fmtE5M2 = format{mbits: 2, ebits: 5, bias: 15}
)

func (f format) emin() int { return 1 - f.bias }

// infEnc is the magnitude encoding of infinity (IEEE formats only).
func (f format) infEnc() uint64 { return ((uint64(1) << f.ebits) - 1) << f.mbits }

// maxEnc is the magnitude encoding of the largest finite value.
func (f format) maxEnc() uint64 {
	if f.noInf {
		// E4M3: exponent field all ones is finite except mantissa all ones (NaN).
		return f.infEnc() | ((uint64(1) << f.mbits) - 2)
	}
	return f.infEnc() - 1
}

// nanEnc is the canonical quiet NaN magnitude encoding (all ones below the sign).
func (f format) nanEnc() uint64 { return (uint64(1) << (f.mbits + f.ebits)) - 1 }

func (f format) signBit() uint64 { return uint64(1) << (f.mbits + f.ebits) }

// unpacked is a nonnegative-magnitude finite value with a sign:
//
//	|v| = mant * 2^exp + δ,  δ = 0 if !sticky, 0 < δ < 2^exp if sticky.
//
// sticky records that nonzero bits were discarded below mant's last bit
// (the IEEE "sticky bit"). mant == 0 means zero (sticky is then ignored).
type unpacked struct {
	neg    bool
	mant   uint64
	exp    int
	sticky bool
}

// roundMag rounds u to format f under r with an unbounded exponent range
// above and gradual underflow below (IEEE 754-2008 4.3 and 7.5: rounding is
// done as if the exponent range were unbounded, and subnormal results keep
// the quantum 2^(emin-t)). It returns the magnitude encoding (exponent field
// and trailing significand, no sign), and overflow = true when the rounded
// value exceeds the largest finite value (then enc is meaningless).
func (f format) roundMag(u unpacked, r Round) (enc uint64, overflow bool) {
	if u.mant == 0 {
		return 0, false
	}
	mb := int(f.mbits)
	nb := bits.Len64(u.mant)
	e := u.exp + nb - 1 // exponent of the leading one bit
	emin := f.emin()
	// Largest exponent with a finite encoding, plus generous slack: anything
	// above certainly overflows (avoids shifting huge values).
	emaxFinite := (1 << f.ebits) - 1 - f.bias
	if e > emaxFinite+1 {
		return 0, true
	}
	qexp := e // exponent of the quantum (last kept bit)
	if qexp < emin {
		qexp = emin
	}
	qexp -= mb
	shift := qexp - u.exp

	var kept uint64
	var above, tie, exact bool // relation of the discarded tail to half a quantum
	switch {
	case shift <= 0:
		kept = u.mant << uint(-shift) // exact: nb-shift <= mb+1 bits
		exact = !u.sticky
	case shift > 64:
		// Everything is discarded and the tail is below half a quantum
		// (mant < 2^64 <= 2^(shift-1)).
		kept = 0
		exact = false
	default:
		var rem, half uint64
		if shift == 64 {
			kept, rem = 0, u.mant
		} else {
			kept = u.mant >> uint(shift)
			rem = u.mant & ((uint64(1) << uint(shift)) - 1)
		}
		half = uint64(1) << uint(shift-1)
		above = rem > half || (rem == half && u.sticky)
		tie = rem == half && !u.sticky
		exact = rem == 0 && !u.sticky
	}
	inc := false
	switch r {
	case RN:
		inc = above || (tie && kept&1 == 1)
	case RNA:
		inc = above || tie
	case RZ:
	case RP:
		inc = !u.neg && !exact
	case RM:
		inc = u.neg && !exact
	}
	if inc {
		kept++
	}
	// For subnormals qexp-(emin-mb) == 0 and kept is the trailing field (a
	// carry into bit mb yields the smallest normal). For normals kept holds
	// the implicit bit, which adds one to the exponent field; a carry out of
	// the significand adds one more, as IEEE requires.
	enc = (uint64(qexp-(emin-mb)) << f.mbits) + kept
	if enc > f.maxEnc() {
		return 0, true
	}
	return enc, false
}

// encode rounds u to f under r and applies the overflow rules of IEEE 754
// clause 7.4: round-to-nearest modes give infinity; RZ gives the largest
// finite value; RP gives +inf for positive and -max for negative results; RM
// the mirror image. With sat (PTX .satfinite) overflow always gives the
// signed largest finite value. In a format without infinities (E4M3), an
// overflow that would give infinity gives NaN instead (OCP FP8 §5.2,
// non-saturating mode).
func (f format) encode(u unpacked, r Round, sat bool) uint64 {
	enc, ovf := f.roundMag(u, r)
	if ovf {
		toInf := false
		switch r {
		case RN, RNA:
			toInf = true
		case RP:
			toInf = !u.neg
		case RM:
			toInf = u.neg
		}
		switch {
		case sat || !toInf:
			enc = f.maxEnc()
		case f.noInf:
			enc = f.nanEnc()
		default:
			enc = f.infEnc()
		}
	}
	if u.neg {
		enc |= f.signBit()
	}
	return enc
}

// unpack64 splits a finite float64 into an exact unpacked value.
func unpack64(x float64) unpacked {
	b := math.Float64bits(x)
	u := unpacked{neg: b>>63 != 0}
	ef := int(b>>52) & 0x7ff
	fr := b & (1<<52 - 1)
	if ef == 0 {
		u.mant, u.exp = fr, -1074
	} else {
		u.mant, u.exp = fr|1<<52, ef-1075
	}
	return u
}

// unpack32 splits a finite float32 into an exact unpacked value.
func unpack32(x float32) unpacked {
	b := math.Float32bits(x)
	u := unpacked{neg: b>>31 != 0}
	ef := int(b>>23) & 0xff
	fr := uint64(b & (1<<23 - 1))
	if ef == 0 {
		u.mant, u.exp = fr, -149
	} else {
		u.mant, u.exp = fr|1<<23, ef-150
	}
	return u
}

// withDir returns the unpacked form of s + t, where s is a finite nonzero
// float64 and the exact value lies strictly between s and its float64
// neighbour in the direction of the sign of dir (dir > 0: above, in the
// signed sense), or equals s when dir == 0. Only the sign of dir matters.
//
// The result has two extra bits below s's last bit: when the deviation is
// away from zero it is s with the sticky bit set; toward zero it is
// s - 1/4 ulp with the sticky bit set. Both represent an interval that
// contains no rounding boundary of any format with at most 51 significand
// bits, so one rounding of it to such a format equals the rounding of the
// exact value (the same argument as Boldo & Melquiond's round-to-odd: the
// float64 value carries >= p+2 bits).
func withDir(s float64, dir float64) unpacked {
	u := unpack64(s)
	if dir == 0 || dir != dir {
		return u
	}
	u.mant <<= 2
	u.exp -= 2
	if (dir < 0) != u.neg { // deviation toward zero
		u.mant--
	}
	u.sticky = true
	return u
}

// twoSum returns s = RN(a+b) and t such that s + t == a + b exactly
// (Knuth's TwoSum; IEEE arithmetic, no overflow). It uses only additions, so
// no fused multiply-add contraction can change it.
func twoSum(a, b float64) (s, t float64) {
	s = a + b
	bb := float64(s - a)
	t = float64(a-float64(s-bb)) + float64(b-bb)
	return s, t
}

// zeroSum returns the IEEE 754-2008 6.3 sign of an exact zero sum x + y:
// the common sign when both addends are zeros of the same sign, otherwise
// +0, or -0 under roundTowardNegative.
func zeroSum(x, y float64, r Round) float64 {
	if x == 0 && y == 0 && math.Signbit(x) == math.Signbit(y) {
		return x
	}
	if r == RM {
		return math.Copysign(0, -1)
	}
	return 0
}
