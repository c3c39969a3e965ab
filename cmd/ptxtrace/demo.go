package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ptxtrace/ptxtrace/internal/atomicfile"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/trace"
	htmlreport "github.com/ptxtrace/ptxtrace/viewers/report"
	"github.com/ptxtrace/ptxtrace/viewers/svg"
	"github.com/urfave/cli/v2"
)

// Demo defaults: seed 003's workload at a size that runs in seconds.
const (
	demoImage  = 64 // image width = height
	demoVolume = 64 // volume n³
	demoPreset = "gtx480"
	// dummyProbeCost is the own cost in cycles of a dummy completion probe
	// on gtx480 (docs/model.md, "The paper's effect, measured").
	dummyProbeCost = 2
)

type demoOptions struct {
	streams
	OutDir string // where to write the demo's files; "" writes none
	Image  int
	Volume int
	Preset string
}

// demoFormats are the export formats the demo writes, in order.
var demoFormats = []string{"csv", "parquet", "clog2", "perfetto", "chrome", "pprof", "otlp"}

func newDemoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "run the whole pipeline on the embedded volume renderer (seed 003, Fig. 5)",
		Description: "demo instruments the embedded volrender sample (texture loads, plus a user\n" +
			"region around the kernel body) in naive and auto mode, replays both on the\n" +
			"model (default gtx480) for thread-block shapes 1×128 and 128×1 at viewpoint\n" +
			"(0,0,0), checks the rendered image against the CPU reference, and prints the\n" +
			"seed's Fig. 5 comparison (memory vs other time per mode) and the probe error\n" +
			"against the model's ground truth. With -o DIR it also writes each run's bundle,\n" +
			"every export format of the 1×128 runs (csv, parquet, clog2, perfetto, chrome,\n" +
			"pprof, otlp JSON), SVG charts and DIR/report.html linking them. Outputs are\n" +
			"deterministic; progress goes to stderr.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "o", Usage: "write the outputs to `DIR`"},
			&cli.IntFlag{Name: "image", Usage: "image width and height in `PIXELS`", Value: demoImage},
			&cli.IntFlag{Name: "volume", Usage: "volume size `N` (N³ voxels)", Value: demoVolume},
			&cli.StringFlag{Name: "model", Usage: "timing model preset `NAME` or spec file", Value: demoPreset},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("demo takes no arguments, got %q", c.Args().First())
			}
			return runDemo(c.Context, demoOptions{streams: streamsOf(c), OutDir: c.String("o"),
				Image: c.Int("image"), Volume: c.Int("volume"), Preset: c.String("model")})
		},
	}
}

// demoRun is one of the demo's renders.
type demoRun struct {
	*vrResult
	Name string // file stem, e.g. "auto-1x128"
}

