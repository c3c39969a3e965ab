package ref

import (
	"math"
	"testing"
)

// Hand-computed cases for the tensor-core references.

func TestF16Bits(t *testing.T) {
	for _, c := range []struct {
		h    uint16
		want float64
	}{
		{0x3c00, 1}, {0xbc00, -1}, {0x3800, 0.5}, {0x3e00, 1.5}, {0x7bff, 65504},
		{0x0400, 0x1p-14}, {0x0001, 0x1p-24}, {0x03ff, 1023 * 0x1p-24}, {0x3555, 0x1.554p-2},
		{0x8000, 0}, {0x7c00, math.Inf(1)}, {0xfc00, math.Inf(-1)},
	} {
		if got := F16Bits(c.h); got != c.want {
			t.Errorf("F16Bits(%#04x) = %v, want %v", c.h, got, c.want)
		}
	}
	if !math.IsNaN(F16Bits(0x7e00)) || !math.Signbit(F16Bits(0x8000)) {
		t.Error("NaN or -0 decoded wrongly")
	}
	for _, v := range []float64{1, -0.125, 0.875, 0x1p-14, 1025} {
		if got := F16Bits(f16Of(v)); got != v {
			t.Errorf("f16Of(%v) decodes to %v", v, got)
		}
	}
}

