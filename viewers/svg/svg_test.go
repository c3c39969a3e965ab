package svg

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// renderer is what every chart implements.
type renderer interface{ Render(io.Writer) error }

func render(t testing.TB, c renderer) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := c.Render(&b); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return b.Bytes()
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it); got:\n%s", name, got)
	}
}

// elem is a decoded SVG element (the parts the tests need).
type elem struct {
	name  string
	attrs map[string]string
	text  string // character data of direct children
}

// parseSVG decodes the whole document with encoding/xml, failing on any
// well-formedness error, and checks the root and its viewBox.
func parseSVG(t testing.TB, b []byte) []elem {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = true
	var out []elem
	var stack []int
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, b)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			e := elem{name: tk.Name.Local, attrs: map[string]string{}}
			for _, a := range tk.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			if len(out) == 0 {
				if e.name != "svg" || tk.Name.Space != "http://www.w3.org/2000/svg" {
					t.Fatalf("root is %v, want svg in the SVG namespace", tk.Name)
				}
				vb := strings.Fields(e.attrs["viewBox"])
				if len(vb) != 4 || vb[0] != "0" || vb[1] != "0" || vb[2] != e.attrs["width"] || vb[3] != e.attrs["height"] {
					t.Fatalf("viewBox %q does not match width %q height %q", e.attrs["viewBox"], e.attrs["width"], e.attrs["height"])
				}
			}
			stack = append(stack, len(out))
			out = append(out, e)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				out[stack[len(stack)-1]].text += string(tk)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("empty document")
	}
	for _, e := range out {
		for k, v := range e.attrs {
			if strings.Contains(v, "NaN") || strings.Contains(v, "Inf") {
				t.Errorf("<%s %s=%q> holds a non-finite number", e.name, k, v)
			}
		}
	}
	return out
}

