package fpx

import (
	"fmt"
	"math"
	"testing"
)

// Expected values in these tables are derived by hand from the IEEE 754-2008
// rules; each row's comment gives the reasoning. Notation: ulp(x) is the
// spacing of the destination format at x; "tie" means the exact value is the
// midpoint of two representable neighbours.

func f32(b uint32) float32 { return math.Float32frombits(b) }
func f64(b uint64) float64 { return math.Float64frombits(b) }

var allRounds = []Round{RN, RZ, RM, RP, RNA}

// rs expands a per-mode expectation list in the order RN, RZ, RM, RP, RNA.
type rs [5]uint64

type convCase struct {
	name string
	in   uint64 // source bit pattern
	want rs
}

func runConv(t *testing.T, label string, cases []convCase, conv func(in uint64, r Round) uint64) int {
	t.Helper()
	n := 0
	for _, c := range cases {
		for i, r := range allRounds {
			got := conv(c.in, r)
			if got != c.want[i] {
				t.Errorf("%s %s (%#x) %s: got %#x, want %#x", label, c.name, c.in, r, got, c.want[i])
			}
			n++
		}
	}
	return n
}

// same5 is an expectation that does not depend on the rounding direction.
func same5(v uint64) rs { return rs{v, v, v, v, v} }

func TestF32ToF16Table(t *testing.T) {
	cases := []convCase{
		// 1.0 = 2^0: biased exponent 15, fraction 0 -> 0x3c00 (exact).
		{"1.0", 0x3f800000, same5(0x3c00)},
		// -2.0: sign 1, exponent 16 -> 0xc000.
		{"-2.0", 0xc0000000, same5(0xc000)},
		// 65504 = largest finite binary16 (0x7bff), exact.
		{"65504", 0x477fe000, same5(0x7bff)},
		// 65520 is the midpoint of 65504 and 2^16. RN ties to the even
		// candidate 2^16 (0x7bff has odd fraction 0x3ff), which overflows to
		// inf; RZ/RM stay at max; RP and RNA go up to inf.
		{"65520", 0x477ff000, rs{0x7c00, 0x7bff, 0x7bff, 0x7c00, 0x7c00}},
		{"-65520", 0xc77ff000, rs{0xfc00, 0xfbff, 0xfc00, 0xfbff, 0xfc00}},
		// 65519 is below the midpoint: RN gives max; RP overflows to inf.
		{"65519", 0x477fef00, rs{0x7bff, 0x7bff, 0x7bff, 0x7c00, 0x7bff}},
		// 2^-25 is half the smallest subnormal 2^-24: RN ties to even (0),
		// RNA away (0x0001), RP up, RZ/RM down.
		{"2^-25", 0x33000000, rs{0x0000, 0x0000, 0x0000, 0x0001, 0x0001}},
		{"-2^-25", 0xb3000000, rs{0x8000, 0x8000, 0x8001, 0x8000, 0x8001}},
		// 2^-24 is the smallest subnormal, exact.
		{"2^-24", 0x33800000, same5(0x0001)},
		// 0.75*2^-24 is above the half: RN up to 0x0001, RZ to 0.
		{"0.75*2^-24", 0x33400000, rs{0x0001, 0x0000, 0x0000, 0x0001, 0x0001}},
		// 1.5*2^-24: tie between 1 and 2 units: RN even -> 2.
		{"1.5*2^-24", 0x33c00000, rs{0x0002, 0x0001, 0x0001, 0x0002, 0x0002}},
		// 2.5*2^-24: tie between 2 and 3 units: RN even -> 2, RNA -> 3.
		{"2.5*2^-24", 0x34200000, rs{0x0002, 0x0002, 0x0002, 0x0003, 0x0003}},
		// 2^-14, the smallest normal: exponent field 1.
		{"2^-14", 0x38800000, same5(0x0400)},
		// 1023*2^-24, the largest subnormal, exact.
		{"maxsub", 0x387fc000, same5(0x03ff)},
		// 1023.5*2^-24: tie between 0x03ff (odd) and 0x0400 (even).
		{"maxsub+half", 0x387fe000, rs{0x0400, 0x03ff, 0x03ff, 0x0400, 0x0400}},
		// 1 + 2^-11: tie between 1 (0x3c00, even) and 1+2^-10.
		{"1+2^-11", 0x3f801000, rs{0x3c00, 0x3c00, 0x3c00, 0x3c01, 0x3c01}},
		// 1 + 3*2^-11: tie between 0x3c01 (odd) and 0x3c02 (even).
		{"1+3*2^-11", 0x3f803000, rs{0x3c02, 0x3c01, 0x3c01, 0x3c02, 0x3c02}},
		// 1 + 2^-11 + 2^-23: just above the tie.
		{"1+2^-11+2^-23", 0x3f801001, rs{0x3c01, 0x3c00, 0x3c00, 0x3c01, 0x3c01}},
		// -(1 + 2^-11): mirror image; RM goes away from zero.
		{"-(1+2^-11)", 0xbf801000, rs{0xbc00, 0xbc00, 0xbc01, 0xbc00, 0xbc01}},
		// Infinities are exact.
		{"+inf", 0x7f800000, same5(0x7c00)},
		{"-inf", 0xff800000, same5(0xfc00)},
		// NaN: sign and top payload bits kept (0x400000>>13 = 0x200).
		{"qnan", 0x7fc00000, same5(0x7e00)},
		{"-qnan", 0xffc00000, same5(0xfe00)},
		// Payload 0x200000 >> 13 = 0x100 (signaling kept as is).
		{"snan-top", 0x7fa00000, same5(0x7d00)},
		// Payload only in the low 13 bits would vanish: quiet bit set.
		{"snan-low", 0x7f800001, same5(0x7e00)},
		{"-0", 0x80000000, same5(0x8000)},
		// 1e-10 is far below 2^-25: zero except RP (and RM for negatives).
		{"1e-10", 0x2edbe6ff, rs{0, 0, 0, 0x0001, 0}},
		// Largest binary32: overflow rules (RN inf, RZ/RM max, RP inf).
		{"maxf32", 0x7f7fffff, rs{0x7c00, 0x7bff, 0x7bff, 0x7c00, 0x7c00}},
		// 0.1f = 0.100000001490116: between 0x2e66 (0.0999755859375) and
		// 0x2e67 (0.10003662109375), below their midpoint 0.1000061035.
		{"0.1", 0x3dcccccd, rs{0x2e66, 0x2e66, 0x2e66, 0x2e67, 0x2e66}},
	}
	runConv(t, "F32ToF16", cases, func(in uint64, r Round) uint64 {
		return uint64(F32ToF16(f32(uint32(in)), r))
	})
}