func TestRoundF16(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{
		{1, 1},
		{1 + 0x1p-11, 1},               // tie between 1 and 1+2^-10: even (1)
		{1 + 3*0x1p-11, 1 + 2*0x1p-10}, // tie: even mantissa 2
		{1 + 0x1p-11 + 0x1p-30, 1 + 0x1p-10},
		{0.7, 0x1.668p-1},            // 0.7 = 0x1.6666..p-1: 10 bits 0x1.664, then binary 10 0110.. > half: up to 0x1.668
		{3 * 0x1p-25, 2 * 0x1p-24},   // subnormal tie 1.5·2^-24: even (2)
		{0x1p-25, 0},                 // tie between 0 and 2^-24: even (0)
		{0x1p-14 - 0x1p-26, 0x1p-14}, // rounds up into the normal range
	} {
		if got := RoundF16(c.in); got != c.want {
			t.Errorf("RoundF16(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if ulpF16(1) != 0x1p-10 || ulpF16(0.75) != 0x1p-11 || ulpF16(0x1p-20) != 0x1p-24 {
		t.Errorf("ulpF16: %v %v %v", ulpF16(1), ulpF16(0.75), ulpF16(0x1p-20))
	}
}

// TestF16Matrix: the exact distribution holds only n/8, n in [-8, 8], and
// hits both ends; the full one has magnitudes in [2^-10, 1) and uses
// mantissa bits below 2^-3 (so sums round).
func TestF16Matrix(t *testing.T) {
	lo, hi := false, false
	for _, h := range F16Matrix(64, 64, 1, true) {
		v := F16Bits(h) * 8
		if v != math.Trunc(v) || v < -8 || v > 8 {
			t.Fatalf("exact element %v is not n/8", v/8)
		}
		lo, hi = lo || v == -8, hi || v == 8
	}
	if !lo || !hi {
		t.Error("exact elements never reach -1 or 1")
	}
	fine := 0
	for _, h := range F16Matrix(64, 64, 1, false) {
		v := math.Abs(F16Bits(h))
		if v < 0x1p-10 || v >= 1 {
			t.Fatalf("full element %v outside [2^-10, 1)", v)
		}
		if h&0x7f != 0 {
			fine++
		}
	}
	if fine < 64*64/2 {
		t.Errorf("only %d of %d full elements use the low mantissa bits", fine, 64*64)
	}
}

func TestHandGemmF16(t *testing.T) {
	// A = [1 2; 3 4] (2×2), B = [5 -6; 7 8]: C = [19 10; 43 14]
	a, b := []float64{1, 2, 3, 4}, []float64{5, -6, 7, 8}
	f := GemmF16(a, b, 2, 2, 2, false, true)
	want := []float64{19, 10, 43, 14}
	scale := []float64{19, 22, 43, 50} // Σ|a·b|
	for i := range want {
		if f.Want[i] != want[i] || f.Scale[i] != scale[i] {
			t.Errorf("C[%d] = %v (scale %v), want %v (%v)", i, f.Want[i], f.Scale[i], want[i], scale[i])
		}
	}
	if f.Tol.Rel != 0 {
		t.Errorf("exact inputs: tolerance %v, want 0", f.Tol.Rel)
	}
	// B stored N×K: bt = [5 7; -6 8] is the same B
	g := GemmF16(a, []float64{5, 7, -6, 8}, 2, 2, 2, true, false)
	for i := range want {
		if g.Want[i] != want[i] {
			t.Errorf("bt: C[%d] = %v, want %v", i, g.Want[i], want[i])
		}
	}
	// k = 2 rounds up to the chain formula: 2^-23·(1.15625·2 + 16)·(1+2^-10)
	if w := 0x1p-23 * 18.3125 * (1 + 0x1p-10); g.Tol.Rel != w {
		t.Errorf("tolerance %v, want %v", g.Tol.Rel, w)
	}
}

// TestHandAttention: one query, two keys, head size 1: s = (2, 0), c = 1
// → p = (1, 2^-2), l = 1.25, out = (1·v0 + 0.25·v1)/1.25.
func TestHandAttention(t *testing.T) {
	f := Attention([]float64{1}, []float64{2, 0}, []float64{3, -1}, 1, 2, 1, 1, true)
	if want := (3 - 0.25) / 1.25; f.Want[0] != want {
		t.Errorf("out = %v, want %v", f.Want[0], want)
	}
	// s = (1, 0), m = 1, c = -log2(0.3): x = (0, -c), p = (1, 0.3); 0.3 is
	// not an f16 value, so the reference must use h(0.3) in the numerator
	// and 0.3 in l: out = (h(1)·0 + h(0.3)·1) / 1.3
	c := -math.Log2(0.3)
	g := Attention([]float64{1}, []float64{1, 0}, []float64{0, 1}, 1, 2, 1, c, true)
	p1 := math.Exp2(-c)
	if want := RoundF16(p1) / (1 + p1); g.Want[0] != want {
		t.Errorf("out = %v, want %v (h(p) = %v)", g.Want[0], want, RoundF16(p1))
	}
	// the bound allows at least one f16 ulp of h(p1)·v/l and stays below 1 %
	if a := g.Allowed(0); a < ulpF16(p1)/(1+p1) || a > 0.01*g.Want[0] {
		t.Errorf("allowed %v outside [%v, %v]", a, ulpF16(p1)/(1+p1), 0.01*g.Want[0])
	}
}

// TestHandFlashAttention: blocks of one key. s = (2, 0): block 2 keeps the
// max (α = 1), out = (3 + 0.25·(−1))/1.25 = 2.2; s = (0, 2): block 2 raises
// it (α = 2^-2), O = 0.25·3 + (−1), l = 0.25 + 1, out = −0.2. With one
// block of every key the recurrence is Attention.
func TestHandFlashAttention(t *testing.T) {
	for _, c := range []struct {
		k    []float64
		want float64
	}{{[]float64{2, 0}, 2.2}, {[]float64{0, 2}, -0.2}} {
		f := FlashAttention([]float64{1}, c.k, []float64{3, -1}, 1, 2, 1, 1, 1, true)
		if math.Abs(f.Want[0]-c.want) > 1e-15 {
			t.Errorf("keys %v: out = %v, want %v", c.k, f.Want[0], c.want)
		}
	}
	q, k, v := F16s(f16Buf(F16Matrix(4, 64, 1, false)).Data), F16s(f16Buf(F16Matrix(64, 64, 2, false)).Data), F16s(f16Buf(F16Matrix(64, 64, 3, false)).Data)
	a := Attention(q, k, v, 4, 64, 64, 0.18, false)
	fl := FlashAttention(q, k, v, 4, 64, 64, 64, 0.18, false)
	for i := range a.Want {
		if a.Want[i] != fl.Want[i] {
			t.Fatalf("one block: element %d = %v, Attention %v", i, fl.Want[i], a.Want[i])
		}
	}
}

// TestModernGenerators: defaults work, are repeatable, have the documented
// sizes; unknown arguments and shapes the kernels cannot take are refused.
func TestModernGenerators(t *testing.T) {
	sizes := map[string]map[string]int{ // bytes per buffer at the defaults
		"gemm16":  {"a": 2 * 128 * 256, "b": 2 * 256 * 128},
		"attn16":  {"q": 2 * 128 * 64, "k": 2 * 64 * 64, "v": 2 * 64 * 64},
		"flash16": {"q": 2 * 128 * 64, "k": 2 * 256 * 64, "v": 2 * 256 * 64},
	}
	gens := ModernGenerators()
	if len(gens) != len(sizes) {
		t.Errorf("%d generators, want %d", len(gens), len(sizes))
	}
	for name, g := range gens {
		a, err := g.Make(Args{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		b, _ := g.Make(Args{})
		for k, buf := range a.Buffers {
			if len(buf.Data) != sizes[name][k] || string(buf.Data) != string(b.Buffers[k].Data) {
				t.Errorf("%s.%s: %d bytes (want %d) or not repeatable", name, k, len(buf.Data), sizes[name][k])
			}
		}
		if a.Scalars["exact"] != 1 {
			t.Errorf("%s: exact = %v by default, want 1", name, a.Scalars["exact"])
		}
		if _, err := g.Make(Args{"bogus": "1"}); err == nil {
			t.Errorf("%s accepts an unknown argument", name)
		}
	}
	if in, _ := gens["attn16"].Make(Args{}); in.Scalars["c"] != float64(float32(0.125*math.Log2E)) {
		t.Errorf("attn16: c = %v", in.Scalars["c"])
	}
	for _, bad := range []struct {
		gen  string
		args Args
	}{
		{"gemm16", Args{"K": "24"}}, {"attn16", Args{"sq": "100"}}, {"flash16", Args{"sk": "96"}},
	} {
		if _, err := gens[bad.gen].Make(bad.args); err == nil {
			t.Errorf("%s accepts %v", bad.gen, bad.args)
		}
	}
	// bt: 1 stores B as N×K
	in, _ := gens["gemm16"].Make(Args{"N": "64", "bt": "1"})
	if d := in.Buffers["b"].Dims; len(d) != 2 || d[0] != 64 || d[1] != 256 {
		t.Errorf("bt: b dims %v, want [64 256]", d)
	}
}
