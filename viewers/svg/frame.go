package svg

import (
	"fmt"
	"hash/fnv"
	"math"
	"strings"
)

// Options are the settings every chart shares. The zero value means the
// documented defaults, so charts are usually built with Options{}.
type Options struct {
	// Width and Height of the SVG in pixels. Defaults 640 and 400; values
	// below 160×120 are raised to that. Height also grows when the legend
	// and notes would leave the plot area less than 60 pixels high.
	Width, Height int
	// FontSize in pixels for tick labels, legend and notes; the title is
	// 1.25 times larger. Default 12.
	FontSize float64
	// FontFamily is a CSS font-family list naming only locally installed
	// fonts (nothing is downloaded). Default "DejaVu Sans, Helvetica,
	// Arial, sans-serif".
	FontFamily string
	// Palette gives the series colours in order (cycled). Default Palette.
	Palette []string
	// IDPrefix prefixes the ids of <title>, <desc> and the clip path, so
	// several charts can be inlined in one HTML page. Default "c" followed
	// by the FNV-1a hash of the title and description in hex.
	IDPrefix string
	// NoGrid hides the horizontal (and, for numeric x axes, vertical)
	// grid lines.
	NoGrid bool
	// NoLegend hides the legend (it is still summarised in <desc>).
	NoLegend bool
	// Notes are extra lines printed in small type under the chart, after
	// the automatic notes about skipped values.
	Notes []string
}

func (o Options) resolved(title, desc string) Options {
	if o.Width == 0 {
		o.Width = 640
	}
	if o.Height == 0 {
		o.Height = 400
	}
	o.Width = max(o.Width, 160)
	o.Height = max(o.Height, 120)
	if !(o.FontSize > 0) || o.FontSize > 200 {
		o.FontSize = 12
	}
	if o.FontFamily == "" {
		o.FontFamily = "DejaVu Sans, Helvetica, Arial, sans-serif"
	}
	if len(o.Palette) == 0 {
		o.Palette = Palette
	}
	if o.IDPrefix == "" {
		h := fnv.New32a()
		h.Write([]byte(title))
		h.Write([]byte{0})
		h.Write([]byte(desc))
		o.IDPrefix = fmt.Sprintf("c%08x", h.Sum32())
	}
	return o
}

func (o Options) color(i int) string { return o.Palette[i%len(o.Palette)] }

// textWidth estimates the rendered width of s at font size fs: 0.6 em per
// narrow rune, 1 em per wide (CJK, fullwidth) rune. Layout only needs an
// upper-ish bound; no font metrics are read.
func textWidth(s string, fs float64) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case r >= 0x1100 && (r <= 0x115F || (r >= 0x2E80 && r <= 0xA4CF) ||
			(r >= 0xAC00 && r <= 0xD7A3) || (r >= 0xF900 && r <= 0xFAFF) ||
			(r >= 0xFE30 && r <= 0xFE4F) || (r >= 0xFF00 && r <= 0xFF60) ||
			(r >= 0xFFE0 && r <= 0xFFE6) || r >= 0x20000):
			w += fs
		default:
			w += 0.6 * fs
		}
	}
	return w
}

type legendKind int

const (
	legendSwatch     legendKind = iota // filled square (bars)
	legendMarker                       // marker only
	legendLine                         // line only
	legendLineMarker                   // line through a marker
)

type legendItem struct {
	label  string
	color  string
	kind   legendKind
	marker Marker
	dash   string // stroke-dasharray of a line item ("" solid)
}

// frame is the layout shared by all charts: title, plot area, axes,
// legend and notes.
type frame struct {
	o                           Options
	kind                        string // "Bar chart", ... for <title> fallback and <desc>
	title, desc, xlabel, ylabel string
	summary                     string // appended to <desc>
	W, H                        float64
	fs                          float64
	px, py, pw, ph              float64
	legend                      []legendItem
	legendRows                  [][]int
	notes                       []string
	xTickLines                  int
}

const (
	pad      = 8.0
	tickLen  = 4.0
	minPlotH = 60.0
	minPlotW = 60.0
)

