package ref

import (
	"fmt"
	"math"
	"strings"
)

// u is the unit roundoff of float32 (round to nearest): 2^-24.
const u = 1.0 / (1 << 24)

// gamma returns the classical bound γ_n = n·u/(1−n·u) on the relative error of
// n successive float32 roundings.
func gamma(n int) float64 {
	nu := float64(n) * u
	return nu / (1 - nu)
}

// Tolerance is how far a float32 result may be from the exact reference value.
// An element passes when got == float32(want) (bitwise, or both NaN) or
// |got − want| ≤ Abs + Rel·scale, where scale is the per-element magnitude of
// Floats.Scale (or |want| when Floats.Scale is nil).
type Tolerance struct {
	Abs float64
	Rel float64
}

// Floats is the expected float32 output of a kernel: the exact (float64)
// reference values, the per-element magnitudes the relative tolerance is
// measured against, and the tolerance itself.
type Floats struct {
	Want  []float64
	Scale []float64 // nil: |Want[i]|
	Tol   Tolerance
}

// Allowed returns the largest |got − want| accepted for element i.
func (f Floats) Allowed(i int) float64 {
	s := math.Abs(f.Want[i])
	if f.Scale != nil {
		s = f.Scale[i]
	}
	return f.Tol.Abs + f.Tol.Rel*s
}

// Float32 returns the reference values rounded to float32 (the bit pattern an
// exact GPU would produce).
func (f Floats) Float32() []float32 {
	out := make([]float32, len(f.Want))
	for i, v := range f.Want {
		out[i] = float32(v)
	}
	return out
}

// maxReport bounds the number of mismatching elements listed in an error.
const maxReport = 8

type mismatches struct {
	n     int
	lines []string
}

func (m *mismatches) add(format string, args ...any) {
	m.n++
	if len(m.lines) < maxReport {
		m.lines = append(m.lines, fmt.Sprintf(format, args...))
	}
}

func (m *mismatches) err(what string, total int) error {
	if m.n == 0 {
		return nil
	}
	return fmt.Errorf("%s: %d of %d elements out of tolerance:\n  %s", what, m.n, total,
		strings.Join(m.lines, "\n  "))
}

// Compare checks a float32 kernel output against its reference, element by
// element, with the reference's tolerance. The error lists the first
// mismatches (index, got, want, |diff|, allowed).
func Compare(got []float32, want Floats) error {
	if len(got) != len(want.Want) {
		return fmt.Errorf("length %d, want %d", len(got), len(want.Want))
	}
	var m mismatches
	for i, g := range got {
		w := want.Want[i]
		if g == float32(w) || (math.IsNaN(float64(g)) && math.IsNaN(w)) {
			continue
		}
		m.float(i, g, w, want.Allowed(i))
	}
	return m.err("float32 output", len(got))
}

// float records element i (got g, reference w) when it is out of the
// allowed difference a.
func (m *mismatches) float(i int, g float32, w, a float64) {
	if d := math.Abs(float64(g) - w); !(d <= a) {
		m.add("[%d] got %.9g want %.9g |diff| %.3g allowed %.3g", i, g, w, d, a)
	}
}

// CompareInts checks an integer kernel output for exact equality.
func CompareInts(got, want []int32) error {
	if len(got) != len(want) {
		return fmt.Errorf("length %d, want %d", len(got), len(want))
	}
	var m mismatches
	for i := range got {
		if got[i] != want[i] {
			m.add("[%d] got %d want %d", i, got[i], want[i])
		}
	}
	return m.err("int32 output", len(got))
}