func TestF64ToF16Table(t *testing.T) {
	cases := []convCase{
		// 1 + 2^-11 + 2^-40: above the f16 midpoint, so RN rounds up to
		// 0x3c01. Rounding through binary32 first would lose 2^-40 (below
		// half an f32 ulp) and then tie to even 0x3c00: the direct
		// conversion must not double-round.
		{"1+2^-11+2^-40", math.Float64bits(1 + 0x1p-11 + 0x1p-40), rs{0x3c01, 0x3c00, 0x3c00, 0x3c01, 0x3c01}},
		// 2^-25 + 2^-60: above half the smallest subnormal.
		{"2^-25+2^-60", math.Float64bits(0x1p-25 + 0x1p-60), rs{0x0001, 0, 0, 0x0001, 0x0001}},
		// 1e300 overflows.
		{"1e300", math.Float64bits(1e300), rs{0x7c00, 0x7bff, 0x7bff, 0x7c00, 0x7c00}},
		// -1e-300 underflows; RM goes to -smallest subnormal.
		{"-1e-300", math.Float64bits(-1e-300), rs{0x8000, 0x8000, 0x8001, 0x8000, 0x8000}},
		// Exact values.
		{"0.5", math.Float64bits(0.5), same5(0x3800)},
		{"f64 NaN", 0x7ff8000000000000, same5(0x7e00)},
	}
	runConv(t, "F64ToF16", cases, func(in uint64, r Round) uint64 {
		return uint64(F64ToF16(f64(in), r))
	})
}

func TestF16ToF32Table(t *testing.T) {
	cases := []struct {
		h    uint16
		want uint32
	}{
		{0x3c00, 0x3f800000}, // 1.0
		{0x0001, 0x33800000}, // 2^-24 (subnormal normalised)
		{0x03ff, 0x387fc000}, // largest subnormal 1023*2^-24
		{0x0200, 0x38000000}, // 2^-15
		{0x0400, 0x38800000}, // 2^-14
		{0x7bff, 0x477fe000}, // 65504
		{0xfc00, 0xff800000}, // -inf
		{0x7e00, 0x7fc00000}, // qNaN
		{0x7c01, 0x7f802000}, // sNaN payload kept, not quieted
		{0x8000, 0x80000000}, // -0
		{0xc000, 0xc0000000}, // -2
		{0x3555, 0x3eaaa000}, // 0.333251953125: exponent 13 -> 125, fraction 0x155<<13
		{0x8001, 0xb3800000}, // -2^-24
	}
	for _, c := range cases {
		if got := math.Float32bits(F16ToF32(c.h)); got != c.want {
			t.Errorf("F16ToF32(%#04x) = %#08x, want %#08x", c.h, got, c.want)
		}
	}
}

func TestBF16Table(t *testing.T) {
	cases := []convCase{
		// 0x3f808000 = 1 + 2^-8 is the midpoint of 0x3f80 and 0x3f81:
		// RN ties to even 0x3f80.
		{"1+2^-8", 0x3f808000, rs{0x3f80, 0x3f80, 0x3f80, 0x3f81, 0x3f81}},
		// 1 + 3*2^-8: tie between 0x3f81 (odd) and 0x3f82 (even).
		{"1+3*2^-8", 0x3f818000, rs{0x3f82, 0x3f81, 0x3f81, 0x3f82, 0x3f82}},
		// Just above the tie.
		{"1+2^-8+2^-23", 0x3f808001, rs{0x3f81, 0x3f80, 0x3f80, 0x3f81, 0x3f81}},
		// Negative tie: RM/RNA away from zero.
		{"-(1+2^-8)", 0xbf808000, rs{0xbf80, 0xbf80, 0xbf81, 0xbf80, 0xbf81}},
		// Largest binary32 = 0x7f7f + 0xffff/0x10000 ulp: RN rounds up into
		// the infinity encoding; RZ keeps 0x7f7f.
		{"maxf32", 0x7f7fffff, rs{0x7f80, 0x7f7f, 0x7f7f, 0x7f80, 0x7f80}},
		// 2^-149 is far below half the bf16 smallest subnormal 2^-133.
		{"2^-149", 0x00000001, rs{0, 0, 0, 0x0001, 0}},
		// 2^-134 is exactly half of 2^-133: tie to even 0.
		{"2^-134", 0x00008000, rs{0, 0, 0, 0x0001, 0x0001}},
		// 1.5*2^-133: tie between 1 and 2 units -> 2.
		{"1.5*2^-133", 0x00018000, rs{0x0002, 0x0001, 0x0001, 0x0002, 0x0002}},
		// Just below 1.0: 0x3f7f + 0xffff/0x10000 ulp rounds up to 1.0.
		{"1-2^-24", 0x3f7fffff, rs{0x3f80, 0x3f7f, 0x3f7f, 0x3f80, 0x3f80}},
		{"qnan", 0x7fc00001, same5(0x7fc0)},
		{"snan-low", 0x7f800001, same5(0x7fc0)},
		{"-inf", 0xff800000, same5(0xff80)},
		{"-0", 0x80000000, same5(0x8000)},
	}
	runConv(t, "F32ToBF16", cases, func(in uint64, r Round) uint64 {
		return uint64(F32ToBF16(f32(uint32(in)), r))
	})
	// Direct float64 -> bf16: 1 + 2^-8 + 2^-40 is above the tie (0x3f81);
	// through binary32 it would first become the tie 1 + 2^-8 and then 0x3f80.
	if got := F64ToBF16(1+0x1p-8+0x1p-40, RN); got != 0x3f81 {
		t.Errorf("F64ToBF16(1+2^-8+2^-40) = %#x, want 0x3f81", got)
	}
	if got := F64ToBF16(-1e300, RZ); got != 0xff7f {
		t.Errorf("F64ToBF16(-1e300, RZ) = %#x, want 0xff7f", got)
	}
	for _, c := range []struct {
		h    uint16
		want uint32
	}{{0x3f80, 0x3f800000}, {0xbf81, 0xbf810000}, {0x7f80, 0x7f800000}, {0x0001, 0x00010000}} {
		if got := math.Float32bits(BF16ToF32(c.h)); got != c.want {
			t.Errorf("BF16ToF32(%#x) = %#x, want %#x", c.h, got, c.want)
		}
	}
}

func TestTF32Table(t *testing.T) {
	cases := []convCase{
		// TF32 keeps 10 fraction bits: ulp(1) = 2^-10; 1 + 2^-11 is a tie.
		// .rna (the PTX cvt.rna.tf32.f32 mode) goes away: 0x3f802000.
		{"1+2^-11", 0x3f801000, rs{0x3f800000, 0x3f800000, 0x3f800000, 0x3f802000, 0x3f802000}},
		{"1+2^-11+tail", 0x3f801fff, rs{0x3f802000, 0x3f800000, 0x3f800000, 0x3f802000, 0x3f802000}},
		{"1+below-half", 0x3f800fff, rs{0x3f800000, 0x3f800000, 0x3f800000, 0x3f802000, 0x3f800000}},
		{"-(1+2^-11)", 0xbf801000, rs{0xbf800000, 0xbf800000, 0xbf802000, 0xbf800000, 0xbf802000}},
		// Largest TF32 is 0x7f7fe000; 0x7f7ff000 is the midpoint to 2^128:
		// RNA overflows to inf, RZ stays.
		{"maxtf32+half", 0x7f7ff000, rs{0x7f800000, 0x7f7fe000, 0x7f7fe000, 0x7f800000, 0x7f800000}},
		// Subnormal: TF32 quantum 2^(-126-10) = 2^-136; 2^-137 is a tie.
		{"2^-137", 0x00001000, rs{0, 0, 0, 0x00002000, 0x00002000}},
		{"1.0", 0x3f800000, same5(0x3f800000)},
		{"qnan", 0x7fc00000, same5(0x7fc00000)},
		{"-inf", 0xff800000, same5(0xff800000)},
		{"-0", 0x80000000, same5(0x80000000)},
	}
	runConv(t, "F32ToTF32", cases, func(in uint64, r Round) uint64 {
		return uint64(F32ToTF32(f32(uint32(in)), r))
	})
}

