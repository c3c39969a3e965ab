package svg

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// LineStyle selects how a LineChart draws its series.
type LineStyle int

const (
	// Lines joins consecutive points; a skipped (NaN/Inf) value breaks the
	// line, leaving a gap.
	Lines LineStyle = iota
	// LinesMarkers draws the lines and a marker at every point.
	LinesMarkers
	// Markers draws only the markers.
	Markers
)

func (s LineStyle) String() string {
	switch s {
	case LinesMarkers:
		return "lines and markers"
	case Markers:
		return "markers"
	}
	return "lines"
}

// LineSeries is one named series. X gives the x of each Y; nil X means the
// index 0, 1, 2, … (e.g. "n-th memory access of the warp").
type LineSeries struct {
	Name string
	X    []float64
	Y    []float64
}

// LineChart draws series over a numeric x axis, e.g. the seed paper's
// Fig. 11 (one warp's memory time per access against its access index) or a
// per-warp average across the warps of one SM (Fig. 10; a BarChart shows
// that as bars).
type LineChart struct {
	Title  string
	Desc   string
	XLabel string
	YLabel string
	Series []LineSeries
	Style  LineStyle
	// XCategories, when set, labels x = 0, 1, … with these strings instead
	// of numeric ticks (e.g. thread-block shapes); X values are then
	// expected to be those indices (nil X does that).
	XCategories []string
	// YZero extends the y axis to include 0.
	YZero bool
	// MarkerSize is the marker radius in pixels. Default 3.
	MarkerSize float64
	Options
}

// Render writes the chart as a standalone SVG document.
func (c *LineChart) Render(w io.Writer) error {
	o := c.Options.resolved(c.Title, c.Desc)
	f := frame{o: o, kind: "Line chart", title: c.Title, desc: c.Desc, xlabel: c.XLabel, ylabel: c.YLabel}
	ms := c.MarkerSize
	if !(ms > 0) || ms > 50 {
		ms = 3
	}
	xAt := func(s LineSeries, i int) float64 {
		if s.X == nil {
			return float64(i)
		}
		return s.X[i]
	}
	count := func(s LineSeries) int {
		if s.X == nil {
			return len(s.Y)
		}
		return min(len(s.X), len(s.Y))
	}
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	skipped, total, unpaired := 0, 0, 0
	var parts []string
	for i, s := range c.Series {
		n := count(s)
		if s.X != nil {
			unpaired += max(len(s.X), len(s.Y)) - n
		}
		good := 0
		for j := 0; j < n; j++ {
			x, y := xAt(s, j), s.Y[j]
			if !usable(x) || !usable(y) {
				skipped++
				continue
			}
			good++
			xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
			ylo, yhi = math.Min(ylo, y), math.Max(yhi, y)
		}
		total += good
		name := s.Name
		if name == "" {
			name = fmt.Sprintf("series %d", i+1)
		}
		kind := c.Style.legendKind()
		dash := ""
		if c.Style != Markers {
			dash = lineDash(i)
		}
		f.legend = append(f.legend, legendItem{label: name, color: o.color(i), kind: kind, marker: Marker(i % int(numMarkers)), dash: dash})
		parts = append(parts, fmt.Sprintf("%s: %s", name, plural(good, "point", "points")))
	}
	if len(c.Series) == 1 && c.Series[0].Name == "" {
		f.legend = nil
	}
	if total == 0 {
		xlo, xhi, ylo, yhi = 0, 1, 0, 1
	}
	if skipped > 0 {
		f.notes = append(f.notes, skipNote(skipped, "point"))
	}
	if unpaired > 0 {
		f.notes = append(f.notes, fmt.Sprintf("%s without a matching x or y not drawn.", plural(unpaired, "value", "values")))
	}
	f.notes = append(f.notes, coincideNotes(c, xAt, count)...)
	f.notes = append(f.notes, o.Notes...)

	var xr axisRange
	cats := c.XCategories
	if len(cats) > 0 {
		lo, hi := math.Min(xlo, 0), math.Max(xhi, float64(len(cats)-1))
		xr = axisRange{lo: lo - 0.5, hi: hi + 0.5, step: 1}
		for i := range cats {
			xr.ticks = append(xr.ticks, float64(i))
		}
	} else {
		xr = paddedRange(xlo, xhi, 8, false)
	}
	yr := paddedRange(ylo, yhi, 6, c.YZero)
	ylab := func(v float64) string { return tickLabel(v, yr.step) }
	ylabels := make([]string, len(yr.ticks))
	for i, t := range yr.ticks {
		ylabels[i] = ylab(t)
	}
	f.summary = fmt.Sprintf("Line chart (%s), %s, %s drawn. %s.", c.Style, plural(len(c.Series), "series", "series"),
		plural(total, "point", "points"), strings.Join(parts, "; "))
	lines := 1
	if len(cats) > 0 {
		lines = maxLines(cats)
	}
	f.layout(ylabels, lines)
	xs := linScale{xr.lo, xr.hi, f.px, f.px + f.pw}
	ys := linScale{yr.lo, yr.hi, f.py + f.ph, f.py}

	var d doc
	f.begin(&d)
	f.yAxis(&d, ys, yr, ylab)
	if len(cats) > 0 {
		centers := make([]float64, len(cats))
		for i := range cats {
			centers[i] = xs.at(float64(i))
		}
		f.xAxisCategories(&d, cats, centers, f.pw/float64(len(cats)))
	} else {
		f.xAxisLinear(&d, xs, xr, func(v float64) string { return tickLabel(v, xr.step) })
	}
	f.clipOpen(&d)
	for i, s := range c.Series {
		n := count(s)
		if c.Style != Markers {
			if path := linePath(s, n, xAt, xs, ys); path != "" {
				d.s(`<path`)
				d.attr("class", fmt.Sprintf("line s%d", i))
				d.attr("d", path)
				d.attr("stroke", o.color(i))
				if dash := lineDash(i); dash != "" {
					d.attr("stroke-dasharray", dash)
				}
				d.s(` stroke-width="1.5" stroke-linejoin="round" fill="none"/>` + "\n")
			}
		}
		if c.Style != Lines {
			class := fmt.Sprintf("mark s%d", i)
			for j := 0; j < n; j++ {
				x, y := xAt(s, j), s.Y[j]
				if !usable(x) || !usable(y) {
					continue
				}
				tip := "(" + FormatValue(x) + ", " + FormatValue(y) + ")"
				if s.Name != "" {
					tip = s.Name + ": " + tip
				}
				writeMarker(&d, class, Marker(i%int(numMarkers)), xs.at(x), ys.at(y), ms, o.color(i), tip)
			}
		}
	}
	f.clipClose(&d)
	f.end(&d)
	_, err := w.Write(d.Bytes())
	return err
}

