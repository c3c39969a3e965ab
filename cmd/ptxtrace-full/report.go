package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/ptxtrace/ptxtrace/launch"
	"io"
	"math"
	"path/filepath"
	"sort"

	"github.com/ptxtrace/ptxtrace/analysis"
	"github.com/ptxtrace/ptxtrace/exporters/formats"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/urfave/cli/v2"
)

type reportOptions struct {
	streams
	JSON  bool   // print JSON instead of tables
	Top   int    // slowest source lines to list
	Warps bool   // list every warp's shares in the text output
	Run   string // bundle file or run directory
	HTML  string // also write a static HTML report (charts, timeline) here
}

func newReportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "summarize a run: region durations, memory share, slowest lines",
		ArgsUsage: "RUN",
		Description: "report decodes RUN (bundle file or run directory; one report per traced\n" +
			"launch of a multi-launch run, a JSON array with --json, OUT.NNN.html pages with\n" +
			"--html) in one streaming pass and\n" +
			"prints per-region duration statistics (count, mean, median, p95, min, max in\n" +
			"cycles, and ns when the clock rate is known), the memory share per warp and\n" +
			"overall, and the slowest source lines. Medians and p95 come from a log-linear\n" +
			"histogram (relative error < 1%); counts, means, minima and maxima are exact.\n\n" +
			"Memory share: memory = the summed cycles of \"load\" regions; total = the summed\n" +
			"cycles of the outermost \"user\" regions when the kernel has user regions (then\n" +
			"only load regions inside a user region count as memory), otherwise the span of\n" +
			"the warp's regions (first begin to last end); other = total - memory.\n\n" +
			"Runs on the model (bundle minor version 1) also get a load time decomposition\n" +
			"from the ground truth, per space/mode and per source line: measured = issue\n" +
			"wait (begin timer read to the access's issue) + true latency (issue to data\n" +
			"ready, the memory time) + post wait (data ready to the end timer read) = probe\n" +
			"cost (docs/model.md) + excess (JSON: \"decomposition\").\n\n" +
			"--html OUT.html also writes one self-contained static page: the summary, the\n" +
			"region statistics, memory vs other time per warp, the slowest lines and a\n" +
			"timeline of every warp's regions (charts inlined; no script, nothing fetched) and,\n" +
			"for a run recorded with 'run --activity', the power-gating analysis (docs/power.md).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON", DisableDefaultText: true},
			&cli.IntFlag{Name: "top", Usage: "list the `N` slowest source lines", Value: 10},
			&cli.BoolFlag{Name: "warps", Usage: "list every warp's memory share (text output)", DisableDefaultText: true},
			&cli.StringFlag{Name: "html", Usage: "also write a static HTML report with a timeline to `FILE`"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("report: want exactly one RUN argument, got %d", c.NArg())
			}
			return runReport(c.Context, reportOptions{streams: streamsOf(c), JSON: c.Bool("json"), Top: c.Int("top"), Warps: c.Bool("warps"), Run: c.Args().First(), HTML: c.String("html")})
		},
	}
}

func runReport(ctx context.Context, o reportOptions) error {
	rbs, err := trace.RunBundles(o.Run)
	if err != nil {
		return err
	}
	// A multi-launch run directory: one report per traced launch, in launch
	// order (JSON: an array of the reports; --html: one page per launch,
	// OUT.NNN.html).
	var reps []*analysis.Result
	for _, rb := range rbs {
		html := o.HTML
		if html != "" && len(rbs) > 1 {
			html = formats.LaunchPath(o.HTML, ".html", rb.Launch)
		}
		rep, err := reportBundle(ctx, rb.Path, o.Top, html)
		if err != nil {
			return err
		}
		reps = append(reps, rep)
	}
	if o.JSON {
		enc := json.NewEncoder(o.Stdout)
		enc.SetIndent("", "  ")
		if len(reps) == 1 {
			return enc.Encode(reps[0])
		}
		return enc.Encode(reps)
	}
	for i, rep := range reps {
		if len(reps) > 1 {
			if i > 0 {
				fmt.Fprintln(o.Stdout)
			}
			fmt.Fprintf(o.Stdout, "== launch %d (%s) ==\n", rbs[i].Launch, filepath.Base(rbs[i].Path))
		}
		if err := printReport(o.Stdout, rep, o.Warps); err != nil {
			return err
		}
	}
	return nil
}

