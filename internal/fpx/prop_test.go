package fpx

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// Every binary16 pattern survives f16 -> f32 -> f16 (and f16 -> f64 -> f16)
// unchanged in every rounding direction: the widening is exact and the
// narrowing of an exactly representable value is exact. NaN payloads
// included.
func TestF16RoundTripExhaustive(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		x := F16ToF32(h)
		for _, r := range allRounds {
			if got := F32ToF16(x, r); got != h {
				t.Fatalf("F32ToF16(F16ToF32(%#04x), %s) = %#04x", h, r, got)
			}
			// Through float64 too, except signaling NaNs: Go's (and the
			// CPU's) float32 -> float64 conversion sets their quiet bit.
			if got := F64ToF16(float64(x), r); got != h && (x == x || h&0x200 != 0) {
				t.Fatalf("F64ToF16(F16ToF32(%#04x), %s) = %#04x", h, r, got)
			}
		}
	}
}

func TestBF16RoundTripExhaustive(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		x := BF16ToF32(h)
		for _, r := range allRounds {
			if got := F32ToBF16(x, r); got != h {
				t.Fatalf("F32ToBF16(BF16ToF32(%#04x), %s) = %#04x", h, r, got)
			}
		}
		if math.Float32bits(x)&0x1fff == 0 {
			// Every bf16 value is also a TF32 value.
			if got := F32ToTF32(x, RNA); got != math.Float32bits(x) {
				t.Fatalf("F32ToTF32(bf16 %#04x) = %#x", h, got)
			}
		}
	}
}

func TestFP8RoundTripExhaustive(t *testing.T) {
	for i := 0; i < 256; i++ {
		b := uint8(i)
		x := E4M3ToF32(b)
		if x != x {
			if b&0x7f != 0x7f {
				t.Fatalf("E4M3ToF32(%#x) is NaN", b)
			}
			if got := F32ToE4M3(x, RN, true); got != CanonicalNaNF8 {
				t.Fatalf("E4M3 NaN round trip gave %#x", got)
			}
			continue
		}
		for _, r := range allRounds {
			for _, sat := range []bool{false, true} {
				if got := F32ToE4M3(x, r, sat); got != b {
					t.Fatalf("E4M3 %#x -> %v -> %#x (%s, sat %v)", b, x, got, r, sat)
				}
			}
		}
	}
	for i := 0; i < 256; i++ {
		b := uint8(i)
		x := E5M2ToF32(b)
		for _, r := range allRounds {
			got := F32ToE5M2(x, r, false)
			if got != b {
				t.Fatalf("E5M2 %#x -> %v -> %#x (%s)", b, x, got, r)
			}
		}
	}
}

// decoders for the ordering properties.
type target struct {
	name string
	conv func(x float32, r Round) float64 // result as a float64 value
}

var targets = []target{
	{"f16", func(x float32, r Round) float64 { return float64(F16ToF32(F32ToF16(x, r))) }},
	{"bf16", func(x float32, r Round) float64 { return float64(BF16ToF32(F32ToBF16(x, r))) }},
	{"tf32", func(x float32, r Round) float64 { return float64(math.Float32frombits(F32ToTF32(x, r))) }},
	{"e4m3", func(x float32, r Round) float64 { return float64(E4M3ToF32(F32ToE4M3(x, r, false))) }},
	{"e5m2", func(x float32, r Round) float64 { return float64(E5M2ToF32(F32ToE5M2(x, r, false))) }},
}

// randF32 draws float32 values spread over all binades, with extra weight
// on subnormals, ties and specials.
func randF32(rng *rand.Rand) float32 {
	switch rng.IntN(8) {
	case 0:
		return math.Float32frombits(rng.Uint32() & 0x807fffff) // subnormal
	case 1:
		// A value with a short significand: likely a tie somewhere.
		m := rng.Uint32() & 0xfff
		e := rng.IntN(60) - 30
		v := float32(math.Ldexp(float64(m), e))
		if rng.IntN(2) == 0 {
			v = -v
		}
		return v
	case 2:
		// Near the f16/e5m2/e4m3 ranges.
		return float32(rng.NormFloat64() * math.Ldexp(1, rng.IntN(40)-20))
	}
	return math.Float32frombits(rng.Uint32())
}