func withClass(es []elem, class string) []elem {
	var out []elem
	for _, e := range es {
		for _, c := range strings.Fields(e.attrs["class"]) {
			if c == class {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

func fattr(t testing.TB, e elem, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(e.attrs[name], 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", e.name, name, e.attrs[name], err)
	}
	return v
}

// Sample data in the shape of the seed paper's figures (values made up but
// plausible: naive memory share ~13–20 %, proposed ~50–80 %).
var shapes = []string{"1×128", "2×64", "4×32", "8×16", "16×8", "32×4", "64×2", "128×1"}

func fig5() *BarChart {
	return &BarChart{
		Title:      "Memory vs other time (viewpoint (0,0,0))",
		Desc:       "Share of memory-reference time per thread-block shape, naive and proposed probes",
		XLabel:     "thread-block shape / probe mode",
		Categories: []string{"1×128\nnaive", "1×128\nproposed", "128×1\nnaive", "128×1\nproposed"},
		Series: []BarSeries{
			{Name: "memory", Values: []float64{20, 80, 13, 50}},
			{Name: "other", Values: []float64{80, 20, 87, 50}},
		},
		Mode:        Stacked100,
		ValueLabels: true,
	}
}

func fig6() *ScatterChart {
	hit := []float64{62, 70, 78, 83, 85, 84, 80, 74}
	prop := []float64{1.10, 1.31, 1.52, 1.66, 1.70, 1.69, 1.58, 1.41}
	naive := []float64{3.2, 3.4, 3.3, 2.9, 2.7, 2.8, 3.0, 3.3}
	var ps, pn []Point
	for i, s := range shapes {
		ps = append(ps, Point{X: hit[i], Y: prop[i], Label: s})
		pn = append(pn, Point{X: hit[i], Y: naive[i], Label: s})
	}
	return &ScatterChart{
		Title:       "Memory-reference frequency vs texture-cache hit rate (0,0,0)",
		XLabel:      "texture-cache hit rate (%)",
		YLabel:      "memory-reference frequency (1/kcycle)",
		Series:      []ScatterSeries{{Name: "proposed", Points: ps}, {Name: "naive", Points: pn}},
		PointLabels: true,
	}
}

func fig10() *BarChart {
	var cats []string
	var vals []float64
	for w := 0; w < 48; w++ {
		cats = append(cats, strconv.Itoa(w))
		switch {
		case w < 4 || w > 43:
			vals = append(vals, math.NaN()) // no memory references
		case w < 8 || w > 39:
			vals = append(vals, 1000+float64(w%3)*40)
		default:
			vals = append(vals, 1800+float64((w*37)%11)*60)
		}
	}
	return &BarChart{
		Title:      "Average memory time per warp, SM 0, 2×64, (90,0,90)",
		XLabel:     "warp",
		YLabel:     "average memory time (cycles)",
		Categories: cats,
		Series:     []BarSeries{{Values: vals}},
		Options:    Options{Notes: []string{"Warps without a bar made no memory reference."}},
	}
}

func fig11() *LineChart {
	var y []float64
	for i := 0; i < 120; i++ {
		y = append(y, 600+float64((i*7919)%13)*90+float64(i%5)*40)
	}
	return &LineChart{
		Title:  "Memory time of one warp (8×16, (90,0,90))",
		XLabel: "memory access index",
		YLabel: "memory time (cycles)",
		Series: []LineSeries{{Name: "warp 17", Y: y}},
		Style:  LinesMarkers,
		YZero:  true,
	}
}

func categoryLines() *LineChart {
	return &LineChart{
		Title:       "Frame rate and memory-reference frequency per block shape",
		YLabel:      "normalised value",
		XCategories: shapes,
		Series: []LineSeries{
			{Name: "frame rate", Y: []float64{0.62, 0.75, 0.88, 0.97, 1, 0.98, 0.9, 0.8}},
			{Name: "frequency (proposed)", Y: []float64{0.65, 0.77, 0.9, 0.98, 1, 0.99, 0.93, 0.83}},
		},
		Style: LinesMarkers,
	}
}

func grouped() *BarChart {
	return &BarChart{
		Title:       "Grouped <bars> & \"escapes\"",
		YLabel:      "cycles",
		Categories:  []string{"a", "b", "c"},
		Series:      []BarSeries{{Name: "x", Values: []float64{3, -1.5, 7}}, {Name: "y", Values: []float64{2, 4, math.Inf(1)}}},
		Mode:        Grouped,
		ValueLabels: true,
	}
}

func goldenCharts() map[string]renderer {
	return map[string]renderer{
		"fig5_share_stacked100.svg":   fig5(),
		"fig6_scatter_hit_rate.svg":   fig6(),
		"fig10_warp_average_bars.svg": fig10(),
		"fig11_warp_series_line.svg":  fig11(),
		"line_categories.svg":         categoryLines(),
		"bar_grouped_negative.svg":    grouped(),
		"bar_stacked.svg": &BarChart{Categories: []string{"p", "q"}, Mode: Stacked,
			Series: []BarSeries{{Name: "a", Values: []float64{1, 2}}, {Name: "b", Values: []float64{3, -1}}}},
		"scatter_degenerate.svg": &ScatterChart{Title: "degenerate", Series: []ScatterSeries{
			{Name: "single", Points: []Point{{X: 5, Y: 5}}},
			{Name: "constant y", Points: []Point{{X: 1, Y: 2}, {X: 3, Y: 2}, {X: math.NaN(), Y: 1}}},
			{Name: "empty"},
		}},
		"line_empty.svg": &LineChart{Title: "no data"},
	}
}

func TestGolden(t *testing.T) {
	for name, c := range goldenCharts() {
		t.Run(name, func(t *testing.T) {
			b := render(t, c)
			parseSVG(t, b)
			golden(t, name, b)
		})
	}
}

func TestDeterministic(t *testing.T) {
	for name, c := range goldenCharts() {
		a, b := render(t, c), render(t, c)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two renders differ", name)
		}
	}
}

func TestStacked100Heights(t *testing.T) {
	c := fig5()
	es := parseSVG(t, render(t, c))
	bars := withClass(es, "bar")
	if len(bars) != 8 {
		t.Fatalf("%d bars, want 8", len(bars))
	}
	ph := fattr(t, plotRect(t, es), "height")
	// Bars come category by category, series by series.
	for ci := range c.Categories {
		sum := 0.0
		for si := range c.Series {
			b := bars[ci*2+si]
			h := fattr(t, b, "height")
			want := c.Series[si].Values[ci] / (c.Series[0].Values[ci] + c.Series[1].Values[ci]) * ph
			if math.Abs(h-want) > 0.011 {
				t.Errorf("category %d series %d: height %v, want %v", ci, si, h, want)
			}
			sum += h
		}
		if math.Abs(sum-ph) > 0.02 {
			t.Errorf("category %d: stack height %v, want the plot height %v", ci, sum, ph)
		}
	}
}

func plotRect(t testing.TB, es []elem) elem {
	t.Helper()
	r := withClass(es, "plot-frame")
	if len(r) != 1 {
		t.Fatalf("%d plot frames", len(r))
	}
	return r[0]
}

func TestGroupedHeightsProportional(t *testing.T) {
	c := &BarChart{Categories: []string{"a", "b", "c", "d"},
		Series: []BarSeries{{Name: "m", Values: []float64{1, 2.5, 7, 0.25}}, {Name: "n", Values: []float64{4, 3, math.NaN(), 6}}}}
	b := render(t, c)
	es := parseSVG(t, b)
	bars := withClass(es, "bar")
	var vals []float64
	for ci := range c.Categories {
		for _, s := range c.Series {
			if !math.IsNaN(s.Values[ci]) {
				vals = append(vals, s.Values[ci])
			}
		}
	}
	if len(bars) != len(vals) {
		t.Fatalf("%d bars for %d finite values", len(bars), len(vals))
	}
	// Scale from the tallest bar (value 7, bar 4), so rounding to 0.01 px
	// barely affects it.
	k := fattr(t, bars[4], "height") / vals[4]
	base := fattr(t, bars[0], "y") + fattr(t, bars[0], "height")
	for i, bar := range bars {
		h := fattr(t, bar, "height")
		if math.Abs(h-k*vals[i]) > 0.025 {
			t.Errorf("bar %d: height %v, want %v", i, h, k*vals[i])
		}
		if y := fattr(t, bar, "y") + h; math.Abs(y-base) > 0.02 {
			t.Errorf("bar %d: bottom %v, want baseline %v", i, y, base)
		}
	}
	if !bytes.Contains(b, []byte("1 value skipped")) {
		t.Error("the NaN value is not noted")
	}
}

// legendR extracts "name (r = X, n = N)" from the legend texts.
var legendRE = regexp.MustCompile(`^(.*) \(r = ([-0-9.]+|n/a), n = (\d+)\)$`)

func legendRs(t testing.TB, es []elem) map[string]string {
	out := map[string]string{}
	for _, e := range es {
		if e.name == "text" {
			if m := legendRE.FindStringSubmatch(e.text); m != nil {
				out[m[1]] = m[2]
			}
		}
	}
	return out
}

func TestPearsonHand(t *testing.T) {
	// Collinear points: r = ±1 exactly (up to rounding).
	r, ok := Pearson([]float64{1, 2, 3, 4, 5}, []float64{3, 5, 7, 9, 11})
	if !ok || math.Abs(r-1) > 1e-12 {
		t.Errorf("collinear: r = %v, %v; want 1", r, ok)
	}
	r, ok = Pearson([]float64{1, 2, 3}, []float64{9, 6, 3})
	if !ok || math.Abs(r+1) > 1e-12 {
		t.Errorf("anti-collinear: r = %v, %v; want -1", r, ok)
	}
	// Hand computation for x = 1,2,3,4, y = 2,4,5,4: x̄ = 2.5, ȳ = 3.75,
	// Σdxdy = 3.5, Σdx² = 5, Σdy² = 4.75, r = 3.5/√23.75 = 0.71818…
	want := 3.5 / math.Sqrt(23.75)
	r, ok = Pearson([]float64{1, 2, 3, 4}, []float64{2, 4, 5, 4})
	if !ok || math.Abs(r-want) > 1e-12 || math.Abs(r-0.718185) > 1e-6 {
		t.Errorf("4 points: r = %v, want %v", r, want)
	}
	// Large offset (cycle counts) must not lose precision.
	r, _ = Pearson([]float64{1e9 + 1, 1e9 + 2, 1e9 + 3, 1e9 + 4}, []float64{2, 4, 5, 4})
	if math.Abs(r-want) > 1e-9 {
		t.Errorf("offset: r = %v, want %v", r, want)
	}
	if _, ok := Pearson([]float64{1, 1, 1}, []float64{1, 2, 3}); ok {
		t.Error("constant x: want undefined")
	}
	if _, ok := Pearson([]float64{1}, []float64{1}); ok {
		t.Error("one point: want undefined")
	}
	m, b, ok := LinearFit([]float64{1, 2, 3, 4}, []float64{2, 4, 5, 4})
	// slope = 3.5/5 = 0.7, intercept = 3.75 - 0.7·2.5 = 2
	if !ok || math.Abs(m-0.7) > 1e-12 || math.Abs(b-2) > 1e-12 {
		t.Errorf("fit: %v %v %v", m, b, ok)
	}
}

func TestScatterLegendR(t *testing.T) {
	c := &ScatterChart{Series: []ScatterSeries{
		{Name: "line", Points: []Point{{1, 3, ""}, {2, 5, ""}, {3, 7, ""}}},
		{Name: "hand", Points: []Point{{1, 2, ""}, {2, 4, ""}, {3, 5, ""}, {4, 4, ""}, {math.NaN(), 1, ""}}},
		{Name: "flat", Points: []Point{{1, 2, ""}, {2, 2, ""}}},
	}}
	b := render(t, c)
	es := parseSVG(t, b)
	got := legendRs(t, es)
	want := map[string]string{"line": "1.000", "hand": "0.718", "flat": "n/a"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("legend r of %q = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if n := len(withClass(es, "mark")); n != 3+4+2 {
		t.Errorf("%d marks, want 9 (one per finite point)", n)
	}
	// Fit lines for the two series where it is defined, and both slopes go
	// up (y grows downward in SVG).
	fits := withClass(es, "fit")
	if len(fits) != 3 { // "flat" has a fit (slope 0) but no r
		t.Errorf("%d fit lines, want 3", len(fits))
	}
	if !bytes.Contains(b, []byte("1 point skipped")) {
		t.Error("skipped point not noted")
	}
}

func TestMarksPerPoint(t *testing.T) {
	c := fig6()
	es := parseSVG(t, render(t, c))
	for i, s := range c.Series {
		if n := len(withClass(es, fmt.Sprintf("s%d", i))); n != len(s.Points)+1 { // + fit line
			t.Errorf("series %d: %d elements, want %d marks + 1 fit", i, n, len(s.Points))
		}
	}
	l := fig11()
	l.Series[0].Y[5] = math.NaN()
	es = parseSVG(t, render(t, l))
	if n := len(withClass(es, "mark")); n != len(l.Series[0].Y)-1 {
		t.Errorf("line markers: %d, want %d", n, len(l.Series[0].Y)-1)
	}
	lines := withClass(es, "line")
	if len(lines) != 1 {
		t.Fatalf("%d line paths", len(lines))
	}
	d := lines[0].attrs["d"]
	if m, l2 := strings.Count(d, "M"), strings.Count(d, "L"); m != 2 || m+l2 != len(l.Series[0].Y)-1 {
		t.Errorf("path has %d moves and %d lines; want 2 segments over %d points", m, l2, len(l.Series[0].Y)-1)
	}
}

func TestDegenerate(t *testing.T) {
	inf := math.Inf(1)
	cases := []renderer{
		&BarChart{},
		&BarChart{Categories: []string{"a"}},
		&BarChart{Categories: []string{"a"}, Series: []BarSeries{{Values: []float64{0}}}, Mode: Stacked100},
		&BarChart{Categories: []string{"a"}, Series: []BarSeries{{Values: []float64{-1, 2}}}, Mode: Stacked100},
		&BarChart{Categories: []string{"a", "b"}, Series: []BarSeries{{Values: []float64{5, 5}}}},
		&BarChart{Categories: []string{"a"}, Series: []BarSeries{{Values: []float64{1e300}}}},
		&ScatterChart{},
		&ScatterChart{Series: []ScatterSeries{{Points: []Point{{X: inf, Y: 1}}}}},
		&ScatterChart{Series: []ScatterSeries{{Points: []Point{{X: -1e149, Y: 1}, {X: 1e149, Y: -1e149}}}}},
		&ScatterChart{Series: []ScatterSeries{{Points: []Point{{X: 1, Y: 1}, {X: 1 + 1e-15, Y: 1}}}}},
		&LineChart{Series: []LineSeries{{Y: []float64{3}}}},
		&LineChart{Series: []LineSeries{{X: []float64{1, 2, 3}, Y: []float64{4}}}},
		&LineChart{Series: []LineSeries{{Y: []float64{math.NaN(), math.NaN()}}}},
		&LineChart{XCategories: []string{"a\x00b", "\xff"}, Series: []LineSeries{{Y: []float64{1, 2, 3}}}},
		&BarChart{Options: Options{Width: 1, Height: 1, FontSize: math.NaN()}, Categories: []string{"x"}, Series: []BarSeries{{Values: []float64{1}}}},
	}
	for i, c := range cases {
		b := render(t, c)
		es := parseSVG(t, b)
		if len(es) < 3 {
			t.Errorf("case %d: %d elements", i, len(es))
		}
	}
}

func TestTicks(t *testing.T) {
	cases := []struct {
		lo, hi float64
		zero   bool
		want   string
	}{
		{0, 1, false, "0.0 0.2 0.4 0.6 0.8 1.0"},
		{0, 100, true, "0 20 40 60 80 100"},
		{13, 87, true, "0 20 40 60 80 100"},
		{1000, 2460, false, "1000 1250 1500 1750 2000 2250 2500"},
		{5, 5, false, "4.7 4.8 4.9 5.0 5.1 5.2 5.3"},
		{0, 0, true, "0.0 0.2 0.4 0.6 0.8 1.0"},
		{-0.3, 0.3, false, "-0.3 -0.2 -0.1 0.0 0.1 0.2 0.3"},
		{-1.5, 7, true, "-2 0 2 4 6 8"},
		{0, 0.0005, false, "0.0000 0.0001 0.0002 0.0003 0.0004 0.0005"},
		{0, 12.5, false, "0.0 2.5 5.0 7.5 10.0 12.5"},
		{0, 3e9, false, "0 5e+08 1e+09 1.5e+09 2e+09 2.5e+09 3e+09"},
	}
	for _, c := range cases {
		r := niceRange(c.lo, c.hi, 6, c.zero)
		var got []string
		for _, v := range r.ticks {
			got = append(got, tickLabel(v, r.step))
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("niceRange(%v, %v): ticks %q, want %q", c.lo, c.hi, s, c.want)
		}
	}
}

func TestEscape(t *testing.T) {
	got := Escape("a<b>&\"c'\x01\xff\n")
	want := "a&lt;b&gt;&amp;&quot;c&#39;\uFFFD\uFFFD&#xA;"
	if got != want {
		t.Errorf("Escape = %q, want %q", got, want)
	}
	for _, c := range []struct {
		v    float64
		want string
	}{{1.005, "1"}, {-0.001, "0"}, {2.5, "2.5"}, {100, "100"}, {math.NaN(), "0"}, {-3.456, "-3.46"}} {
		if g := Num(c.v); g != c.want {
			t.Errorf("Num(%v) = %q, want %q", c.v, g, c.want)
		}
	}
}

// FuzzCharts builds every chart kind from arbitrary bytes; none may panic
// or produce anything but well-formed SVG without non-finite numbers.
func FuzzCharts(f *testing.F) {
	f.Add([]byte{}, "x")
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\xf0\x7f\x01\x02\x03\x04\x05\x06\x07\x08"), "<&>")
	f.Add(bytes.Repeat([]byte{0x40, 0x59, 0, 0, 0, 0, 0, 1}, 9), "8×16\n2")
	f.Fuzz(func(t *testing.T, data []byte, label string) {
		var vals []float64
		for i := 0; i+8 <= len(data) && len(vals) < 64; i += 8 {
			var u uint64
			for j := 0; j < 8; j++ {
				u = u<<8 | uint64(data[i+j])
			}
			vals = append(vals, math.Float64frombits(u))
		}
		// A few small integers too, so ranges are not always astronomic.
		for i := 0; i < len(data) && i < 16; i++ {
			vals = append(vals, float64(int8(data[i])))
		}
		half := len(vals) / 2
		cats := make([]string, half)
		for i := range cats {
			cats[i] = label + strconv.Itoa(i)
		}
		var pts []Point
		for i := 0; i+1 < len(vals); i += 2 {
			pts = append(pts, Point{X: vals[i], Y: vals[i+1], Label: label})
		}
		mode := BarMode(0)
		if len(data) > 0 {
			mode = BarMode(data[0] % 3)
		}
		charts := []renderer{
			&BarChart{Title: label, Categories: cats, Mode: mode, ValueLabels: true,
				Series: []BarSeries{{Name: label, Values: vals[:half]}, {Name: "b", Values: vals[half:]}}},
			&ScatterChart{Title: label, PointLabels: true, Series: []ScatterSeries{{Name: label, Points: pts}, {Points: pts[:len(pts)/2]}}},
			&LineChart{Title: label, Style: LinesMarkers, Series: []LineSeries{{Name: label, Y: vals}, {X: vals[half:], Y: vals}}},
			&LineChart{XCategories: cats, Series: []LineSeries{{Y: vals[:half]}}},
		}
		for _, c := range charts {
			parseSVG(t, render(t, c))
		}
	})
}

func BenchmarkScatter10k(b *testing.B) {
	pts := make([]Point, 10000)
	for i := range pts {
		x := float64(i%1000) / 10
		pts[i] = Point{X: x, Y: 2*x + float64((i*7919)%101)}
	}
	c := &ScatterChart{Title: "10k", Series: []ScatterSeries{{Name: "a", Points: pts[:5000]}, {Name: "b", Points: pts[5000:]}}}
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Render(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(pts))*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}

// TestBarValueLabels checks the value-label format and the headroom above
// the tallest grouped bar, so its label is not clipped by the title.
func TestBarValueLabels(t *testing.T) {
	c := &BarChart{Title: "t", Mode: Grouped, ValueLabels: true, ValueFormat: "%.1f",
		Categories: []string{"a", "b"},
		Series:     []BarSeries{{Name: "m", Values: []float64{6.10275, 147.6}}, {Name: "t", Values: []float64{141.504, 99}}}}
	var buf bytes.Buffer
	if err := c.Render(&buf); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	for _, want := range []string{">6.1<", ">147.6<", ">141.5<"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing value label %s", want)
		}
	}
	if strings.Contains(s, ">6.10275<") {
		t.Error("ValueFormat not applied")
	}
	// The top tick must exceed the tallest value (147.6) with room to spare.
	top := 0.0
	for _, m := range regexp.MustCompile(`>([0-9]+)</text>`).FindAllStringSubmatch(s, -1) {
		if v, err := strconv.ParseFloat(m[1], 64); err == nil && v > top {
			top = v
		}
	}
	if top < 147.6*1.05 {
		t.Errorf("top tick %v leaves no room above 147.6", top)
	}
}
