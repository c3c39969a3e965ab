package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ptxtrace/ptxtrace/analysis"
	htmlreport "github.com/ptxtrace/ptxtrace/viewers/report"
	"github.com/ptxtrace/ptxtrace/viewers/svg"
	"github.com/urfave/cli/v2"
)

// Sweep defaults (docs/experiments.md): 128×128 image, 64³ volume, gtx480.
// 48 runs; about 2 s each on one core of the development machine.
const (
	sweepImage  = 128
	sweepVolume = 64
	sweepOut    = "sweep-vr"
)

var sweepViews = []vrView{{0, 0, 0}, {90, 0, 90}}

type sweepOptions struct {
	streams
	OutDir string
	Jobs   int
	Image  int
	Volume int
	Preset string
	Views  []vrView
	Shapes []vrShape
}

func newSweepCommand() *cli.Command {
	return &cli.Command{
		Name:        "sweep",
		Usage:       "run an experiment over launch shapes and viewpoints (seed 003: sweep vr)",
		ArgsUsage:   "vr [flags]",
		Description: "Experiments: vr (see 'ptxtrace sweep vr --help' and docs/experiments.md).",
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("sweep: unknown experiment %q (have: vr)", c.Args().First())
			}
			return usagef("sweep: want the experiment name: vr (see 'ptxtrace sweep --help')")
		},
		Subcommands: []*cli.Command{{
			Name:  "vr",
			Usage: "volume rendering: block shapes × viewpoints × {app, naive, auto} (seed 003 §6)",
			Description: "sweep vr renders the embedded volrender sample for every viewpoint and\n" +
				"thread-block shape (1×128 … 128×1) uninstrumented and instrumented in naive and\n" +
				"auto mode on the model, and writes to -o DIR (default " + sweepOut + "): sweep.csv (one row\n" +
				"per run: kernel cycles, frame rate at the preset's clock, texture-cache hit rate,\n" +
				"mean memory time per access, memory-reference frequency, memory share),\n" +
				"correlations.csv (Pearson r of frequency with the application's hit rate and\n" +
				"frame rate, per mode and viewpoint), SVG charts in the style of seed 003's\n" +
				"Figs. 5–11 and report.html. Runs execute in parallel (-j); results do not\n" +
				"depend on -j. Defaults: 128×128 image, 64³ volume, gtx480, 48 runs.",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "o", Usage: "output `DIR`", Value: sweepOut},
				&cli.IntFlag{Name: "j", Usage: "parallel runs (default GOMAXPROCS)"},
				&cli.IntFlag{Name: "image", Usage: "image width and height in `PIXELS`", Value: sweepImage},
				&cli.IntFlag{Name: "volume", Usage: "volume size `N` (N³ voxels)", Value: sweepVolume},
				&cli.StringFlag{Name: "model", Usage: "timing model preset `NAME` or spec file", Value: demoPreset},
				&cli.StringFlag{Name: "views", Usage: "viewpoints `A,B,G;...` in degrees", Value: "0,0,0;90,0,90"},
				&cli.StringFlag{Name: "shapes", Usage: "block shapes `XxY,...` (default the seed's 8 shapes of 128 threads)"},
			},
			OnUsageError: onUsageError,
			Action: func(c *cli.Context) error {
				if c.Args().Present() {
					return usagef("sweep vr takes no arguments, got %q", c.Args().First())
				}
				o := sweepOptions{streams: streamsOf(c), OutDir: c.String("o"), Jobs: c.Int("j"), Image: c.Int("image"),
					Volume: c.Int("volume"), Preset: c.String("model"), Shapes: seedShapes}
				views, err := parseViews(c.String("views"))
				if err != nil {
					return usagef("sweep: --views: %v", err)
				}
				o.Views = views
				if s := c.String("shapes"); s != "" {
					if o.Shapes, err = parseShapes(s); err != nil {
						return usagef("sweep: --shapes: %v", err)
					}
				}
				return runSweep(c.Context, o)
			},
		}},
	}
}

func parseViews(s string) ([]vrView, error) {
	var out []vrView
	for _, part := range strings.Split(s, ";") {
		f := strings.Split(strings.TrimSpace(part), ",")
		if len(f) != 3 {
			return nil, fmt.Errorf("%q: want A,B,G", part)
		}
		var v [3]float64
		for i := range f {
			x, err := strconv.ParseFloat(strings.TrimSpace(f[i]), 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", part, err)
			}
			v[i] = x
		}
		out = append(out, vrView{v[0], v[1], v[2]})
	}
	return out, nil
}