func TestF64ToF32Table(t *testing.T) {
	cases := []convCase{
		// 1 + 2^-24 is the binary32 midpoint of 1 and 1 + 2^-23.
		{"1+2^-24", math.Float64bits(1 + 0x1p-24), rs{0x3f800000, 0x3f800000, 0x3f800000, 0x3f800001, 0x3f800001}},
		{"1+2^-24+2^-52", math.Float64bits(1 + 0x1p-24 + 0x1p-52), rs{0x3f800001, 0x3f800000, 0x3f800000, 0x3f800001, 0x3f800001}},
		// 2^-150 is half the smallest binary32 subnormal.
		{"2^-150", math.Float64bits(0x1p-150), rs{0, 0, 0, 1, 1}},
		// 1.5*2^-149: tie between 1 and 2 units -> 2.
		{"1.5*2^-149", math.Float64bits(0x1.8p-149), rs{2, 1, 1, 2, 2}},
		{"1e300", math.Float64bits(1e300), rs{0x7f800000, 0x7f7fffff, 0x7f7fffff, 0x7f800000, 0x7f800000}},
		{"-1e300", math.Float64bits(-1e300), rs{0xff800000, 0xff7fffff, 0xff800000, 0xff7fffff, 0xff800000}},
		// Largest binary32 exactly.
		{"maxf32", 0x47efffffe0000000, same5(0x7f7fffff)},
		// 2^128 - 2^103 is the midpoint of max (odd fraction) and 2^128: RN
		// rounds to "even" 2^128, which overflows.
		{"max+half", 0x47effffff0000000, rs{0x7f800000, 0x7f7fffff, 0x7f7fffff, 0x7f800000, 0x7f800000}},
		{"nan", 0x7ff8000000000000, same5(0x7fc00000)},
		{"-0", 0x8000000000000000, same5(0x80000000)},
	}
	runConv(t, "F64ToF32", cases, func(in uint64, r Round) uint64 {
		return uint64(math.Float32bits(F64ToF32(f64(in), r)))
	})
}

func TestFP8Table(t *testing.T) {
	type c8 struct {
		name string
		x    float32
		r    Round
		sat  bool
		want uint8
	}
	e4 := []c8{
		{"1.0", 1, RN, true, 0x38},           // 0 0111 000: exponent 7 = bias
		{"0.5", 0.5, RN, true, 0x30},         // exponent 6
		{"-2", -2, RN, true, 0xc0},           // sign, exponent 8
		{"448", 448, RN, false, 0x7e},        // 1.75*2^8, largest finite
		{"464", 464, RN, false, 0x7e},        // midpoint 448/480: even (448, fraction 110)
		{"470", 470, RN, false, 0x7f},        // rounds to 480 = NaN slot: overflow -> NaN
		{"470s", 470, RN, true, 0x7e},        // satfinite clamps to 448
		{"1e6s", 1e6, RN, true, 0x7e},        // satfinite
		{"-1e6s", -1e6, RN, true, 0xfe},      // satfinite, negative
		{"2^-9", 0x1p-9, RN, true, 0x01},     // smallest subnormal (quantum 2^-9)
		{"2^-10", 0x1p-10, RN, true, 0x00},   // tie at half: even 0
		{"2^-10a", 0x1p-10, RNA, true, 0x01}, // ties away
		{"2^-6", 0x1p-6, RN, true, 0x08},     // smallest normal
		{"1.0625", 1.0625, RN, true, 0x38},   // 1+2^-4: tie, even 1.0
		{"1.1875", 1.1875, RN, true, 0x3a},   // 1+3*2^-4: tie 1.125/1.25 -> 1.25 (even)
		{"1.1875z", 1.1875, RZ, true, 0x39},
		{"nan", float32(math.NaN()), RN, true, 0x7f},
		{"+infs", float32(math.Inf(1)), RN, true, 0x7e},
		{"+inf", float32(math.Inf(1)), RN, false, 0x7f},
		{"-infs", float32(math.Inf(-1)), RN, true, 0xfe},
		{"-0", float32(math.Copysign(0, -1)), RN, true, 0x80},
	}
	for _, c := range e4 {
		if got := F32ToE4M3(c.x, c.r, c.sat); got != c.want {
			t.Errorf("F32ToE4M3 %s: got %#x, want %#x", c.name, got, c.want)
		}
	}
	e5 := []c8{
		{"1.0", 1, RN, true, 0x3c},        // exponent 15 (bias 15)
		{"57344", 57344, RN, false, 0x7b}, // 1.75*2^15, largest finite
		// 61440 is the midpoint of 57344 (odd fraction 11) and 2^16: RN
		// rounds up and overflows to inf; satfinite clamps.
		{"61440", 61440, RN, false, 0x7c},
		{"61440s", 61440, RN, true, 0x7b},
		{"1.125", 1.125, RN, true, 0x3c}, // tie 1.0/1.25 -> 1.0
		{"1.375", 1.375, RN, true, 0x3e}, // tie 1.25/1.5 -> 1.5
		{"2^-16", 0x1p-16, RN, true, 0x01},
		{"+inf", float32(math.Inf(1)), RN, false, 0x7c},
		{"-infs", float32(math.Inf(-1)), RN, true, 0xfb},
		{"nan", float32(math.NaN()), RN, false, 0x7e},
	}
	for _, c := range e5 {
		if got := F32ToE5M2(c.x, c.r, c.sat); got != c.want {
			t.Errorf("F32ToE5M2 %s: got %#x, want %#x", c.name, got, c.want)
		}
	}
	back := []struct {
		b      uint8
		e4, e5 uint32
	}{
		{0x38, 0x3f800000, 0x3f000000}, // e4m3 1.0; e5m2 = f16 0x3800 = 0.5
		{0x7e, 0x43e00000, 0x7fc00000}, // 448; e5m2 0x7e is NaN (f16 0x7e00)
		{0x01, 0x3b000000, 0x37800000}, // 2^-9; e5m2 subnormal 2^-16
		{0x08, 0x3c800000, 0x39000000}, // 2^-6; e5m2 exponent 2 -> 2^-13
		{0x07, 0x3c600000, 0x38e00000}, // 7*2^-9; e5m2 1.75*2^-14
		{0x80, 0x80000000, 0x80000000}, // -0
		{0x7c, 0x43c00000, 0x7f800000}, // e4m3 384; e5m2 +inf
	}
	for _, c := range back {
		if got := math.Float32bits(E4M3ToF32(c.b)); got != c.e4 {
			t.Errorf("E4M3ToF32(%#x) = %#x, want %#x", c.b, got, c.e4)
		}
		if got := math.Float32bits(E5M2ToF32(c.b)); got != c.e5 {
			t.Errorf("E5M2ToF32(%#x) = %#x, want %#x", c.b, got, c.e5)
		}
	}
	if got := math.Float32bits(E4M3ToF32(0x7f)); got != CanonicalNaN32 {
		t.Errorf("E4M3ToF32(0x7f) = %#x, want canonical NaN", got)
	}
}