// RM <= RN, RNA <= RP as real numbers; RM <= x <= RP; RZ has magnitude <=
// |x| and is RM or RP; RN and RNA are RM or RP. (Overflow to infinity is an
// allowed RN/RP/RM value; the inequalities still hold with infinities.)
func TestRoundingOrderProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 0
	for i := 0; i < 200000; i++ {
		x := randF32(rng)
		if x != x {
			continue
		}
		v := float64(x)
		for _, tg := range targets {
			rn, rz, rm, rp, rna := tg.conv(x, RN), tg.conv(x, RZ), tg.conv(x, RM), tg.conv(x, RP), tg.conv(x, RNA)
			if tg.name == "e4m3" && (rn != rn || rp != rp || rm != rm || rna != rna) {
				continue // E4M3 overflow without satfinite is NaN
			}
			ok := rm <= v && v <= rp && rm <= rn && rn <= rp && rm <= rna && rna <= rp &&
				math.Abs(rz) <= math.Abs(v) && (rz == rm || rz == rp) &&
				(rn == rm || rn == rp) && (rna == rm || rna == rp)
			if !ok {
				t.Fatalf("%s x=%v (%#x): rn=%v rz=%v rm=%v rp=%v rna=%v", tg.name, x, math.Float32bits(x), rn, rz, rm, rp, rna)
			}
			// RN picks the nearer candidate (ties aside).
			if rm != rp && !math.IsInf(rm, 0) && !math.IsInf(rp, 0) {
				dl, du := v-rm, rp-v
				if (dl < du && rn != rm) || (du < dl && rn != rp) {
					t.Fatalf("%s x=%v: RN %v not nearest of %v, %v", tg.name, x, rn, rm, rp)
				}
				if dl == du && rna != math.Copysign(math.Max(math.Abs(rm), math.Abs(rp)), v) {
					t.Fatalf("%s x=%v: RNA tie %v", tg.name, x, rna)
				}
			}
			n++
		}
	}
	t.Logf("%d ordering checks", n)
}

// The generic rounding core agrees with Go's native float64 -> float32
// conversion (IEEE RN, subnormals included) on random patterns.
func TestF64ToF32MatchesNative(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 300000; i++ {
		var x float64
		switch i % 3 {
		case 0:
			x = math.Float64frombits(rng.Uint64())
		case 1:
			x = math.Ldexp(rng.Float64(), rng.IntN(320)-180) // around the f32 range
		default:
			x = float64(math.Float32frombits(rng.Uint32())) + math.Ldexp(float64(rng.IntN(3)-1), -rng.IntN(200))
		}
		if x != x {
			continue
		}
		want := math.Float32bits(float32(x))
		if got := uint32(fromF64(fmtF32, x, RN, false)); got != want {
			t.Fatalf("fromF64(%v) = %#x, native %#x", x, got, want)
		}
	}
}

// IntToF32/IntToF64 in RN agree with math/big's correctly rounded
// conversions, and directed results bracket the exact integer.
func TestIntToFloatProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 100000; i++ {
		v := rng.Uint64() >> rng.IntN(64)
		signed := i%2 == 0
		bi := new(big.Int)
		if signed {
			bi.SetInt64(int64(v))
		} else {
			bi.SetUint64(v)
		}
		bf := new(big.Float).SetInt(bi)
		w32, _ := bf.Float32()
		w64, _ := bf.Float64()
		if got := IntToF32(v, signed, 64, RN); math.Float32bits(got) != math.Float32bits(w32) {
			t.Fatalf("IntToF32(%#x, %v) = %v, want %v", v, signed, got, w32)
		}
		if got := IntToF64(v, signed, 64, RN); got != w64 {
			t.Fatalf("IntToF64(%#x, %v) = %v, want %v", v, signed, got, w64)
		}
		lo := new(big.Float).SetFloat64(float64(IntToF32(v, signed, 64, RM)))
		hi := new(big.Float).SetFloat64(float64(IntToF32(v, signed, 64, RP)))
		if lo.Cmp(bf) > 0 || hi.Cmp(bf) < 0 {
			t.Fatalf("IntToF32 directed bracket failed for %#x", v)
		}
	}
}

// FloatToInt agrees with a direct definition on random values.
func TestFloatToIntProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	widths := []int{8, 16, 32, 64}
	for i := 0; i < 100000; i++ {
		x := math.Ldexp(rng.NormFloat64(), rng.IntN(70))
		bits := widths[rng.IntN(4)]
		signed := rng.IntN(2) == 0
		r := allRounds[rng.IntN(5)]
		got := FloatToInt(x, r, bits, signed)
		v := new(big.Float).SetFloat64(RoundToInt64(x, r))
		var lo, hi *big.Int
		if signed {
			lo = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), uint(bits-1)))
			hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(bits-1)), big.NewInt(1))
		} else {
			lo = big.NewInt(0)
			hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(bits)), big.NewInt(1))
		}
		vi, _ := v.Int(nil)
		if vi.Cmp(lo) < 0 {
			vi = lo
		}
		if vi.Cmp(hi) > 0 {
			vi = hi
		}
		mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(bits)), big.NewInt(1))
		want := new(big.Int).And(vi, mask).Uint64()
		if got != want {
			t.Fatalf("FloatToInt(%v, %s, %d, %v) = %#x, want %#x", x, r, bits, signed, got, want)
		}
	}
}

