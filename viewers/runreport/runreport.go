package runreport

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"

	"github.com/ptxtrace/ptxtrace/analysis"
	"github.com/ptxtrace/ptxtrace/trace"
	htmlreport "github.com/ptxtrace/ptxtrace/viewers/report"
	"github.com/ptxtrace/ptxtrace/viewers/svg"
	"github.com/ptxtrace/ptxtrace/viewers/timeline"
)

// WarpBars is the number of warps drawn in the per-warp chart.
const WarpBars = 64

// Timeline reads src into timeline rows, one per warp in segment order,
// one span per region (kind "memory" for load regions, else the region's
// kind). At most timeline.DefaultMaxRows warps are kept; warps is the
// number read.
func Timeline(ctx context.Context, src trace.RegionSource) (*timeline.Timeline, int, error) {
	h := src.Header()
	unit := "cycles"
	if h.Timer == trace.TimerGlobaltimer {
		unit = "ns"
	}
	tl := &timeline.Timeline{Title: "Regions per warp, kernel " + h.Kernel, Unit: unit,
		Options: timeline.Options{Colors: map[string]string{"user": "#B0B0B0"}}}
	warps := 0
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		wr, err := src.Next()
		if err == io.EOF {
			return tl, warps, nil
		}
		if err != nil {
			return nil, 0, err
		}
		warps++
		if len(tl.Rows) >= timeline.DefaultMaxRows {
			continue
		}
		w := wr.Warp
		row := timeline.Row{Label: fmt.Sprintf("SM %d / CTA %d,%d,%d / warp %d", w.SM, w.CTA[0], w.CTA[1], w.CTA[2], w.WarpInCTA)}
		for i := range wr.Regions {
			r := &wr.Regions[i]
			if r.Start > math.MaxInt64 || r.End > math.MaxInt64 {
				return nil, 0, fmt.Errorf("runreport: warp %d region %d: timestamp beyond 2^63 cannot be drawn", w.Segment, r.ID)
			}
			kind, label := "other", fmt.Sprintf("region %d", r.ID)
			if in := r.Info; in != nil {
				kind = in.Kind
				if in.Memory() {
					kind = "memory"
				}
				label = fmt.Sprintf("region %d, ptx line %d %s", r.ID, in.Line, in.Text)
			}
			row.Spans = append(row.Spans, timeline.Span{Start: int64(r.Start), End: int64(r.End), Kind: kind, Label: label})
		}
		tl.Rows = append(tl.Rows, row)
	}
}