func TestFloatToIntTable(t *testing.T) {
	cases := []struct {
		x      float64
		r      Round
		bits   int
		signed bool
		want   uint64
	}{
		{2.5, RN, 32, true, 2},                          // tie to even
		{3.5, RN, 32, true, 4},                          // tie to even
		{-2.5, RN, 32, true, 0xfffffffe},                // -2
		{2.5, RNA, 32, true, 3},                         // ties away
		{-2.5, RNA, 32, true, 0xfffffffd},               // -3
		{2.7, RZ, 32, true, 2},                          // truncate
		{-2.7, RZ, 32, true, 0xfffffffe},                // -2
		{-2.2, RM, 32, true, 0xfffffffd},                // floor -> -3
		{2.2, RP, 32, true, 3},                          // ceil
		{math.NaN(), RN, 32, true, 0},                   // NaN -> 0
		{math.NaN(), RZ, 64, false, 0},                  // NaN -> 0
		{1e10, RZ, 32, true, 0x7fffffff},                // saturate MAXINT
		{-1e10, RZ, 32, true, 0x80000000},               // saturate MININT
		{-1, RZ, 32, false, 0},                          // unsigned floor 0
		{5e9, RZ, 32, false, 0xffffffff},                // unsigned max
		{300, RZ, 8, false, 0xff},                       // u8 saturate
		{-200, RZ, 8, true, 0x80},                       // s8 saturate
		{127.5, RN, 8, true, 0x7f},                      // rounds to 128, saturates
		{-128.5, RN, 8, true, 0x80},                     // tie to even -128
		{math.Inf(1), RN, 64, true, 0x7fffffffffffffff}, // +inf
		{math.Inf(-1), RN, 64, true, 0x8000000000000000},
		{0x1p63, RZ, 64, false, 0x8000000000000000}, // exact u64
		{0x1p64, RZ, 64, false, 0xffffffffffffffff}, // u64 saturate
		{0x1p63, RZ, 64, true, 0x7fffffffffffffff},  // s64 saturate
		{-0x1p63, RZ, 64, true, 0x8000000000000000}, // exact s64 min
		{-0.5, RN, 32, false, 0},                    // rounds to -0 -> 0
		{65535.6, RN, 16, false, 0xffff},            // 65536 saturates
		{-1, RZ, 16, true, 0xffff},                  // -1 in 16 bits
	}
	for _, c := range cases {
		if got := FloatToInt(c.x, c.r, c.bits, c.signed); got != c.want {
			t.Errorf("FloatToInt(%v, %s, %d, %v) = %#x, want %#x", c.x, c.r, c.bits, c.signed, got, c.want)
		}
	}
}

func TestIntToFloatTable(t *testing.T) {
	cases := []struct {
		v      uint64
		signed bool
		bits   int
		r      Round
		want   uint32
	}{
		{16777217, false, 32, RN, 0x4b800000}, // 2^24+1: tie, even 2^24
		{16777217, false, 32, RP, 0x4b800001}, // up to 2^24+2
		{16777217, false, 32, RNA, 0x4b800001},
		{16777219, false, 32, RN, 0x4b800002},           // tie 2^24+2 (odd)/2^24+4 (even)
		{0xffffffff, true, 32, RN, 0xbf800000},          // -1
		{0xffffffff, false, 32, RN, 0x4f800000},         // 2^32-1 -> 2^32
		{0xffffffff, false, 32, RZ, 0x4f7fffff},         // truncates
		{0x80000000, true, 32, RN, 0xcf000000},          // -2^31
		{0x8000000000000000, true, 64, RN, 0xdf000000},  // -2^63
		{0xff, true, 8, RN, 0xbf800000},                 // s8 -1
		{0x1ff, false, 8, RN, 0x437f0000},               // low 8 bits: 255
		{0, true, 32, RM, 0},                            // +0 even under RM
		{0xffffffffffffffff, false, 64, RN, 0x5f800000}, // 2^64
		{0xffffffffffffffff, false, 64, RZ, 0x5f7fffff},
		{0xfeffffff, true, 32, RM, 0xcb800001}, // -(2^24+1) -> -(2^24+2)
		{0xfeffffff, true, 32, RP, 0xcb800000}, // -> -2^24
	}
	for _, c := range cases {
		if got := math.Float32bits(IntToF32(c.v, c.signed, c.bits, c.r)); got != c.want {
			t.Errorf("IntToF32(%#x, %v, %d, %s) = %#x, want %#x", c.v, c.signed, c.bits, c.r, got, c.want)
		}
	}
	c64 := []struct {
		v      uint64
		signed bool
		r      Round
		want   uint64
	}{
		{1<<53 + 1, false, RN, 0x4340000000000000}, // tie -> 2^53
		{1<<53 + 1, false, RP, 0x4340000000000001},
		{0xffffffffffffffff, false, RN, 0x43f0000000000000},
		{0xffffffffffffffff, false, RZ, 0x43efffffffffffff},
		{0xffffffffffffffff, true, RN, 0xbff0000000000000},
	}
	for _, c := range c64 {
		if got := math.Float64bits(IntToF64(c.v, c.signed, 64, c.r)); got != c.want {
			t.Errorf("IntToF64(%#x, %v, %s) = %#x, want %#x", c.v, c.signed, c.r, got, c.want)
		}
	}
}

func TestRoundToIntTable(t *testing.T) {
	cases := []struct {
		x    float32
		r    Round
		want uint32
	}{
		{2.5, RN, 0x40000000},                     // 2 (even)
		{-0.5, RN, 0x80000000},                    // -0 (sign kept)
		{0.5, RNA, 0x3f800000},                    // 1
		{-1.5, RZ, 0xbf800000},                    // -1
		{1.2, RP, 0x40000000},                     // 2
		{-1.2, RM, 0xc0000000},                    // -2
		{8388609, RN, 0x4b000001},                 // 2^23+1 already integral
		{-0.3, RP, 0x80000000},                    // -0
		{0.3, RM, 0x00000000},                     // +0
		{float32(math.NaN()), RN, CanonicalNaN32}, // canonical NaN
		{float32(math.Inf(-1)), RZ, 0xff800000},   // -inf unchanged
	}
	for _, c := range cases {
		if got := math.Float32bits(RoundToInt32(c.x, c.r)); got != c.want {
			t.Errorf("RoundToInt32(%v, %s) = %#x, want %#x", c.x, c.r, got, c.want)
		}
	}
	// 2^52 - 0.5 is a tie between 2^52-1 (odd) and 2^52 (even).
	if got := RoundToInt64(0x1p52-0.5, RN); got != 0x1p52 {
		t.Errorf("RoundToInt64(2^52-0.5, RN) = %v", got)
	}
	if got := RoundToInt64(0x1p52-0.5, RZ); got != 0x1p52-1 {
		t.Errorf("RoundToInt64(2^52-0.5, RZ) = %v", got)
	}
}

type a32 struct {
	name string
	op   string
	a, b uint32
	c    uint32
	want rs
}