// layout places the plot area. yLabels are the y tick labels (for the left
// margin), xTickLines the number of text lines under the x axis.
func (f *frame) layout(yLabels []string, xTickLines int) {
	o := f.o
	f.fs = o.FontSize
	f.W, f.H = float64(o.Width), float64(o.Height)
	f.xTickLines = xTickLines
	top := pad
	if f.title != "" {
		top += f.fs*1.25 + f.fs*0.6
	} else {
		top += f.fs * 0.5
	}
	left := pad
	if f.ylabel != "" {
		left += f.fs * 1.6
	}
	yw := 0.0
	for _, l := range yLabels {
		yw = math.Max(yw, textWidth(l, f.fs))
	}
	left += yw + tickLen + 4
	right := pad + f.fs
	bottom := tickLen + 4 + float64(xTickLines)*f.fs*1.2 + pad/2
	if f.xlabel != "" {
		bottom += f.fs * 1.5
	}
	// Legend rows: flow items left to right, wrapping at the SVG width.
	f.legendRows = nil
	if !o.NoLegend && len(f.legend) > 0 {
		var row []int
		x := 0.0
		avail := f.W - 2*pad
		for i, it := range f.legend {
			w := legendItemWidth(it, f.fs)
			if len(row) > 0 && x+w > avail {
				f.legendRows = append(f.legendRows, row)
				row, x = nil, 0
			}
			row = append(row, i)
			x += w
		}
		f.legendRows = append(f.legendRows, row)
		bottom += pad/2 + float64(len(f.legendRows))*f.fs*1.5
	}
	bottom += float64(len(f.notes)) * f.fs * 1.25
	bottom += pad
	f.px, f.py = left, top
	f.pw = f.W - left - right
	f.ph = f.H - top - bottom
	if f.pw < minPlotW {
		f.W += minPlotW - f.pw
		f.pw = minPlotW
	}
	if f.ph < minPlotH {
		f.H += minPlotH - f.ph
		f.ph = minPlotH
	}
}

func legendItemWidth(it legendItem, fs float64) float64 {
	sw := fs
	if it.kind == legendLine || it.kind == legendLineMarker {
		sw = 2 * fs
	}
	return sw + 4 + textWidth(it.label, fs) + 16
}

// begin writes the root element, <title>, <desc>, background and visible
// title.
func (f *frame) begin(d *doc) {
	id := f.o.IDPrefix
	d.s(`<svg xmlns="http://www.w3.org/2000/svg" version="1.1"`)
	d.nattr("width", f.W)
	d.nattr("height", f.H)
	d.attr("viewBox", "0 0 "+Num(f.W)+" "+Num(f.H))
	d.s(` role="img"`)
	d.attr("aria-labelledby", id+"-title "+id+"-desc")
	d.attr("font-family", f.o.FontFamily)
	d.nattr("font-size", f.fs)
	d.s(">\n")
	t := f.title
	if t == "" {
		t = f.kind
	}
	d.s(`<title`)
	d.attr("id", id+"-title")
	d.s(">")
	d.text(t)
	d.s("</title>\n<desc")
	d.attr("id", id+"-desc")
	d.s(">")
	desc := strings.TrimSpace(f.desc)
	if desc != "" && !strings.HasSuffix(desc, ".") {
		desc += "."
	}
	if desc != "" {
		desc += " "
	}
	d.text(desc + f.summary)
	for _, n := range f.notes {
		d.text(" " + n)
	}
	d.s("</desc>\n")
	d.s(`<defs><clipPath`)
	d.attr("id", id+"-clip")
	d.s(`><rect`)
	d.nattr("x", f.px)
	d.nattr("y", f.py)
	d.nattr("width", f.pw)
	d.nattr("height", f.ph)
	d.s("/></clipPath></defs>\n")
	d.s(`<rect class="background" x="0" y="0"`)
	d.nattr("width", f.W)
	d.nattr("height", f.H)
	d.s(` fill="#ffffff"/>` + "\n")
	if f.title != "" {
		d.s(`<text class="title"`)
		d.nattr("x", f.W/2)
		d.nattr("y", pad+f.fs*1.25)
		d.s(` text-anchor="middle"`)
		d.nattr("font-size", f.fs*1.25)
		d.s(` font-weight="bold">`)
		d.text(f.title)
		d.s("</text>\n")
	}
}

// clipOpen starts the group that holds the data marks.
func (f *frame) clipOpen(d *doc) {
	d.s(`<g class="data"`)
	d.attr("clip-path", "url(#"+f.o.IDPrefix+"-clip)")
	d.s(">\n")
}

