package ref

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Tensor-core samples (samples/modern): inputs and independent references.
//
// Inputs are f16 matrices in one of two distributions:
//
//   - exact (exact = 1): every element is n/8 with n an integer in
//     [-8, 8]. Every product is a multiple of 2^-6 of magnitude ≤ 1, so any
//     sum of at most 2^14 of them is a multiple of 2^-6 below 2^14 in
//     magnitude: it fits a 24-bit significand. Every partial sum, in any
//     order, with any intermediate precision of at least f32 (and any
//     alignment truncation that keeps 24 bits), is therefore exact, and the
//     f32 result must equal the float64 reference bit for bit.
//   - full (exact = 0): sign, exponent and 10 mantissa bits drawn at
//     random, magnitudes in [2^-10, 1): full 11-bit significands, so the
//     f32 accumulations round. The references then allow the tolerance
//     derived in MMAChainTol from the per-instruction bound of
//     docs/launch.md.
//
// The references are float64 loops over the definitions in the kernels'
// header comments; they decode f16 themselves (F16Bits), independent of
// replay's conversion code.

// F16Bits decodes an IEEE 754 binary16 bit pattern.
func F16Bits(h uint16) float64 {
	s := 1.0
	if h&0x8000 != 0 {
		s = -1
	}
	e, m := int(h>>10&0x1f), float64(h&0x3ff)
	switch e {
	case 0:
		return s * math.Ldexp(m, -24)
	case 31:
		if m != 0 {
			return math.NaN()
		}
		return s * math.Inf(1)
	}
	return s * math.Ldexp(1024+m, e-25)
}

// f16Of encodes v, which must be exactly representable in binary16 as a
// normal number or zero (the generators only make such values).
func f16Of(v float64) uint16 {
	var s uint16
	if math.Signbit(v) {
		s, v = 0x8000, -v
	}
	if v == 0 {
		return s
	}
	fr, e := math.Frexp(v) // v = fr·2^e, fr in [0.5, 1)
	m := fr*2048 - 1024    // 10-bit mantissa
	if m != math.Trunc(m) || e+14 < 1 || e+14 > 30 {
		panic(fmt.Sprintf("f16Of(%v): not a normal binary16 value", v))
	}
	return s | uint16(e+14)<<10 | uint16(m)
}

// F16Matrix draws rows×cols f16 elements in the exact or full distribution.
func F16Matrix(rows, cols int, seed uint64, exact bool) []uint16 {
	r := newRNG(seed)
	out := make([]uint16, rows*cols)
	for i := range out {
		if exact {
			out[i] = f16Of(float64(r.intn(17)-8) / 8)
			continue
		}
		x := r.next()
		out[i] = uint16(x>>63)<<15 | uint16(5+x%10)<<10 | uint16(x>>20)&0x3ff
	}
	return out
}

func f16Buf(v []uint16, dims ...int) Buffer {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], x)
	}
	return Buffer{Elem: "f16", Dims: dims, Data: b}
}

// F16s decodes little-endian f16 bytes.
func F16s(b []byte) []float64 {
	out := make([]float64, len(b)/2)
	for i := range out {
		out[i] = F16Bits(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return out
}

// MMAChainTol is the relative tolerance (against Σ_k |a_k·b_k|) of an f32
// dot product of length k computed as a chain of k/16 tensor-core steps of
// 16 products each (mma.sync m16n8k16, wmma m16n16k16, wgmma k16), every
// step adding the previous result as C. docs/launch.md bounds each step's
// hardware result by 2 ulp of the replay result plus
// 16·2^-23·(Σ|a·b| of the step + |c|), and replay's own step is within
// 0.5 ulp of the exact value; ulp(x) ≤ 2^-23·|x|, and every |d| and |c| is
// at most M = Σ_k |a_k b_k|. The step errors add up (the chain is linear):
// (k/16)·2.5·2^-23·M + 16·2^-23·M (the products, once in all) +
// (k/16)·16·2^-23·M (the carried C), i.e. 2^-23·M·(1.15625·k + 16); the
// factor 1+2^-10 covers second-order terms (|d| exceeding M by the errors
// themselves).
func MMAChainTol(k int) float64 {
	return 0x1p-23 * (1.15625*float64(k) + 16) * (1 + 0x1p-10)
}

// GemmF16 is C = A·B for f16 A (m×k row-major) and B (k×n row-major, or
// n×k row-major when bt): the exact values, their Σ|a·b| scales and the
// tolerance (exact: none; else MMAChainTol(k)).
func GemmF16(a, b []float64, m, n, k int, bt, exact bool) Floats {
	f := Floats{Want: make([]float64, m*n), Scale: make([]float64, m*n)}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s, mag := 0.0, 0.0
			for kk := 0; kk < k; kk++ {
				bv := b[kk*n+j]
				if bt {
					bv = b[j*k+kk]
				}
				p := a[i*k+kk] * bv
				s += p
				mag += math.Abs(p)
			}
			f.Want[i*n+j], f.Scale[i*n+j] = s, mag
		}
	}
	if !exact {
		f.Tol.Rel = MMAChainTol(k)
	}
	return f
}

