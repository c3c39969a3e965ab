package timeline

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ptxtrace/ptxtrace/viewers/svg"
)

// Span is one region instance on a row: [Start, End] in the timeline's
// unit (cycles, ns, …). Kind picks the colour ("memory", "other", …; empty
// means "other"); Label names the region in the hover title (e.g. the PTX
// line or probe id).
type Span struct {
	Start, End int64
	Kind       string
	Label      string
}

// Row is one line of the timeline, e.g. one warp ("SM 0 / CTA 3 / warp 1").
type Row struct {
	Label string
	Spans []Span
}

// DefaultMaxSpans is the default cap on the number of bars drawn.
const DefaultMaxSpans = 20000

// DefaultMaxRows is the default cap on the number of rows drawn.
const DefaultMaxRows = 2000

// Options tune the page. The zero value means the defaults.
type Options struct {
	// Width of the chart in pixels, row labels included. Default 1200.
	Width int
	// RowHeight in pixels. Default 16.
	RowHeight int
	// MaxSpans caps the bars drawn (default DefaultMaxSpans). Beyond it,
	// spans are merged: see the package documentation.
	MaxSpans int
	// MaxRows caps the rows drawn (default DefaultMaxRows); later rows are
	// left out and the page says how many.
	MaxRows int
	// Colors maps a kind to a CSS colour. Kinds not in it get "#0072B2"
	// (memory), "#B0B0B0" (other) or the next colour of svg.Palette in the
	// order of their names.
	Colors map[string]string
	// NoScript leaves out the zoom script: the page is then a static view of
	// the whole time range.
	NoScript bool
}

// Timeline is a page of rows of spans.
type Timeline struct {
	Title string
	// Unit of Start and End, for axis and hover text. Default "cycles".
	Unit string
	Rows []Row
	Options
}

// Plan says what Render draws; Layout computes it without rendering.
type Plan struct {
	Rows, RowsDrawn   int   // rows given / drawn
	Spans, SpansDrawn int   // spans given (valid) / bars drawn
	Invalid           int   // spans with End < Start, not drawn
	Buckets           int   // time buckets per row when aggregated; 0 when every span is drawn
	BucketWidth       int64 // time units per bucket when aggregated
	T0, T1            int64 // time range of the valid spans
	Kinds             []string
}

// Aggregated reports whether spans were merged to stay under the cap.
func (p Plan) Aggregated() bool { return p.Buckets > 0 }

// bar is one rectangle to draw: a span, or a merge of N spans of one kind
// in one bucket of one row.
type bar struct {
	row   int
	s, e  int64
	kind  int
	n     int
	busy  int64 // summed durations of the merged spans
	label string
}

func (t *Timeline) opts() Options {
	o := t.Options
	if o.Width <= 0 {
		o.Width = 1200
	}
	o.Width = max(o.Width, 300)
	if o.RowHeight <= 0 {
		o.RowHeight = 16
	}
	o.RowHeight = min(max(o.RowHeight, 4), 200)
	if o.MaxSpans <= 0 {
		o.MaxSpans = DefaultMaxSpans
	}
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	return o
}

func kindName(k string) string {
	if k == "" {
		return "other"
	}
	return k
}