func (f *frame) clipClose(d *doc) { d.s("</g>\n") }

// yAxis draws horizontal grid lines, y ticks with labels and the y label.
func (f *frame) yAxis(d *doc, ys linScale, r axisRange, label func(float64) string) {
	d.s(`<g class="y-axis" fill="#000000">` + "\n")
	for _, t := range r.ticks {
		y := ys.at(t)
		if !f.o.NoGrid {
			d.s(`<path class="grid"`)
			d.attr("d", "M"+Num(f.px)+" "+Num(y)+"H"+Num(f.px+f.pw))
			d.s(` stroke="#dddddd" stroke-width="1"/>` + "\n")
		}
		d.s(`<path class="tick"`)
		d.attr("d", "M"+Num(f.px-tickLen)+" "+Num(y)+"H"+Num(f.px))
		d.s(` stroke="#000000" stroke-width="1"/>` + "\n")
		d.s(`<text`)
		d.nattr("x", f.px-tickLen-3)
		d.nattr("y", y+f.fs*0.35)
		d.s(` text-anchor="end">`)
		d.text(label(t))
		d.s("</text>\n")
	}
	if f.ylabel != "" {
		x := pad + f.fs
		y := f.py + f.ph/2
		d.s(`<text class="y-label"`)
		d.nattr("x", x)
		d.nattr("y", y)
		d.s(` text-anchor="middle"`)
		d.attr("transform", "rotate(-90 "+Num(x)+" "+Num(y)+")")
		d.s(">")
		d.text(f.ylabel)
		d.s("</text>\n")
	}
	d.s("</g>\n")
}

// xAxisLinear draws vertical grid lines and x ticks for a numeric axis.
func (f *frame) xAxisLinear(d *doc, xs linScale, r axisRange, label func(float64) string) {
	d.s(`<g class="x-axis" fill="#000000">` + "\n")
	for _, t := range r.ticks {
		x := xs.at(t)
		if !f.o.NoGrid {
			d.s(`<path class="grid"`)
			d.attr("d", "M"+Num(x)+" "+Num(f.py)+"V"+Num(f.py+f.ph))
			d.s(` stroke="#eeeeee" stroke-width="1"/>` + "\n")
		}
		f.xTick(d, x, label(t))
	}
	f.xLabel(d)
	d.s("</g>\n")
}

// xAxisCategories labels category centres; every k-th label is shown when
// they would overlap (k chosen from the widest label and the band width).
func (f *frame) xAxisCategories(d *doc, labels []string, centers []float64, band float64) {
	d.s(`<g class="x-axis" fill="#000000">` + "\n")
	k := categoryStride(labels, band, f.fs)
	for i, c := range centers {
		if i%k != 0 {
			continue
		}
		f.xTick(d, c, labels[i])
	}
	f.xLabel(d)
	d.s("</g>\n")
}

func categoryStride(labels []string, band, fs float64) int {
	w := 0.0
	for _, l := range labels {
		for _, line := range strings.Split(l, "\n") {
			w = math.Max(w, textWidth(line, fs))
		}
	}
	if band <= 0 {
		return 1
	}
	k := int(math.Ceil((w + fs*0.5) / band))
	return max(k, 1)
}

func maxLines(labels []string) int {
	n := 1
	for _, l := range labels {
		n = max(n, strings.Count(l, "\n")+1)
	}
	return n
}

func (f *frame) xTick(d *doc, x float64, label string) {
	y0 := f.py + f.ph
	d.s(`<path class="tick"`)
	d.attr("d", "M"+Num(x)+" "+Num(y0)+"V"+Num(y0+tickLen))
	d.s(` stroke="#000000" stroke-width="1"/>` + "\n")
	lines := strings.Split(label, "\n")
	d.s(`<text`)
	d.nattr("x", x)
	d.nattr("y", y0+tickLen+f.fs)
	d.s(` text-anchor="middle">`)
	for i, l := range lines {
		if i == 0 {
			d.text(l)
			continue
		}
		d.s(`<tspan`)
		d.nattr("x", x)
		d.nattr("dy", f.fs*1.2)
		d.s(">")
		d.text(l)
		d.s("</tspan>")
	}
	d.s("</text>\n")
}

