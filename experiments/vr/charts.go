package vr

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ptxtrace/ptxtrace/analysis"
	htmlreport "github.com/ptxtrace/ptxtrace/viewers/report"
	"github.com/ptxtrace/ptxtrace/viewers/svg"
)

// Chart is one rendered figure: its file name, report section title and
// text, and the SVG bytes.
type Chart struct {
	Name, Title, Text string
	SVG               []byte
}

// charts collects rendered charts.
type charts []Chart

func (cs *charts) add(name, title, text string, render func(io.Writer) error) error {
	var b bytes.Buffer
	if err := render(&b); err != nil {
		return fmt.Errorf("vr: chart %s: %w", name, err)
	}
	*cs = append(*cs, Chart{name, title, text, b.Bytes()})
	return nil
}

// Fig1011Shapes are the shapes of the sweep's Figs. 10 and 11: 2×64 and
// 8×16 when the sweep has them (the seed's choice), else the first two
// shapes of the sweep.
func Fig1011Shapes(shapes []Shape) []Shape {
	var out []Shape
	for _, want := range []Shape{{2, 64}, {8, 16}} {
		for _, s := range shapes {
			if s == want {
				out = append(out, s)
			}
		}
	}
	if len(out) == 0 {
		out = append(out, shapes[:min(2, len(shapes))]...)
	}
	return out
}

