package ref

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Held-out kernels (samples/heldout): inputs and independent references.
// The kernels were written to test the probes on patterns the samples lack
// (atomics, local arrays, device-function calls, dynamic shared memory,
// shuffles between loads, several state spaces in one loop, 1024-thread
// blocks, a 16 KB scan, a transposed tile, CSR SpMV, a 2D stencil, a
// last-block reduction). The references are plain loops over the
// definitions in the kernels' header comments, never their algorithm: all
// integer results wrap modulo 2^32 like the kernels' int arithmetic, so they
// must match exactly.

// HeldoutGenerators returns the held-out kernels' input generators by name
// (the kernel name). Each call returns a fresh map.
func HeldoutGenerators() map[string]Generator {
	return map[string]Generator{
		"histogram": {"n, seed → data (u8[n], skewed: half the bytes fall in 0..15); n", func(a Args) (Inputs, error) {
			v, err := a.ints("n:8192", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			d := HistogramInputs(v[0], uint64(v[1]))
			return inputs(bufs("data", Buffer{Elem: "u8", Dims: []int{len(d)}, Data: d}), "n", len(d)), nil
		}},
		"localsort": {"n, seed → in (s32[8n], values in [-20, 20]); n", func(a Args) (Inputs, error) {
			v, err := a.ints("n:1024", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			return inputs(bufs("in", s32s(ints32(8*v[0], uint64(v[1]), -20, 20), 8*v[0])), "n", v[0]), nil
		}},
		"devfunc": {"n, seed → in (s32[n]), idx (s32[n], values in [-16, n+16)); n", func(a Args) (Inputs, error) {
			v, err := a.ints("n:4096", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			n := v[0]
			return inputs(bufs("in", s32s(ints32(n, uint64(v[1]), -1<<30, 1<<30), n),
				"idx", s32s(ints32(n, uint64(v[1])+1, -16, int32(n)+15), n)), "n", n), nil
		}},
		"dynrev": {"n, seed → in (s32[n]); n", func(a Args) (Inputs, error) {
			v, err := a.ints("n:4000", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			return inputs(bufs("in", s32s(ints32(v[0], uint64(v[1]), -1000000, 1000000), v[0])), "n", v[0]), nil
		}},
		"shflchain": {"n (multiple of 32), steps, seed → next (s32[n], values in [0, n)); n, steps", func(a Args) (Inputs, error) {
			v, err := a.ints("n:2048", "steps:4", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			if v[0] == 0 || v[0]%32 != 0 {
				return Inputs{}, fmt.Errorf("shflchain: n = %d is not a positive multiple of 32", v[0])
			}
			return inputs(bufs("next", s32s(ints32(v[0], uint64(v[2]), 0, int32(v[0])-1), v[0])), "n", v[0], "steps", v[1]), nil
		}},
		"multispace": {"n, seed → x, w (s32[n], values in [-1000, 1000]), coef (s32[8], the __constant__ taps); n", func(a Args) (Inputs, error) {
			v, err := a.ints("n:4096", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			n, s := v[0], uint64(v[1])
			return inputs(bufs("x", s32s(ints32(n, s, -1000, 1000), n), "w", s32s(ints32(n, s+1, -1000, 1000), n),
				"coef", s32s(ints32(8, s+2, -9, 9), 8)), "n", n), nil
		}},
		"bigblock": {"n, seed → in (s32[n], values in [-3000, 3000]); n", func(a Args) (Inputs, error) {
			v, err := a.ints("n:8192", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			return inputs(bufs("in", s32s(ints32(v[0], uint64(v[1]), -3000, 3000), v[0])), "n", v[0]), nil
		}},
		"scan": {"n, seed → in (s32[n], values in [-100, 100]); n", func(a Args) (Inputs, error) {
			v, err := a.ints("n:8192", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			return inputs(bufs("in", s32s(ints32(v[0], uint64(v[1]), -100, 100), v[0])), "n", v[0]), nil
		}},
		"transpose": {"rows, cols, seed → in (f32[rows][cols]); rows, cols", func(a Args) (Inputs, error) {
			v, err := a.ints("rows:64", "cols:96", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			if err := elems("rows×cols", v[0], v[1]); err != nil {
				return Inputs{}, err
			}
			r := newRNG(uint64(v[2]))
			m := make([]float32, v[0]*v[1])
			for i := range m {
				m[i] = r.uniform(-1, 1)
			}
			return inputs(bufs("in", f32s(m, v[0], v[1])), "rows", v[0], "cols", v[1]), nil
		}},
		"spmv": {"rows, cols, degree (max per row), seed → rowptr (s32[rows+1]), col (s32[nnz]), val (f32[nnz]), x (f32[cols]); rows", func(a Args) (Inputs, error) {
			v, err := a.ints("rows:2048", "cols:2048", "degree:8", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			if err := errors.Join(elems("rows×degree", v[0], v[2]), elems("cols", v[1])); err != nil {
				return Inputs{}, err
			}
			in := SpMVInputs(v[0], v[1], v[2], uint64(v[3]))
			return inputs(bufs("rowptr", s32s(in.RowPtr, len(in.RowPtr)), "col", s32s(in.Col, len(in.Col)),
				"val", f32s(in.Val, len(in.Val)), "x", f32s(in.X, len(in.X))), "rows", in.Rows), nil
		}},
		"stencil2d": {"rows, cols, seed → in (s32[rows][cols], values in [-500, 500]); rows, cols", func(a Args) (Inputs, error) {
			v, err := a.ints("rows:48", "cols:80", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			if err := elems("rows×cols", v[0], v[1]); err != nil {
				return Inputs{}, err
			}
			return inputs(bufs("in", s32s(ints32(v[0]*v[1], uint64(v[2]), -500, 500), v[0], v[1])), "rows", v[0], "cols", v[1]), nil
		}},
		"fencereduce": {"n, seed → in (s32[n]), count (u32[1], zero); n", func(a Args) (Inputs, error) {
			v, err := a.ints("n:20000", "seed:1")
			if err != nil {
				return Inputs{}, err
			}
			return inputs(bufs("in", s32s(ints32(v[0], uint64(v[1]), -1<<20, 1<<20), v[0]), "count", s32s([]int32{0}, 1)), "n", v[0]), nil
		}},
	}
}

// ints32 returns n integers uniform in [lo, hi].
func ints32(n int, seed uint64, lo, hi int32) []int32 {
	r := newRNG(seed)
	out := make([]int32, n)
	span := int(int64(hi) - int64(lo) + 1)
	for i := range out {
		out[i] = int32(int64(lo) + int64(r.intn(span)))
	}
	return out
}

// HistogramInputs returns n bytes: even draws uniform in 0..255, odd draws
// in 0..15, so a few bins collect many atomics.
func HistogramInputs(n int, seed uint64) []byte {
	r := newRNG(seed)
	d := make([]byte, n)
	for i := range d {
		if r.intn(2) == 0 {
			d[i] = byte(r.intn(256))
		} else {
			d[i] = byte(r.intn(16))
		}
	}
	return d
}

// Histogram counts each byte value.
func Histogram(data []byte) []int32 {
	bins := make([]int32, 256)
	for _, b := range data {
		bins[b]++
	}
	return bins
}

// LocalSort sorts each group of 8 and counts its distinct values.
func LocalSort(in []int32) (sorted, distinct []int32) {
	sorted = append([]int32(nil), in...)
	for g := 0; g+8 <= len(sorted); g += 8 {
		s := sorted[g : g+8]
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		d := int32(0)
		seen := map[int32]bool{}
		for _, v := range s {
			if !seen[v] {
				seen[v] = true
				d++
			}
		}
		distinct = append(distinct, d)
	}
	return sorted, distinct
}

// DevFunc is out[i] = ((in[clamp(idx[i])]·3 + in[i]) xor i) + in[i] modulo 2^32.
func DevFunc(in, idx []int32) []int32 {
	n := len(in)
	out := make([]int32, n)
	for i := range out {
		j := min(max(int(idx[i]), 0), n-1)
		m := (uint32(in[j])*3 + uint32(in[i])) ^ uint32(i)
		out[i] = int32(m + uint32(in[i]))
	}
	return out
}

// DynRev reverses every block-sized chunk of in; positions of a chunk past
// len(in) read as 0.
func DynRev(in []int32, block int) []int32 {
	out := make([]int32, len(in))
	for i := range out {
		b, t := i/block, i%block
		src := b*block + block - 1 - t
		if src < len(in) {
			out[i] = in[src]
		}
	}
	return out
}

// ShflChain follows the kernel's definition per warp of 32 consecutive
// lanes: v = next[p], x = xor of v over the warp, p = (v + x) mod n.
func ShflChain(next []int32, steps int) []int32 {
	n := len(next)
	out := make([]int32, n)
	for w := 0; w < n; w += 32 {
		var p, acc [32]uint32
		for l := range p {
			p[l] = uint32(w + l)
		}
		for s := 0; s < steps; s++ {
			var v [32]uint32
			x := uint32(0)
			for l := range v {
				v[l] = uint32(next[p[l]])
				x ^= v[l]
			}
			for l := range v {
				acc[l] += v[l]
				p[l] = (v[l] + x) % uint32(n)
			}
		}
		for l := range p {
			out[w+l] = int32(acc[l] + p[l])
		}
	}
	return out
}

// MultiSpace is y[i] = Σ_k coef[k]·(x[(i+k) mod n] + w[b·128 + (t+k) mod 128])
// for i = b·128 + t, w read as 0 past n, modulo 2^32.
func MultiSpace(x, w, coef []int32) []int32 {
	n := len(x)
	y := make([]int32, n)
	for i := range y {
		b, t := i/128, i%128
		acc := uint32(0)
		for k, c := range coef {
			wi := b*128 + (t+k)%128
			wv := uint32(0)
			if wi < n {
				wv = uint32(w[wi])
			}
			acc += uint32(c) * (uint32(x[(i+k)%n]) + wv)
		}
		y[i] = int32(acc)
	}
	return y
}

// BigBlock sums the squares of each 1024-element chunk modulo 2^32.
func BigBlock(in []int32, grid int) []int32 {
	out := make([]int32, grid)
	for i, v := range in {
		if i/1024 < grid {
			out[i/1024] = int32(uint32(out[i/1024]) + uint32(v)*uint32(v))
		}
	}
	return out
}

// Scan returns the inclusive prefix sums of each 4096-element tile and the
// tiles' totals (grid tiles; elements past len(in) count 0).
func Scan(in []int32, grid int) (out, totals []int32) {
	out = make([]int32, len(in))
	totals = make([]int32, grid)
	for b := 0; b < grid; b++ {
		s := uint32(0)
		for i := b * 4096; i < (b+1)*4096 && i < len(in); i++ {
			s += uint32(in[i])
			out[i] = int32(s)
		}
		totals[b] = int32(s)
	}
	return out, totals
}

// Transpose returns the cols×rows transpose of a rows×cols matrix (exact).
func Transpose(in []float32, rows, cols int) Floats {
	want := make([]float64, rows*cols)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			want[c*rows+r] = float64(in[r*cols+c])
		}
	}
	return Floats{Want: want}
}

// SpMVIn is a CSR matrix and a dense vector.
type SpMVIn struct {
	Rows   int
	RowPtr []int32
	Col    []int32
	Val    []float32
	X      []float32
}

// SpMVInputs returns a rows×cols CSR matrix with 0..degree entries per row
// at random (repeatable) columns, values in [-1, 1], and x in [-1, 1].
func SpMVInputs(rows, cols, degree int, seed uint64) SpMVIn {
	r := newRNG(seed)
	in := SpMVIn{Rows: rows, RowPtr: make([]int32, rows+1)}
	for i := 0; i < rows; i++ {
		k := r.intn(degree + 1)
		for j := 0; j < k; j++ {
			in.Col = append(in.Col, int32(r.intn(cols)))
			in.Val = append(in.Val, r.uniform(-1, 1))
		}
		in.RowPtr[i+1] = int32(len(in.Col))
	}
	in.X = make([]float32, cols)
	for i := range in.X {
		in.X[i] = r.uniform(-1, 1)
	}
	return in
}

// SpMV is y = A·x in float64 with a tolerance for k float32 multiply-adds
// per row (each rounded once when contracted to FMA, twice otherwise):
// |error| ≤ γ_{2k}·Σ|a_ij·x_j|.
func SpMV(in SpMVIn) Floats {
	f := Floats{Want: make([]float64, in.Rows), Scale: make([]float64, in.Rows)}
	maxK := 0
	for r := 0; r < in.Rows; r++ {
		for k := in.RowPtr[r]; k < in.RowPtr[r+1]; k++ {
			p := float64(in.Val[k]) * float64(in.X[in.Col[k]])
			f.Want[r] += p
			f.Scale[r] += math.Abs(p)
		}
		maxK = max(maxK, int(in.RowPtr[r+1]-in.RowPtr[r]))
	}
	f.Tol = Tolerance{Rel: gamma(2 * maxK)}
	return f
}

// Stencil2D is out = 4·c − (N + S + E + W) with zeros outside the grid,
// modulo 2^32.
func Stencil2D(in []int32, rows, cols int) []int32 {
	at := func(r, c int) uint32 {
		if r < 0 || r >= rows || c < 0 || c >= cols {
			return 0
		}
		return uint32(in[r*cols+c])
	}
	out := make([]int32, rows*cols)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			out[r*cols+c] = int32(4*at(r, c) - (at(r-1, c) + at(r+1, c) + at(r, c-1) + at(r, c+1)))
		}
	}
	return out
}

// FenceReduce returns the sum of in modulo 2^32 and the block partials of
// a launch of grid blocks of 256 threads (block b owns the grid-stride
// slices of its threads: indices i with (i / 256) mod grid = b).
func FenceReduce(in []int32, grid int) (partials []int32, sum int32) {
	p := make([]uint32, grid)
	s := uint32(0)
	for i, v := range in {
		p[(i/256)%grid] += uint32(v)
		s += uint32(v)
	}
	partials = make([]int32, grid)
	for i, v := range p {
		partials[i] = int32(v)
	}
	return partials, int32(s)
}
