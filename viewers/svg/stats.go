package svg

import "github.com/ptxtrace/ptxtrace/internal/stats"

// Pearson returns the Pearson correlation coefficient of the pairs
// (xs[i], ys[i]); see internal/stats.Pearson (ok is false when r is
// undefined, and r is then NaN).
func Pearson(xs, ys []float64) (r float64, ok bool) { return stats.Pearson(xs, ys) }

// LinearFit returns the ordinary least-squares line y = slope·x + intercept
// through the pairs; see internal/stats.LinearFit.
func LinearFit(xs, ys []float64) (slope, intercept float64, ok bool) {
	return stats.LinearFit(xs, ys)
}

func mean(v []float64) float64 { return stats.Mean(v) }