func runDemo(ctx context.Context, o demoOptions) error {
	if o.OutDir == "-" {
		return usagef("demo: -o names a directory; standard output is not supported")
	}
	if o.Image <= 0 || o.Volume < 2 {
		return usagef("demo: --image must be > 0 and --volume ≥ 2")
	}
	if o.Preset == "" {
		o.Preset = demoPreset
	}
	ms, err := loadSpec(o.Preset)
	if err != nil {
		return err
	}
	if err := ms.Validate(); err != nil {
		return err
	}
	w := o.Stdout
	start := time.Now()
	progress := func(format string, args ...any) {
		fmt.Fprintf(o.Stderr, "demo [%5.1fs] %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}
	sc := vrScene{Image: o.Image, Volume: o.Volume, Kind: "sphere"}
	view := vrView{}
	fmt.Fprintf(w, "ptxtrace demo: volume rendering (seed 003 §6), %d×%d image, %d³ sphere volume, view %s, model %s\n",
		sc.Image, sc.Image, sc.Volume, view, ms.Name)

	var runs []demoRun
	shapes := []vrShape{{1, 128}, {128, 1}}
	for _, mode := range []string{"naive", "auto"} {
		k, err := vrInstrument(mode, vrCapacity())
		if err != nil {
			return err
		}
		probes, modes := 0, map[string]int{}
		for _, p := range k.Manifest.Kernels[0].Probes {
			if p.Kind == "begin" && p.RegionKind == "load" {
				probes++
				modes[p.Mode]++
			}
		}
		fmt.Fprintf(w, "instrument %-5s  %d tex load regions (%s), 1 user region (kernel body), staging %s\n",
			mode, probes, modeList(modes), k.Manifest.Kernels[0].Staging.Where)
		for _, s := range shapes {
			if err := ctx.Err(); err != nil {
				return err
			}
			progress("replay %s %s on %s", mode, s, ms.Name)
			r, err := vrRun(ctx, k, &ms, sc, view, s, vrRunOptions{KeepBundle: o.OutDir != "", KeepTrace: o.OutDir != "", Check: true})
			if err != nil {
				return fmt.Errorf("demo: %s %s: %w", mode, s, err)
			}
			for _, c := range r.Checks {
				if !c.OK {
					return fmt.Errorf("demo: %s %s: image differs from the reference: %s", mode, s, c.Msg)
				}
			}
			runs = append(runs, demoRun{vrResult: r, Name: fmt.Sprintf("%s-%dx%d", mode, s.X, s.Y)})
		}
	}
	fmt.Fprintln(w, "replay: all 4 images match the CPU reference (instrumentation leaves the output unchanged)")

	fmt.Fprintf(w, "\nFig. 5 — memory vs other time (warp time inside the kernel-body region; tex loads):\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "block\tmode\tmemory cyc\tother cyc\tmemory share\tmean/access\tfreq /kcyc\tkernel cyc\ttex hit\t")
	for _, r := range runs {
		a := r.Analysis
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%.1f\t%.2f\t%.0f\t%s\t\n", r.Shape, r.Mode, a.Overall.Memory, a.Overall.Other,
			pct(a.Overall.MemoryShare), a.MeanAccess, a.Frequency, r.Cycles, pct(r.Model.TexHitRate))
	}
	tw.Flush()
	fmt.Fprintln(w, "seed 003 (GTX 480, 1024³ volume): naive ≈20% (1×128), ≈13% (128×1); proposed ≈80% (1×128), ≈50% (128×1)")

	fmt.Fprintf(w, "\nprobe error vs the model's ground truth (per tex access, cycles):\n")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "block\tmode\tprobes\taccesses\tmeasured\ttrue\tdiff\trel. error\t")
	for _, r := range runs {
		for _, pe := range r.Analysis.ProbeErrors {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.1f\t%.1f\t%+.1f\t%+.1f%%\t\n", r.Shape, r.Mode, pe.Mode, pe.Count,
				pe.Measured, pe.True, pe.Diff, 100*pe.RelErr)
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "(naive stamps the load's issue; auto = dummy consumer for tex, own cost ≈%d cycles on gtx480, docs/model.md)\n", dummyProbeCost)

	if o.OutDir == "" {
		progress("done (no -o: no files written)")
		return nil
	}
	files, err := writeDemoFiles(ctx, o, ms, sc, runs, progress)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nwrote %d files to %s (open %s)\n", len(files), o.OutDir, filepath.Join(o.OutDir, "report.html"))
	progress("done")
	return nil
}

func modeList(m map[string]int) string {
	var parts []string
	for _, k := range []string{"naive", "fence", "dummy"} {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
		}
	}
	return strings.Join(parts, ", ")
}