func TestArithF32Table(t *testing.T) {
	const (
		one     = 0x3f800000
		max32   = 0x7f7fffff
		p2m24   = 0x33800000 // 2^-24
		p2m25   = 0x33000000 // 2^-25
		p2m60   = 0x21800000 // 2^-60
		m2m60   = 0xa1800000 // -2^-60
		p2m75   = 0x1a000000 // 2^-75
		inf     = 0x7f800000
		ninf    = 0xff800000
		nan     = uint64(CanonicalNaN32)
		negZero = 0x80000000
	)
	cases := []a32{
		// 1 + 2^-24: tie between 1 (even) and 1+2^-23.
		{"1+2^-24", "add", one, p2m24, 0, rs{one, one, one, 0x3f800001, 0x3f800001}},
		// 1 + 2^-25: below the tie; only RP moves.
		{"1+2^-25", "add", one, p2m25, 0, rs{one, one, one, 0x3f800001, one}},
		// 1 - 2^-60: just below 1; RZ/RM step down to 1-2^-24.
		{"1-2^-60", "add", one, m2m60, 0, rs{one, 0x3f7fffff, 0x3f7fffff, one, one}},
		{"-1+2^-60", "add", 0xbf800000, p2m60, 0, rs{0xbf800000, 0xbf7fffff, 0xbf800000, 0xbf7fffff, 0xbf800000}},
		// max + max overflows: RN/RNA/RP inf, RZ/RM max.
		{"max+max", "add", max32, max32, 0, rs{inf, max32, max32, inf, inf}},
		{"-max-max", "add", 0xff7fffff, 0xff7fffff, 0, rs{ninf, 0xff7fffff, ninf, 0xff7fffff, ninf}},
		// Exact zero sums: +0, except -0 under RM (IEEE 6.3).
		{"1-1", "add", one, 0xbf800000, 0, rs{0, 0, negZero, 0, 0}},
		{"-0+-0", "add", negZero, negZero, 0, same5(negZero)},
		{"+0+-0", "add", 0, negZero, 0, rs{0, 0, negZero, 0, 0}},
		{"inf-inf", "add", inf, ninf, 0, same5(nan)},
		// Subnormal sums are exact.
		{"sub+sub", "add", 1, 1, 0, same5(2)},
		{"minnorm-minsub", "add", 0x00800000, 0x80000001, 0, same5(0x007fffff)},
		// 1 - 2^-25: midpoint of 1-2^-24 (odd) and 1 (even).
		{"1-2^-25", "sub", one, p2m25, 0, rs{one, 0x3f7fffff, 0x3f7fffff, one, one}},
		{"1-1 sub", "sub", one, one, 0, rs{0, 0, negZero, 0, 0}},
		// (1+2^-23)^2 = 1 + 2^-22 + 2^-46: just above 0x3f800002.
		{"(1+u)^2", "mul", 0x3f800001, 0x3f800001, 0, rs{0x3f800002, 0x3f800002, 0x3f800002, 0x3f800003, 0x3f800002}},
		// (1+2^-23)(1-2^-24) = 1 + 2^-24 - 2^-47: just below the midpoint.
		{"(1+u)(1-u/2)", "mul", 0x3f800001, 0x3f7fffff, 0, rs{one, one, one, 0x3f800001, one}},
		// 2^-75 * 2^-75 = 2^-150: half the smallest subnormal.
		{"2^-150", "mul", p2m75, p2m75, 0, rs{0, 0, 0, 1, 1}},
		{"-2^-150", "mul", 0x9a000000, p2m75, 0, rs{negZero, negZero, 0x80000001, negZero, 0x80000001}},
		// 1.5*2^-75 * 2^-75 = 0.75*2^-149: above the half.
		{"0.75 sub", "mul", 0x1a400000, p2m75, 0, rs{1, 0, 0, 1, 1}},
		// 2^64 * 2^64 = 2^128 overflows.
		{"2^128", "mul", 0x5f800000, 0x5f800000, 0, rs{inf, max32, max32, inf, inf}},
		{"0*inf", "mul", 0, inf, 0, same5(nan)},
		{"-0*5", "mul", negZero, 0x40a00000, 0, same5(negZero)},
		// 1/3 = 1.010101..b * 2^-2: the 23-bit fraction 0x2aaaaa is followed
		// by 2/3 ulp, so RN rounds up to 0x3eaaaaab.
		{"1/3", "div", one, 0x40400000, 0, rs{0x3eaaaaab, 0x3eaaaaaa, 0x3eaaaaaa, 0x3eaaaaab, 0x3eaaaaab}},
		{"-1/3", "div", 0xbf800000, 0x40400000, 0, rs{0xbeaaaaab, 0xbeaaaaaa, 0xbeaaaaab, 0xbeaaaaaa, 0xbeaaaaab}},
		{"1/0", "div", one, 0, 0, same5(inf)},
		{"-1/0", "div", 0xbf800000, 0, 0, same5(ninf)},
		{"0/0", "div", 0, 0, 0, same5(nan)},
		// 2^-149 / 2 = 2^-150: tie at zero.
		{"minsub/2", "div", 1, 0x40000000, 0, rs{0, 0, 0, 1, 1}},
		// 3*2^-149 / 2 = 1.5 units: tie between 1 and 2 -> 2.
		{"3sub/2", "div", 3, 0x40000000, 0, rs{2, 1, 1, 2, 2}},
		// sqrt(2) = 1.41421356237...: 0x3fb504f3 = 1.41421353816986 is
		// below (nearer), 0x3fb504f4 = 1.41421365737915 above.
		{"sqrt2", "sqrt", 0x40000000, 0, 0, rs{0x3fb504f3, 0x3fb504f3, 0x3fb504f3, 0x3fb504f4, 0x3fb504f3}},
		{"sqrt4", "sqrt", 0x40800000, 0, 0, same5(0x40000000)},
		{"sqrt-0", "sqrt", negZero, 0, 0, same5(negZero)},
		{"sqrt-1", "sqrt", 0xbf800000, 0, 0, same5(nan)},
		{"sqrtinf", "sqrt", inf, 0, 0, same5(inf)},
		// sqrt(2^-149) = 2^-75 * sqrt(2): the fraction of sqrt(2), exponent -75.
		{"sqrtminsub", "sqrt", 1, 0, 0, rs{0x1a3504f3, 0x1a3504f3, 0x1a3504f3, 0x1a3504f4, 0x1a3504f3}},
		{"rcp3", "rcp", 0x40400000, 0, 0, rs{0x3eaaaaab, 0x3eaaaaaa, 0x3eaaaaaa, 0x3eaaaaab, 0x3eaaaaab}},
		// FMA single rounding: a = b = 1 + 2^-12, c = -1. ab = 1 + 2^-11 +
		// 2^-24 exactly; fma gives 2^-11 + 2^-24 = 0x3a000400 exactly, while
		// mul-then-add would round ab to 1 + 2^-11 (tie, even) and give 2^-11.
		{"fma-single", "fma", 0x3f800800, 0x3f800800, 0xbf800000, same5(0x3a000400)},
		// a = 2^-12(1+2^-23), b = 2^-12(1-2^-23), c = 1 + 2^-23: the exact
		// result 1 + 2^-23 + 2^-24 - 2^-70 is just below a binary32
		// midpoint. Rounding to binary64 first (float32(math.FMA)) would
		// land on the midpoint and tie to even 0x3f800002.
		{"fma-no-double", "fma", 0x39800001, 0x397ffffe, 0x3f800001, rs{0x3f800001, 0x3f800001, 0x3f800001, 0x3f800002, 0x3f800001}},
		// 1*1 + 2^-30: only RP moves up.
		{"fma-sticky", "fma", one, one, 0x30800000, rs{one, one, one, 0x3f800001, one}},
		// 2*3 - 6 = 0 exactly: +0, -0 under RM.
		{"fma-zero", "fma", 0x40000000, 0x40400000, 0xc0c00000, rs{0, 0, negZero, 0, 0}},
		// 2^-75 * 2^-75 + 0 = 2^-150: rounds to +0 (RN), min subnormal (RP).
		{"fma-underflow", "fma", p2m75, p2m75, 0, rs{0, 0, 0, 1, 1}},
		// -0*1 + -0 = -0 in all modes; -0*1 + +0 = +0 except RM.
		{"fma--0", "fma", negZero, one, negZero, same5(negZero)},
		{"fma-+0", "fma", negZero, one, 0, rs{0, 0, negZero, 0, 0}},
		{"fma-nan", "fma", inf, 0, one, same5(nan)},
	}
	for _, c := range cases {
		for i, r := range allRounds {
			a, b, cc := f32(c.a), f32(c.b), f32(c.c)
			var got float32
			switch c.op {
			case "add":
				got = AddF32(a, b, r)
			case "sub":
				got = SubF32(a, b, r)
			case "mul":
				got = MulF32(a, b, r)
			case "div":
				got = DivF32(a, b, r)
			case "sqrt":
				got = SqrtF32(a, r)
			case "rcp":
				got = RcpF32(a, r)
			case "fma":
				got = FmaF32(a, b, cc, r)
			}
			if g := math.Float32bits(got); uint64(g) != c.want[i] {
				t.Errorf("%s %s %s: got %#08x, want %#08x", c.op, c.name, r, g, c.want[i])
			}
		}
	}
	// The double-rounding hazard the fma-no-double row guards against.
	if g := math.Float32bits(float32(math.FMA(float64(f32(0x39800001)), float64(f32(0x397ffffe)), float64(f32(0x3f800001))))); g != 0x3f800002 {
		t.Errorf("premise: float32(math.FMA) = %#x, expected the double-rounded 0x3f800002", g)
	}
}

