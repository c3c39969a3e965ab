package ref

import (
	"fmt"
	"math"

	"github.com/ptxtrace/ptxtrace/internal/bigbuf"
)

// VecAddIn holds the inputs of vecadd(a, b, c, n).
type VecAddIn struct {
	A, B []float32 // float32[N] each, values in [-1, 1)
	N    int
}

// VecAddInputs returns n pairs of floats uniform in [-1, 1).
func VecAddInputs(n int, seed uint64) VecAddIn {
	r := newRNG(seed)
	in := VecAddIn{A: bigbuf.Slice[float32](n), B: bigbuf.Slice[float32](n), N: n}
	for i := range n {
		in.A[i] = r.uniform(-1, 1)
		in.B[i] = r.uniform(-1, 1)
	}
	return in
}

// VecAdd is the reference for c: c[i] = a[i] + b[i]. The tolerance is zero: a
// single IEEE addition is correctly rounded, so the GPU result must equal
// float32(a+b) bit for bit.
func VecAdd(in VecAddIn) Floats {
	want := make([]float64, in.N)
	for i := range want {
		want[i] = float64(in.A[i]) + float64(in.B[i])
	}
	return Floats{Want: want}
}

// CompareVecAdd is Compare(got, VecAdd(in)) without building the reference:
// each element is checked against float64(A[i]) + float64(B[i]) as it is
// computed (no 8·N-byte slice), with the same zero tolerance and the same
// error text.
func CompareVecAdd(got []float32, in VecAddIn) error {
	if len(got) != in.N {
		return fmt.Errorf("length %d, want %d", len(got), in.N)
	}
	a, b := in.A[:len(got)], in.B[:len(got)]
	var m mismatches
	for i, g := range got {
		w := float64(a[i]) + float64(b[i])
		if g == float32(w) || (math.IsNaN(float64(g)) && math.IsNaN(w)) {
			continue
		}
		var zero Tolerance
		m.float(i, g, w, zero.Abs+zero.Rel*math.Abs(w)) // as Floats.Allowed: NaN for a NaN reference
	}
	return m.err("float32 output", len(got))
}

// MatMulIn holds the inputs of matmul(A, B, C, M, N, K).
type MatMulIn struct {
	A       []float32 // M×K row-major, values in [-1, 1)
	B       []float32 // K×N row-major, values in [-1, 1)
	M, N, K int
}

// MatMulInputs returns random M×K and K×N matrices with entries in [-1, 1).
func MatMulInputs(m, n, k int, seed uint64) MatMulIn {
	r := newRNG(seed)
	in := MatMulIn{A: bigbuf.Slice[float32](m * k), B: bigbuf.Slice[float32](k * n), M: m, N: n, K: k}
	for i := range in.A {
		in.A[i] = r.uniform(-1, 1)
	}
	for i := range in.B {
		in.B[i] = r.uniform(-1, 1)
	}
	return in
}

// MatMul is the reference for C = A·B (M×N, row-major), the plain triple loop
// in float64. Tolerance: |C_ij − ref| ≤ γ_{K+2}·Σ_k |A_ik||B_kj| (Scale holds
// that sum). This bounds any float32 evaluation of a K-term dot product in any
// order, with or without FMA contraction (the PTX uses fma.rn.f32 in k order;
// the zero padding of partial tiles adds exact zeros).
func MatMul(in MatMulIn) Floats {
	want := make([]float64, in.M*in.N)
	scale := make([]float64, in.M*in.N)
	for i := range in.M {
		for j := range in.N {
			var s, a float64
			for k := range in.K {
				p := float64(in.A[i*in.K+k]) * float64(in.B[k*in.N+j])
				s += p
				a += math.Abs(p)
			}
			want[i*in.N+j] = s
			scale[i*in.N+j] = a
		}
	}
	return Floats{Want: want, Scale: scale, Tol: Tolerance{Rel: gamma(in.K + 2)}}
}

// ReduceIn holds the input of the reduce sample: reduce_partial(in, partials, n)
// then reduce_final(partials, out, grid).
type ReduceIn struct {
	In []float32 // float32[n], values in [-1, 1)
}

// ReduceInputs returns n floats uniform in [-1, 1).
func ReduceInputs(n int, seed uint64) ReduceIn {
	r := newRNG(seed)
	in := ReduceIn{In: bigbuf.Slice[float32](n)}
	for i := range in.In {
		in.In[i] = r.uniform(-1, 1)
	}
	return in
}

// ReduceRel is the default relative tolerance of the reduce sample, measured
// against Σ|in[i]| (the sample's documented 1e-5).
const ReduceRel = 1e-5

// Reduce is the reference for *out: the plain sum of in, in float64, with
// Scale = Σ|in[i]| and Rel = ReduceRel. A float32 summation tree of depth d
// (longest chain of roundings any input goes through) errs by at most
// γ_d·Σ|in|; ReduceRel covers d ≤ 167. For the two passes d =
// ⌈n/(grid·block)⌉ (grid-stride slice) + 10 (warp shuffles, then the warps'
// partials) + ⌈grid/finalBlock⌉ (block-stride slice of the partials) + 10;
// use ReduceLaunchTolerance for launches deeper than that. The kernels add in
// an order fixed by n, grid, block and finalBlock (no atomics), so their
// result is deterministic: ReduceFixedOrder computes the same float32.
func Reduce(in ReduceIn) Floats {
	var s, a float64
	for _, v := range in.In {
		s += float64(v)
		a += math.Abs(float64(v))
	}
	return Floats{Want: []float64{s}, Scale: []float64{a}, Tol: Tolerance{Rel: ReduceRel}}
}