// checkF32Op compares a fast-path binary32 result with the math/big oracle.
func checkF32Op(t testing.TB, op string, a, b, c float32, r Round) {
	x, y, z := float64(a), float64(b), float64(c)
	if nonFinite(x) || nonFinite(y) || nonFinite(z) {
		return
	}
	var got float32
	var want uint64
	switch op {
	case "add":
		got, want = AddF32(a, b, r), refAdd(fmtF32, x, y, r)
	case "sub":
		got, want = SubF32(a, b, r), refAdd(fmtF32, x, -y, r)
	case "mul":
		got, want = MulF32(a, b, r), refMul(fmtF32, x, y, r)
	case "fma":
		got, want = FmaF32(a, b, c, r), refFma(fmtF32, x, y, z, r)
	case "div":
		if y == 0 || x == 0 {
			return
		}
		got, want = DivF32(a, b, r), refDiv(fmtF32, x, y, r)
	case "sqrt":
		if x <= 0 {
			return
		}
		got, want = SqrtF32(a, r), refSqrt(fmtF32, x, r)
	}
	if uint64(math.Float32bits(got)) != want {
		t.Fatalf("%s(%#x, %#x, %#x) %s: fast %#x, big %#x", op, math.Float32bits(a), math.Float32bits(b), math.Float32bits(c), r, math.Float32bits(got), want)
	}
}

func checkF64Op(t testing.TB, op string, a, b, c float64, r Round) {
	if nonFinite(a) || nonFinite(b) || nonFinite(c) {
		return
	}
	var got float64
	var want uint64
	switch op {
	case "add":
		got, want = AddF64(a, b, r), refAdd(fmtF64, a, b, r)
	case "mul":
		got, want = MulF64(a, b, r), refMul(fmtF64, a, b, r)
	case "fma":
		if r == RN { // FmaF64 RN uses math.FMA; the oracle checks it too
			got, want = FmaF64(a, b, c, r), refFma(fmtF64, a, b, c, r)
		} else {
			return // directed FMA *is* the big path
		}
	case "div":
		if a == 0 || b == 0 {
			return
		}
		got, want = DivF64(a, b, r), refDiv(fmtF64, a, b, r)
	case "sqrt":
		if a <= 0 {
			return
		}
		got, want = SqrtF64(a, r), refSqrt(fmtF64, a, r)
	}
	if math.Float64bits(got) != want {
		t.Fatalf("%s(%#x, %#x, %#x) %s: fast %#x, big %#x", op, math.Float64bits(a), math.Float64bits(b), math.Float64bits(c), r, math.Float64bits(got), want)
	}
}

var ops32 = []string{"add", "sub", "mul", "fma", "div", "sqrt"}
var ops64 = []string{"add", "mul", "fma", "div", "sqrt"}

func randF64(rng *rand.Rand) float64 {
	switch rng.IntN(4) {
	case 0:
		return math.Ldexp(float64(rng.Uint64()>>rng.IntN(64)), rng.IntN(2200)-1150)
	case 1:
		return 1 + math.Ldexp(float64(rng.IntN(16)), -rng.IntN(60))
	}
	return math.Float64frombits(rng.Uint64())
}

func TestDirectedFastPathsMatchBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	iters := 40000
	if testing.Short() {
		iters = 4000
	}
	for i := 0; i < iters; i++ {
		a, b, c := randF32(rng), randF32(rng), randF32(rng)
		if i%4 == 0 { // correlated operands: cancellation and near-ties
			b = -a * (1 + float32(rng.IntN(5))*0x1p-23)
			c = -a * b
		}
		r := allRounds[i%5]
		for _, op := range ops32 {
			checkF32Op(t, op, a, b, c, r)
		}
		x, y, z := randF64(rng), randF64(rng), randF64(rng)
		for _, op := range ops64 {
			checkF64Op(t, op, x, y, z, r)
		}
	}
}