func (f *frame) xLabel(d *doc) {
	if f.xlabel == "" {
		return
	}
	y := f.py + f.ph + tickLen + 4 + float64(f.xTickLines)*f.fs*1.2 + f.fs*1.1
	d.s(`<text class="x-label"`)
	d.nattr("x", f.px+f.pw/2)
	d.nattr("y", y)
	d.s(` text-anchor="middle">`)
	d.text(f.xlabel)
	d.s("</text>\n")
}

// end draws the plot frame, legend and notes and closes the root.
func (f *frame) end(d *doc) {
	d.s(`<rect class="plot-frame"`)
	d.nattr("x", f.px)
	d.nattr("y", f.py)
	d.nattr("width", f.pw)
	d.nattr("height", f.ph)
	d.s(` fill="none" stroke="#000000" stroke-width="1"/>` + "\n")
	y := f.py + f.ph + tickLen + 4 + float64(f.xTickLines)*f.fs*1.2
	if f.xlabel != "" {
		y += f.fs * 1.5
	}
	if len(f.legendRows) > 0 {
		d.s(`<g class="legend">` + "\n")
		y += pad / 2
		for _, row := range f.legendRows {
			w := 0.0
			for _, i := range row {
				w += legendItemWidth(f.legend[i], f.fs)
			}
			x := math.Max(pad, (f.W-w)/2)
			cy := y + f.fs*0.75
			for _, i := range row {
				f.legendItem(d, f.legend[i], x, cy)
				x += legendItemWidth(f.legend[i], f.fs)
			}
			y += f.fs * 1.5
		}
		d.s("</g>\n")
	}
	if len(f.notes) > 0 {
		d.s(`<g class="notes" fill="#444444">` + "\n")
		for _, n := range f.notes {
			y += f.fs * 1.25
			d.s(`<text`)
			d.nattr("x", pad)
			d.nattr("y", y-f.fs*0.25)
			d.nattr("font-size", f.fs*0.9)
			d.s(">")
			d.text(n)
			d.s("</text>\n")
		}
		d.s("</g>\n")
	}
	d.s("</svg>\n")
}

func (f *frame) legendItem(d *doc, it legendItem, x, cy float64) {
	fs := f.fs
	sw := fs
	switch it.kind {
	case legendSwatch:
		d.s(`<rect class="legend-swatch"`)
		d.nattr("x", x)
		d.nattr("y", cy-fs/2)
		d.nattr("width", fs)
		d.nattr("height", fs)
		d.attr("fill", it.color)
		d.s(` stroke="#000000" stroke-width="0.5"/>` + "\n")
	case legendMarker:
		writeMarker(d, "legend-marker", it.marker, x+fs/2, cy, fs*0.35, it.color, "")
	case legendLine, legendLineMarker:
		sw = 2 * fs
		d.s(`<path class="legend-line"`)
		d.attr("d", "M"+Num(x)+" "+Num(cy)+"h"+Num(sw))
		d.attr("stroke", it.color)
		d.s(` stroke-width="2"`)
		if it.dash != "" {
			d.attr("stroke-dasharray", it.dash)
		}
		d.s(` fill="none"/>` + "\n")
		if it.kind == legendLineMarker {
			writeMarker(d, "legend-marker", it.marker, x+fs, cy, fs*0.35, it.color, "")
		}
	}
	d.s(`<text`)
	d.nattr("x", x+sw+4)
	d.nattr("y", cy+fs*0.35)
	d.s(">")
	d.text(it.label)
	d.s("</text>\n")
}

// writeMarker writes one marker path; tip, if not empty, becomes its
// hover <title>.
func writeMarker(d *doc, class string, m Marker, x, y, r float64, color, tip string) {
	d.s(`<path`)
	d.attr("class", class)
	d.attr("d", markerPath(m, x, y, r))
	if m.stroked() {
		d.s(` fill="none"`)
		d.attr("stroke", color)
		d.s(` stroke-width="1.5"`)
	} else {
		d.attr("fill", color)
		d.s(` fill-opacity="0.85" stroke="#ffffff" stroke-width="0.5"`)
	}
	if tip == "" {
		d.s("/>\n")
		return
	}
	d.s("><title>")
	d.text(tip)
	d.s("</title></path>\n")
}

// skipNote is the automatic note about values that could not be drawn.
func skipNote(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s skipped (NaN, ±Inf or |v| > 1e150).", what)
	}
	return fmt.Sprintf("%d %ss skipped (NaN, ±Inf or |v| > 1e150).", n, what)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
