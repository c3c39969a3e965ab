package svg

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// BarMode selects how the series of a BarChart share a category.
type BarMode int

const (
	// Grouped draws the series side by side within each category.
	Grouped BarMode = iota
	// Stacked piles the series on one bar per category: positive values
	// upward from 0, negative values downward from 0.
	Stacked
	// Stacked100 stacks each category's values as shares of the category
	// total, so every bar reaches 100 (the y axis is in percent). Negative
	// values are skipped and noted; a category whose total is 0 has no bar.
	Stacked100
)

func (m BarMode) String() string {
	switch m {
	case Stacked:
		return "stacked"
	case Stacked100:
		return "stacked to 100%"
	}
	return "grouped"
}

// BarSeries is one named series; Values[i] belongs to Categories[i].
// Missing trailing values and NaN/±Inf values draw no bar (and are noted).
type BarSeries struct {
	Name   string
	Values []float64
}

// BarChart is a grouped or stacked bar chart over categories, e.g. the
// seed paper's Fig. 5 (memory vs other time share per block shape and
// mode: Mode Stacked100, series "memory" and "other", categories
// "1×128\nnaive", …) or Fig. 10 (per-warp average memory time: one
// series, categories "0", "1", …; warps without memory references given as
// NaN so they have no bar).
type BarChart struct {
	Title  string
	Desc   string // text for <desc>; a data summary is appended
	XLabel string
	YLabel string // default for Stacked100: "share (%)"
	// Categories label the x axis in order; "\n" splits a label into lines.
	// Labels are thinned (every k-th shown) when they would overlap.
	Categories []string
	Series     []BarSeries
	Mode       BarMode
	// ValueLabels prints each bar's value (percentage in Stacked100) on or
	// in the bar when it is tall and wide enough.
	ValueLabels bool
	// ValueFormat is the fmt verb for value labels (e.g. "%.1f"); empty
	// means FormatValue's shortest exact form.
	ValueFormat string
	Options
}

// barMark is one bar ready to draw.
type barMark struct {
	series, cat int
	v, lo, hi   float64 // value and its stack extent in axis units
}

// Render writes the chart as a standalone SVG document.
func (c *BarChart) Render(w io.Writer) error {
	o := c.Options.resolved(c.Title, c.Desc)
	f := frame{o: o, kind: "Bar chart", title: c.Title, desc: c.Desc, xlabel: c.XLabel, ylabel: c.YLabel}
	if c.Mode == Stacked100 && f.ylabel == "" {
		f.ylabel = "share (%)"
	}
	nc := len(c.Categories)
	marks, skipped, negative := c.marks()
	for _, s := range c.Series {
		if len(s.Values) > nc {
			f.notes = append(f.notes, fmt.Sprintf("Series %q has %d values beyond the %s; not drawn.", s.Name, len(s.Values)-nc, plural(nc, "category", "categories")))
		}
	}
	if skipped > 0 {
		f.notes = append(f.notes, skipNote(skipped, "value"))
	}
	if negative > 0 {
		f.notes = append(f.notes, fmt.Sprintf("%s skipped: shares need values ≥ 0.", plural(negative, "negative value", "negative values")))
	}
	f.notes = append(f.notes, o.Notes...)

	yr := c.yRange(marks)
	ylab := func(v float64) string { return tickLabel(v, yr.step) }
	ylabels := make([]string, len(yr.ticks))
	for i, t := range yr.ticks {
		ylabels[i] = ylab(t)
	}
	for si, s := range c.Series {
		name := s.Name
		if name == "" {
			name = fmt.Sprintf("series %d", si+1)
		}
		f.legend = append(f.legend, legendItem{label: name, color: o.color(si), kind: legendSwatch})
	}
	if len(c.Series) == 1 && c.Series[0].Name == "" {
		f.legend = nil
	}
	names := make([]string, len(c.Series))
	for i, s := range c.Series {
		names[i] = s.Name
	}
	f.summary = fmt.Sprintf("Bar chart (%s), %s, %s: %s. %s drawn.", c.Mode, plural(nc, "category", "categories"),
		plural(len(c.Series), "series", "series"), strings.Join(names, ", "), plural(len(marks), "bar", "bars"))
	f.layout(ylabels, maxLines(c.Categories))

	ys := linScale{yr.lo, yr.hi, f.py + f.ph, f.py}
	band := 0.0
	if nc > 0 {
		band = f.pw / float64(nc)
	}
	centers := make([]float64, nc)
	for i := range centers {
		centers[i] = f.px + band*(float64(i)+0.5)
	}

	var d doc
	f.begin(&d)
	f.yAxis(&d, ys, yr, ylab)
	f.xAxisCategories(&d, c.Categories, centers, band)
	f.clipOpen(&d)
	ns := max(len(c.Series), 1)
	for _, m := range marks {
		var x, bw float64
		if c.Mode == Grouped {
			gw := band * 0.8
			bw = gw / float64(ns)
			x = centers[m.cat] - gw/2 + bw*float64(m.series)
		} else {
			bw = band * 0.6
			x = centers[m.cat] - bw/2
		}
		c.drawMark(&d, &f, m, x, bw, ys.at(m.hi), ys.at(m.lo))
	}
	if yr.lo < 0 {
		d.s(`<path class="zero"`)
		d.attr("d", "M"+Num(f.px)+" "+Num(ys.at(0))+"H"+Num(f.px+f.pw))
		d.s(` stroke="#000000" stroke-width="1"/>` + "\n")
	}
	f.clipClose(&d)
	f.end(&d)
	_, err := w.Write(d.Bytes())
	return err
}