// kinds lists the kinds in colour order: memory, other, then by name.
func kinds(rows []Row) []string {
	seen := map[string]bool{}
	for _, r := range rows {
		for _, s := range r.Spans {
			seen[kindName(s.Kind)] = true
		}
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	rank := func(k string) int {
		switch k {
		case "memory":
			return 0
		case "other":
			return 1
		}
		return 2
	}
	sort.Slice(out, func(i, j int) bool {
		if ri, rj := rank(out[i]), rank(out[j]); ri != rj {
			return ri < rj
		}
		return out[i] < out[j]
	})
	return out
}

func (t *Timeline) colors(ks []string) []string {
	o := t.Options
	out := make([]string, len(ks))
	next := 0
	pal := svg.Palette
	for i, k := range ks {
		if c, ok := o.Colors[k]; ok && safeColor(c) {
			out[i] = c
			continue
		}
		switch k {
		case "memory":
			out[i] = "#0072B2"
		case "other":
			out[i] = "#B0B0B0"
		default:
			// Skip blue and grey, which memory/other use.
			for pal[next%len(pal)] == "#0072B2" || pal[next%len(pal)] == "#999999" {
				next++
			}
			out[i] = pal[next%len(pal)]
			next++
		}
	}
	return out
}

// safeColor accepts #rgb/#rrggbb and plain colour names only, so a colour
// can go into the style sheet unescaped.
func safeColor(c string) bool {
	if len(c) == 0 || len(c) > 32 {
		return false
	}
	if c[0] == '#' {
		if len(c) != 4 && len(c) != 7 {
			return false
		}
		for _, r := range c[1:] {
			if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return false
			}
		}
		return true
	}
	for _, r := range c {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// sortedRows copies the rows' valid spans sorted by (Start, End, Kind,
// Label): the drawing order, independent of the input order.
func sortedRows(rows []Row) (out [][]Span, invalid int) {
	out = make([][]Span, len(rows))
	for i, r := range rows {
		ss := make([]Span, 0, len(r.Spans))
		for _, s := range r.Spans {
			if s.End < s.Start {
				invalid++
				continue
			}
			ss = append(ss, s)
		}
		sort.SliceStable(ss, func(a, b int) bool {
			x, y := ss[a], ss[b]
			if x.Start != y.Start {
				return x.Start < y.Start
			}
			if x.End != y.End {
				return x.End < y.End
			}
			if x.Kind != y.Kind {
				return x.Kind < y.Kind
			}
			return x.Label < y.Label
		})
		out[i] = ss
	}
	return out, invalid
}

// bucketOf maps time s into one of nb buckets over [t0, t1].
func bucketOf(s, t0, t1 int64, nb int) int {
	span := float64(t1-t0) + 1
	b := int(math.Floor(float64(s-t0) / span * float64(nb)))
	return min(max(b, 0), nb-1)
}

// Layout computes the plan and the bars Render draws.
func (t *Timeline) Layout() Plan {
	p, _ := t.layout()
	return p
}

func (t *Timeline) layout() (Plan, []bar) {
	o := t.opts()
	rows, invalid := sortedRows(t.Rows)
	ks := kinds(t.Rows)
	kindIdx := map[string]int{}
	for i, k := range ks {
		kindIdx[k] = i
	}
	p := Plan{Rows: len(rows), Invalid: invalid, Kinds: ks}
	first := true
	for _, r := range rows {
		p.Spans += len(r)
		for _, s := range r {
			if first || s.Start < p.T0 {
				p.T0 = s.Start
			}
			if first || s.End > p.T1 {
				p.T1 = s.End
			}
			first = false
		}
	}
	nrows := min(len(rows), o.MaxRows)
	count := 0
	for _, r := range rows[:nrows] {
		count += len(r)
	}
	if count <= o.MaxSpans {
		p.RowsDrawn = nrows
		var bars []bar
		for ri, r := range rows[:nrows] {
			for _, s := range r {
				bars = append(bars, bar{row: ri, s: s.Start, e: s.End, kind: kindIdx[kindName(s.Kind)], n: 1, busy: s.End - s.Start, label: s.Label})
			}
		}
		p.SpansDrawn = len(bars)
		return p, bars
	}
	// Aggregate: the largest power-of-two bucket count (at most the plot
	// width in pixels, rounded up to a power of two) whose merged bars fit
	// under the cap. Buckets nest, so the count grows with nb.
	maxB := 1
	for maxB < o.Width {
		maxB *= 2
	}
	last := make([]int, len(ks))
	countFor := func(nb, nr int) int {
		c := 0
		for _, r := range rows[:nr] {
			for i := range last {
				last[i] = -1
			}
			for _, s := range r {
				b := bucketOf(s.Start, p.T0, p.T1, nb)
				k := kindIdx[kindName(s.Kind)]
				if last[k] != b {
					last[k] = b
					c++
				}
			}
		}
		return c
	}
	nb := maxB
	for nb > 1 && countFor(nb, nrows) > o.MaxSpans {
		nb /= 2
	}
	for nrows > 0 && countFor(nb, nrows) > o.MaxSpans {
		nrows-- // even one bucket per kind and row is too many
	}
	p.RowsDrawn = nrows
	p.Buckets = nb
	p.BucketWidth = int64(math.Ceil((float64(p.T1-p.T0) + 1) / float64(nb)))
	var bars []bar
	open := make([]int, len(ks)) // index in bars of the kind's current merge
	for ri, r := range rows[:nrows] {
		for i := range last {
			last[i] = -1
		}
		for _, s := range r {
			b := bucketOf(s.Start, p.T0, p.T1, nb)
			k := kindIdx[kindName(s.Kind)]
			if last[k] != b {
				last[k] = b
				open[k] = len(bars)
				bars = append(bars, bar{row: ri, s: s.Start, e: s.End, kind: k, n: 1, busy: s.End - s.Start, label: s.Label})
				continue
			}
			m := &bars[open[k]]
			m.n++
			m.e = max(m.e, s.End)
			m.busy += s.End - s.Start
			m.label = ""
		}
	}
	p.SpansDrawn = len(bars)
	return p, bars
}

// KindTotal is the legend entry of one kind: its valid spans and their
// summed duration.
type KindTotal struct {
	Kind  string
	Spans int
	Busy  int64
}

// Totals returns the legend: one entry per kind, in colour order (memory,
// other, then by name), over all valid spans (drawn or not).
func (t *Timeline) Totals() []KindTotal {
	ks := kinds(t.Rows)
	out := make([]KindTotal, len(ks))
	idx := map[string]int{}
	for i, k := range ks {
		out[i].Kind = k
		idx[k] = i
	}
	for _, r := range t.Rows {
		for _, s := range r.Spans {
			if s.End >= s.Start {
				k := &out[idx[kindName(s.Kind)]]
				k.Spans++
				k.Busy += s.End - s.Start
			}
		}
	}
	return out
}

func (t *Timeline) unit() string {
	if t.Unit == "" {
		return "cycles"
	}
	return t.Unit
}

func (t *Timeline) title() string {
	if t.Title == "" {
		return "Timeline"
	}
	return t.Title
}

// Render writes the timeline as one self-contained HTML page.
func (t *Timeline) Render(w io.Writer) error {
	o := t.opts()
	p, bars := t.layout()
	unit, title := t.unit(), t.title()
	cols := t.colors(p.Kinds)
	bw := bufio.NewWriterSize(w, 64<<10)
	e := svg.Escape

	fmt.Fprintf(bw, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n", e(title))
	bw.WriteString("<style>\n" + css)
	for i, c := range cols {
		fmt.Fprintf(bw, ".k%d{fill:%s}\n.sw%d{background:%s}\n", i, c, i, c)
	}
	bw.WriteString("</style>\n</head>\n<body>\n")
	fmt.Fprintf(bw, "<h1>%s</h1>\n", e(title))
	fmt.Fprintf(bw, "<p class=\"info\">%s</p>\n<div class=\"legend\">", t.info(o, p, true))
	totals := t.Totals()
	var allBusy int64
	for _, k := range totals {
		allBusy += k.Busy
	}
	for i, k := range totals {
		share := 0.0
		if allBusy > 0 {
			share = float64(k.Busy) / float64(allBusy) * 100
		}
		fmt.Fprintf(bw, "<span><i class=\"sw%d\"></i>%s: %d spans, %d %s (%.1f%% of span time)</span>", i, e(k.Kind), k.Spans, k.Busy, e(unit), share)
	}
	bw.WriteString("</div>\n")
	if !o.NoScript {
		bw.WriteString(`<div class="controls"><button id="zin" type="button">zoom in</button><button id="zout" type="button">zoom out</button><button id="zreset" type="button">reset</button> <span id="zrange"></span> <span class="hint">drag across the chart to zoom to a range; wheel zooms, shift+wheel pans</span></div>` + "\n")
	}
	t.drawSVG(bw, o, p, bars, nil)
	if !o.NoScript {
		bw.WriteString("<script>\n" + script + "</script>\n")
	}
	bw.WriteString("</body>\n</html>\n")
	return bw.Flush()
}

// Info is the page's description of what is drawn (rows, spans, time
// range, and whether rows were dropped or spans merged), as plain text.
func (t *Timeline) Info() string {
	return t.info(t.opts(), t.Layout(), false)
}

// info is Info, HTML-escaped when html is set.
func (t *Timeline) info(o Options, p Plan, html bool) string {
	e, lt := func(s string) string { return s }, "<"
	if html {
		e, lt = svg.Escape, "&lt;"
	}
	unit := t.unit()
	var b strings.Builder
	fmt.Fprintf(&b, "%d rows, %d spans, %s %d–%d (%s %s).", p.Rows, p.Spans, e(unit), p.T0, p.T1, strconv.FormatInt(p.T1-p.T0, 10), e(unit))
	if p.Invalid > 0 {
		fmt.Fprintf(&b, " Spans with end %s start, not drawn: %d.", lt, p.Invalid)
	}
	if p.RowsDrawn < p.Rows {
		fmt.Fprintf(&b, " Only the first %d rows are drawn (cap %d rows, %d bars).", p.RowsDrawn, o.MaxRows, o.MaxSpans)
	}
	if p.Aggregated() {
		fmt.Fprintf(&b, " More spans than the cap of %d bars: each row's spans of one kind that start in the same %d-%s bucket (1/%d of the range) are merged into one bar from the first start to the last end; its hover title gives the count and summed duration. %d bars drawn.",
			o.MaxSpans, p.BucketWidth, e(unit), p.Buckets, p.SpansDrawn)
	}
	return b.String()
}

// SVG writes the chart alone as a standalone static SVG document: colours
// and text styles as attributes, no script, no style sheet, no selection
// rectangle, so it can be inlined in another page (viewers/report) or
// opened on its own. The drawing is the page's at full range; the legend
// and Info are not part of it.
func (t *Timeline) SVG(w io.Writer) error {
	o := t.opts()
	p, bars := t.layout()
	bw := bufio.NewWriterSize(w, 64<<10)
	t.drawSVG(bw, o, p, bars, t.colors(p.Kinds))
	return bw.Flush()
}

// drawSVG writes the <svg> element. With inline colours (SVG) every
// element carries its presentation attributes; without (the page) the
// page's style sheet supplies them and the selection rectangle of the zoom
// script is added.
func (t *Timeline) drawSVG(bw *bufio.Writer, o Options, p Plan, bars []bar, inline []string) {
	e := svg.Escape
	unit, title := t.unit(), t.title()
	attr := func(page, standalone string) string {
		if inline != nil {
			return standalone
		}
		return page
	}
	fs := 11.0
	labelW := 0.0
	for _, r := range t.Rows[:p.RowsDrawn] {
		labelW = math.Max(labelW, float64(len([]rune(r.Label)))*fs*0.6)
	}
	labelW = math.Min(math.Max(labelW+12, 60), 320)
	W := float64(o.Width)
	pw := W - labelW - 16
	rh := float64(o.RowHeight)
	axisH := 22.0
	H := axisH + rh*float64(max(p.RowsDrawn, 1)) + 4
	dur := p.T1 - p.T0
	if dur <= 0 {
		dur = 1
	}
	xAt := func(v int64) float64 { return labelW + float64(v)/float64(dur)*pw }

	fmt.Fprintf(bw, "<svg id=\"tl\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\" role=\"img\" aria-label=\"%s\" data-t0=\"%d\" data-dur=\"%d\" data-x0=\"%s\" data-pw=\"%s\" data-unit=\"%s\"%s>\n",
		svg.Num(W), svg.Num(H), svg.Num(W), svg.Num(H), e(title), p.T0, dur, svg.Num(labelW), svg.Num(pw), e(unit),
		attr("", ` font-family="DejaVu Sans,Helvetica,Arial,sans-serif" font-size="11"`))
	fmt.Fprintf(bw, "<defs><clipPath id=\"tlclip\"><rect x=\"%s\" y=\"0\" width=\"%s\" height=\"%s\"/></clipPath></defs>\n", svg.Num(labelW), svg.Num(pw), svg.Num(H))
	// Row stripes and labels.
	bw.WriteString("<g class=\"rows\">\n")
	for i := 0; i < p.RowsDrawn; i++ {
		y := axisH + rh*float64(i)
		if i%2 == 1 {
			fmt.Fprintf(bw, "<rect class=\"stripe\" x=\"0\" y=\"%s\" width=\"%s\" height=\"%s\"%s/>\n", svg.Num(y), svg.Num(W), svg.Num(rh), attr("", ` fill="#f4f4f4"`))
		}
		fmt.Fprintf(bw, "<text x=\"%s\" y=\"%s\"%s>%s</text>\n", svg.Num(labelW-6), svg.Num(y+rh/2+fs*0.35), attr("", ` text-anchor="end" fill="#222"`), e(t.Rows[i].Label))
	}
	bw.WriteString("</g>\n<g id=\"axis\" class=\"axis\"" + attr("", ` stroke="#ddd" text-anchor="middle"`) + ">\n")
	for _, tk := range ticks(float64(p.T0), float64(p.T0+dur), 8) {
		x := xAt(int64(tk) - p.T0)
		fmt.Fprintf(bw, "<path d=\"M%s %sV%s\"/><text x=\"%s\" y=\"%s\"%s>%s</text>\n", svg.Num(x), svg.Num(axisH-4), svg.Num(H), svg.Num(x), svg.Num(axisH-7), attr("", ` stroke="none" fill="#444"`), strconv.FormatInt(int64(tk), 10))
	}
	bw.WriteString("</g>\n<g id=\"bars\" clip-path=\"url(#tlclip)\">\n")
	for _, b := range bars {
		x0, x1 := xAt(b.s-p.T0), xAt(b.e-p.T0)
		wpx := math.Max(x1-x0, 0.5)
		y := axisH + rh*float64(b.row) + 2
		cls := "k" + strconv.Itoa(b.kind)
		if b.n > 1 {
			cls += " agg"
		}
		style := ""
		if inline != nil {
			style = ` fill="` + inline[b.kind] + `"`
			if b.n > 1 {
				style += ` fill-opacity=".8"`
			}
		}
		fmt.Fprintf(bw, "<rect class=\"%s\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" data-s=\"%d\" data-e=\"%d\"%s><title>", cls, svg.Num(x0), svg.Num(y), svg.Num(wpx), svg.Num(rh-4), b.s-p.T0, b.e-p.T0, style)
		k := p.Kinds[b.kind]
		if b.n == 1 {
			if b.label != "" {
				bw.WriteString(e(b.label) + " · ")
			}
			fmt.Fprintf(bw, "%s %d–%d: %d %s", e(k), b.s, b.e, b.e-b.s, e(unit))
		} else {
			fmt.Fprintf(bw, "%d %s spans merged, %d–%d, summed %d %s", b.n, e(k), b.s, b.e, b.busy, e(unit))
		}
		bw.WriteString("</title></rect>\n")
	}
	bw.WriteString("</g>\n")
	if inline == nil {
		bw.WriteString("<rect id=\"sel\" x=\"0\" y=\"0\" width=\"0\" height=\"" + svg.Num(H) + "\"/>\n")
	}
	bw.WriteString("</svg>\n")
}

// ticks returns nice tick positions in [lo, hi] (integers when the step is
// at least 1), the same rule the script uses after a zoom.
func ticks(lo, hi float64, want int) []float64 {
	span := hi - lo
	if span <= 0 {
		return []float64{lo}
	}
	raw := span / float64(want)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	step = math.Max(step, 1)
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi && len(out) < 50; v += step {
		out = append(out, v)
	}
	return out
}

const css = `body{font:13px/1.4 "DejaVu Sans",Helvetica,Arial,sans-serif;margin:16px;color:#111}
h1{font-size:18px;margin:0 0 6px}
.info{margin:0 0 6px;max-width:1100px}
.legend span{margin-right:18px;white-space:nowrap}
.legend i{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px;border:1px solid #555}
.controls{margin:6px 0}.controls button{margin-right:4px}.hint{color:#666}
#tl{display:block;user-select:none;font-size:11px}
#tl .rows text{text-anchor:end;fill:#222}
#tl .stripe{fill:#f4f4f4}
#tl .axis path{stroke:#ddd;stroke-width:1}
#tl .axis text{text-anchor:middle;fill:#444}
#tl .agg{fill-opacity:.8}
#sel{fill:#0072B2;fill-opacity:.15;pointer-events:none}
`
