package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/ptxtrace/ptxtrace/experiments/vr"
	"github.com/ptxtrace/ptxtrace/model/specfile"
	"github.com/ptxtrace/ptxtrace/sweep"
	"github.com/urfave/cli/v2"
)

// Sweep defaults (docs/experiments.md): 128×128 image, 64³ volume, gtx480.
// 48 runs; about 2 s each on one core of the development machine (the
// seed's scale, 256² and 512³, about 20 s each).
const (
	sweepImage  = 128
	sweepVolume = 64
	sweepOut    = "sweep-vr"
)

type sweepOptions struct {
	streams
	OutDir string
	Jobs   int
	Image  int
	Volume int
	Preset string
	Views  []vr.View
	Shapes []vr.Shape
	Quiet  bool // no progress line
}

func newSweepCommand() *cli.Command {
	return &cli.Command{
		Name:      "sweep",
		Usage:     "run sweeps: plan, run shards, merge (Slurm arrays, Kubernetes Indexed Jobs); sweep vr",
		ArgsUsage: "plan|run|merge|script|vr [flags]",
		Description: "plan, run, merge and script split a sweep into shards for a batch scheduler\n" +
			"(docs/sweep.md); vr runs seed 003's experiment in one process (docs/experiments.md).",
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("sweep: unknown subcommand %q (have: plan, run, merge, script, vr)", c.Args().First())
			}
			return usagef("sweep: want a subcommand: plan, run, merge, script or vr (see 'ptxtrace sweep --help')")
		},
		Subcommands: []*cli.Command{newSweepPlanCommand(), newSweepRunCommand(), newSweepMergeCommand(), newSweepScriptCommand(), {
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
				"depend on -j; the runs share one volume, read-only. Defaults: 128×128 image,\n" +
				"64³ volume, gtx480, 48 runs; the seed's scale is --image 256 --volume 512.\n" +
				"On a terminal, stderr shows runs done, simulated cycles, rate and ETA (-q: not).",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "o", Usage: "output `DIR`", Value: sweepOut},
				&cli.IntFlag{Name: "j", Usage: "parallel runs (default GOMAXPROCS)"},
				&cli.IntFlag{Name: "image", Usage: "image width and height in `PIXELS`", Value: sweepImage},
				&cli.IntFlag{Name: "volume", Usage: "volume size `N` (N³ voxels)", Value: sweepVolume},
				&cli.StringFlag{Name: "model", Usage: "timing model preset `NAME` or spec file", Value: demoPreset},
				&cli.StringFlag{Name: "views", Usage: "viewpoints `A,B,G;...` in degrees", Value: "0,0,0;90,0,90"},
				&cli.StringFlag{Name: "shapes", Usage: "block shapes `XxY,...` (default the seed's 8 shapes of 128 threads)"},
				&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress line on stderr (it appears only on a terminal)", DisableDefaultText: true},
			},
			OnUsageError: onUsageError,
			Action: func(c *cli.Context) error {
				if c.Args().Present() {
					return usagef("sweep vr takes no arguments, got %q", c.Args().First())
				}
				o := sweepOptions{streams: streamsOf(c), OutDir: c.String("o"), Jobs: c.Int("j"), Image: c.Int("image"),
					Volume: c.Int("volume"), Preset: c.String("model"), Shapes: vr.SeedShapes(), Quiet: c.Bool("quiet")}
				views, err := parseList(c.String("views"), ";", sweep.ParseView)
				if err != nil {
					return usagef("sweep: --views: %v", err)
				}
				o.Views = views
				if s := c.String("shapes"); s != "" {
					if o.Shapes, err = parseList(s, ",", sweep.ParseBlock); err != nil {
						return usagef("sweep: --shapes: %v", err)
					}
				}
				return runSweep(c.Context, o)
			},
		}},
	}
}

// parseList parses the sep-separated items of s with parse.
func parseList[T any](s, sep string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, part := range strings.Split(s, sep) {
		v, err := parse(part)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
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
	ms, err := specfile.Load(o.Preset)
	if err != nil {
		return err
	}
	if err := ms.Validate(); err != nil {
		return err
	}
	spec := &sweep.Spec{VR: &sweep.VRSpec{Model: o.Preset, Image: o.Image, Volume: o.Volume, Scene: "sphere"}}
	for _, v := range o.Views {
		spec.VR.Views = append(spec.VR.Views, sweep.FormatView(v))
	}
	for _, s := range o.Shapes {
		spec.VR.Blocks = append(spec.VR.Blocks, s.Stem())
	}
	tool := "ptxtrace " + version
	plan, err := sweep.MakePlan(spec, tool)
	if err != nil {
		return usagef("%v", err)
	}
	work, err := os.MkdirTemp("", "ptxtrace-sweep-vr-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	start := time.Now()
	p := newSweepProgress(o.Stderr, "sweep vr", time.Now, !o.Quiet && isTerminal(o.Stderr))
	rep, err := sweep.Run(ctx, plan, sweep.RunOptions{Out: work, Jobs: o.Jobs, Tool: tool, NoBundles: true, Progress: p.runs, Entry: p.entry})
	p.finish()
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	if len(rep.Errors) > 0 {
		return fmt.Errorf("sweep: %w", rep.Errors[0])
	}
	elapsed := time.Since(start)
	m, err := sweep.Merge(plan, work)
	if err != nil {
		return err
	}
	tab, err := m.VRTable()
	if err != nil {
		return err
	}
	files, err := sweep.VRFiles(tab, tool+", model "+ms.Name)
	if err != nil {
		return err
	}
	if err := writeSweepFiles(o.OutDir, files); err != nil {
		return err
	}
	printSweep(o.Stdout, tab, tab.Correlations())
	fmt.Fprintf(o.Stderr, "sweep vr: %d runs in %.1fs with -j %d; outputs in %s\n", len(tab.Rows), elapsed.Seconds(), o.Jobs, o.OutDir)
	return nil
}

// writeSweepFiles writes files to dir, each atomically.
func writeSweepFiles(dir string, files []sweep.File) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := writeFile(dir, f.Name, f.Data); err != nil {
			return err
		}
	}
	return nil
}

func printSweep(w io.Writer, t *vr.Table, corrs []vr.Corr) {
	tw := newNumTable(w)
	fmt.Fprintln(tw, "view\tblock\tmode\tcycles\tFPS\ttex hit\tmem/access\tfreq/kcyc\tmem share\t")
	for _, r := range t.Rows {
		share := ""
		if !math.IsNaN(r.Share) {
			share = vr.FormatPct(r.Share)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%.0f\t%s\t%s\t%s\t%s\t\n", r.View, r.Shape, r.Mode, r.Cycles, r.FPS, vr.FormatPct(r.HitRate),
			vr.FormatFloat(r.MeanAcc, 1), vr.FormatFloat(r.Freq, 2), share)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nPearson r of memory-reference frequency with the application's tex hit rate / frame rate:")
	tw = newNumTable(w)
	fmt.Fprintln(tw, "view\tmode\tn\tr(hit rate)\tr(frame rate)\t")
	for _, c := range corrs {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t\n", c.View, c.Mode, c.N, vr.FormatR(c.RHit, c.HitOK), vr.FormatR(c.RFPS, c.FPSOK))
	}
	tw.Flush()
}
