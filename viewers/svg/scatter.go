package svg

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Point is one scatter point. Label (e.g. the thread-block shape "8×16")
// is shown in the point's hover title, and next to it with PointLabels.
type Point struct {
	X, Y  float64
	Label string
}

// ScatterSeries is one named set of points, drawn with its own colour and
// marker (series i gets Palette[i] and Marker(i), unless Marker is set).
type ScatterSeries struct {
	Name   string
	Points []Point
	// Marker overrides the glyph; nil means Marker(i) for series i.
	Marker *Marker
}

// ScatterChart is an x–y scatter plot of one or more series with, per
// series, the least-squares line and Pearson's r in the legend: e.g. the
// seed paper's Figs. 6–9 (memory-reference frequency against texture-cache
// hit rate or frame rate, one point per thread-block shape, one series per
// mode or viewpoint).
//
// A series' legend entry reads "Name (r = 0.987, n = 9)"; r is printed
// with three decimals, or "n/a" when undefined (fewer than two points or a
// constant variable), and then no line is drawn.
type ScatterChart struct {
	Title  string
	Desc   string
	XLabel string
	YLabel string
	Series []ScatterSeries
	// NoFit hides the fitted lines (r stays in the legend).
	NoFit bool
	// PointLabels writes each point's Label next to it.
	PointLabels bool
	// XZero and YZero extend the axes to include 0.
	XZero, YZero bool
	// MarkerSize is the marker radius in pixels. Default 4.
	MarkerSize float64
	Options
}

// SeriesStats are the per-series numbers a ScatterChart shows.
type SeriesStats struct {
	N                int // points drawn (finite)
	Skipped          int // points with a NaN/Inf/huge coordinate
	R                float64
	ROK              bool
	Slope, Intercept float64
	FitOK            bool
}

// Stats computes the legend numbers of every series (the same ones Render
// prints), for callers that want them in a table too.
func (c *ScatterChart) Stats() []SeriesStats {
	out := make([]SeriesStats, len(c.Series))
	for i, s := range c.Series {
		xs, ys := finitePoints(s.Points)
		st := SeriesStats{N: len(xs), Skipped: len(s.Points) - len(xs)}
		st.R, st.ROK = Pearson(xs, ys)
		st.Slope, st.Intercept, st.FitOK = LinearFit(xs, ys)
		out[i] = st
	}
	return out
}

func finitePoints(ps []Point) (xs, ys []float64) {
	xs = make([]float64, 0, len(ps))
	ys = make([]float64, 0, len(ps))
	for _, p := range ps {
		if usable(p.X) && usable(p.Y) {
			xs = append(xs, p.X)
			ys = append(ys, p.Y)
		}
	}
	return xs, ys
}

// FormatR formats a correlation coefficient as the legend does.
func FormatR(r float64, ok bool) string {
	if !ok {
		return "n/a"
	}
	s := strconv.FormatFloat(r, 'f', 3, 64)
	if s == "-0.000" {
		s = "0.000"
	}
	return s
}