func parseShapes(s string) ([]vrShape, error) {
	var out []vrShape
	for _, part := range strings.Split(s, ",") {
		xs, ys, ok := strings.Cut(strings.TrimSpace(strings.ReplaceAll(part, "×", "x")), "x")
		x, err1 := strconv.Atoi(xs)
		y, err2 := strconv.Atoi(ys)
		if !ok || err1 != nil || err2 != nil || x <= 0 || y <= 0 || x*y > 1024 {
			return nil, fmt.Errorf("%q: want XxY with X·Y ≤ 1024", part)
		}
		out = append(out, vrShape{x, y})
	}
	return out, nil
}

// sweepModes are the kernels of every (view, shape): the application
// itself ("app", uninstrumented) and the two probe modes.
var sweepModes = []string{"", "naive", "auto"}

func modeName(m string) string {
	if m == "" {
		return "app"
	}
	return m
}

type sweepJob struct {
	i     int
	kode  *vrKernelCode
	view  vrView
	shape vrShape
}

func runSweep(ctx context.Context, o sweepOptions) error {
	if o.OutDir == "" || o.OutDir == "-" {
		return usagef("sweep: -o names a directory")
	}
	if o.Image <= 0 || o.Volume < 2 {
		return usagef("sweep: --image must be > 0 and --volume ≥ 2")
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.GOMAXPROCS(0)
	}
	ms, err := loadSpec(o.Preset)
	if err != nil {
		return err
	}
	if err := ms.Validate(); err != nil {
		return err
	}
	sc := vrScene{Image: o.Image, Volume: o.Volume, Kind: "sphere"}
	codes := map[string]*vrKernelCode{}
	for _, m := range sweepModes {
		if codes[m], err = vrInstrument(m, vrCapacity()); err != nil {
			return err
		}
	}
	var jobs []sweepJob
	for _, v := range o.Views {
		for _, s := range o.Shapes {
			for _, m := range sweepModes {
				jobs = append(jobs, sweepJob{i: len(jobs), kode: codes[m], view: v, shape: s})
			}
		}
	}
	results := make([]*vrResult, len(jobs))
	errs := make([]error, len(jobs))
	start := time.Now()
	var mu sync.Mutex
	done := 0
	bar := func() {
		const width = 30
		f := done * width / len(jobs)
		fmt.Fprintf(o.Stderr, "\rsweep vr [%s%s] %d/%d runs, %.0fs", strings.Repeat("#", f), strings.Repeat(".", width-f),
			done, len(jobs), time.Since(start).Seconds())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := make(chan sweepJob)
	var wg sync.WaitGroup
	mu.Lock()
	bar()
	mu.Unlock()
	for w := 0; w < min(o.Jobs, len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				r, err := vrRun(ctx, j.kode, &ms, sc, j.view, j.shape, vrRunOptions{})
				if r != nil && r.Analysis != nil {
					r.Analysis.Regions = nil // keep memory small
				}
				mu.Lock()
				results[j.i], errs[j.i] = r, err
				if err != nil {
					cancel()
				}
				done++
				bar()
				mu.Unlock()
			}
		}()
	}
