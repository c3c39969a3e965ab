package svg

import "math"

// Pearson returns the Pearson correlation coefficient of the pairs
// (xs[i], ys[i]) over the first min(len(xs), len(ys)) pairs. ok is false
// when fewer than two pairs are given or either variable has zero variance
// (r is undefined then). Values are centred on their means before the
// products are summed (two-pass), which keeps the result accurate for data
// with a large offset such as cycle counts. Callers filter NaN/Inf.
func Pearson(xs, ys []float64) (r float64, ok bool) {
	n := min(len(xs), len(ys))
	if n < 2 {
		return 0, false
	}
	mx, my := mean(xs[:n]), mean(ys[:n])
	var sxy, sxx, syy float64
	for i := 0; i < n; i++ {
		dx, dy := xs[i]-mx, ys[i]-my
		sxy += float64(dx * dy)
		sxx += float64(dx * dx)
		syy += float64(dy * dy)
	}
	if sxx == 0 || syy == 0 || math.IsInf(sxx, 0) || math.IsInf(syy, 0) {
		return 0, false
	}
	r = sxy / (math.Sqrt(sxx) * math.Sqrt(syy))
	// Rounding can push |r| a hair past 1.
	return math.Max(-1, math.Min(1, r)), !math.IsNaN(r)
}

// LinearFit returns the ordinary least-squares line y = slope·x + intercept
// through the pairs. ok is false with fewer than two pairs or when all x
// are equal.
func LinearFit(xs, ys []float64) (slope, intercept float64, ok bool) {
	n := min(len(xs), len(ys))
	if n < 2 {
		return 0, 0, false
	}
	mx, my := mean(xs[:n]), mean(ys[:n])
	var sxy, sxx float64
	for i := 0; i < n; i++ {
		dx := xs[i] - mx
		sxy += float64(dx * (ys[i] - my))
		sxx += float64(dx * dx)
	}
	if sxx == 0 || math.IsInf(sxx, 0) {
		return 0, 0, false
	}
	slope = sxy / sxx
	intercept = my - float64(slope*mx)
	if math.IsNaN(slope) || math.IsInf(slope, 0) || math.IsNaN(intercept) || math.IsInf(intercept, 0) {
		return 0, 0, false
	}
	return slope, intercept, true
}

func mean(v []float64) float64 {
	// Divide first so 10k values near 1e150 cannot overflow.
	s := 0.0
	n := float64(len(v))
	for _, x := range v {
		s += x / n
	}
	return s
}
