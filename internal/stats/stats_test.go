package stats

import (
	"math"
	"testing"
)

func TestPearson(t *testing.T) {
	tests := []struct {
		name   string
		xs, ys []float64
		r      float64
		ok     bool
	}{
		{"collinear", []float64{1, 2, 3, 4, 5}, []float64{3, 5, 7, 9, 11}, 1, true},
		{"anti", []float64{1, 2, 3}, []float64{9, 6, 3}, -1, true},
		// x̄ = 2.5, ȳ = 3.75; Σdxdy = 3.5, Σdx² = 5, Σdy² = 4.75 → 3.5/√23.75.
		{"hand", []float64{1, 2, 3, 4}, []float64{2, 4, 5, 4}, 3.5 / math.Sqrt(23.75), true},
		{"offset", []float64{1e9 + 1, 1e9 + 2, 1e9 + 3, 1e9 + 4}, []float64{2, 4, 5, 4}, 3.5 / math.Sqrt(23.75), true},
		{"constant", []float64{1, 1, 1}, []float64{1, 2, 3}, 0, false},
		{"one pair", []float64{1}, []float64{1}, 0, false},
		{"nan", []float64{1, math.NaN(), 3}, []float64{1, 2, 3}, 0, false},
		{"inf", []float64{1, 2, 3}, []float64{1, math.Inf(1), 3}, 0, false},
		{"cut to shorter", []float64{1, 2, 3, 99}, []float64{1, 2, 3}, 1, true},
	}
	for _, tc := range tests {
		r, ok := Pearson(tc.xs, tc.ys)
		if ok != tc.ok || ok && math.Abs(r-tc.r) > 1e-12 || !ok && !math.IsNaN(r) {
			t.Errorf("%s: Pearson = %v, %v; want %v, %v", tc.name, r, ok, tc.r, tc.ok)
		}
	}
}

func TestLinearFit(t *testing.T) {
	// x̄ = 2.5, ȳ = 3.75; slope = Σdxdy/Σdx² = 3.5/5 = 0.7; intercept = 3.75 − 0.7·2.5 = 2.
	m, b, ok := LinearFit([]float64{1, 2, 3, 4}, []float64{2, 4, 5, 4})
	if !ok || math.Abs(m-0.7) > 1e-12 || math.Abs(b-2) > 1e-12 {
		t.Errorf("LinearFit = %v, %v, %v; want 0.7, 2, true", m, b, ok)
	}
	if _, _, ok := LinearFit([]float64{2, 2}, []float64{1, 3}); ok {
		t.Error("vertical data fitted")
	}
}

func TestMean(t *testing.T) {
	if m := Mean([]float64{1e308, 1e308, 1e308}); m != 1e308 {
		t.Errorf("Mean overflowed: %v", m)
	}
	if m := Mean(nil); m != 0 {
		t.Errorf("Mean(nil) = %v", m)
	}
}
