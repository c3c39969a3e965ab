package svg

import (
	"math"
	"strconv"
	"strings"
)

// maxAbs bounds the data values a chart accepts. Larger finite values are
// treated like NaN/Inf (skipped and noted): beyond it, differences and sums
// of squares overflow float64 and no axis could show them anyway.
const maxAbs = 1e150

// usable reports whether v can be plotted.
func usable(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && math.Abs(v) <= maxAbs }

// linScale maps [d0,d1] (data) to [r0,r1] (pixels).
type linScale struct {
	d0, d1, r0, r1 float64
}

func (s linScale) at(v float64) float64 {
	if s.d1 == s.d0 {
		return (s.r0 + s.r1) / 2
	}
	// Explicit float64 conversions keep the compiler from fusing the
	// multiply-add (Go spec), so coordinates are identical on every GOARCH.
	t := float64((v - s.d0) / (s.d1 - s.d0))
	return s.r0 + float64(t*(s.r1-s.r0))
}

// axisRange is a padded, "nice" data range with its tick positions.
type axisRange struct {
	lo, hi float64
	ticks  []float64
	step   float64
}

// niceNum returns a "nice" number near x (1, 2, 2.5 or 5 times a power of
// ten), rounded if round is set, else the ceiling (Heckbert, Graphics Gems).
func niceNum(x float64, round bool) float64 {
	if x <= 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return 1
	}
	exp := math.Floor(math.Log10(x))
	f := x / math.Pow(10, exp)
	var nf float64
	if round {
		switch {
		case f < 1.5:
			nf = 1
		case f < 2.25:
			nf = 2
		case f < 3.5:
			nf = 2.5
		case f < 7.5:
			nf = 5
		default:
			nf = 10
		}
	} else {
		switch {
		case f <= 1:
			nf = 1
		case f <= 2:
			nf = 2
		case f <= 2.5:
			nf = 2.5
		case f <= 5:
			nf = 5
		default:
			nf = 10
		}
	}
	return nf * math.Pow(10, exp)
}

// niceRange extends [lo,hi] to multiples of a nice step giving about
// ‹want› intervals. A constant or empty range is padded first: v → [v-p, v+p]
// with p = 5% of |v| (1 when v is 0), so a constant series sits mid-axis.
// If zero is set the range is widened to include 0 (bar baselines).
func niceRange(lo, hi float64, want int, zero bool) axisRange {
	if !usable(lo) || !usable(hi) || lo > hi {
		lo, hi = 0, 1
	}
	if zero {
		lo = math.Min(lo, 0)
		hi = math.Max(hi, 0)
	}
	if hi-lo <= math.Max(math.Abs(lo), math.Abs(hi))*1e-12 {
		p := math.Abs(lo) * 0.05
		if p == 0 {
			p = 1
		}
		if zero && lo == 0 && hi == 0 {
			lo, hi = 0, 1
		} else if zero && lo >= 0 {
			lo, hi = 0, hi+p
		} else if zero && hi <= 0 {
			lo, hi = lo-p, 0
		} else {
			lo, hi = lo-p, hi+p
		}
	}
	if want < 2 {
		want = 2
	}
	step := niceNum((hi-lo)/float64(want-1), true)
	nlo := math.Floor(lo/step) * step
	nhi := math.Ceil(hi/step) * step
	r := axisRange{lo: nlo, hi: nhi, step: step}
	n := int(math.Round((nhi - nlo) / step))
	if n < 1 || n > 100 {
		// Cannot happen for usable inputs; keep a sane axis regardless.
		r.ticks = []float64{nlo, nhi}
		return r
	}
	for i := 0; i <= n; i++ {
		t := nlo + float64(i)*step
		if math.Abs(t) < step*1e-9 {
			t = 0
		}
		r.ticks = append(r.ticks, t)
	}
	return r
}

// tickLabel formats a tick value with the decimals the step needs, the
// same number on every tick of an axis (0.0 0.2 … 1.0).
func tickLabel(v, step float64) string {
	a := math.Max(math.Abs(v), step)
	if a >= 1e7 || step < 1e-6 {
		// Exponent form with as many digits as the step needs.
		d := int(math.Ceil(math.Log10(a)-math.Log10(step))) + 1
		if d < 1 {
			d = 1
		}
		if d > 15 {
			d = 15
		}
		return strconv.FormatFloat(v, 'g', d, 64)
	}
	// Fewest decimals that represent the step exactly (0.25 needs 2, 2.5 one).
	dec := 0
	for dec < 15 {
		m := step * math.Pow(10, float64(dec))
		if math.Abs(m-math.Round(m)) <= 1e-6*math.Max(1, m) {
			break
		}
		dec++
	}
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.TrimLeft(s, "-0.") == "" {
		return s[strings.IndexByte(s, '0'):] // no "-0.0"
	}
	return s
}

// paddedRange is the axis of a scatter or line chart: the data range
// widened by 4% of its span on each side (so marks at the extremes are not
// cut by the plot edge), with nice ticks inside it rather than an axis
// stretched to the next tick. A constant range is padded as in niceRange.
// With zero set the range includes 0 and, when all data lie on one side of
// 0, ends exactly at 0 on that side.
func paddedRange(lo, hi float64, want int, zero bool) axisRange {
	if !usable(lo) || !usable(hi) || lo > hi {
		lo, hi = 0, 1
	}
	if hi-lo <= math.Max(math.Abs(lo), math.Abs(hi))*1e-12 {
		p := math.Abs(lo) * 0.05
		if p == 0 {
			p = 1
		}
		lo, hi = lo-p, hi+p
	}
	zlo, zhi := zero && lo > 0, zero && hi < 0
	if zero {
		lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	}
	p := (hi - lo) * 0.04
	if !zlo {
		lo -= p
	}
	if !zhi {
		hi += p
	}
	if want < 2 {
		want = 2
	}
	step := niceNum((hi-lo)/float64(want-1), true)
	r := axisRange{lo: lo, hi: hi, step: step}
	first := math.Ceil(lo/step - 1e-9)
	n := int(math.Floor(hi/step+1e-9) - first)
	if n < 0 || n > 100 {
		r.ticks = []float64{lo, hi}
		return r
	}
	for i := 0; i <= n; i++ {
		t := (first + float64(i)) * step
		if math.Abs(t) < step*1e-9 {
			t = 0
		}
		r.ticks = append(r.ticks, t)
	}
	return r
}
