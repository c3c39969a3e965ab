// Package stats holds the small statistics that both the analyses (package
// analysis) and the charts (package viewers/svg) need, so a correlation in a
// table and the one in a chart's legend are the same number.
//
// Invariants: functions are pure, never panic, and report undefined results
// with ok == false (r or the fit is then NaN) rather than a made-up value.
// Sums are centred on the means first (two passes), so data with a large
// offset, such as cycle counts, does not lose precision.
package stats

import "math"

// Pearson returns the sample correlation coefficient of the pairs
// (xs[i], ys[i]) over the first min(len(xs), len(ys)) pairs. ok is false
// with fewer than two pairs, when either variable is constant, or when a
// value is NaN or infinite.
func Pearson(xs, ys []float64) (r float64, ok bool) {
	n := min(len(xs), len(ys))
	if n < 2 || !finite(xs[:n]) || !finite(ys[:n]) {
		return math.NaN(), false
	}
	mx, my := Mean(xs[:n]), Mean(ys[:n])
	var sxy, sxx, syy float64
	for i := 0; i < n; i++ {
		dx, dy := xs[i]-mx, ys[i]-my
		sxy += float64(dx * dy)
		sxx += float64(dx * dx)
		syy += float64(dy * dy)
	}
	if sxx == 0 || syy == 0 || math.IsInf(sxx, 0) || math.IsInf(syy, 0) {
		return math.NaN(), false
	}
	r = sxy / (math.Sqrt(sxx) * math.Sqrt(syy))
	if math.IsNaN(r) {
		return math.NaN(), false
	}
	// Rounding can push |r| a hair past 1.
	return math.Max(-1, math.Min(1, r)), true
}

// LinearFit returns the ordinary least-squares line y = slope·x + intercept
// through the first min(len(xs), len(ys)) pairs. ok is false with fewer than
// two pairs, when all x are equal, or when a value is NaN or infinite.
func LinearFit(xs, ys []float64) (slope, intercept float64, ok bool) {
	n := min(len(xs), len(ys))
	if n < 2 || !finite(xs[:n]) || !finite(ys[:n]) {
		return math.NaN(), math.NaN(), false
	}
	mx, my := Mean(xs[:n]), Mean(ys[:n])
	var sxy, sxx float64
	for i := 0; i < n; i++ {
		dx := xs[i] - mx
		sxy += float64(dx * (ys[i] - my))
		sxx += float64(dx * dx)
	}
	if sxx == 0 || math.IsInf(sxx, 0) {
		return math.NaN(), math.NaN(), false
	}
	slope = sxy / sxx
	intercept = my - float64(slope*mx)
	if math.IsNaN(slope) || math.IsInf(slope, 0) || math.IsNaN(intercept) || math.IsInf(intercept, 0) {
		return math.NaN(), math.NaN(), false
	}
	return slope, intercept, true
}

// Mean returns the arithmetic mean of v (0 for an empty slice). It divides
// before summing, so many values near the float64 maximum cannot overflow.
func Mean(v []float64) float64 {
	s := 0.0
	n := float64(len(v))
	for _, x := range v {
		s += x / n
	}
	return s
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
