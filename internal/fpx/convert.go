package fpx

import "math"

// Canonical NaN encodings produced by arithmetic (untyped constants, usable
// with any integer type). PTX (and NVIDIA hardware) return a canonical NaN
// rather than propagating an input payload: for .f32 it is 0x7fffffff (PTX
// ISA, e.g. min/max ".NaN": "the result is canonical NaN"). For .f16/.bf16
// the all-ones pattern below the sign is used likewise. CanonicalNaN64 is
// this package's choice for .f64 results by the same rule; the PTX ISA names
// a .f64 canonical NaN (0x7fffffff00000000) only for rcp.approx.ftz.f64 and
// rsqrt.approx.ftz.f64, which this package does not model.
const (
	CanonicalNaN32   = 0x7fffffff
	CanonicalNaN64   = 0x7fffffffffffffff
	CanonicalNaNF16  = 0x7fff
	CanonicalNaNBF16 = 0x7fff
	// CanonicalNaNF8 is the NaN produced for .e4m3 and .e5m2 results.
	CanonicalNaNF8 = 0x7f
)

func canonNaN32() float32 { return math.Float32frombits(CanonicalNaN32) }
func canonNaN64() float64 { return math.Float64frombits(CanonicalNaN64) }

// Conversions between floating-point formats follow IEEE 754-2008 5.4.2
// (formatOf-convertFormat): the exact source value is rounded once to the
// destination format under the given direction.
//
// NaN policy for format conversions (not arithmetic): the sign and the
// leading payload bits are kept, as IEEE 754-2008 6.2.3 recommends; when
// narrowing would leave a zero trailing significand (which would encode an
// infinity) the quiet bit is set instead. Widening (F16ToF32, BF16ToF32)
// never changes a NaN's payload, so f16 -> f32 -> f16 is the identity on all
// 65536 patterns. Hardware may canonicalise NaNs in cvt; callers that need
// that can test for NaN and substitute the canonical pattern.

// narrowNaN converts the NaN with sign neg and trailing significand frac of
// width srcBits into format f.
func narrowNaN(f format, neg bool, frac uint64, srcBits uint) uint64 {
	p := frac >> (srcBits - f.mbits)
	if p == 0 {
		p = uint64(1) << (f.mbits - 1) // quiet bit
	}
	enc := f.infEnc() | p
	if neg {
		enc |= f.signBit()
	}
	return enc
}

// fromF32 rounds the float32 x to f (x finite, nonzero handled by encode).
func fromF32(f format, x float32, r Round, sat bool) uint64 {
	b := math.Float32bits(x)
	neg := b>>31 != 0
	switch {
	case b&0x7fffffff == 0: // ±0
		if neg {
			return f.signBit()
		}
		return 0
	case b&0x7f800000 == 0x7f800000:
		if b&0x007fffff != 0 { // NaN
			if f.noInf {
				return f.nanEnc()
			}
			return narrowNaN(f, neg, uint64(b&0x007fffff), 23)
		}
		// ±Inf: exact in IEEE formats; .satfinite gives ±max; E4M3 has no
		// infinity and gives NaN without .satfinite.
		return f.infinity(neg, sat)
	}
	return f.encode(unpack32(x), r, sat)
}

// infinity is ±Inf rounded to f: ±Inf in IEEE formats, ±max with
// .satfinite, NaN in formats without an infinity (E4M3) without .satfinite.
func (f format) infinity(neg, sat bool) uint64 {
	var enc uint64
	switch {
	case sat:
		enc = f.maxEnc()
	case f.noInf:
		return f.nanEnc()
	default:
		enc = f.infEnc()
	}
	if neg {
		enc |= f.signBit()
	}
	return enc
}

// fromF64 rounds the float64 x to f.
func fromF64(f format, x float64, r Round, sat bool) uint64 {
	b := math.Float64bits(x)
	neg := b>>63 != 0
	switch {
	case b<<1 == 0:
		if neg {
			return f.signBit()
		}
		return 0
	case b&0x7ff0000000000000 == 0x7ff0000000000000:
		if b&(1<<52-1) != 0 {
			if f.noInf {
				return f.nanEnc()
			}
			return narrowNaN(f, neg, b&(1<<52-1), 52)
		}
		return f.infinity(neg, sat)
	}
	return f.encode(unpack64(x), r, sat)
}

// F32ToF16 converts x to IEEE binary16 (PTX cvt.rnd.f16.f32), rounding once.
// Example: 65520 is the midpoint between 65504 (0x7bff) and 2^16; RN ties to
// the even candidate 2^16, which overflows to +inf (0x7c00); RZ gives 0x7bff.
func F32ToF16(x float32, r Round) uint16 {
	if r == RN {
		// Fast path for results in the binary16 normal range (and overflow):
		// keep the top 10 fraction bits and round the 13 discarded bits to
		// nearest even; a carry moves into the exponent field (and from
		// 0x7bff into the infinity encoding, which is RN's overflow result).
		b := math.Float32bits(x)
		if e := b >> 23 & 0xff; e >= 127-14 && e <= 127+15 {
			h := (e-127+15)<<10 | b>>13&0x3ff
			if rem := b & 0x1fff; rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
				h++
			}
			return uint16(h | b>>16&0x8000)
		}
	}
	return uint16(fromF32(fmtF16, x, r, false))
}