// The approximations stay within (indeed far inside) the PTX ISA bounds,
// measured against float64 library functions.
func TestApproxBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	ulp := func(v float64) float64 {
		f := float32(math.Abs(v))
		return float64(math.Nextafter32(f, float32(math.Inf(1))) - f)
	}
	for i := 0; i < 200000; i++ {
		x := randF32(rng)
		if x != x || math.IsInf(float64(x), 0) {
			continue
		}
		v := float64(x)
		// ex2: <= 2 ulp (we expect <= 0.5 + epsilon).
		if v > -149 && v < 127.9 {
			want := math.Exp2(v)
			if d := math.Abs(float64(Ex2Approx(x))-want) / ulp(want); d > 0.51 {
				t.Fatalf("Ex2Approx(%v): %v ulp", x, d)
			}
		}
		if v > 0 {
			want := math.Log2(v)
			got := float64(Lg2Approx(x))
			if v > 0.5 && v < 2 {
				if math.Abs(got-want) > 0x1p-22 {
					t.Fatalf("Lg2Approx(%v) abs error %g", x, got-want)
				}
			} else if math.Abs(got-want) > 0x1p-22*math.Abs(want) {
				t.Fatalf("Lg2Approx(%v) rel error", x)
			}
			if d := math.Abs(got-want) / ulp(want); want != 0 && d > 0.51 {
				t.Fatalf("Lg2Approx(%v): %v ulp", x, d)
			}
			rs := 1 / math.Sqrt(v)
			if e := math.Abs(float64(RsqrtApprox(x))-rs) / rs; e > math.Exp2(-22.9) {
				t.Fatalf("RsqrtApprox(%v) rel error %g", x, e)
			}
		}
		if math.Abs(v) <= 2*math.Pi {
			if e := math.Abs(float64(SinApprox(x)) - math.Sin(v)); e > math.Exp2(-20.5) {
				t.Fatalf("SinApprox(%v) abs error %g", x, e)
			}
			if e := math.Abs(float64(CosApprox(x)) - math.Cos(v)); e > math.Exp2(-20.5) {
				t.Fatalf("CosApprox(%v) abs error %g", x, e)
			}
		}
		if math.Abs(v) < 1e6 {
			// Near-correct rounding of sin/cos for moderate arguments too.
			for _, p := range []struct {
				got  float32
				want float64
			}{{SinApprox(x), math.Sin(v)}, {CosApprox(x), math.Cos(v)}} {
				if d := math.Abs(float64(p.got)-p.want) / ulp(p.want); d > 0.51 && math.Abs(p.want) > 1e-30 {
					t.Fatalf("sin/cos(%v): %v ulp", x, d)
				}
			}
		}
		th := math.Tanh(v)
		if th != 0 {
			if e := math.Abs(float64(TanhApprox(x))-th) / math.Abs(th); e > 0x1p-11 {
				t.Fatalf("TanhApprox(%v) rel error %g", x, e)
			}
			if d := math.Abs(float64(TanhApprox(x))-th) / ulp(th); d > 0.51 {
				t.Fatalf("TanhApprox(%v): %v ulp", x, d)
			}
		}
	}
}

// A digest of the approximate functions and directed arithmetic over a
// fixed input set. It pins the exact bits so a change of platform (GOARCH
// with FMA contraction, a different math library) or of the code is caught.
func TestDeterminismDigest(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	h := sha256.New()
	var buf [4]byte
	put := func(v float32) {
		binary.LittleEndian.PutUint32(buf[:], math.Float32bits(v))
		h.Write(buf[:])
	}
	for i := 0; i < 20000; i++ {
		x := randF32(rng)
		y := randF32(rng)
		put(Ex2Approx(x))
		put(Lg2Approx(x))
		put(SinApprox(x))
		put(CosApprox(x))
		put(TanhApprox(x))
		put(RsqrtApprox(x))
		put(SinApprox(float32(math.Ldexp(float64(x), -100)) * 1e30)) // huge arguments
		for _, r := range allRounds {
			put(FmaF32(x, y, x, r))
			put(DivF32(x, y, r))
		}
	}
	got := fmt.Sprintf("%x", h.Sum(nil))
	const want = "834fe37e80d990834ccc7de9009480458cc1ca6bf217287c39a0c0b741860de8"
	if want == "" {
		t.Logf("digest %s", got)
		return
	}
	if got != want {
		t.Fatalf("determinism digest changed: %s", got)
	}
}

// The RN fast paths of F32ToF16 and F32ToBF16 agree with the generic
// rounding core: exhaustively over the top 20 bits of the pattern with
// random low bits, plus every tie pattern.
func TestFastPathsMatchGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	check := func(b uint32) {
		x := math.Float32frombits(b)
		if x != x {
			return
		}
		if got, want := F32ToF16(x, RN), uint16(fromF32(fmtF16, x, RN, false)); got != want {
			t.Fatalf("F32ToF16 fast(%#x) = %#x, generic %#x", b, got, want)
		}
		if got, want := F32ToBF16(x, RN), uint16(fromF32(fmtBF16, x, RN, false)); got != want {
			t.Fatalf("F32ToBF16 fast(%#x) = %#x, generic %#x", b, got, want)
		}
	}
	for hi := uint32(0); hi < 1<<20; hi++ {
		b := hi << 12
		check(b | rng.Uint32()&0xfff)
		check(b)
		check(b | 0x800)
	}
	for e := uint32(0); e < 256; e++ {
		for _, low := range []uint32{0x1000, 0x3000, 0x0fff, 0x1001, 0x8000, 0x18000, 0x7fe000, 0x7ff000} {
			check(e<<23 | low)
			check(1<<31 | e<<23 | low)
		}
	}
}