// Page builds the page of rep and the timeline of the warps of src (a
// fresh pass over the same trace): summary, region statistics, per-warp
// shares, slowest lines and the timeline, charts inlined. generated is
// the page's provenance line.
func Page(ctx context.Context, rep *analysis.Result, src trace.RegionSource, generated string) (*htmlreport.Report, error) {
	tl, warps, err := Timeline(ctx, src)
	if err != nil {
		return nil, err
	}
	o := rep.Overall
	summary := &htmlreport.Table{Caption: "Memory vs other time (package analysis)", Columns: []string{"quantity", "value"}, Rows: [][]string{
		{"warps", fmt.Sprint(len(rep.Warps))},
		{"memory share", fmt.Sprintf("%.1f %%", 100*o.MemoryShare)},
		{"memory cycles", fmt.Sprint(o.Memory)}, {"other cycles", fmt.Sprint(o.Other)}, {"total cycles", fmt.Sprint(o.Total)},
		{"load regions counted", fmt.Sprint(o.Accesses)},
		{"mean cycles per access (mean over warps)", fmtNaN(rep.MeanAccess, 1)},
		{"memory references per kcycle", fmtNaN(rep.Frequency, 3)},
	}}
	var sections []htmlreport.Section
	add := func(title, text string, chart interface{ Render(io.Writer) error }, tab *htmlreport.Table) error {
		s := htmlreport.Section{Title: title, Text: text, Table: tab}
		if chart != nil {
			var b bytes.Buffer
			if err := chart.Render(&b); err != nil {
				return fmt.Errorf("runreport: %s: %w", title, err)
			}
			s.SVG = b.Bytes()
		}
		sections = append(sections, s)
		return nil
	}
	rc, rt := RegionSection(rep)
	if err := add("Region durations", "Mean, median and 95th percentile of each region's duration (median and p95 from a log-linear histogram, error below 0.8 %).", rc, rt); err != nil {
		return nil, err
	}
	if err := add("Memory vs other time per warp", fmt.Sprintf("The first %d warps in segment order.", min(WarpBars, len(rep.Warps))), WarpChart(rep), nil); err != nil {
		return nil, err
	}
	lines := &htmlreport.Table{Columns: []string{"source", "count", "total cycles", "mean cycles"}}
	for _, l := range rep.Slowest {
		lines.Rows = append(lines.Rows, []string{l.Source, fmt.Sprint(l.Count), fmt.Sprint(l.Total), fmt.Sprintf("%.1f", l.Mean)})
	}
	if err := add("Slowest source lines", "Counted load regions by summed duration.", nil, lines); err != nil {
		return nil, err
	}
	legend := &htmlreport.Table{Columns: []string{"kind", "spans", "summed " + tl.Unit}}
	for _, k := range tl.Totals() {
		legend.Rows = append(legend.Rows, []string{k.Kind, fmt.Sprint(k.Spans), fmt.Sprint(k.Busy)})
	}
	text := tl.Info()
	if warps > len(tl.Rows) {
		text += fmt.Sprintf(" The trace has %d warps; the first %d are read.", warps, len(tl.Rows))
	}
	if err := add("Timeline", text, timelineSVG{tl}, legend); err != nil {
		return nil, err
	}
	return &htmlreport.Report{
		Title:     "ptxtrace report: kernel " + rep.Kernel,
		Intro:     fmt.Sprintf("Timer %s. Memory time is the summed duration of the load regions (inside the user regions when the kernel has them); total is the user regions' time or else each warp's span.", rep.Timer),
		Generated: generated,
		Summary:   summary, Sections: sections,
	}, nil
}

type timelineSVG struct{ *timeline.Timeline }

func (t timelineSVG) Render(w io.Writer) error { return t.SVG(w) }

func fmtNaN(v float64, prec int) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

// RegionSection is the region-duration chart (mean, median, p95 per
// region) and its table.
func RegionSection(rep *analysis.Result) (*svg.BarChart, *htmlreport.Table) {
	ch := &svg.BarChart{Title: "Region durations", Mode: svg.Grouped, XLabel: "region", YLabel: "cycles"}
	mean, med, p95 := svg.BarSeries{Name: "mean"}, svg.BarSeries{Name: "median"}, svg.BarSeries{Name: "p95"}
	tab := &htmlreport.Table{Columns: []string{"region", "kind", "space", "mode", "ptx line", "count", "mean", "median", "p95", "min", "max", "source"}}
	for _, r := range rep.Regions {
		ch.Categories = append(ch.Categories, fmt.Sprintf("%d %s\nline %d", r.Region, r.Kind, r.Line))
		mean.Values, med.Values, p95.Values = append(mean.Values, r.Mean), append(med.Values, r.Median), append(p95.Values, r.P95)
		tab.Rows = append(tab.Rows, []string{fmt.Sprint(r.Region), r.Kind, r.Space, r.Mode, fmt.Sprint(r.Line), fmt.Sprint(r.Count),
			fmt.Sprintf("%.1f", r.Mean), fmt.Sprintf("%.0f", r.Median), fmt.Sprintf("%.0f", r.P95), fmt.Sprint(r.Min), fmt.Sprint(r.Max), r.Source})
	}
	ch.Series = []svg.BarSeries{mean, med, p95}
	return ch, tab
}

// WarpChart stacks memory and other time of the first WarpBars warps.
func WarpChart(rep *analysis.Result) *svg.BarChart {
	ch := &svg.BarChart{Title: "Memory vs other time per warp", Mode: svg.Stacked, XLabel: "warp (segment)", YLabel: "cycles"}
	mem, oth := svg.BarSeries{Name: "memory"}, svg.BarSeries{Name: "other"}
	for _, w := range rep.Warps[:min(WarpBars, len(rep.Warps))] {
		ch.Categories = append(ch.Categories, fmt.Sprint(w.Warp))
		mem.Values, oth.Values = append(mem.Values, float64(w.Memory)), append(oth.Values, float64(w.Other))
	}
	ch.Series = []svg.BarSeries{mem, oth}
	return ch
}