// Render writes the chart as a standalone SVG document.
func (c *ScatterChart) Render(w io.Writer) error {
	o := c.Options.resolved(c.Title, c.Desc)
	f := frame{o: o, kind: "Scatter plot", title: c.Title, desc: c.Desc, xlabel: c.XLabel, ylabel: c.YLabel}
	ms := c.MarkerSize
	if !(ms > 0) || ms > 50 {
		ms = 4
	}
	stats := c.Stats()
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	skipped, total := 0, 0
	var parts []string
	for i, s := range c.Series {
		st := stats[i]
		skipped += st.Skipped
		total += st.N
		for _, p := range s.Points {
			if usable(p.X) && usable(p.Y) {
				xlo, xhi = math.Min(xlo, p.X), math.Max(xhi, p.X)
				ylo, yhi = math.Min(ylo, p.Y), math.Max(yhi, p.Y)
			}
		}
		name := s.Name
		if name == "" {
			name = fmt.Sprintf("series %d", i+1)
		}
		label := fmt.Sprintf("%s (r = %s, n = %d)", name, FormatR(st.R, st.ROK), st.N)
		kind := legendLineMarker
		if c.NoFit || !st.FitOK {
			kind = legendMarker
		}
		f.legend = append(f.legend, legendItem{label: label, color: o.color(i), kind: kind, marker: c.marker(i), dash: "5 3"})
		desc := fmt.Sprintf("%s: %s, r = %s", name, plural(st.N, "point", "points"), FormatR(st.R, st.ROK))
		if st.FitOK {
			desc += fmt.Sprintf(", fit y = %s·x + %s", FormatValue(st.Slope), FormatValue(st.Intercept))
		}
		parts = append(parts, desc)
	}
	if total == 0 {
		xlo, xhi, ylo, yhi = 0, 1, 0, 1
	}
	if skipped > 0 {
		f.notes = append(f.notes, skipNote(skipped, "point"))
	}
	f.notes = append(f.notes, o.Notes...)
	xr := paddedRange(xlo, xhi, 7, c.XZero)
	yr := paddedRange(ylo, yhi, 6, c.YZero)
	xlab := func(v float64) string { return tickLabel(v, xr.step) }
	ylab := func(v float64) string { return tickLabel(v, yr.step) }
	ylabels := make([]string, len(yr.ticks))
	for i, t := range yr.ticks {
		ylabels[i] = ylab(t)
	}
	f.summary = fmt.Sprintf("Scatter plot, %s, %s drawn. %s.", plural(len(c.Series), "series", "series"),
		plural(total, "point", "points"), strings.Join(parts, "; "))
	f.layout(ylabels, 1)
	xs := linScale{xr.lo, xr.hi, f.px, f.px + f.pw}
	ys := linScale{yr.lo, yr.hi, f.py + f.ph, f.py}

	var d doc
	f.begin(&d)
	f.yAxis(&d, ys, yr, ylab)
	f.xAxisLinear(&d, xs, xr, xlab)
	f.clipOpen(&d)
	if !c.NoFit {
		for i, s := range c.Series {
			st := stats[i]
			if !st.FitOK {
				continue
			}
			x0, x1 := math.Inf(1), math.Inf(-1)
			for _, p := range s.Points {
				if usable(p.X) && usable(p.Y) {
					x0, x1 = math.Min(x0, p.X), math.Max(x1, p.X)
				}
			}
			y0 := float64(st.Slope*x0) + st.Intercept
			y1 := float64(st.Slope*x1) + st.Intercept
			d.s(`<path`)
			d.attr("class", fmt.Sprintf("fit s%d", i))
			d.attr("d", "M"+Num(clampPx(xs.at(x0)))+" "+Num(clampPx(ys.at(y0)))+"L"+Num(clampPx(xs.at(x1)))+" "+Num(clampPx(ys.at(y1))))
			d.attr("stroke", o.color(i))
			d.s(` stroke-width="1.5" stroke-dasharray="5 3" fill="none"/>` + "\n")
		}
	}
	for i, s := range c.Series {
		m := c.marker(i)
		class := fmt.Sprintf("mark s%d", i)
		for _, p := range s.Points {
			if !usable(p.X) || !usable(p.Y) {
				continue
			}
			tip := "(" + FormatValue(p.X) + ", " + FormatValue(p.Y) + ")"
			if p.Label != "" {
				tip = p.Label + " " + tip
			}
			if s.Name != "" {
				tip = s.Name + ": " + tip
			}
			x, y := xs.at(p.X), ys.at(p.Y)
			writeMarker(&d, class, m, x, y, ms, o.color(i), tip)
		}
	}
	f.clipClose(&d)
	if c.PointLabels {
		c.writePointLabels(&d, &f, xs, ys, ms)
	}
	f.end(&d)
	_, err := w.Write(d.Bytes())
	return err
}