// ModernGenerators returns the tensor-core samples' input generators by
// name. Each call returns a fresh map.
func ModernGenerators() map[string]Generator {
	return map[string]Generator{
		"gemm16": {"M, N, K, seed, exact (1: n/8 values, exact sums; 0: full f16 in ±[2^-10, 1)), bt (1: b stored N×K) → a (f16[M×K]), b (f16[K×N] or [N×K]); M, N, K, exact", func(a Args) (Inputs, error) {
			v, err := a.ints("M:128", "N:128", "K:256", "seed:1", "exact:1", "bt:0")
			if err != nil {
				return Inputs{}, err
			}
			m, n, k, s, ex := v[0], v[1], v[2], uint64(v[3]), v[4] == 1
			if m == 0 || n == 0 || k == 0 || k%16 != 0 {
				return Inputs{}, fmt.Errorf("gemm16: M, N, K must be positive and K a multiple of 16 (got %d, %d, %d)", m, n, k)
			}
			bd := []int{k, n}
			if v[5] == 1 {
				bd = []int{n, k}
			}
			return inputs(bufs("a", f16Buf(F16Matrix(m, k, s, ex), m, k), "b", f16Buf(F16Matrix(k, n, s+1, ex), bd...)),
				"M", m, "N", n, "K", k, "exact", v[4], "bt", v[5]), nil
		}},
		"attn16": {"sq (multiple of 64), seed, exact (as gemm16) → q (f16[sq×64]), k, v (f16[64×64]); seq_q, c (f32 0.125·log2 e)", func(a Args) (Inputs, error) {
			v, err := a.ints("sq:128", "seed:1", "exact:1")
			if err != nil {
				return Inputs{}, err
			}
			sq, s, ex := v[0], uint64(v[1]), v[2] == 1
			if sq == 0 || sq%64 != 0 {
				return Inputs{}, fmt.Errorf("attn16: sq = %d is not a positive multiple of 64", sq)
			}
			return inputs(bufs("q", f16Buf(F16Matrix(sq, 64, s, ex), sq, 64), "k", f16Buf(F16Matrix(64, 64, s+1, ex), 64, 64),
				"v", f16Buf(F16Matrix(64, 64, s+2, ex), 64, 64)), "seq_q", sq, "c", float32(0.125*math.Log2E), "exact", v[2]), nil
		}},
		"flash16": {"sq, sk (multiples of 64), seed, exact (as gemm16) → q (f16[sq×64]), k, v (f16[sk×64]); seq_q, seq_k, c (f32 0.125·log2 e)", func(a Args) (Inputs, error) {
			v, err := a.ints("sq:128", "sk:256", "seed:1", "exact:1")
			if err != nil {
				return Inputs{}, err
			}
			sq, sk, s, ex := v[0], v[1], uint64(v[2]), v[3] == 1
			if sq == 0 || sq%64 != 0 || sk == 0 || sk%64 != 0 {
				return Inputs{}, fmt.Errorf("flash16: sq = %d and sk = %d must be positive multiples of 64", sq, sk)
			}
			return inputs(bufs("q", f16Buf(F16Matrix(sq, 64, s, ex), sq, 64), "k", f16Buf(F16Matrix(sk, 64, s+1, ex), sk, 64),
				"v", f16Buf(F16Matrix(sk, 64, s+2, ex), sk, 64)), "seq_q", sq, "seq_k", sk, "c", float32(0.125*math.Log2E), "exact", v[3]), nil
		}},
	}
}

// RoundF16 rounds a non-negative finite v to the nearest binary16 value
// (ties to even), subnormals included; v must be below 65520.
func RoundF16(v float64) float64 {
	if v == 0 {
		return 0
	}
	_, e := math.Frexp(v) // v in [2^(e-1), 2^e)
	q := max(e-11, -24)   // ulp: 10 mantissa bits below 2^(e-1); subnormal ulp 2^-24
	return math.Ldexp(math.RoundToEven(math.Ldexp(v, -q)), q)
}

// ulpF16 is the spacing of binary16 values at v ≥ 0.
func ulpF16(v float64) float64 {
	if v == 0 {
		return 0x1p-24
	}
	_, e := math.Frexp(v)
	return math.Ldexp(1, max(e-11, -24))
}

