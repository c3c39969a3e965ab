package vr

import (
	"fmt"
	"math"

	htmlreport "github.com/ptxtrace/ptxtrace/viewers/report"
	"github.com/ptxtrace/ptxtrace/viewers/svg"
)

// DemoCharts renders the demo's figures for its runs (instrumented, in
// display order): Fig. 5 (memory vs other time per shape and mode), the
// probe error against ground truth, and Figs. 10 and 11 for every auto
// run. sc and model describe the runs in the charts' captions.
func DemoCharts(runs []*Result, sc Scene, model string) ([]Chart, error) {
	fig5 := &svg.BarChart{Title: "Memory vs other time (seed 003 Fig. 5)", Mode: svg.Stacked100, ValueLabels: true,
		XLabel: "thread-block shape / probe mode",
		Desc:   fmt.Sprintf("volrender %d×%d image, %d³ volume, %s", sc.Image, sc.Image, sc.Volume, model)}
	mem, oth := svg.BarSeries{Name: "memory"}, svg.BarSeries{Name: "other"}
	perr := &svg.BarChart{Title: "Measured vs true memory time per access", Mode: svg.Grouped, ValueLabels: true, ValueFormat: "%.1f",
		XLabel: "thread-block shape / probe mode", YLabel: "cycles per tex access",
		Desc: "mean load-region duration (measured) and the model's issue→completion latency (true)"}
	meas, tru := svg.BarSeries{Name: "measured"}, svg.BarSeries{Name: "true (model)"}
	for _, r := range runs {
		if r.Analysis == nil {
			return nil, fmt.Errorf("vr: demo run %s %s is not instrumented", ModeName(r.Mode), r.Shape)
		}
		fig5.Categories = append(fig5.Categories, r.Shape.String()+"\n"+r.Mode)
		mem.Values = append(mem.Values, float64(r.Analysis.Overall.Memory))
		oth.Values = append(oth.Values, float64(r.Analysis.Overall.Other))
		for _, pe := range r.Analysis.ProbeErrors {
			perr.Categories = append(perr.Categories, r.Shape.String()+"\n"+r.Mode)
			meas.Values = append(meas.Values, pe.Measured)
			tru.Values = append(tru.Values, pe.True)
		}
	}
	fig5.Series = []svg.BarSeries{mem, oth}
	perr.Series = []svg.BarSeries{meas, tru}
	var out charts
	if err := out.add("fig5_share.svg", "Fig. 5: memory vs other time", "Share of the warps' time inside the kernel body spent in tex loads, per block shape and probe mode. The naive probe stamps the load's issue and hides the memory time; the completion probe (auto: dummy consumer) shows it.", fig5.Render); err != nil {
		return nil, err
	}
	if err := out.add("probe_error.svg", "Probe error against ground truth", "Mean measured duration of a tex load region against the model's true latency of the same accesses.", perr.Render); err != nil {
		return nil, err
	}
	for _, r := range runs {
		if r.Mode != "auto" {
			continue
		}
		fig10, fig11 := warpCharts(r.Mode, r.Shape, r.Analysis.Warps, r.Series, r.SeriesWarp, model)
		if err := out.add("fig10_warps_"+r.Shape.Stem()+".svg", "Fig. 10: mean memory time per warp, auto "+r.Shape.String(),
			"Mean tex access time of each warp on SM 0 (warps without accesses have no bar).", fig10.Render); err != nil {
			return nil, err
		}
		if err := out.add("fig11_warp_"+r.Shape.Stem()+".svg", "Fig. 11: one warp's memory time per access, auto "+r.Shape.String(),
			fmt.Sprintf("Warp %d, the warp with the most memory time.", r.SeriesWarp), fig11.Render); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DemoReport is the demo's report.html content: a summary table (Fig. 5
// and probe error per run), a section per chart (linked by file name) and
// the given links to the other files.
func DemoReport(runs []*Result, sc Scene, view View, model string, cs []Chart, links []htmlreport.Link, generated string) *htmlreport.Report {
	summary := &htmlreport.Table{Caption: fmt.Sprintf("Fig. 5 and probe error (view %s)", view),
		Columns: []string{"block", "mode", "memory share", "mean cycles/access", "true cycles/access", "rel. error", "kernel cycles", "tex hit rate"}}
	for _, r := range runs {
		a := r.Analysis
		trueMean, rel := math.NaN(), math.NaN()
		if len(a.ProbeErrors) > 0 {
			trueMean, rel = a.ProbeErrors[0].True, a.ProbeErrors[0].RelErr
		}
		summary.Rows = append(summary.Rows, []string{r.Shape.String(), r.Mode, FormatPct(a.Overall.MemoryShare),
			fmt.Sprintf("%.1f", a.Overall.MeanAccess), fmt.Sprintf("%.1f", trueMean), fmt.Sprintf("%+.1f %%", 100*rel),
			fmt.Sprintf("%.0f", r.Cycles), FormatPct(r.Model.TexHitRate)})
	}
	return &htmlreport.Report{
		Title:     "ptxtrace demo: volume rendering (seed 003)",
		Intro:     fmt.Sprintf("The embedded volrender kernel rendered a %d×%d image of a %d³ %s volume from viewpoint %s on the %s model, instrumented with naive probes (clock before and after each tex load) and with completion probes (auto: a never-taken consumer of the loaded value before the end stamp).\n\nSeed 003 reports naive ≈13–20%% and proposed ≈50–80%% memory share on a GTX 480.", sc.Image, sc.Image, sc.Volume, sc.Kind, view, model),
		Generated: generated,
		Summary:   summary, Sections: sections(cs), Links: links,
	}
}