// F64ToF16 converts x to binary16 directly (one rounding, no intermediate
// float32, so no double rounding; PTX cvt.rnd.f16.f64).
func F64ToF16(x float64, r Round) uint16 { return uint16(fromF64(fmtF16, x, r, false)) }

// F16ToF32 widens a binary16 pattern to float32; every binary16 value is
// exactly representable in binary32, so this is exact (IEEE 754-2008 5.4.2).
func F16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	e := uint32(h>>10) & 0x1f
	m := uint32(h & 0x3ff)
	switch {
	case e == 0x1f: // Inf/NaN: payload kept in the top bits
		return math.Float32frombits(sign | 0x7f800000 | m<<13)
	case e != 0:
		return math.Float32frombits(sign | (e+127-15)<<23 | m<<13)
	case m == 0:
		return math.Float32frombits(sign)
	}
	// Subnormal: value m * 2^-24; normalise.
	sh := uint32(0)
	for m&0x400 == 0 {
		m <<= 1
		sh++
	}
	return math.Float32frombits(sign | (127-15+1-sh)<<23 | (m&0x3ff)<<13)
}

// F32ToBF16 converts x to bfloat16 (8-bit exponent, 7-bit trailing
// significand; PTX cvt.rnd.bf16.f32). Example: 0x3f808000 = 1 + 2^-8 is the
// midpoint between 0x3f80 and 0x3f81; RN ties to even, 0x3f80.
func F32ToBF16(x float32, r Round) uint16 {
	if r == RN {
		// Fast path: bfloat16 has binary32's exponent range, so rounding the
		// low 16 bits to nearest even on the integer pattern is exact for
		// every finite input (carries reach the exponent and, from the
		// largest value, the infinity encoding, as IEEE RN requires).
		b := math.Float32bits(x)
		if b&0x7f800000 != 0x7f800000 {
			return uint16((b + 0x7fff + (b >> 16 & 1)) >> 16)
		}
	}
	return uint16(fromF32(fmtBF16, x, r, false))
}

// F64ToBF16 converts x to bfloat16 with a single rounding.
func F64ToBF16(x float64, r Round) uint16 { return uint16(fromF64(fmtBF16, x, r, false)) }

// BF16ToF32 widens a bfloat16 pattern to float32 (exact: bfloat16 is the top
// half of a binary32 pattern).
func BF16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// F32ToTF32 rounds x to TensorFloat-32 (binary32's 8-bit exponent with a
// 10-bit trailing significand) and returns the result as a binary32 pattern
// whose low 13 bits are zero (PTX cvt.rna.tf32.f32: ".rna" rounds to nearest,
// ties away from zero; newer PTX also allows .rn and .rz). Infinities and
// zeros pass through; NaNs keep sign and leading payload (quiet bit set if
// the kept payload would be zero). Overflow follows encode's IEEE rules (RNA
// of values at or above the last midpoint gives infinity).
func F32ToTF32(x float32, r Round) uint32 {
	return uint32(fromF32(fmtTF32, x, r, false)) << 13
}

// F64ToF32 converts x to binary32 with a single rounding (PTX cvt.rnd.f32.f64).
func F64ToF32(x float64, r Round) float32 {
	if r == RN {
		return float32(x) // Go's conversion is IEEE roundTiesToEven
	}
	return math.Float32frombits(uint32(fromF64(fmtF32, x, r, false)))
}

// F32ToE4M3 converts x to the OCP FP8 E4M3 format (PTX .e4m3: bias 7, no
// infinities, S.1111.111 is NaN, largest finite 448 = 0x7e). PTX requires
// .satfinite with .rn for f32 -> e4m3; with satfinite, results (and
// infinities) beyond ±448 become ±448 and NaN stays NaN (0x7f). Without
// satfinite, overflow to "infinity" yields NaN since E4M3 has none.
func F32ToE4M3(x float32, r Round, satfinite bool) uint8 {
	return uint8(fromF32(fmtE4M3, x, r, satfinite))
}

// F32ToE5M2 converts x to the OCP FP8 E5M2 format (PTX .e5m2: IEEE-like,
// bias 15, largest finite 57344 = 0x7b, infinity 0x7c). With satfinite,
// overflow and infinities give ±57344; NaN gives a NaN.
func F32ToE5M2(x float32, r Round, satfinite bool) uint8 {
	return uint8(fromF32(fmtE5M2, x, r, satfinite))
}