func TestArithF64Table(t *testing.T) {
	const (
		one   = 0x3ff0000000000000
		max64 = 0x7fefffffffffffff
		inf   = 0x7ff0000000000000
		ninf  = 0xfff0000000000000
		nz    = 0x8000000000000000
	)
	type a64 struct {
		name    string
		op      string
		a, b, c uint64
		want    rs
	}
	b := math.Float64bits
	cases := []a64{
		{"1+2^-53", "add", one, b(0x1p-53), 0, rs{one, one, one, one + 1, one + 1}},
		{"1-2^-80", "add", one, b(-0x1p-80), 0, rs{one, 0x3fefffffffffffff, 0x3fefffffffffffff, one, one}},
		{"1+1.5*2^-53", "add", one, b(0x1.8p-53), 0, rs{one + 1, one, one, one + 1, one + 1}},
		{"-1-2^-53", "add", b(-1), b(-0x1p-53), 0, rs{0xbff0000000000000, 0xbff0000000000000, 0xbff0000000000001, 0xbff0000000000000, 0xbff0000000000001}},
		{"max+max", "add", max64, max64, 0, rs{inf, max64, max64, inf, inf}},
		{"-max-max", "add", max64 | nz, max64 | nz, 0, rs{ninf, max64 | nz, ninf, max64 | nz, ninf}},
		{"1-1", "add", one, b(-1), 0, rs{0, 0, nz, 0, 0}},
		{"minsub+minsub", "add", 1, 1, 0, same5(2)},
		{"sub 1-2^-53", "sub", one, b(0x1p-54), 0, rs{one, 0x3fefffffffffffff, 0x3fefffffffffffff, one, one}},
		// (1+2^-52)^2 = 1 + 2^-51 + 2^-104.
		{"(1+u)^2", "mul", one + 1, one + 1, 0, rs{one + 2, one + 2, one + 2, one + 3, one + 2}},
		// (1+2^-52)(1-2^-53) = 1 + 2^-53 - 2^-105: just below the midpoint.
		{"(1+u)(1-u/2)", "mul", one + 1, 0x3fefffffffffffff, 0, rs{one, one, one, one + 1, one}},
		// 2^-537 * 2^-538 = 2^-1075, half the smallest subnormal (slow path).
		{"2^-1075", "mul", 0x1e60000000000000, 0x1e50000000000000, 0, rs{0, 0, 0, 1, 1}},
		{"0.75 sub", "mul", 0x1e68000000000000, 0x1e50000000000000, 0, rs{1, 0, 0, 1, 1}},
		{"-2^-1075", "mul", 0x9e60000000000000, 0x1e50000000000000, 0, rs{nz, nz, nz | 1, nz, nz | 1}},
		{"2^1200", "mul", 0x6570000000000000, 0x6570000000000000, 0, rs{inf, max64, max64, inf, inf}},
		// 1/3: 0x3fd5555555555555 plus 1/3 ulp.
		{"1/3", "div", one, b(3), 0, rs{0x3fd5555555555555, 0x3fd5555555555555, 0x3fd5555555555555, 0x3fd5555555555556, 0x3fd5555555555555}},
		// 2/3: 0x3fe5555555555555 plus 1/3 ulp.
		{"2/3", "div", b(2), b(3), 0, rs{0x3fe5555555555555, 0x3fe5555555555555, 0x3fe5555555555555, 0x3fe5555555555556, 0x3fe5555555555555}},
		{"-1/3", "div", b(-1), b(3), 0, rs{0xbfd5555555555555, 0xbfd5555555555555, 0xbfd5555555555556, 0xbfd5555555555555, 0xbfd5555555555555}},
		{"minsub/2", "div", 1, b(2), 0, rs{0, 0, 0, 1, 1}},
		{"max/0.5", "div", max64, b(0.5), 0, rs{inf, max64, max64, inf, inf}},
		// sqrt(2) = 1.41421356237309504880; 0x3ff6a09e667f3bcd =
		// 1.41421356237309514547 is above it.
		{"sqrt2", "sqrt", b(2), 0, 0, rs{0x3ff6a09e667f3bcd, 0x3ff6a09e667f3bcc, 0x3ff6a09e667f3bcc, 0x3ff6a09e667f3bcd, 0x3ff6a09e667f3bcd}},
		// sqrt(2^-1074) = 2^-537 exactly (slow path).
		{"sqrtminsub", "sqrt", 1, 0, 0, same5(0x1e60000000000000)},
		{"sqrt2minsub", "sqrt", 2, 0, 0, rs{0x1e66a09e667f3bcd, 0x1e66a09e667f3bcc, 0x1e66a09e667f3bcc, 0x1e66a09e667f3bcd, 0x1e66a09e667f3bcd}},
		// (1+2^-52)^2 - 1 = 2^-51 + 2^-104 = 2^-51 (1 + 2^-53): a tie.
		{"fma tie", "fma", one + 1, one + 1, b(-1), rs{0x3cc0000000000000, 0x3cc0000000000000, 0x3cc0000000000000, 0x3cc0000000000001, 0x3cc0000000000001}},
		{"fma zero", "fma", b(2), b(3), b(-6), rs{0, 0, nz, 0, 0}},
		{"fma sticky", "fma", one, one, b(0x1p-60), rs{one, one, one, one + 1, one}},
		{"rcp3", "rcp", b(3), 0, 0, rs{0x3fd5555555555555, 0x3fd5555555555555, 0x3fd5555555555555, 0x3fd5555555555556, 0x3fd5555555555555}},
		{"inf-inf", "add", inf, ninf, 0, same5(CanonicalNaN64)},
	}
	for _, c := range cases {
		for i, r := range allRounds {
			x, y, z := f64(c.a), f64(c.b), f64(c.c)
			var got float64
			switch c.op {
			case "add":
				got = AddF64(x, y, r)
			case "sub":
				got = SubF64(x, y, r)
			case "mul":
				got = MulF64(x, y, r)
			case "div":
				got = DivF64(x, y, r)
			case "sqrt":
				got = SqrtF64(x, r)
			case "rcp":
				got = RcpF64(x, r)
			case "fma":
				got = FmaF64(x, y, z, r)
			}
			if g := math.Float64bits(got); g != c.want[i] {
				t.Errorf("%s %s %s: got %#016x, want %#016x", c.op, c.name, r, g, c.want[i])
			}
		}
	}
}