// writePointLabels writes the text labels of the labelled points, placed
// greedily in series and point order: the first of eight positions around
// the point whose box stays in the plot and overlaps no placed label or
// other marker; else the label moves up (then down) in steps and a leader
// line joins it to its point.
func (c *ScatterChart) writePointLabels(d *doc, f *frame, xs, ys linScale, ms float64) {
	d.s(`<g class="point-labels" fill="#333333">` + "\n")
	lfs := f.fs * 0.85
	type box struct{ x0, y0, x1, y1 float64 }
	var placed []box
	var marks []box
	for _, s := range c.Series {
		for _, p := range s.Points {
			if usable(p.X) && usable(p.Y) {
				x, y := xs.at(p.X), ys.at(p.Y)
				marks = append(marks, box{x - ms, y - ms, x + ms, y + ms})
			}
		}
	}
	hit := func(b box, own box) bool {
		if b.x0 < f.px || b.x1 > f.px+f.pw || b.y0 < f.py || b.y1 > f.py+f.ph {
			return true
		}
		for _, q := range placed {
			if b.x0 < q.x1 && q.x0 < b.x1 && b.y0 < q.y1 && q.y0 < b.y1 {
				return true
			}
		}
		for _, q := range marks {
			if q != own && b.x0 < q.x1 && q.x0 < b.x1 && b.y0 < q.y1 && q.y0 < b.y1 {
				return true
			}
		}
		return false
	}
	for _, s := range c.Series {
		for _, p := range s.Points {
			if p.Label == "" || !usable(p.X) || !usable(p.Y) {
				continue
			}
			x, y := xs.at(p.X), ys.at(p.Y)
			own := box{x - ms, y - ms, x + ms, y + ms}
			w := textWidth(p.Label, lfs)
			// Candidates: (dx, dy) of the text box's left/top corner.
			g := ms + 2
			cands := [][2]float64{{g, -g - lfs}, {-g - w, -g - lfs}, {g, g}, {-g - w, g}, {g, -lfs / 2}, {-g - w, -lfs / 2}, {-w / 2, -g - lfs}, {-w / 2, g}}
			var bx box
			ok, leader := false, false
			for _, cd := range cands {
				bx = box{x + cd[0], y + cd[1], x + cd[0] + w, y + cd[1] + lfs}
				if !hit(bx, own) {
					ok = true
					break
				}
			}
			for step := 1; !ok && step <= 12; step++ {
				for _, sign := range []float64{-1, 1} {
					dy := sign * float64(step) * (lfs + 1)
					bx = box{x + g, y - lfs/2 + dy, x + g + w, y + lfs/2 + dy}
					if !hit(bx, own) {
						ok, leader = true, true
						break
					}
				}
			}
			if !ok { // no free place: the first candidate, overlapping
				bx = box{x + g, y - g - lfs, x + g + w, y - g}
				if bx.x1 > f.px+f.pw {
					bx.x0, bx.x1 = x-g-w, x-g
				}
			}
			placed = append(placed, bx)
			if leader {
				d.s(`<path class="leader"`)
				d.attr("d", "M"+Num(x)+" "+Num(y)+"L"+Num(bx.x0-1)+" "+Num((bx.y0+bx.y1)/2))
				d.s(` stroke="#888888" stroke-width="0.6" fill="none"/>` + "\n")
			}
			d.s(`<text`)
			d.nattr("x", bx.x0)
			d.nattr("y", bx.y1-lfs*0.2)
			d.nattr("font-size", lfs)
			d.attr("text-anchor", "start")
			d.s(">")
			d.text(p.Label)
			d.s("</text>\n")
		}
	}
	d.s("</g>\n")
}

func (c *ScatterChart) marker(i int) Marker {
	if i < len(c.Series) && c.Series[i].Marker != nil {
		return *c.Series[i].Marker
	}
	return Marker(i % int(numMarkers))
}

// clampPx keeps a pixel coordinate of a clipped element within a range
// every SVG renderer handles (a fit line may leave the plot far away).
func clampPx(v float64) float64 { return math.Max(-1e6, math.Min(1e6, v)) }