// Attention is the reference of samples/modern/attention: for query rows
// q (sq×d), keys k and values v (sk×d), all row-major, and c (the f32
// scale·log2 e the kernel is passed), out[i][t] = Σ_j h(p_ij)·v[j][t] / l_i
// with s_ij = Σ q[i]·k[j], m_i = max_j s_ij, p_ij = 2^((s_ij − m_i)·c),
// l_i = Σ_j p_ij and h the rounding to f16 (the kernel rounds P to f16 for
// the second product). The values are computed in float64.
//
// Want holds those values, Scale the allowed |got − want| per element
// (Tol.Rel = 1), a bound derived from the kernel's operations, not tuned:
//   - S: exact with exact inputs, else within e_j = MMAChainTol(d)·Σ|q·k|;
//     the computed row max within e_m = max_j e_j;
//   - the exponent x = (s − m)·c: two f32 roundings (sub, mul) and the
//     S errors, |Δx| ≤ c·(e_j + e_m) + 2·2^-24·|x|;
//   - p: ex2.approx.f32 is within 2 ulp of the correctly rounded 2^x (PTX
//     ISA) and ulp ≤ 2^-23·p, so p_hw/p − 1 ≤ δp = ln2·|Δx| + 2.5·2^-23
//     (times 1+2^-10 for second-order terms);
//   - h(p_hw) − h(p) ≤ δp·p + one f16 ulp (rounding may fall on either
//     side of a tie point);
//   - the numerator Σ_j h_j v_jt: those differences times |v|, plus the
//     mma chain's MMAChainTol(sk)·Σ_j h_j|v_jt|;
//   - l: the p errors plus γ_sk for the f32 additions (at most sk of them
//     on any path), δl relative;
//   - the quotient: |N|/l·δl/(1−δl) + E_N/(l·(1−δl)), plus 2^-24 for the
//     division's rounding.
func Attention(q, k, v []float64, sq, sk, d int, c float64, exact bool) Floats {
	f := Floats{Want: make([]float64, sq*d), Scale: make([]float64, sq*d), Tol: Tolerance{Rel: 1}}
	s, e, x, p, dp, h, dh := make([]float64, sk), make([]float64, sk), make([]float64, sk),
		make([]float64, sk), make([]float64, sk), make([]float64, sk), make([]float64, sk)
	for i := 0; i < sq; i++ {
		m, em := math.Inf(-1), 0.0
		for j := 0; j < sk; j++ {
			dot, mag := 0.0, 0.0
			for t := 0; t < d; t++ {
				pr := q[i*d+t] * k[j*d+t]
				dot += pr
				mag += math.Abs(pr)
			}
			s[j], e[j] = dot, 0
			if !exact {
				e[j] = MMAChainTol(d) * mag
			}
			m, em = max(m, dot), max(em, e[j])
		}
		l, lerr := 0.0, 0.0
		for j := 0; j < sk; j++ {
			x[j] = (s[j] - m) * c
			p[j] = math.Exp2(x[j])
			dx := c*(e[j]+em) + 2*0x1p-24*math.Abs(x[j])
			dp[j] = (math.Ln2*dx + 2.5*0x1p-23) * (1 + 0x1p-10)
			h[j] = RoundF16(p[j])
			dh[j] = dp[j]*p[j] + ulpF16(p[j]*(1+dp[j]))
			l += p[j]
			lerr += dp[j] * p[j]
		}
		dl := lerr/l + gamma(sk)*(1+lerr/l)
		for t := 0; t < d; t++ {
			num, en, hv := 0.0, 0.0, 0.0
			for j := 0; j < sk; j++ {
				num += h[j] * v[j*d+t]
				en += dh[j] * math.Abs(v[j*d+t])
				hv += (h[j] + dh[j]) * math.Abs(v[j*d+t])
			}
			en += MMAChainTol(sk) * hv
			w := num / l
			bound := math.Abs(num)/l*dl/(1-dl) + en/(l*(1-dl))
			f.Want[i*d+t] = w
			f.Scale[i*d+t] = bound + 0x1p-24*(math.Abs(w)+bound)
		}
	}
	return f
}