// E4M3ToF32 widens an E4M3 byte exactly. The NaN patterns 0x7f/0xff give the
// canonical binary32 NaN.
func E4M3ToF32(b uint8) float32 {
	sign := uint32(b&0x80) << 24
	e := uint32(b>>3) & 0xf
	m := uint32(b & 7)
	switch {
	case e == 0xf && m == 7:
		return canonNaN32()
	case e != 0:
		return math.Float32frombits(sign | (e+127-7)<<23 | m<<20)
	case m == 0:
		return math.Float32frombits(sign)
	}
	// Subnormal: m * 2^-9.
	return math.Float32frombits(sign | math.Float32bits(float32(m)*(1.0/512)))
}

// E5M2ToF32 widens an E5M2 byte exactly. E5M2 is the top byte of a binary16
// pattern, so NaN payloads are kept as F16ToF32 keeps them.
func E5M2ToF32(b uint8) float32 { return F16ToF32(uint16(b) << 8) }

// RoundToInt64 rounds x to an integral float64 in direction r (IEEE 754-2008
// 5.9 roundToIntegral*; PTX cvt.rni/rzi/rmi/rpi.f64.f64). Zeros, infinities
// and values already integral are returned unchanged (the sign of a zero
// result follows the operand, e.g. RZ(-0.5) = -0). NaN gives the canonical
// NaN.
func RoundToInt64(x float64, r Round) float64 {
	if x != x {
		return canonNaN64()
	}
	switch r {
	case RZ:
		return math.Trunc(x)
	case RM:
		return math.Floor(x)
	case RP:
		return math.Ceil(x)
	case RNA:
		return math.Round(x)
	}
	return math.RoundToEven(x)
}

// RoundToInt32 is RoundToInt64 for float32 (PTX cvt.rni.f32.f32 etc.). Every
// integral value of magnitude below 2^24 and every float32 at or above 2^23
// is exact in float32, so rounding through float64 is exact.
func RoundToInt32(x float32, r Round) float32 {
	if x != x {
		return canonNaN32()
	}
	return float32(RoundToInt64(float64(x), r))
}

// intRange returns the destination range of a PTX integer type.
func intRange(bits int, signed bool) (lo, hi float64) {
	if signed {
		return -math.Ldexp(1, bits-1), math.Ldexp(1, bits-1) // hi exclusive
	}
	return 0, math.Ldexp(1, bits)
}

// FloatToInt converts x to an integer as PTX cvt does for float-to-integer
// conversions: x is rounded to an integral value in direction r (the .rni,
// .rzi, .rmi, .rpi modifiers), NaN gives 0 ("In float-to-integer conversion,
// NaN inputs are converted to 0", PTX ISA cvt), and results outside the
// destination range saturate to its minimum or maximum (PTX: float-to-integer
// conversions clamp to MININT..MAXINT of the destination). bits is 8, 16, 32
// or 64; the result is the two's complement pattern in the low bits bits.
// Callers converting from f16/f32 pass the exact float64 value.
func FloatToInt(x float64, r Round, bits int, signed bool) uint64 {
	if bits <= 0 || bits > 64 {
		panic("fpx: FloatToInt bits must be in 1..64")
	}
	if x != x {
		return 0
	}
	v := RoundToInt64(x, r)
	lo, hi := intRange(bits, signed)
	mask := ^uint64(0) >> (64 - uint(bits))
	switch {
	case v < lo:
		if signed {
			return (uint64(1) << uint(bits-1)) & mask // MININT
		}
		return 0
	case v >= hi:
		if signed {
			return (uint64(1)<<uint(bits-1) - 1) & mask // MAXINT
		}
		return mask
	}
	if v < 0 {
		return uint64(int64(v)) & mask
	}
	if v >= 0x1p63 {
		return uint64(v-0x1p63) | 1<<63 // only for unsigned 64-bit
	}
	return uint64(v) & mask
}

// intOperand extracts the integer value of the low bits bits of v.
func intOperand(v uint64, signed bool, bits int) (neg bool, mag uint64) {
	if bits <= 0 || bits > 64 {
		panic("fpx: integer width must be in 1..64")
	}
	sh := uint(64 - bits)
	v = v << sh >> sh
	if signed && bits > 0 && v>>(uint(bits)-1)&1 == 1 {
		s := int64(v<<sh) >> sh // sign-extend
		return true, uint64(-s) // -MinInt64 wraps to 1<<63, the right magnitude
	}
	return false, v
}

// IntToF32 converts the integer in the low bits bits of v (two's complement
// when signed) to binary32 with one rounding in direction r (PTX
// cvt.rnd.f32.{s,u}{8,16,32,64}).
func IntToF32(v uint64, signed bool, bits int, r Round) float32 {
	neg, mag := intOperand(v, signed, bits)
	return math.Float32frombits(uint32(fmtF32.encode(unpacked{neg: neg, mant: mag}, r, false)))
}

// IntToF64 converts like IntToF32 to binary64 (PTX cvt.rnd.f64.{s,u}64 is
// the only inexact case).
func IntToF64(v uint64, signed bool, bits int, r Round) float64 {
	neg, mag := intOperand(v, signed, bits)
	return math.Float64frombits(fmtF64.encode(unpacked{neg: neg, mant: mag}, r, false))
}