// Charts renders the seed's Figs. 5–11 for the sweep: per view a Fig. 5
// memory share chart, frequency against hit rate and frame rate (scatter,
// Figs. 6–9) and both over the shapes (normalised lines); Figs. 10 and 11
// (auto mode) for the last view and Fig1011Shapes.
func (t *Table) Charts() ([]Chart, error) {
	var out charts
	for _, v := range t.Views {
		if err := t.viewCharts(&out, v); err != nil {
			return nil, err
		}
	}
	v := t.Views[len(t.Views)-1]
	for _, s := range Fig1011Shapes(t.Shapes) {
		r := t.Row(v, s, "auto")
		if r == nil {
			continue
		}
		f10, f11 := warpCharts("auto", s, r.Warps, r.Series, r.SeriesW, t.Model)
		stem := s.Stem() + "_" + v.Stem()
		if err := out.add("fig10_warps_"+stem+".svg", "Fig. 10 style: mean memory time per warp on SM 0, "+s.String()+", view "+v.String(),
			"Auto mode; warps without tex accesses have no bar.", f10.Render); err != nil {
			return nil, err
		}
		if err := out.add("fig11_warp_"+stem+".svg", "Fig. 11 style: one warp's memory time per access, "+s.String()+", view "+v.String(),
			fmt.Sprintf("Auto mode, warp %d (the warp with the most memory time).", r.SeriesW), f11.Render); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// viewCharts adds view v's Fig. 5 and Figs. 6–9 charts.
func (t *Table) viewCharts(out *charts, v View) error {
	desc := "volrender on " + t.Model
	fig5 := &svg.BarChart{Title: "Memory vs other time, view " + v.String(), Mode: svg.Stacked100,
		XLabel: "block shape / mode", Desc: desc}
	mem, oth := svg.BarSeries{Name: "memory"}, svg.BarSeries{Name: "other"}
	for _, s := range t.Shapes {
		for _, m := range []string{"naive", "auto"} {
			r := t.Row(v, s, m)
			fig5.Categories = append(fig5.Categories, s.String()+"\n"+m)
			mem.Values = append(mem.Values, float64(r.Memory))
			oth.Values = append(oth.Values, float64(r.Other))
		}
	}
	fig5.Series = []svg.BarSeries{mem, oth}
	if err := out.add("fig5_share_"+v.Stem()+".svg", "Fig. 5 style: memory share, view "+v.String(),
		"Share of warp time in tex loads per block shape, naive vs auto probes.", fig5.Render); err != nil {
		return err
	}
	for _, k := range []struct{ stem, what, xl string }{{"hitrate", "texture-cache hit rate", "tex hit rate (app)"}, {"fps", "frame rate", "frames per second (app)"}} {
		app := func(r *Row) float64 { return r.AppHit }
		own := func(r *Row) float64 { return r.HitRate }
		if k.stem == "fps" {
			app = func(r *Row) float64 { return r.AppFPS }
			own = func(r *Row) float64 { return r.FPS }
		}
		sc := &svg.ScatterChart{Title: fmt.Sprintf("Frequency vs %s, view %s", k.what, v), XLabel: k.xl,
			YLabel: "memory references per kcycle", PointLabels: true, Desc: desc + "; one point per block shape"}
		for _, m := range []string{"auto", "naive"} {
			ser := svg.ScatterSeries{Name: m}
			for _, s := range t.Shapes {
				r := t.Row(v, s, m)
				ser.Points = append(ser.Points, svg.Point{X: app(r), Y: r.Freq, Label: s.String()})
			}
			sc.Series = append(sc.Series, ser)
		}
		if err := out.add("fig_freq_"+k.stem+"_"+v.Stem()+".svg", fmt.Sprintf("Figs. 6–9 style: frequency vs %s, view %s", k.what, v),
			"Memory-reference frequency (1000 / mean cycles per access) measured by each mode against the uninstrumented kernel's "+k.what+"; legend: Pearson r.", sc.Render); err != nil {
			return err
		}
		// The seed draws these over the block shapes: a line chart of
		// both, normalised to their maxima.
		lc := &svg.LineChart{Title: fmt.Sprintf("Frequency and %s over block shapes, view %s", k.what, v), Style: svg.LinesMarkers,
			YLabel: "relative to maximum", XLabel: "block shape", YZero: true, Desc: desc}
		base := svg.LineSeries{Name: k.what + " (app)"}
		for _, s := range t.Shapes {
			lc.XCategories = append(lc.XCategories, s.String())
			base.Y = append(base.Y, own(t.Row(v, s, "app")))
		}
		lc.Series = append(lc.Series, normMax(base))
		for _, m := range []string{"auto", "naive"} {
			ls := svg.LineSeries{Name: "frequency, " + m}
			for _, s := range t.Shapes {
				ls.Y = append(ls.Y, t.Row(v, s, m).Freq)
			}
			lc.Series = append(lc.Series, normMax(ls))
		}
		if err := out.add("fig_shapes_"+k.stem+"_"+v.Stem()+".svg", fmt.Sprintf("Frequency and %s over block shapes, view %s", k.what, v),
			"Each series divided by its maximum over the shapes.", lc.Render); err != nil {
			return err
		}
	}
	return nil
}

// normMax divides the series by its largest non-NaN value (unchanged when
// that is not positive).
func normMax(s svg.LineSeries) svg.LineSeries {
	m := 0.0
	for _, y := range s.Y {
		if !math.IsNaN(y) {
			m = math.Max(m, y)
		}
	}
	if m > 0 {
		ys := make([]float64, len(s.Y))
		for i, y := range s.Y {
			ys[i] = y / m
		}
		s.Y = ys
	}
	return s
}

// warpCharts builds the seed's Fig. 10 (per-warp mean memory time of the
// warps on SM 0) and Fig. 11 (one warp's memory time per access).
func warpCharts(mode string, s Shape, warps []analysis.WarpStats, series []float64, seriesWarp uint32, model string) (*svg.BarChart, *svg.LineChart) {
	fig10 := &svg.BarChart{Title: fmt.Sprintf("Mean memory time per warp, SM 0, %s %s", mode, s),
		XLabel: "warp (segment index)", YLabel: "cycles per access", Desc: "volrender on " + model}
	vals := svg.BarSeries{Name: "mean memory time"}
	var idle []string
	for _, w := range warps {
		if w.SM != 0 {
			continue
		}
		if w.Accesses == 0 { // no access: no mean to draw
			idle = append(idle, fmt.Sprint(w.Warp))
			continue
		}
		fig10.Categories = append(fig10.Categories, fmt.Sprint(w.Warp))
		vals.Values = append(vals.Values, w.MeanAccess)
	}
	fig10.Series = []svg.BarSeries{vals}
	if len(idle) > 0 {
		fig10.Notes = append(fig10.Notes, fmt.Sprintf("Not shown: warp(s) %s on SM 0 made no texture access in this run, so they have no mean memory time per access.", strings.Join(idle, ", ")))
	}
	fig11 := &svg.LineChart{Title: fmt.Sprintf("Memory time per access, warp %d, %s %s", seriesWarp, mode, s),
		XLabel: "n-th tex access of the warp", YLabel: "cycles", YZero: true, Desc: "volrender on " + model,
		Series: []svg.LineSeries{{Name: fmt.Sprintf("warp %d", seriesWarp), Y: series}}}
	return fig10, fig11
}

// Report is the sweep's report.html content: the correlation table, a
// section per chart (linked as the chart's file name) and links to
// sweep.csv and correlations.csv. generated is the provenance line.
func (t *Table) Report(corrs []Corr, cs []Chart, generated string) *htmlreport.Report {
	sum := &htmlreport.Table{Caption: "Pearson r of memory-reference frequency", Columns: []string{"view", "mode", "vs tex hit rate", "vs frame rate", "n"}}
	for _, c := range corrs {
		sum.Rows = append(sum.Rows, []string{c.View.String(), c.Mode, FormatR(c.RHit, c.HitOK), FormatR(c.RFPS, c.FPSOK), fmt.Sprint(c.N)})
	}
	return &htmlreport.Report{
		Title: "ptxtrace sweep vr (seed 003 §6)",
		Intro: fmt.Sprintf("volrender, %d×%d image, %d³ %s volume, model %s; %d viewpoints × %d block shapes × {app, naive, auto}.",
			t.Scene.Image, t.Scene.Image, t.Scene.Volume, t.Scene.Kind, t.Model, len(t.Views), len(t.Shapes)),
		Generated: generated,
		Summary:   sum, Sections: sections(cs),
		Links: []htmlreport.Link{{Href: "sweep.csv", Desc: "one row per run"}, {Href: "correlations.csv", Desc: "Pearson r per mode and viewpoint"}},
	}
}

func sections(cs []Chart) []htmlreport.Section {
	var out []htmlreport.Section
	for _, c := range cs {
		out = append(out, htmlreport.Section{Title: c.Title, Text: c.Text, Href: c.Name})
	}
	return out
}