// FlashAttention is the reference of samples/modern/flashattn: the online
// softmax recurrence of the kernel's header comment over key blocks of bn
// keys, in float64: per row, m = −∞, l = 0, O = 0; for each block b,
// m' = max(m, max_{j∈b} s_j), α = 2^((m − m')·c) (0 for the first
// block), p_j = 2^((s_j − m')·c), l = l·α + Σ_{j∈b} p_j,
// O = O·α + Σ_{j∈b} h(p_j)·v_j, m = m'; out = O / l.
//
// Scale holds the allowed |got − want| per element (Tol.Rel = 1), carried
// through the recurrence as absolute error bounds E_O, E_l next to the
// magnitudes T_O = Σ|terms| of O (a sum may cancel):
//   - s, p, h(p) as in Attention, the max error e_m being the largest S
//     error seen so far;
//   - α: ex2.approx of (m − m')·c, both maxima within e_m, two f32
//     roundings: δα = ln2·(c·2e_m + 2·2^-24·|x|) + 2.5·2^-23 (0 for the
//     first block, where ex2(−∞) = 0 exactly);
//   - l: E_l ← E_l·α(1+δα) + l·α·δα + Σ δp_j p_j + γ_bn·Σ p_j(1+δp_j)
//   - 2^-23·(l' + E_l') for the f32 multiply and add;
//   - O: E_O ← E_O·α(1+δα) + T_O·α·(δα + 2^-24) (the rescale and its
//     rounding) + Σ dh_j|v_j| (the h differences) + the bn/16-step mma
//     chain with every |c| ≤ T_O' : 2^-23·((bn/16)·18.5·T_O' + 16·M_b)
//     (M_b = Σ_{j∈b} (h_j + dh_j)|v_j|, T_O' = T_O·α + M_b);
//   - the quotient as in Attention.
func FlashAttention(q, k, v []float64, sq, sk, d, bn int, c float64, exact bool) Floats {
	f := Floats{Want: make([]float64, sq*d), Scale: make([]float64, sq*d), Tol: Tolerance{Rel: 1}}
	O, EO, TO := make([]float64, d), make([]float64, d), make([]float64, d)
	s, e, h, dh := make([]float64, bn), make([]float64, bn), make([]float64, bn), make([]float64, bn)
	for i := 0; i < sq; i++ {
		m, em, l, El := math.Inf(-1), 0.0, 0.0, 0.0
		clear(O)
		clear(EO)
		clear(TO)
		for b0 := 0; b0 < sk; b0 += bn {
			mn, emPrev := m, em
			for j := 0; j < bn; j++ {
				dot, mag := 0.0, 0.0
				for t := 0; t < d; t++ {
					pr := q[i*d+t] * k[(b0+j)*d+t]
					dot += pr
					mag += math.Abs(pr)
				}
				s[j], e[j] = dot, 0
				if !exact {
					e[j] = MMAChainTol(d) * mag
				}
				mn, em = max(mn, dot), max(em, e[j])
			}
			alpha, dalpha := 0.0, 0.0
			if b0 > 0 {
				xa := (m - mn) * c
				alpha = math.Exp2(xa)
				dalpha = (math.Ln2*(c*(emPrev+em)+2*0x1p-24*math.Abs(xa)) + 2.5*0x1p-23) * (1 + 0x1p-10)
			}
			sum, perr, pmag := 0.0, 0.0, 0.0
			for j := 0; j < bn; j++ {
				x := (s[j] - mn) * c
				p := math.Exp2(x)
				dp := (math.Ln2*(c*(e[j]+em)+2*0x1p-24*math.Abs(x)) + 2.5*0x1p-23) * (1 + 0x1p-10)
				h[j] = RoundF16(p)
				dh[j] = dp*p + ulpF16(p*(1+dp))
				sum += p
				perr += dp * p
				pmag += p * (1 + dp)
			}
			ln := l*alpha + sum
			El = El*alpha*(1+dalpha) + l*alpha*dalpha + perr + gamma(bn)*pmag
			El += 0x1p-23 * (ln + El)
			l = ln
			for t := 0; t < d; t++ {
				num, hd, mb := 0.0, 0.0, 0.0
				for j := 0; j < bn; j++ {
					av := math.Abs(v[(b0+j)*d+t])
					num += h[j] * v[(b0+j)*d+t]
					hd += dh[j] * av
					mb += (h[j] + dh[j]) * av
				}
				tn := TO[t]*alpha + mb
				chain := 0x1p-23 * (float64(bn/16)*18.5*tn + 16*mb) * (1 + 0x1p-10)
				EO[t] = EO[t]*alpha*(1+dalpha) + TO[t]*alpha*(dalpha+0x1p-24) + hd + chain
				O[t] = O[t]*alpha + num
				TO[t] = tn
			}
			m = mn
		}
		dl := El / l
		for t := 0; t < d; t++ {
			w := O[t] / l
			bound := math.Abs(O[t])/l*dl/(1-dl) + EO[t]/(l*(1-dl))
			f.Want[i*d+t] = w
			f.Scale[i*d+t] = bound + 0x1p-24*(math.Abs(w)+bound)
		}
	}
	return f
}