// marks lays out the bars in axis units by Mode; skipped counts the
// unusable values (NaN, ±Inf), negative the values Stacked100 cannot draw.
func (c *BarChart) marks() (marks []barMark, skipped, negative int) {
	for ci := range c.Categories {
		pos, neg, total := 0.0, 0.0, 0.0
		if c.Mode == Stacked100 {
			for _, s := range c.Series {
				if ci < len(s.Values) && usable(s.Values[ci]) && s.Values[ci] > 0 {
					total += s.Values[ci]
				}
			}
		}
		for si, s := range c.Series {
			if ci >= len(s.Values) {
				continue
			}
			v := s.Values[ci]
			if !usable(v) {
				skipped++
				continue
			}
			switch c.Mode {
			case Grouped:
				marks = append(marks, barMark{si, ci, v, math.Min(0, v), math.Max(0, v)})
			case Stacked:
				if v >= 0 {
					marks = append(marks, barMark{si, ci, v, pos, pos + v})
					pos += v
				} else {
					marks = append(marks, barMark{si, ci, v, neg + v, neg})
					neg += v
				}
			case Stacked100:
				if v < 0 {
					negative++
					continue
				}
				if total == 0 || math.IsInf(total, 0) {
					continue
				}
				p := float64(v/total) * 100
				marks = append(marks, barMark{si, ci, v, pos, pos + p})
				pos += p
			}
		}
	}
	return marks, skipped, negative
}

// yRange is the value axis: 0–100 for Stacked100, else a nice range over
// the marks that includes 0 (with headroom for grouped value labels).
func (c *BarChart) yRange(marks []barMark) axisRange {
	if c.Mode == Stacked100 {
		return axisRange{lo: 0, hi: 100, step: 20, ticks: []float64{0, 20, 40, 60, 80, 100}}
	}
	lo, hi := 0.0, 0.0
	for _, m := range marks {
		lo = math.Min(lo, m.lo)
		hi = math.Max(hi, m.hi)
	}
	if c.ValueLabels && c.Mode == Grouped && hi > 0 {
		hi *= 1.08 // headroom for the labels above the tallest bars
	}
	return niceRange(lo, hi, 6, true)
}

// drawMark draws one bar from y0 (top) to y1 (bottom) at x, bw wide, with
// its hover title and, with ValueLabels, its label.
func (c *BarChart) drawMark(d *doc, f *frame, m barMark, x, bw, y0, y1 float64) {
	o := f.o
	d.s(`<rect`)
	d.attr("class", fmt.Sprintf("bar s%d", m.series))
	d.nattr("x", x)
	d.nattr("y", y0)
	d.nattr("width", bw)
	d.nattr("height", y1-y0)
	d.attr("fill", o.color(m.series))
	d.s(` stroke="#ffffff" stroke-width="0.5"><title>`)
	tip := c.Series[m.series].Name + " · " + strings.ReplaceAll(c.Categories[m.cat], "\n", " ") + ": " + FormatValue(m.v)
	if c.Mode == Stacked100 {
		tip += " (" + percent(m.hi-m.lo) + ")"
	}
	d.text(tip)
	d.s("</title></rect>\n")
	if !c.ValueLabels {
		return
	}
	lbl := FormatValue(m.v)
	if c.ValueFormat != "" {
		lbl = fmt.Sprintf(c.ValueFormat, m.v)
	}
	if c.Mode == Stacked100 {
		lbl = percent(m.hi - m.lo)
	}
	tw := textWidth(lbl, f.fs*0.9)
	switch {
	case c.Mode != Grouped && y1-y0 >= f.fs*1.2 && tw <= bw:
		d.s(`<text class="value"`)
		d.nattr("x", x+bw/2)
		d.nattr("y", (y0+y1)/2+f.fs*0.3)
		d.nattr("font-size", f.fs*0.9)
		d.s(` text-anchor="middle" fill="#ffffff">`)
		d.text(lbl)
		d.s("</text>\n")
	case c.Mode == Grouped && tw <= bw+4:
		ty := y0 - 3
		if m.v < 0 {
			ty = y1 + f.fs
		}
		d.s(`<text class="value"`)
		d.nattr("x", x+bw/2)
		d.nattr("y", ty)
		d.nattr("font-size", f.fs*0.9)
		d.s(` text-anchor="middle">`)
		d.text(lbl)
		d.s("</text>\n")
	}
}

// percent formats a share in percent with one decimal.
func percent(p float64) string { return fmt.Sprintf("%.1f%%", p) }