// writeFile writes data to dir/name atomically.
func writeFile(dir, name string, data []byte) error {
	return atomicfile.WriteFile(filepath.Join(dir, name), 0o644, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeDemoFiles writes bundles, exports, charts and report.html; it
// returns the names written.
func writeDemoFiles(ctx context.Context, o demoOptions, ms model.Spec, sc vrScene, runs []demoRun, progress func(string, ...any)) ([]string, error) {
	dir := o.OutDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var names []string
	var links []htmlreport.Link
	add := func(name, desc string, data []byte) error {
		if err := writeFile(dir, name, data); err != nil {
			return err
		}
		names = append(names, name)
		links = append(links, htmlreport.Link{Href: name, Desc: desc})
		return nil
	}
	formats := exportFormats()
	for _, r := range runs {
		progress("export %s", r.Name)
		if r.Shape != (vrShape{1, 128}) {
			// Bundle only: the exports of the 1×128 runs show every format.
			if err := add(r.Name+".bundle", fmt.Sprintf("run bundle, %s %s", r.Mode, r.Shape), r.Bundle); err != nil {
				return nil, err
			}
			continue
		}
		if err := add(r.Name+".bundle", fmt.Sprintf("run bundle, %s %s (raw buffer, manifest, ground truth, model counters)", r.Mode, r.Shape), r.Bundle); err != nil {
			return nil, err
		}
		b, err := trace.OpenBundle(bytes.NewReader(r.Bundle), int64(len(r.Bundle)))
		if err != nil {
			return nil, err
		}
		for _, fname := range demoFormats {
			f := formats[fname]
			var buf bytes.Buffer
			if err := exportBundle(ctx, b, f, &buf); err != nil {
				return nil, fmt.Errorf("demo: export %s %s: %w", r.Name, fname, err)
			}
			if err := add(r.Name+f.Ext, fmt.Sprintf("%s export, %s %s", fname, r.Mode, r.Shape), buf.Bytes()); err != nil {
				return nil, err
			}
		}
	}
	progress("charts and report")
	// Fig. 5.
	fig5 := &svg.BarChart{Title: "Memory vs other time (seed 003 Fig. 5)", Mode: svg.Stacked100, ValueLabels: true,
		XLabel: "thread-block shape / probe mode",
		Desc:   fmt.Sprintf("volrender %d×%d image, %d³ volume, view (0,0,0), %s", sc.Image, sc.Image, sc.Volume, ms.Name)}
	mem, oth := svg.BarSeries{Name: "memory"}, svg.BarSeries{Name: "other"}
	for _, r := range runs {
		fig5.Categories = append(fig5.Categories, r.Shape.String()+"\n"+r.Mode)
		mem.Values = append(mem.Values, float64(r.Analysis.Overall.Memory))
		oth.Values = append(oth.Values, float64(r.Analysis.Overall.Other))
	}
	fig5.Series = []svg.BarSeries{mem, oth}
	// Probe error.
	perr := &svg.BarChart{Title: "Measured vs true memory time per access", Mode: svg.Grouped, ValueLabels: true, ValueFormat: "%.1f",
		XLabel: "thread-block shape / probe mode", YLabel: "cycles per tex access",
		Desc: "mean load-region duration (measured) and the model's issue→completion latency (true)"}
	meas, tru := svg.BarSeries{Name: "measured"}, svg.BarSeries{Name: "true (model)"}
	for _, r := range runs {
		for _, pe := range r.Analysis.ProbeErrors {
			perr.Categories = append(perr.Categories, r.Shape.String()+"\n"+r.Mode)
			meas.Values = append(meas.Values, pe.Measured)
			tru.Values = append(tru.Values, pe.True)
		}
	}
	perr.Series = []svg.BarSeries{meas, tru}
	// Fig. 10 and 11 for the auto runs.
	charts := []struct {
		name, title, text string
		render            func(io.Writer) error
	}{
		{"fig5_share.svg", "Fig. 5: memory vs other time", "Share of the warps' time inside the kernel body spent in tex loads, per block shape and probe mode. The naive probe stamps the load's issue and hides the memory time; the completion probe (auto: dummy consumer) shows it.", fig5.Render},
		{"probe_error.svg", "Probe error against ground truth", "Mean measured duration of a tex load region against the model's true latency of the same accesses.", perr.Render},
	}
	for _, r := range runs {
		if r.Mode != "auto" {
			continue
		}
		fig10, fig11 := demoWarpCharts(r.vrResult, ms.Name)
		stem := fmt.Sprintf("%dx%d", r.Shape.X, r.Shape.Y)
		charts = append(charts,
			struct {
				name, title, text string
				render            func(io.Writer) error
			}{"fig10_warps_" + stem + ".svg", "Fig. 10: mean memory time per warp, auto " + r.Shape.String(), "Mean tex access time of each warp on SM 0 (warps without accesses have no bar).", fig10.Render},
			struct {
				name, title, text string
				render            func(io.Writer) error
			}{"fig11_warp_" + stem + ".svg", "Fig. 11: one warp's memory time per access, auto " + r.Shape.String(), fmt.Sprintf("Warp %d, the warp with the most memory time.", r.SeriesWarp), fig11.Render})
	}
	var sections []htmlreport.Section
	for _, c := range charts {
		var buf bytes.Buffer
		if err := c.render(&buf); err != nil {
			return nil, err
		}
		if err := writeFile(dir, c.name, buf.Bytes()); err != nil {
			return nil, err
		}
		names = append(names, c.name)
		sections = append(sections, htmlreport.Section{Title: c.title, Text: c.text, Href: c.name})
	}
	summary := &htmlreport.Table{Caption: "Fig. 5 and probe error (view (0,0,0))",
		Columns: []string{"block", "mode", "memory share", "mean cycles/access", "true cycles/access", "rel. error", "kernel cycles", "tex hit rate"}}
	for _, r := range runs {
		pe := r.Analysis.ProbeErrors
		trueMean, rel := math.NaN(), math.NaN()
		if len(pe) > 0 {
			trueMean, rel = pe[0].True, pe[0].RelErr
		}
		summary.Rows = append(summary.Rows, []string{r.Shape.String(), r.Mode, pct(r.Analysis.Overall.MemoryShare),
			fmt.Sprintf("%.1f", r.Analysis.Overall.MeanAccess), fmt.Sprintf("%.1f", trueMean), fmt.Sprintf("%+.1f %%", 100*rel),
			fmt.Sprintf("%.0f", r.Cycles), pct(r.Model.TexHitRate)})
	}
	rep := &htmlreport.Report{
		Title:     "ptxtrace demo: volume rendering (seed 003)",
		Intro:     fmt.Sprintf("The embedded volrender kernel rendered a %d×%d image of a %d³ sphere volume from viewpoint (0,0,0) on the %s model, instrumented with naive probes (clock before and after each tex load) and with completion probes (auto: a never-taken consumer of the loaded value before the end stamp).\n\nSeed 003 reports naive ≈13–20%% and proposed ≈50–80%% memory share on a GTX 480.", sc.Image, sc.Image, sc.Volume, ms.Name),
		Generated: "ptxtrace " + version + ", model " + ms.Name,
		Summary:   summary, Sections: sections, Links: links,
	}
	var buf bytes.Buffer
	if err := rep.Render(&buf); err != nil {
		return nil, err
	}
	if err := writeFile(dir, "report.html", buf.Bytes()); err != nil {
		return nil, err
	}
	names = append(names, "report.html")
	return names, nil
}

// demoWarpCharts builds the seed's Fig. 10 (per-warp mean memory time on
// SM 0) and Fig. 11 (one warp's memory time per access) for run r.
func demoWarpCharts(r *vrResult, model string) (*svg.BarChart, *svg.LineChart) {
	fig10 := &svg.BarChart{Title: fmt.Sprintf("Mean memory time per warp, SM 0, %s %s", r.Mode, r.Shape),
		XLabel: "warp (segment index)", YLabel: "cycles per access", Desc: "volrender on " + model}
	vals := svg.BarSeries{Name: "mean memory time"}
	for _, w := range r.Analysis.Warps {
		if w.SM != 0 {
			continue
		}
		fig10.Categories = append(fig10.Categories, fmt.Sprint(w.Warp))
		vals.Values = append(vals.Values, w.MeanAccess)
	}
	fig10.Series = []svg.BarSeries{vals}
	fig11 := &svg.LineChart{Title: fmt.Sprintf("Memory time per access, warp %d, %s %s", r.SeriesWarp, r.Mode, r.Shape),
		XLabel: "n-th tex access of the warp", YLabel: "cycles", YZero: true, Desc: "volrender on " + model,
		Series: []svg.LineSeries{{Name: fmt.Sprintf("warp %d", r.SeriesWarp), Y: r.Series}}}
	return fig10, fig11
}
