package fpx

import (
	"math"
	"testing"
)

// FuzzDirectedF32 compares the error-free-transformation fast paths of the
// binary32 arithmetic with exact math/big arithmetic rounded by
// format.encode, in every rounding direction.
func FuzzDirectedF32(f *testing.F) {
	f.Add(uint32(0x3f800000), uint32(0x33800000), uint32(0), uint8(3))
	f.Add(uint32(0x39800001), uint32(0x397ffffe), uint32(0x3f800001), uint8(0))
	f.Add(uint32(0x1a000000), uint32(0x1a400000), uint32(0x80000001), uint8(2))
	f.Add(uint32(0x7f7fffff), uint32(0x7f7fffff), uint32(0xff7fffff), uint8(1))
	f.Add(uint32(0x00000003), uint32(0x40000000), uint32(0x3f800000), uint8(4))
	f.Fuzz(func(t *testing.T, a, b, c uint32, mode uint8) {
		r := Round(mode % 5)
		x, y, z := math.Float32frombits(a), math.Float32frombits(b), math.Float32frombits(c)
		for _, op := range ops32 {
			checkF32Op(t, op, x, y, z, r)
		}
	})
}

// FuzzDirectedF64 does the same for the binary64 fast paths (TwoSum, FMA
// product error, FMA remainders) and their big fallbacks.
func FuzzDirectedF64(f *testing.F) {
	f.Add(uint64(0x3ff0000000000000), uint64(0x3ca0000000000000), uint64(0), uint8(3))
	f.Add(uint64(0x1e60000000000000), uint64(0x1e50000000000000), uint64(0), uint8(4))
	f.Add(uint64(0x7fefffffffffffff), uint64(0x3fe0000000000000), uint64(1), uint8(1))
	f.Add(uint64(0x3ff0000000000001), uint64(0x3fefffffffffffff), uint64(0xbff0000000000000), uint8(0))
	f.Add(uint64(1), uint64(0x4000000000000000), uint64(2), uint8(2))
	f.Fuzz(func(t *testing.T, a, b, c uint64, mode uint8) {
		r := Round(mode % 5)
		x, y, z := math.Float64frombits(a), math.Float64frombits(b), math.Float64frombits(c)
		for _, op := range ops64 {
			checkF64Op(t, op, x, y, z, r)
		}
	})
}

// FuzzConvert checks the conversion invariants on arbitrary binary32
// patterns: results are fixed points of the conversion (a representable
// value converts to itself), RM <= x <= RP, RZ does not grow, and NaN maps
// to NaN.
func FuzzConvert(f *testing.F) {
	for _, s := range []uint32{0x477ff000, 0x33000000, 0x3f808000, 0x3f801000, 0x7f7fffff, 0x00000001, 0x7fa00000} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, bits uint32) {
		x := math.Float32frombits(bits)
		v := float64(x)
		for _, tg := range targets {
			for _, r := range allRounds {
				got := tg.conv(x, r)
				if x != x {
					if got == got {
						t.Fatalf("%s NaN -> %v", tg.name, got)
					}
					continue
				}
				if got != got {
					if tg.name == "e4m3" { // overflow without satfinite
						continue
					}
					t.Fatalf("%s(%#x, %s) = NaN", tg.name, bits, r)
				}
				if again := tg.conv(float32(got), r); again != got && !math.IsInf(got, 0) {
					t.Fatalf("%s(%#x, %s) = %v is not a fixed point (%v)", tg.name, bits, r, got, again)
				}
				switch r {
				case RM:
					if got > v {
						t.Fatalf("%s RM(%v) = %v > x", tg.name, v, got)
					}
				case RP:
					if got < v {
						t.Fatalf("%s RP(%v) = %v < x", tg.name, v, got)
					}
				case RZ:
					if math.Abs(got) > math.Abs(v) {
						t.Fatalf("%s RZ(%v) = %v grew", tg.name, v, got)
					}
				}
			}
		}
		// Narrowing through float64 equals narrowing from float32.
		if x == x {
			for _, r := range allRounds {
				if F64ToF16(v, r) != F32ToF16(x, r) || F64ToBF16(v, r) != F32ToBF16(x, r) {
					t.Fatalf("f64 vs f32 source disagree for %#x %s", bits, r)
				}
			}
		}
	})
}
