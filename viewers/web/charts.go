package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/ptxtrace/ptxtrace/analysis"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/viewers/svg"
)

// The charts tab shows, per run, the charts of `ptxtrace report` and the
// seed's per-run figures (Fig. 10, Fig. 11, probe error per region, stall
// cycles per SM), and across the runs the server was started with the
// comparisons (Fig. 5, probe error per run, and the memory-reference
// frequency against each run's texture hit rate and frame rate with
// Pearson's r when at least three runs of one probe mode carry the model's
// counters, as the runs of a sweep do).

// Stats is what a run's charts are drawn from.
type Stats struct {
	Name     string
	Mode     string // the runs' probe mode (label "mode", else the load regions' modes)
	Analysis *analysis.Result
	Counters []trace.Counter
	ClockHz  float64
	// Series is the memory time per counted access, in time order, of the
	// warp with the most memory time (Fig. 11), SeriesWarp its segment.
	Series     []uint64
	SeriesWarp uint32
	HasSeries  bool
}

// Analyze computes the Stats of a run: the analysis of one pass over the
// run's regions and, from a second pass, the Fig. 11 series. open returns
// a fresh source of the run's regions on every call.
func Analyze(ctx context.Context, name string, open func() (trace.RegionSource, error), counters []trace.Counter) (*Stats, error) {
	src, err := open()
	if err != nil {
		return nil, err
	}
	h := src.Header()
	st := &Stats{Name: name, Counters: counters, ClockHz: h.Meta.ClockHz, Mode: h.Meta.Labels["mode"]}
	if st.Mode == "" {
		modes := map[string]bool{}
		for _, r := range h.Regions {
			if r.Memory() && r.Mode != "" {
				modes[r.Mode] = true
			}
		}
		var ms []string
		for m := range modes {
			ms = append(ms, m)
		}
		sort.Strings(ms)
		st.Mode = strings.Join(ms, "+")
	}
	if st.Analysis, err = analysis.AnalyzeContext(ctx, src, analysis.Options{Top: 10}); err != nil {
		return nil, err
	}
	best, bestMem := -1, uint64(0)
	for i, w := range st.Analysis.Warps {
		if w.Memory > bestMem {
			best, bestMem = i, w.Memory
		}
	}
	if best >= 0 {
		src, err := open()
		if err != nil {
			return nil, err
		}
		st.SeriesWarp = st.Analysis.Warps[best].Warp
		if st.Series, err = analysis.WarpAccesses(src, st.SeriesWarp); err != nil {
			return nil, err
		}
		st.HasSeries = true
	}
	return st, nil
}

// charts collects rendered charts.
type charts []Chart

func (cs *charts) add(id, title, text string, c interface{ Render(io.Writer) error }) error {
	var b bytes.Buffer
	if err := c.Render(&b); err != nil {
		return fmt.Errorf("web: chart %s: %w", id, err)
	}
	*cs = append(*cs, Chart{ID: id, Title: title, Text: text, SVG: b.String()})
	return nil
}

// RegionError is the probe error of one load region: the mean measured
// duration and the mean ground-truth latency over the same instances (those
// with ground truth).
type RegionError struct {
	Region   int
	Line     int
	Space    string
	Mode     string
	Count    int64
	Measured float64 // timer units (cycles on the model)
	True     float64 // cycles
}

// ProbeErrors returns, per load region with ground truth (region id
// order), the mean measured duration and mean true latency of its
// instances that have ground truth.
func (ix *Index) ProbeErrors() []RegionError {
	n := make([]int64, len(ix.Regions))
	meas, tru := make([]int64, len(ix.Regions)), make([]int64, len(ix.Regions))
	for r := range ix.rows {
		d := &ix.rows[r]
		for i, p := range d.rid {
			if d.truth[i] != noTruth {
				n[p]++
				meas[p] += d.end[i] - d.start[i]
				tru[p] += int64(d.truth[i])
			}
		}
	}
	var out []RegionError
	for p := range ix.Regions {
		in := &ix.Regions[p]
		if n[p] == 0 || !in.Memory() {
			continue
		}
		out = append(out, RegionError{Region: in.ID, Line: in.Line, Space: in.Space, Mode: in.Mode, Count: n[p],
			Measured: float64(meas[p]) / float64(n[p]), True: float64(tru[p]) / float64(n[p])})
	}
	return out
}