feed:
	for _, j := range jobs {
		select {
		case ch <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(ch)
	wg.Wait()
	fmt.Fprintln(o.Stderr)
	for i, err := range errs {
		if err != nil {
			j := jobs[i]
			return fmt.Errorf("sweep: %s %s %s: %w", modeName(j.kode.Mode), j.view, j.shape, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	elapsed := time.Since(start)

	tab := buildSweepTable(results, o, float64(ms.CoreMHz)*1e6)
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return err
	}
	var csvBuf, corrBuf bytes.Buffer
	if err := tab.writeCSV(&csvBuf); err != nil {
		return err
	}
	corrs := tab.correlations()
	if err := writeCorrCSV(&corrBuf, corrs); err != nil {
		return err
	}
	if err := writeFile(o.OutDir, "sweep.csv", csvBuf.Bytes()); err != nil {
		return err
	}
	if err := writeFile(o.OutDir, "correlations.csv", corrBuf.Bytes()); err != nil {
		return err
	}
	charts, err := tab.charts(ms.Name, corrs)
	if err != nil {
		return err
	}
	var sections []htmlreport.Section
	for _, c := range charts {
		if err := writeFile(o.OutDir, c.name, c.data); err != nil {
			return err
		}
		sections = append(sections, htmlreport.Section{Title: c.title, Text: c.text, Href: c.name})
	}
	sumTab := &htmlreport.Table{Caption: "Pearson r of memory-reference frequency", Columns: []string{"view", "mode", "vs tex hit rate", "vs frame rate", "n"}}
	for _, c := range corrs {
		sumTab.Rows = append(sumTab.Rows, []string{c.View.String(), c.Mode, fmtR(c.RHit, c.HitOK), fmtR(c.RFPS, c.FPSOK), fmt.Sprint(c.N)})
	}
	rep := &htmlreport.Report{
		Title: "ptxtrace sweep vr (seed 003 §6)",
		Intro: fmt.Sprintf("volrender, %d×%d image, %d³ sphere volume, model %s; %d viewpoints × %d block shapes × {app, naive, auto}.",
			sc.Image, sc.Image, sc.Volume, ms.Name, len(o.Views), len(o.Shapes)),
		Generated: "ptxtrace " + version + ", model " + ms.Name,
		Summary:   sumTab, Sections: sections,
		Links: []htmlreport.Link{{Href: "sweep.csv", Desc: "one row per run"}, {Href: "correlations.csv", Desc: "Pearson r per mode and viewpoint"}},
	}
	var rb bytes.Buffer
	if err := rep.Render(&rb); err != nil {
		return err
	}
	if err := writeFile(o.OutDir, "report.html", rb.Bytes()); err != nil {
		return err
	}
	tab.print(o.Stdout, corrs)
	fmt.Fprintf(o.Stderr, "sweep vr: %d runs in %.1fs with -j %d; outputs in %s\n", len(jobs), elapsed.Seconds(), o.Jobs, o.OutDir)
	return nil
}

// sweepRow is one (view, shape, mode) run with its application baseline.
type sweepRow struct {
	View     vrView
	Shape    vrShape
	Mode     string // app, naive, auto
	Cycles   float64
	FPS      float64
	HitRate  float64
	AppFPS   float64 // the uninstrumented kernel's
	AppHit   float64
	MeanAcc  float64 // mean over warps of mean memory time per access
	Freq     float64 // 1000 / MeanAcc
	Share    float64 // Σ memory / Σ total
	Memory   uint64
	Other    uint64
	Accesses int
	Warps    []analysis.WarpStats
	Series   []float64
	SeriesW  uint32
}

type sweepTable struct {
	Rows   []sweepRow
	Views  []vrView
	Shapes []vrShape
}

func buildSweepTable(results []*vrResult, o sweepOptions, clock float64) *sweepTable {
	t := &sweepTable{Views: o.Views, Shapes: o.Shapes}
	var app *vrResult
	for _, r := range results {
		if r.Mode == "" {
			app = r
		}
		row := sweepRow{View: r.View, Shape: r.Shape, Mode: modeName(r.Mode), Cycles: r.Cycles, FPS: r.FPS,
			HitRate: r.Model.TexHitRate, AppFPS: app.FPS, AppHit: app.Model.TexHitRate,
			MeanAcc: math.NaN(), Freq: math.NaN(), Share: math.NaN()}
		if a := r.Analysis; a != nil {
			row.MeanAcc, row.Freq, row.Share = a.MeanAccess, a.Frequency, a.Overall.MemoryShare
			row.Memory, row.Other, row.Accesses = a.Overall.Memory, a.Overall.Other, a.Overall.Accesses
			row.Warps, row.Series, row.SeriesW = a.Warps, r.Series, r.SeriesWarp
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func fnum(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

func (t *sweepTable) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"view", "block", "mode", "kernel_cycles", "frame_rate", "tex_hit_rate", "app_frame_rate", "app_tex_hit_rate",
		"mean_mem_cycles_per_access", "mem_ref_frequency_per_kcycle", "memory_share", "memory_cycles", "other_cycles", "accesses"})
	for _, r := range t.Rows {
		mem, oth, acc := "", "", ""
		if r.Mode != "app" {
			mem, oth, acc = fmt.Sprint(r.Memory), fmt.Sprint(r.Other), fmt.Sprint(r.Accesses)
		}
		cw.Write([]string{r.View.String(), r.Shape.String(), r.Mode, fnum(r.Cycles, 0), fnum(r.FPS, 1), fnum(r.HitRate, 4),
			fnum(r.AppFPS, 1), fnum(r.AppHit, 4), fnum(r.MeanAcc, 2), fnum(r.Freq, 3), fnum(r.Share, 4), mem, oth, acc})
	}
	cw.Flush()
	return cw.Error()
}

// sweepCorr is the correlation of one mode's frequency with the
// application's hit rate and frame rate over the block shapes of one view.
type sweepCorr struct {
	View         vrView
	Mode         string
	N            int
	RHit, RFPS   float64
	HitOK, FPSOK bool
}

func (t *sweepTable) correlations() []sweepCorr {
	var out []sweepCorr
	for _, v := range t.Views {
		for _, m := range []string{"naive", "auto"} {
			var f, h, fps []float64
			for _, r := range t.Rows {
				if r.View == v && r.Mode == m {
					f, h, fps = append(f, r.Freq), append(h, r.AppHit), append(fps, r.AppFPS)
				}
			}
			c := sweepCorr{View: v, Mode: m, N: len(f)}
			c.RHit, c.HitOK = analysis.Pearson(f, h)
			c.RFPS, c.FPSOK = analysis.Pearson(f, fps)
			out = append(out, c)
		}
	}
	return out
}

func fmtR(r float64, ok bool) string {
	if !ok {
		return "n/a"
	}
	return strconv.FormatFloat(r, 'f', 3, 64)
}

func writeCorrCSV(w io.Writer, cs []sweepCorr) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"view", "mode", "n", "r_frequency_vs_tex_hit_rate", "r_frequency_vs_frame_rate"})
	for _, c := range cs {
		rh, rf := "", ""
		if c.HitOK {
			rh = fmtR(c.RHit, true)
		}
		if c.FPSOK {
			rf = fmtR(c.RFPS, true)
		}
		cw.Write([]string{c.View.String(), c.Mode, fmt.Sprint(c.N), rh, rf})
	}
	cw.Flush()
	return cw.Error()
}

func (t *sweepTable) print(w io.Writer, corrs []sweepCorr) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "view\tblock\tmode\tcycles\tFPS\ttex hit\tmem/access\tfreq/kcyc\tmem share\t")
	for _, r := range t.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%.0f\t%s\t%s\t%s\t%s\t\n", r.View, r.Shape, r.Mode, r.Cycles, r.FPS, pct(r.HitRate),
			fnum(r.MeanAcc, 1), fnum(r.Freq, 2), pctOrEmpty(r.Share))
	}
	tw.Flush()
	fmt.Fprintln(w, "\nPearson r of memory-reference frequency with the application's tex hit rate / frame rate:")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "view\tmode\tn\tr(hit rate)\tr(frame rate)\t")
	for _, c := range corrs {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t\n", c.View, c.Mode, c.N, fmtR(c.RHit, c.HitOK), fmtR(c.RFPS, c.FPSOK))
	}
	tw.Flush()
}