// ReduceLaunchTolerance returns the tolerance (relative to Σ|in|) of a
// reduce_partial<<<grid, block>>> + reduce_final<<<1, finalBlock>>> pair:
// the larger of ReduceRel and γ_d for the launches' summation depth d.
func ReduceLaunchTolerance(n, grid, block, finalBlock int) Tolerance {
	d := (n+grid*block-1)/(grid*block) + 10 + (grid+finalBlock-1)/finalBlock + 10
	return Tolerance{Rel: math.Max(ReduceRel, gamma(d))}
}

// ReduceFixedOrder returns the partials and the total the reduce sample's
// two kernels compute, bit for bit: it performs the kernels' float32
// additions in their order (grid-stride slice, shuffle tree with offsets
// 16, 8, 4, 2, 1, the same tree over the warps' partials, then the final
// block over the partials). It mirrors the kernels' decomposition, so it is
// a determinism check, not an independent reference (that is Reduce). block
// and finalBlock must be multiples of 32 in [32, 1024].
func ReduceFixedOrder(in []float32, grid, block, finalBlock int) (partials []float32, out float32) {
	partials = make([]float32, grid)
	for b := range grid {
		partials[b] = blockSumFixed(block, func(t int) float32 {
			var v float32
			for i := b*block + t; i < len(in); i += grid * block {
				v += in[i]
			}
			return v
		})
	}
	out = blockSumFixed(finalBlock, func(t int) float32 {
		var v float32
		for i := t; i < grid; i += finalBlock {
			v += partials[i]
		}
		return v
	})
	return partials, out
}

// blockSumFixed is the kernels' blockSum as thread 0 sees it: thread t's
// value is val(t).
func blockSumFixed(block int, val func(t int) float32) float32 {
	warpSum := func(v []float32) float32 { // __shfl_down_sync tree; lane 0's result
		for off := 16; off > 0; off >>= 1 {
			for l := range off {
				v[l] += v[l+off]
			}
		}
		return v[0]
	}
	var warps [32]float32
	for w := range block / 32 {
		var lanes [32]float32
		for l := range 32 {
			lanes[l] = val(32*w + l)
		}
		warps[w] = warpSum(lanes[:])
	}
	return warpSum(warps[:]) // lanes ≥ block/32 contribute 0
}

// NNIn holds the inputs of nn_distance(locations, distances, n, lat, lng).
type NNIn struct {
	Locations []float32 // float2[N] interleaved: x = latitude in [-90, 90), y = longitude in [-180, 180)
	N         int
	Lat, Lng  float32 // query point, drawn from the same ranges
}

// NNInputs returns n random records and a random query point.
func NNInputs(n int, seed uint64) NNIn {
	r := newRNG(seed)
	in := NNIn{Locations: make([]float32, 2*n), N: n}
	for i := range n {
		in.Locations[2*i] = r.uniform(-90, 90)
		in.Locations[2*i+1] = r.uniform(-180, 180)
	}
	in.Lat = r.uniform(-90, 90)
	in.Lng = r.uniform(-180, 180)
	return in
}

// NN is the reference for distances: sqrt((lat−x)² + (lng−y)²) in float64.
// Tolerance: Rel 4u = 2^-22 of the distance. The GPU rounds the two
// differences, one square (the other is fused into fma.rn) and the sum, then
// takes sqrt.rn: (1+u)^4 on the sum of squares, halved by the square root,
// plus the final rounding, is below 3u; an unfused evaluation adds one more u.
// A zero distance is exact (x − y = 0 only when x = y).
func NN(in NNIn) Floats {
	want := make([]float64, in.N)
	for i := range want {
		dx := float64(in.Lat) - float64(in.Locations[2*i])
		dy := float64(in.Lng) - float64(in.Locations[2*i+1])
		want[i] = math.Sqrt(dx*dx + dy*dy)
	}
	return Floats{Want: want, Tol: Tolerance{Rel: 4 * u}}
}

// PathfinderIn holds the wall of a pathfinder run.
type PathfinderIn struct {
	Wall       []int32 // Rows×Cols row-major, values in [0, 10)
	Rows, Cols int
}

// PathfinderInputs returns a random rows×cols wall with costs 0..9.
func PathfinderInputs(rows, cols int, seed uint64) PathfinderIn {
	r := newRNG(seed)
	in := PathfinderIn{Wall: make([]int32, rows*cols), Rows: rows, Cols: cols}
	for i := range in.Wall {
		in.Wall[i] = int32(r.intn(10))
	}
	return in
}

// Pathfinder is the reference for the host loop (prev = wall[0]; one
// pathfinder_step per later row): it returns the DP row after the last row,
// best[i] = min cost of a path from row 0 to (Rows−1, i) moving down, down-left
// or down-right, computed by the recurrence
// best_r[i] = wall[r][i] + min(best_{r−1}[i−1], best_{r−1}[i], best_{r−1}[i+1]).
// Integer results are exact.
func Pathfinder(in PathfinderIn) []int32 {
	prev := append([]int32(nil), in.Wall[:in.Cols]...)
	for r := 1; r < in.Rows; r++ {
		prev = PathfinderStep(in.Wall[r*in.Cols:(r+1)*in.Cols], prev)
	}
	return prev
}

// PathfinderStep is the reference for one pathfinder_step launch.
func PathfinderStep(wallRow, prev []int32) []int32 {
	n := len(prev)
	dst := make([]int32, n)
	for i := range n {
		best := prev[i]
		if i > 0 {
			best = min(best, prev[i-1])
		}
		if i+1 < n {
			best = min(best, prev[i+1])
		}
		dst[i] = wallRow[i] + best
	}
	return dst
}
