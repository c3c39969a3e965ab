package fpx

import (
	"math"
	"testing"
)

// Benchmarks of the hot conversions and arithmetic. Inputs cycle through a
// fixed table so branch prediction sees a realistic mix.

var benchF32 = func() []float32 {
	v := make([]float32, 1024)
	s := uint32(12345)
	for i := range v {
		s = s*1664525 + 1013904223
		v[i] = math.Float32frombits(s&0x3fffffff | 0x30000000) // finite, mixed binades
	}
	return v
}()

var sinkF32 float32
var sinkU16 uint16
var sinkU32 uint32
var sinkF64 float64

func BenchmarkF32ToF16RN(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkU16 = F32ToF16(benchF32[i&1023], RN)
	}
}

func BenchmarkF32ToF16RZ(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkU16 = F32ToF16(benchF32[i&1023], RZ)
	}
}

func BenchmarkF16ToF32(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkF32 = F16ToF32(uint16(i))
	}
}

func BenchmarkF32ToBF16RN(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkU16 = F32ToBF16(benchF32[i&1023], RN)
	}
}

func BenchmarkF32ToTF32RNA(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkU32 = F32ToTF32(benchF32[i&1023], RNA)
	}
}

func BenchmarkF64ToF32RZ(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkF32 = F64ToF32(float64(benchF32[i&1023])*1.000000001, RZ)
	}
}

func BenchmarkFloatToIntS32(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkU32 = uint32(FloatToInt(float64(benchF32[i&1023])*1e6, RN, 32, true))
	}
}

func BenchmarkAddF32RN(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkF32 = AddF32(benchF32[i&1023], benchF32[(i+1)&1023], RN)
	}
}

func BenchmarkAddF32RZ(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkF32 = AddF32(benchF32[i&1023], benchF32[(i+1)&1023], RZ)
	}
}

func BenchmarkFmaF32RN(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkF32 = FmaF32(benchF32[i&1023], benchF32[(i+1)&1023], benchF32[(i+2)&1023], RN)
	}
}

func BenchmarkDivF32RP(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkF32 = DivF32(benchF32[i&1023], benchF32[(i+1)&1023], RP)
	}
}

func BenchmarkMulF64RM(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkF64 = MulF64(float64(benchF32[i&1023])*1.1, float64(benchF32[(i+1)&1023]), RM)
	}
}

func BenchmarkFmaF64RZBig(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkF64 = FmaF64(float64(benchF32[i&1023])*1.1, float64(benchF32[(i+1)&1023]), 1, RZ)
	}
}

func BenchmarkAddF16(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkU16 = AddF16(uint16(i), uint16(i*7), RN)
	}
}

func BenchmarkEx2Approx(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkF32 = Ex2Approx(benchF32[i&1023])
	}
}

func BenchmarkSinApprox(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkF32 = SinApprox(benchF32[i&1023])
	}
}
