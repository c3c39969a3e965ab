package ref

import "math"

// DenseIn is a square float32 system used by lud (A only) and gaussian (A and B).
type DenseIn struct {
	A    []float32 // Size×Size row-major: entries uniform in [-1, 1), plus Size on the diagonal
	B    []float32 // Size right-hand side, uniform in [-1, 1) (gaussian only)
	Size int
}

// DenseInputs returns a random size×size matrix that is strictly diagonally
// dominant by rows and by columns (|a_ii| ≥ size > Σ_{j≠i}|a_ij|), so
// elimination without pivoting is well defined and stable (every multiplier
// has magnitude < 1, growth factor ≤ 2), and a right-hand side.
func DenseInputs(size int, seed uint64) DenseIn {
	r := newRNG(seed)
	in := DenseIn{A: make([]float32, size*size), B: make([]float32, size), Size: size}
	for i := range size {
		for j := range size {
			v := r.uniform(-1, 1)
			if i == j {
				v += float32(size)
			}
			in.A[i*size+j] = v
		}
	}
	for i := range in.B {
		in.B[i] = r.uniform(-1, 1)
	}
	return in
}

// doolittle factors a (n×n) as L·U without pivoting in float64, and returns
// packed lu (L strictly below the diagonal, U on and above it), per-element
// first-order bounds e on the error of a float32 computation of the same
// factors, and num, the numerators a_ij − Σ_{k<j} l_ik·u_kj of the L entries
// (the values gaussian_fan1 divides), with their bounds enum.
//
// The bounds are running error bounds that do not depend on the order in which
// the sums are accumulated (sequential, tiled as in lud_internal, with or
// without FMA): computing a − Σ_{k<m} l·u with m products accumulates at most
// m+2 roundings on any term, so the rounding error is ≤ γ_{m+2}·(|a| + Σ|l||u|),
// and errors already in l and u propagate to first order as Σ(e_l|u| + |l|e_u).
// A quotient l = num/u_jj adds (e_num + |l|·e_ujj)/|u_jj| + u·|l|.
func doolittle(a []float32, n int) (lu, e, num, enum []float64) {
	lu = make([]float64, n*n)
	e = make([]float64, n*n)
	num = make([]float64, n*n)
	enum = make([]float64, n*n)
	for i := range n {
		for j := range n {
			m := min(i, j)
			s := float64(a[i*n+j])
			abs := math.Abs(s)
			var prop float64
			for k := range m {
				l, uu := lu[i*n+k], lu[k*n+j]
				s -= l * uu
				abs += math.Abs(l * uu)
				prop += e[i*n+k]*math.Abs(uu) + math.Abs(l)*e[k*n+j]
			}
			bound := prop + gamma(m+2)*abs
			if i <= j {
				lu[i*n+j], e[i*n+j] = s, bound
				continue
			}
			d := lu[j*n+j]
			l := s / d
			lu[i*n+j] = l
			num[i*n+j], enum[i*n+j] = s, bound
			e[i*n+j] = (bound+math.Abs(l)*e[j*n+j])/math.Abs(d) + u*math.Abs(l)
		}
	}
	return lu, e, num, enum
}

// luTolRel is the factor applied to the first-order running bounds, covering
// the neglected second-order terms with a wide margin.
const luTolRel = 2

// LUD is the reference for the lud host loop: the in-place result
// (unit-lower L strictly below the diagonal, U on and above it) of a
// sequential Doolittle LU without pivoting of in.A. Scale holds the
// per-element running error bound (see doolittle); Rel = 2, so an element
// passes when |got − want| ≤ 2·bound. Size must be a multiple of 16 for the
// kernels; the reference accepts any size.
func LUD(in DenseIn) Floats {
	lu, e, _, _ := doolittle(in.A, in.Size)
	return Floats{Want: lu, Scale: e, Tol: Tolerance{Rel: luTolRel, Abs: 1e-30}}
}

// GaussianOut is the expected state of the gaussian buffers after the host
// loop (t = 0 … Size−2 of fan1, fan2), assuming m was zero-filled before.
type GaussianOut struct {
	M Floats // multipliers m[r][t] = l_rt below the diagonal, 0 elsewhere (never written)
	A Floats // U on and above the diagonal; below it fan2 leaves rounding residues, want 0
	B Floats // forward-eliminated right-hand side y = L⁻¹·b
}

// Gaussian is the reference for gaussian_fan1/fan2 over all steps:
// sequential forward elimination without pivoting, in float64, which equals
// the Doolittle factorisation A = L·U (m holds L, a ends as U) and y = L⁻¹b.
//
// Tolerances are per-element running bounds (Rel = 2 on Scale, see doolittle).
// Below the diagonal fan2 computes a[r][t] − fl(m_rt·a[t][t]) with
// m_rt = fl(a[r][t]/a[t][t]), a residue of magnitude ≤ 2u(1+u)·|a[r][t]|; the
// exact value is 0 and the bound is that residue's.
func Gaussian(in DenseIn) GaussianOut {
	n := in.Size
	lu, e, num, enum := doolittle(in.A, n)
	out := GaussianOut{
		M: Floats{Want: make([]float64, n*n), Scale: make([]float64, n*n), Tol: Tolerance{Rel: luTolRel, Abs: 1e-30}},
		A: Floats{Want: make([]float64, n*n), Scale: make([]float64, n*n), Tol: Tolerance{Rel: luTolRel, Abs: 1e-30}},
		B: Floats{Want: make([]float64, n), Scale: make([]float64, n), Tol: Tolerance{Rel: luTolRel, Abs: 1e-30}},
	}
	for i := range n {
		for j := range n {
			k := i*n + j
			if i > j {
				out.M.Want[k], out.M.Scale[k] = lu[k], e[k]
				out.A.Scale[k] = 2 * u * (1 + u) * (math.Abs(num[k]) + enum[k])
			} else {
				out.A.Want[k], out.A.Scale[k] = lu[k], e[k]
			}
		}
	}
	y, ey := out.B.Want, out.B.Scale
	for r := range n {
		s := float64(in.B[r])
		abs := math.Abs(s)
		var prop float64
		for t := range r {
			l := lu[r*n+t]
			s -= l * y[t]
			abs += math.Abs(l * y[t])
			prop += e[r*n+t]*math.Abs(y[t]) + math.Abs(l)*ey[t]
		}
		y[r], ey[r] = s, prop+gamma(r+2)*abs
	}
	return out
}