func TestArith16Table(t *testing.T) {
	type h struct {
		name    string
		f       func(a, b, c uint16, r Round) uint16
		a, b, c uint16
		want    rs
	}
	add := func(a, b, _ uint16, r Round) uint16 { return AddF16(a, b, r) }
	sub := func(a, b, _ uint16, r Round) uint16 { return SubF16(a, b, r) }
	mul := func(a, b, _ uint16, r Round) uint16 { return MulF16(a, b, r) }
	addb := func(a, b, _ uint16, r Round) uint16 { return AddBF16(a, b, r) }
	mulb := func(a, b, _ uint16, r Round) uint16 { return MulBF16(a, b, r) }
	subb := func(a, b, _ uint16, r Round) uint16 { return SubBF16(a, b, r) }
	cases := []h{
		{"1+1", add, 0x3c00, 0x3c00, 0, same5(0x4000)},
		// 1 + 2^-11 (0x1000 = 2^-11): tie -> even 1.0.
		{"1+2^-11", add, 0x3c00, 0x1000, 0, rs{0x3c00, 0x3c00, 0x3c00, 0x3c01, 0x3c01}},
		{"max+max", add, 0x7bff, 0x7bff, 0, rs{0x7c00, 0x7bff, 0x7bff, 0x7c00, 0x7c00}},
		{"1-1", add, 0x3c00, 0xbc00, 0, rs{0, 0, 0x8000, 0, 0}},
		{"inf-inf", add, 0x7c00, 0xfc00, 0, same5(uint64(CanonicalNaNF16))},
		{"nan+1", add, 0x7e01, 0x3c00, 0, same5(uint64(CanonicalNaNF16))},
		{"2-1", sub, 0x4000, 0x3c00, 0, same5(0x3c00)},
		// (1+2^-10)^2 = 1 + 2^-9 + 2^-20.
		{"(1+u)^2", mul, 0x3c01, 0x3c01, 0, rs{0x3c02, 0x3c02, 0x3c02, 0x3c03, 0x3c02}},
		// 2^-24 * 0.5 = 2^-25: tie at zero.
		{"minsub/2", mul, 0x0001, 0x3800, 0, rs{0, 0, 0, 0x0001, 0x0001}},
		{"max*2", mul, 0x7bff, 0x4000, 0, rs{0x7c00, 0x7bff, 0x7bff, 0x7c00, 0x7c00}},
		{"-0*1", mul, 0x8000, 0x3c00, 0, same5(0x8000)},
		// bf16: 1 + 2^-8 (0x3b80): tie -> even.
		{"bf 1+2^-8", addb, 0x3f80, 0x3b80, 0, rs{0x3f80, 0x3f80, 0x3f80, 0x3f81, 0x3f81}},
		// (1+2^-7)^2 = 1 + 2^-6 + 2^-14.
		{"bf (1+u)^2", mulb, 0x3f81, 0x3f81, 0, rs{0x3f82, 0x3f82, 0x3f82, 0x3f83, 0x3f82}},
		{"bf max*2", mulb, 0x7f7f, 0x4000, 0, rs{0x7f80, 0x7f7f, 0x7f7f, 0x7f80, 0x7f80}},
		{"bf 1-1", subb, 0x3f80, 0x3f80, 0, rs{0, 0, 0x8000, 0, 0}},
		// bf16 sum needing TwoSum: 2^100 + 2^-100 (exact value not in f64's
		// 53 bits); RP must still see the tail.
		{"bf far", addb, 0x7180, 0x0d80, 0, rs{0x7180, 0x7180, 0x7180, 0x7181, 0x7180}},
	}
	cases = append(cases,
		// FMA single rounding: (1+2^-10)^2 - (1+2^-9) = 2^-20 = 16 * 2^-24
		// (0x0010); mul-then-add gives RN(1+2^-9+2^-20) - (1+2^-9) = 0.
		h{"fma16", FmaF16, 0x3c01, 0x3c01, 0xbc02, same5(0x0010)},
		// (1+2^-10)^2 - 1 = 2^-9 + 2^-20 = 2^-9(1+2^-11): tie -> 2^-9.
		h{"fma16 tie", FmaF16, 0x3c01, 0x3c01, 0xbc00, rs{0x1800, 0x1800, 0x1800, 0x1801, 0x1801}},
		// bf16: (1+2^-7)^2 - (1+2^-6) = 2^-14 = 0x3880.
		h{"fmabf16", FmaBF16, 0x3f81, 0x3f81, 0xbf82, same5(0x3880)},
	)
	for _, c := range cases {
		for i, r := range allRounds {
			if got := c.f(c.a, c.b, c.c, r); uint64(got) != c.want[i] {
				t.Errorf("%s %s: got %#04x, want %#04x", c.name, r, got, c.want[i])
			}
		}
	}
}

func TestFtzSatMinMax(t *testing.T) {
	nan := f32(0x7fc00000)
	nz := float32(math.Copysign(0, -1))
	type c struct {
		name string
		got  float32
		want uint32
	}
	cases := []c{
		{"ftz minsub", FtzF32(f32(1)), 0},
		{"ftz -sub", FtzF32(f32(0x80400000)), 0x80000000},
		{"ftz minnorm", FtzF32(f32(0x00800000)), 0x00800000},
		{"ftz nan", FtzF32(f32(0x7fc00123)), 0x7fc00123},
		{"sat 1.5", SatF32(1.5), 0x3f800000},
		{"sat -0.5", SatF32(-0.5), 0},
		{"sat nan", SatF32(nan), 0},
		{"sat -0", SatF32(nz), 0},
		{"sat 0.25", SatF32(0.25), 0x3e800000},
		{"sat inf", SatF32(float32(math.Inf(1))), 0x3f800000},
		{"sat -inf", SatF32(float32(math.Inf(-1))), 0},
		{"min nan,1", MinF32(nan, 1, false), 0x3f800000},
		{"min 1,nan", MinF32(1, nan, false), 0x3f800000},
		{"min nan,nan", MinF32(nan, nan, false), CanonicalNaN32},
		{"min.NaN nan,1", MinF32(nan, 1, true), CanonicalNaN32},
		{"min -0,+0", MinF32(nz, 0, false), 0x80000000},
		{"min +0,-0", MinF32(0, nz, false), 0x80000000},
		{"max -0,+0", MaxF32(nz, 0, false), 0},
		{"max +0,-0", MaxF32(0, nz, false), 0},
		{"min 1,2", MinF32(1, 2, false), 0x3f800000},
		{"max 1,2", MaxF32(1, 2, false), 0x40000000},
		{"max -inf,nan", MaxF32(float32(math.Inf(-1)), nan, false), 0xff800000},
		{"max.NaN 1,nan", MaxF32(1, nan, true), CanonicalNaN32},
	}
	for _, c := range cases {
		if g := math.Float32bits(c.got); g != c.want {
			t.Errorf("%s: got %#x, want %#x", c.name, g, c.want)
		}
	}
	if g := math.Float64bits(MinF64(math.Copysign(0, -1), 0, false)); g != 1<<63 {
		t.Errorf("MinF64(-0,+0) = %#x", g)
	}
	if g := math.Float64bits(MaxF64(math.NaN(), 3, false)); g != math.Float64bits(3) {
		t.Errorf("MaxF64(NaN,3) = %#x", g)
	}
	if g := math.Float64bits(MaxF64(math.NaN(), 3, true)); g != CanonicalNaN64 {
		t.Errorf("MaxF64.NaN(NaN,3) = %#x", g)
	}
	if g := math.Float64bits(FtzF64(5e-324)); g != 0 {
		t.Errorf("FtzF64(minsub) = %#x", g)
	}
	if g := SatF64(2); g != 1 {
		t.Errorf("SatF64(2) = %v", g)
	}
}