func pctOrEmpty(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return pct(v)
}

type sweepChart struct {
	name, title, text string
	data              []byte
}

func viewStem(v vrView) string {
	return fmt.Sprintf("v%g_%g_%g", v.A, v.B, v.G)
}

// charts renders the seed's Figs. 5–11 for the sweep.
func (t *sweepTable) charts(model string, corrs []sweepCorr) ([]sweepChart, error) {
	var out []sweepChart
	add := func(name, title, text string, render func(io.Writer) error) error {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			return err
		}
		out = append(out, sweepChart{name, title, text, b.Bytes()})
		return nil
	}
	row := func(v vrView, s vrShape, m string) *sweepRow {
		for i := range t.Rows {
			if r := &t.Rows[i]; r.View == v && r.Shape == s && r.Mode == m {
				return r
			}
		}
		return nil
	}
	for _, v := range t.Views {
		// Fig. 5 for every shape.
		fig5 := &svg.BarChart{Title: "Memory vs other time, view " + v.String(), Mode: svg.Stacked100,
			XLabel: "block shape / mode", Desc: "volrender on " + model}
		mem, oth := svg.BarSeries{Name: "memory"}, svg.BarSeries{Name: "other"}
		for _, s := range t.Shapes {
			for _, m := range []string{"naive", "auto"} {
				r := row(v, s, m)
				fig5.Categories = append(fig5.Categories, s.String()+"\n"+m)
				mem.Values = append(mem.Values, float64(r.Memory))
				oth.Values = append(oth.Values, float64(r.Other))
			}
		}
		fig5.Series = []svg.BarSeries{mem, oth}
		if err := add("fig5_share_"+viewStem(v)+".svg", "Fig. 5 style: memory share, view "+v.String(),
			"Share of warp time in tex loads per block shape, naive vs auto probes.", fig5.Render); err != nil {
			return nil, err
		}
		// Figs. 6–9: frequency against hit rate and frame rate.
		for _, k := range []struct{ stem, what, xl string }{{"hitrate", "texture-cache hit rate", "tex hit rate (app)"}, {"fps", "frame rate", "frames per second (app)"}} {
			sc := &svg.ScatterChart{Title: fmt.Sprintf("Frequency vs %s, view %s", k.what, v), XLabel: k.xl,
				YLabel: "memory references per kcycle", PointLabels: true, Desc: "volrender on " + model + "; one point per block shape"}
			for _, m := range []string{"auto", "naive"} {
				ser := svg.ScatterSeries{Name: m}
				for _, s := range t.Shapes {
					r := row(v, s, m)
					x := r.AppHit
					if k.stem == "fps" {
						x = r.AppFPS
					}
					ser.Points = append(ser.Points, svg.Point{X: x, Y: r.Freq, Label: s.String()})
				}
				sc.Series = append(sc.Series, ser)
			}
			if err := add("fig_freq_"+k.stem+"_"+viewStem(v)+".svg", fmt.Sprintf("Figs. 6–9 style: frequency vs %s, view %s", k.what, v),
				"Memory-reference frequency (1000 / mean cycles per access) measured by each mode against the uninstrumented kernel's "+k.what+"; legend: Pearson r.", sc.Render); err != nil {
				return nil, err
			}
			// The seed draws these over the block shapes: a line chart of
			// both, normalised to their maxima.
			lc := &svg.LineChart{Title: fmt.Sprintf("Frequency and %s over block shapes, view %s", k.what, v), Style: svg.LinesMarkers,
				YLabel: "relative to maximum", XLabel: "block shape", YZero: true, Desc: "volrender on " + model}
			var cats []string
			for _, s := range t.Shapes {
				cats = append(cats, s.String())
			}
			lc.XCategories = cats
			base := svg.LineSeries{Name: k.what + " (app)"}
			for _, s := range t.Shapes {
				r := row(v, s, "app")
				x := r.HitRate
				if k.stem == "fps" {
					x = r.FPS
				}
				base.Y = append(base.Y, x)
			}
			lc.Series = append(lc.Series, normMax(base))
			for _, m := range []string{"auto", "naive"} {
				ls := svg.LineSeries{Name: "frequency, " + m}
				for _, s := range t.Shapes {
					ls.Y = append(ls.Y, row(v, s, m).Freq)
				}
				lc.Series = append(lc.Series, normMax(ls))
			}
			if err := add("fig_shapes_"+k.stem+"_"+viewStem(v)+".svg", fmt.Sprintf("Frequency and %s over block shapes, view %s", k.what, v),
				"Each series divided by its maximum over the shapes.", lc.Render); err != nil {
				return nil, err
			}
		}
	}
	// Figs. 10 and 11: view (90,0,90) (or the last view), shapes 2×64 and
	// 8×16 (or the first two), auto mode.
	v := t.Views[len(t.Views)-1]
	shapes := []vrShape{{2, 64}, {8, 16}}
	for _, s := range shapes {
		r := row(v, s, "auto")
		if r == nil {
			continue
		}
		res := &vrResult{Mode: "auto", Shape: s, Analysis: &analysis.Result{Warps: r.Warps}, Series: r.Series, SeriesWarp: r.SeriesW}
		f10, f11 := demoWarpCharts(res, model)
		stem := fmt.Sprintf("%dx%d_%s", s.X, s.Y, viewStem(v))
		if err := add("fig10_warps_"+stem+".svg", "Fig. 10 style: mean memory time per warp on SM 0, "+s.String()+", view "+v.String(),
			"Auto mode; warps without tex accesses have no bar.", f10.Render); err != nil {
			return nil, err
		}
		if err := add("fig11_warp_"+stem+".svg", "Fig. 11 style: one warp's memory time per access, "+s.String()+", view "+v.String(),
			fmt.Sprintf("Auto mode, warp %d (the warp with the most memory time).", r.SeriesW), f11.Render); err != nil {
			return nil, err
		}
	}
	return out, nil
}

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