// reportBundle analyses one bundle file and, when html is set, writes its
// HTML page.
func reportBundle(ctx context.Context, path string, top int, html string) (*analysis.Result, error) {
	b, err := trace.OpenBundleFile(path)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	if err := b.VerifyChecksums(); err != nil {
		return nil, err
	}
	d, err := b.Regions()
	if err != nil {
		return nil, err
	}
	rep, err := analysis.AnalyzeContext(ctx, d, analysis.Options{Top: top, PostCost: launch.PostCost(&b.Meta)})
	if err != nil {
		return nil, err
	}
	if html != "" {
		d, err := b.Regions()
		if err != nil {
			return nil, err
		}
		if err := writeReportHTML(ctx, html, rep, d); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

func printReport(w io.Writer, rep *analysis.Result, warps bool) error {
	fmt.Fprintf(w, "kernel %s, timer %s", rep.Kernel, rep.Timer)
	if rep.ClockHz > 0 {
		fmt.Fprintf(w, ", clock %.4g GHz", rep.ClockHz/1e9)
	}
	fmt.Fprintf(w, ", %d warps\n\n", len(rep.Warps))
	tw := newNumTable(w)
	fmt.Fprintln(tw, "region\tkind\tspace\tptx line\tcount\tmean\tmedian\tp95\tmin\tmax\tmean ns\tsource\t")
	for _, r := range rep.Regions {
		ns := "-"
		if r.MeanNs > 0 {
			ns = fmt.Sprintf("%.1f", r.MeanNs)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%.1f\t%.0f\t%.0f\t%d\t%d\t%s\t%s\t\n",
			r.Region, r.Kind, r.Space, r.Line, r.Count, r.Mean, r.Median, r.P95, r.Min, r.Max, ns, r.Source)
	}
	tw.Flush()
	m := rep.Overall
	fmt.Fprintf(w, "\nmemory share: %.1f%% (memory %d cycles, other %d, total %d)\n", 100*m.MemoryShare, m.Memory, m.Other, m.Total)
	if !math.IsNaN(rep.MeanWarpShare) {
		fmt.Fprintf(w, "per warp with accesses: mean %.1f%%, min %.1f%%, max %.1f%%\n", 100*rep.MeanWarpShare, 100*rep.MinWarpShare, 100*rep.MaxWarpShare)
	}
	if warps {
		tw := newNumTable(w)
		fmt.Fprintln(tw, "warp\tsm\tmemory\tother\ttotal\tshare\t")
		for _, ws := range rep.Warps {
			fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%.1f%%\t\n", ws.Warp, ws.SM, ws.Memory, ws.Other, ws.Total, 100*ws.MemoryShare)
		}
		tw.Flush()
	}
	if len(rep.Slowest) > 0 {
		fmt.Fprintln(w, "\nslowest source lines (load regions, by total cycles):")
		tw := newNumTable(w)
		fmt.Fprintln(tw, "source\tcount\ttotal\tmean\t")
		for _, l := range rep.Slowest {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t\n", l.Source, l.Count, l.Total, l.Mean)
		}
		tw.Flush()
	}
	if d := rep.Decompose; d != nil {
		fmt.Fprintln(w, "\nload time decomposition (model ground truth, mean cycles): measured = issue wait + true latency + post wait;")
		fmt.Fprintln(w, "post wait = probe cost + excess (scheduling after completion); only true latency is memory time")
		for _, part := range []struct {
			title string
			ds    []analysis.Decomposition
		}{{"space/mode", d.ByKind}, {"source", d.ByLine}} {
			tw := newNumTable(w)
			fmt.Fprintf(tw, "%s\tcount\tmeasured\tissue wait\ttrue\tpost wait\tprobe cost\texcess\t\n", part.title)
			for _, x := range part.ds {
				cost, exc := "-", "-"
				if x.Cost != nil {
					cost, exc = fmt.Sprintf("%.1f", *x.Cost), fmt.Sprintf("%+.1f", *x.Excess)
				}
				fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%s\t%s\t\n", x.Key, x.Count, x.Measured, x.IssueWait, x.True, x.PostWait, cost, exc)
			}
			tw.Flush()
		}
	}
	if len(rep.Issues) > 0 || rep.Lost > 0 {
		keys := make([]string, 0, len(rep.Issues))
		for k := range rep.Issues {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprint(w, "\ndecoder issues:")
		for _, k := range keys {
			fmt.Fprintf(w, " %s %d;", k, rep.Issues[k])
		}
		fmt.Fprintf(w, " lost records %d\n", rep.Lost)
	}
	return nil
}