func TestApproxSpecials(t *testing.T) {
	inf, ninf := float32(math.Inf(1)), float32(math.Inf(-1))
	nan := float32(math.NaN())
	nz := float32(math.Copysign(0, -1))
	type c struct {
		name string
		got  float32
		want uint32
	}
	cases := []c{
		// ex2: PTX table -Inf -> +0, ±0 -> 1, +Inf -> +Inf, NaN -> NaN.
		{"ex2 -inf", Ex2Approx(ninf), 0},
		{"ex2 -0", Ex2Approx(nz), 0x3f800000},
		{"ex2 +0", Ex2Approx(0), 0x3f800000},
		{"ex2 inf", Ex2Approx(inf), 0x7f800000},
		{"ex2 nan", Ex2Approx(nan), CanonicalNaN32},
		{"ex2 1", Ex2Approx(1), 0x40000000},
		{"ex2 -1", Ex2Approx(-1), 0x3f000000},
		{"ex2 10", Ex2Approx(10), 0x44800000},
		{"ex2 127", Ex2Approx(127), 0x7f000000},
		{"ex2 128", Ex2Approx(128), 0x7f800000},
		{"ex2 -126", Ex2Approx(-126), 0x00800000},
		{"ex2 -149", Ex2Approx(-149), 0x00000001},
		{"ex2 -150", Ex2Approx(-150), 0},
		{"ex2 0.5", Ex2Approx(0.5), 0x3fb504f3}, // sqrt(2) rounded
		// lg2: -Inf, -normal -> NaN; ±0 -> -Inf; +Inf -> +Inf.
		{"lg2 1", Lg2Approx(1), 0},
		{"lg2 2", Lg2Approx(2), 0x3f800000},
		{"lg2 8", Lg2Approx(8), 0x40400000},
		{"lg2 0.5", Lg2Approx(0.5), 0xbf800000},
		{"lg2 0", Lg2Approx(0), 0xff800000},
		{"lg2 -0", Lg2Approx(nz), 0xff800000},
		{"lg2 -1", Lg2Approx(-1), CanonicalNaN32},
		{"lg2 -inf", Lg2Approx(ninf), CanonicalNaN32},
		{"lg2 inf", Lg2Approx(inf), 0x7f800000},
		{"lg2 minsub", Lg2Approx(f32(1)), 0xc3150000}, // -149
		// sin/cos: ±Inf -> NaN; sin(±0) = ±0; cos(±0) = 1.
		{"sin 0", SinApprox(0), 0},
		{"sin -0", SinApprox(nz), 0x80000000},
		{"sin inf", SinApprox(inf), CanonicalNaN32},
		{"sin -inf", SinApprox(ninf), CanonicalNaN32},
		{"cos 0", CosApprox(0), 0x3f800000},
		{"cos -0", CosApprox(nz), 0x3f800000},
		{"cos inf", CosApprox(inf), CanonicalNaN32},
		{"sin minsub", SinApprox(f32(1)), 1},
		// float32(pi/2) = 1.57079637050628662109375 = pi/2 + 4.37e-8:
		// sin is 1 - 9.6e-16 -> 1.0.
		{"sin pi/2", SinApprox(f32(0x3fc90fdb)), 0x3f800000},
		// rcp: -Inf -> -0, ±0 -> ±Inf, +Inf -> +0.
		{"rcp -inf", RcpApprox(ninf), 0x80000000},
		{"rcp -0", RcpApprox(nz), 0xff800000},
		{"rcp 0", RcpApprox(0), 0x7f800000},
		{"rcp inf", RcpApprox(inf), 0},
		{"rcp 3", RcpApprox(3), 0x3eaaaaab},
		// rsqrt: -Inf, -normal -> NaN; -0 -> -Inf; +0 -> +Inf; +Inf -> +0.
		{"rsqrt -inf", RsqrtApprox(ninf), CanonicalNaN32},
		{"rsqrt -1", RsqrtApprox(-1), CanonicalNaN32},
		{"rsqrt -0", RsqrtApprox(nz), 0xff800000},
		{"rsqrt 0", RsqrtApprox(0), 0x7f800000},
		{"rsqrt inf", RsqrtApprox(inf), 0},
		{"rsqrt 4", RsqrtApprox(4), 0x3f000000},
		{"rsqrt 0.25", RsqrtApprox(0.25), 0x40000000},
		// sqrt.approx: -0 -> -0.
		{"sqrt -0", SqrtApprox(nz), 0x80000000},
		{"sqrt -1", SqrtApprox(-1), CanonicalNaN32},
		{"sqrt 4", SqrtApprox(4), 0x40000000},
		// tanh: -Inf -> -1, ±0 -> ±0, +Inf -> 1, subnormals pass through.
		{"tanh -inf", TanhApprox(ninf), 0xbf800000},
		{"tanh inf", TanhApprox(inf), 0x3f800000},
		{"tanh 0", TanhApprox(0), 0},
		{"tanh -0", TanhApprox(nz), 0x80000000},
		{"tanh sub", TanhApprox(f32(0x80000005)), 0x80000005},
		{"tanh nan", TanhApprox(nan), CanonicalNaN32},
		{"tanh 20", TanhApprox(20), 0x3f800000},
	}
	for _, c := range cases {
		if g := math.Float32bits(c.got); g != c.want {
			t.Errorf("%s: got %#x, want %#x", c.name, g, c.want)
		}
	}
}

func TestParseRound(t *testing.T) {
	cases := map[string]Round{".rn": RN, ".rz": RZ, ".rm": RM, ".rp": RP, ".rna": RNA,
		".rni": RN, ".rzi": RZ, ".rmi": RM, ".rpi": RP, "rn": RN}
	for s, want := range cases {
		if got, ok := ParseRound(s); !ok || got != want {
			t.Errorf("ParseRound(%q) = %v, %v", s, got, ok)
		}
	}
	for _, s := range []string{"", ".sat", ".rnai", ".RN", ".approx"} {
		if _, ok := ParseRound(s); ok {
			t.Errorf("ParseRound(%q) accepted", s)
		}
	}
	for _, r := range allRounds {
		if got, _ := ParseRound("." + r.String()); got != r {
			t.Errorf("String/Parse round trip failed for %v", r)
		}
	}
	if s := Round(9).String(); s != "Round(9)" {
		t.Errorf("Round(9).String() = %q", s)
	}
	_ = fmt.Sprint(RN)
}