// RunCharts are the charts of one run: region durations and memory vs
// other time per warp (as `ptxtrace report`), the probe error per region
// (when the run has ground truth), Fig. 10 and Fig. 11 (when it has memory
// accesses) and the stall cycles per SM (when the model's counters have
// them).
func RunCharts(ix *Index, st *Stats) ([]Chart, error) {
	var out charts
	rep := st.Analysis
	rc := &svg.BarChart{Title: "Region durations", Mode: svg.Grouped, XLabel: "region", YLabel: "cycles"}
	mean, med, p95 := svg.BarSeries{Name: "mean"}, svg.BarSeries{Name: "median"}, svg.BarSeries{Name: "p95"}
	for _, r := range rep.Regions {
		rc.Categories = append(rc.Categories, fmt.Sprintf("%d %s\nline %d", r.Region, r.Kind, r.Line))
		mean.Values, med.Values, p95.Values = append(mean.Values, r.Mean), append(med.Values, r.Median), append(p95.Values, r.P95)
	}
	rc.Series = []svg.BarSeries{mean, med, p95}
	if err := out.add("durations", "Region durations", "Mean, median and 95th percentile of each region's measured duration.", rc); err != nil {
		return nil, err
	}
	wc := &svg.BarChart{Title: "Memory vs other time per warp", Mode: svg.Stacked, XLabel: "warp (segment)", YLabel: "cycles"}
	mem, oth := svg.BarSeries{Name: "memory"}, svg.BarSeries{Name: "other"}
	const warpBars = 64
	for _, w := range rep.Warps[:min(warpBars, len(rep.Warps))] {
		wc.Categories = append(wc.Categories, fmt.Sprint(w.Warp))
		mem.Values, oth.Values = append(mem.Values, float64(w.Memory)), append(oth.Values, float64(w.Other))
	}
	wc.Series = []svg.BarSeries{mem, oth}
	if len(rep.Warps) > warpBars {
		wc.Notes = append(wc.Notes, fmt.Sprintf("The first %d of %d warps.", warpBars, len(rep.Warps)))
	}
	if err := out.add("warps", "Memory vs other time per warp", "Time in counted load regions and the rest of each warp's time.", wc); err != nil {
		return nil, err
	}
	if errs := ix.ProbeErrors(); len(errs) > 0 {
		pc := &svg.BarChart{Title: "Measured vs true memory time per region", Mode: svg.Grouped, ValueLabels: true, ValueFormat: "%.1f",
			XLabel: "load region / PTX line", YLabel: "cycles per access",
			Desc: "mean measured duration and mean model latency (issue → completion) over the instances with ground truth"}
		m, tr := svg.BarSeries{Name: "measured"}, svg.BarSeries{Name: "true (model)"}
		for _, e := range errs {
			pc.Categories = append(pc.Categories, fmt.Sprintf("%d %s\nline %d", e.Region, e.Space, e.Line))
			m.Values, tr.Values = append(m.Values, e.Measured), append(tr.Values, e.True)
		}
		pc.Series = []svg.BarSeries{m, tr}
		if err := out.add("probe_error_regions", "Probe error per region",
			"Per load region, the mean measured duration against the model's true latency of the same accesses (only instances with ground truth).", pc); err != nil {
			return nil, err
		}
	}
	if rep.Overall.Accesses > 0 {
		f10 := &svg.BarChart{Title: "Mean memory time per warp, SM 0", XLabel: "warp (segment index)", YLabel: "cycles per access"}
		vals := svg.BarSeries{Name: "mean memory time"}
		var idle []string
		for _, w := range rep.Warps {
			if w.SM != 0 {
				continue
			}
			if w.Accesses == 0 {
				idle = append(idle, fmt.Sprint(w.Warp))
				continue
			}
			f10.Categories = append(f10.Categories, fmt.Sprint(w.Warp))
			vals.Values = append(vals.Values, w.MeanAccess)
		}
		f10.Series = []svg.BarSeries{vals}
		if len(idle) > 0 {
			f10.Notes = append(f10.Notes, fmt.Sprintf("Not shown: warp(s) %s on SM 0 made no counted memory access in this run, so they have no mean memory time per access.", strings.Join(idle, ", ")))
		}
		if err := out.add("fig10", "Fig. 10: mean memory time per warp on SM 0", "Each warp's memory time divided by its number of counted accesses.", f10); err != nil {
			return nil, err
		}
	}
	if st.HasSeries && len(st.Series) > 0 {
		ys := make([]float64, len(st.Series))
		for i, v := range st.Series {
			ys[i] = float64(v)
		}
		f11 := &svg.LineChart{Title: fmt.Sprintf("Memory time per access, warp %d", st.SeriesWarp), XLabel: "n-th counted access of the warp", YLabel: "cycles", YZero: true,
			Series: []svg.LineSeries{{Name: fmt.Sprintf("warp %d", st.SeriesWarp), Y: ys}}}
		if err := out.add("fig11", "Fig. 11: one warp's memory time per access", fmt.Sprintf("Warp %d, the warp with the most memory time.", st.SeriesWarp), f11); err != nil {
			return nil, err
		}
	}
	if sc := stallChart(st.Counters); sc != nil {
		if err := out.add("stalls", "Stall cycles per SM", "The model's scheduler stall cycles by reason, per SM (counters stall.*): totals over the launch.", sc); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// stallReasons are the model's stall counters in display order.
var stallReasons = []string{trace.CounterStallPipeline, trace.CounterStallInterconnect, trace.CounterStallScoreboard,
	trace.CounterStallMemory, trace.CounterStallFence, trace.CounterStallBarrier, trace.CounterStallNoWarp}

// stallChart stacks the per-SM stall counters, nil without any.
func stallChart(cs []trace.Counter) *svg.BarChart {
	per := map[string]map[int]float64{}
	smSet := map[int]bool{}
	for _, c := range cs {
		if c.SM < 0 || !strings.HasPrefix(c.Name, "stall.") {
			continue
		}
		if per[c.Name] == nil {
			per[c.Name] = map[int]float64{}
		}
		per[c.Name][int(c.SM)] += c.Value
		smSet[int(c.SM)] = true
	}
	if len(smSet) == 0 {
		return nil
	}
	var sms []int
	for sm := range smSet {
		sms = append(sms, sm)
	}
	sort.Ints(sms)
	ch := &svg.BarChart{Title: "Stall cycles per SM", Mode: svg.Stacked, XLabel: "SM", YLabel: "scheduler-cycles"}
	for _, sm := range sms {
		ch.Categories = append(ch.Categories, fmt.Sprint(sm))
	}
	for _, name := range stallReasons {
		if per[name] == nil {
			continue
		}
		s := svg.BarSeries{Name: strings.TrimPrefix(name, "stall.")}
		for _, sm := range sms {
			s.Values = append(s.Values, per[name][sm])
		}
		ch.Series = append(ch.Series, s)
	}
	return ch
}

// CompareCharts are the charts across runs: Fig. 5 (memory vs other time
// per run), the probe error per run (runs with ground truth) and, for
// every probe mode with at least three runs whose counters have the
// texture hit rate and the kernel's cycles, the memory-reference
// frequency against the run's own hit rate and frame rate (one point per
// run, Pearson's r in the legend).
func CompareCharts(runs []*Stats) ([]Chart, error) {
	var out charts
	if len(runs) == 0 {
		return nil, nil
	}
	f5 := &svg.BarChart{Title: "Memory vs other time per run (Fig. 5)", Mode: svg.Stacked100, ValueLabels: true, XLabel: "run / probe mode"}
	mem, oth := svg.BarSeries{Name: "memory"}, svg.BarSeries{Name: "other"}
	pe := &svg.BarChart{Title: "Measured vs true memory time per access", Mode: svg.Grouped, ValueLabels: true, ValueFormat: "%.1f",
		XLabel: "run / probe mode", YLabel: "cycles per access", Desc: "mean load-region duration (measured) and the model's issue→completion latency (true)"}
	meas, tru := svg.BarSeries{Name: "measured"}, svg.BarSeries{Name: "true (model)"}
	for _, st := range runs {
		cat := st.Name + "\n" + st.Mode
		f5.Categories = append(f5.Categories, cat)
		mem.Values = append(mem.Values, float64(st.Analysis.Overall.Memory))
		oth.Values = append(oth.Values, float64(st.Analysis.Overall.Other))
		for _, p := range st.Analysis.ProbeErrors {
			pe.Categories = append(pe.Categories, st.Name+"\n"+p.Mode)
			meas.Values, tru.Values = append(meas.Values, p.Measured), append(tru.Values, p.True)
		}
	}
	f5.Series = []svg.BarSeries{mem, oth}
	if err := out.add("fig5", "Fig. 5: memory vs other time", "Share of the warps' time in counted load regions, per run. A naive probe stamps a load's issue and hides its memory time; a completion probe (auto) shows it.", f5); err != nil {
		return nil, err
	}
	if len(pe.Categories) > 0 {
		pe.Series = []svg.BarSeries{meas, tru}
		if err := out.add("probe_error", "Probe error against ground truth", "Per run and probe mode, the mean measured duration of a load region against the model's true latency of the same accesses.", pe); err != nil {
			return nil, err
		}
	}
	if err := correlationCharts(&out, runs); err != nil {
		return nil, err
	}
	return out, nil
}

// MinCorrelationRuns is the fewest runs of one probe mode a correlation
// chart is drawn for.
const MinCorrelationRuns = 3

// correlationCharts adds the frequency vs hit rate and vs frame rate
// scatter plots over the runs, one series per probe mode with at least
// MinCorrelationRuns usable runs.
func correlationCharts(out *charts, runs []*Stats) error {
	byMode := map[string][]*Stats{}
	var modes []string
	for _, st := range runs {
		hit, ok1 := analysis.Counter(st.Counters, trace.CounterTexHitRate)
		cyc, ok2 := analysis.Counter(st.Counters, trace.CounterKernelCycles)
		if !ok1 || !ok2 || math.IsNaN(hit) || cyc <= 0 || st.ClockHz <= 0 || st.Analysis.Frequency <= 0 {
			continue
		}
		if byMode[st.Mode] == nil {
			modes = append(modes, st.Mode)
		}
		byMode[st.Mode] = append(byMode[st.Mode], st)
	}
	sort.Strings(modes)
	for _, k := range []struct{ id, what, xl string }{{"corr_hitrate", "texture hit rate", "tex hit rate (the run's model counter)"}, {"corr_fps", "frame rate", "frames per second (the run's cycles at its clock)"}} {
		sc := &svg.ScatterChart{Title: "Memory-reference frequency vs " + k.what, XLabel: k.xl, YLabel: "memory references per kcycle", PointLabels: true,
			Desc: "one point per run"}
		for _, m := range modes {
			if len(byMode[m]) < MinCorrelationRuns {
				continue
			}
			ser := svg.ScatterSeries{Name: m}
			for _, st := range byMode[m] {
				hit, _ := analysis.Counter(st.Counters, trace.CounterTexHitRate)
				cyc, _ := analysis.Counter(st.Counters, trace.CounterKernelCycles)
				x := hit
				if k.id == "corr_fps" {
					x = analysis.FrameRate(cyc, st.ClockHz)
				}
				ser.Points = append(ser.Points, svg.Point{X: x, Y: st.Analysis.Frequency, Label: st.Name})
			}
			sc.Series = append(sc.Series, ser)
		}
		if len(sc.Series) == 0 {
			return nil
		}
		sc.Notes = append(sc.Notes, "x is each instrumented run's own model counter: bundles do not hold the uninstrumented kernel's, which `ptxtrace sweep vr` correlates with (seed Figs. 6–9).")
		if err := out.add(k.id, "Frequency vs "+k.what+" over the runs",
			fmt.Sprintf("Memory-reference frequency (1000 / mean cycles per access) of each run against its %s; legend: Pearson r per probe mode (modes with at least %d runs).", k.what, MinCorrelationRuns), sc); err != nil {
			return err
		}
	}
	return nil
}