// legendKind is the legend swatch drawn for a series in style st.
func (st LineStyle) legendKind() legendKind {
	switch st {
	case LinesMarkers:
		return legendLineMarker
	case Markers:
		return legendMarker
	}
	return legendLine
}

// linePath is the SVG path data of the first n points of s: a polyline
// that lifts the pen over unusable (NaN, Inf) points. It is "" when no
// point is usable.
func linePath(s LineSeries, n int, xAt func(LineSeries, int) float64, xs, ys linScale) string {
	var b strings.Builder
	pen := false
	for j := 0; j < n; j++ {
		x, y := xAt(s, j), s.Y[j]
		if !usable(x) || !usable(y) {
			pen = false
			continue
		}
		if pen {
			b.WriteByte('L')
		} else {
			b.WriteByte('M')
			pen = true
		}
		b.WriteString(Num(xs.at(x)))
		b.WriteByte(' ')
		b.WriteString(Num(ys.at(y)))
	}
	return b.String()
}

// lineDash is series i's dash pattern: solid, then dashed, dotted and
// dash-dot, so that series drawn over each other stay distinguishable.
func lineDash(i int) string {
	return [...]string{"", "6 3", "2 2", "8 3 2 3"}[i%4]
}

// coincideNotes names the series whose points are all equal to an earlier
// series' (drawn on top of it): "B coincides with A (drawn over it, dashed)."
func coincideNotes(c *LineChart, xAt func(LineSeries, int) float64, count func(LineSeries) int) []string {
	var notes []string
	name := func(i int) string {
		if c.Series[i].Name != "" {
			return c.Series[i].Name
		}
		return fmt.Sprintf("series %d", i+1)
	}
	same := func(a, b int) bool {
		sa, sb := c.Series[a], c.Series[b]
		na, nb := count(sa), count(sb)
		if na != nb || na == 0 {
			return false
		}
		for j := 0; j < na; j++ {
			if xAt(sa, j) != xAt(sb, j) || sa.Y[j] != sb.Y[j] {
				return false
			}
		}
		return true
	}
	for i := 1; i < len(c.Series); i++ {
		for j := 0; j < i; j++ {
			if same(j, i) {
				notes = append(notes, fmt.Sprintf("%s coincides with %s (drawn over it, %s).", name(i), name(j), dashName(i)))
				break
			}
		}
	}
	return notes
}

func dashName(i int) string {
	return [...]string{"solid", "dashed", "dotted", "dash-dotted"}[i%4]
}
