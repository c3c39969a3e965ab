package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptxtrace/ptxtrace/experiments/vr"
	"github.com/ptxtrace/ptxtrace/internal/atomicfile"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/model/specfile"
	"github.com/ptxtrace/ptxtrace/trace"
	htmlreport "github.com/ptxtrace/ptxtrace/viewers/report"
	"github.com/urfave/cli/v2"
)

// Demo defaults: seed 003's workload at a size that runs in seconds.
const (
	demoImage  = 64 // image width = height
	demoVolume = 64 // volume n³
	demoPreset = "gtx480"
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
	ms, err := specfile.Load(o.Preset)
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
	sc := vr.Scene{Image: o.Image, Volume: o.Volume, Kind: "sphere"}
	view := vr.View{}
	fmt.Fprintf(w, "ptxtrace demo: volume rendering (seed 003 §6), %d×%d image, %d³ sphere volume, view %s, model %s\n",
		sc.Image, sc.Image, sc.Volume, view, ms.Name)

	var runs []*vr.Result
	for _, mode := range []string{"naive", "auto"} {
		k, err := vr.Instrument(mode, vr.Capacity(), "ptxtrace "+version)
		if err != nil {
			return err
		}
		probes, modes := k.LoadRegions()
		fmt.Fprintf(w, "instrument %-5s  %d tex load regions (%s), 1 user region (kernel body), staging %s\n",
			mode, probes, modeList(modes), k.Manifest.Kernels[0].Staging.Where)
		for _, s := range []vr.Shape{{X: 1, Y: 128}, {X: 128, Y: 1}} {
			if err := ctx.Err(); err != nil {
				return err
			}
			progress("replay %s %s on %s", mode, s, ms.Name)
			r, err := vr.Run(ctx, vr.RunOptions{Code: k, Model: &ms, Scene: sc, View: view, Shape: s,
				KeepBundle: o.OutDir != "", Check: true})
			if err != nil {
				return fmt.Errorf("demo: %s %s: %w", mode, s, err)
			}
			for _, c := range r.Checks {
				if !c.OK {
					return fmt.Errorf("demo: %s %s: image differs from the reference: %s", mode, s, c.Msg)
				}
			}
			runs = append(runs, r)
		}
	}
	fmt.Fprintln(w, "replay: all 4 images match the CPU reference (instrumentation leaves the output unchanged)")

	fmt.Fprintf(w, "\nFig. 5 — memory vs other time (warp time inside the kernel-body region; tex loads):\n")
	tw := newNumTable(w)
	fmt.Fprintln(tw, "block\tmode\tmemory cyc\tother cyc\tmemory share\tmean/access\tfreq /kcyc\tkernel cyc\ttex hit\t")
	for _, r := range runs {
		a := r.Analysis
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%.1f\t%.2f\t%.0f\t%s\t\n", r.Shape, r.Mode, a.Overall.Memory, a.Overall.Other,
			vr.FormatPct(a.Overall.MemoryShare), a.MeanAccess, a.Frequency, r.Cycles, vr.FormatPct(r.Model.TexHitRate))
	}
	tw.Flush()
	fmt.Fprintln(w, "seed 003 (GTX 480, 1024³ volume): naive ≈20% (1×128), ≈13% (128×1); proposed ≈80% (1×128), ≈50% (128×1)")

	fmt.Fprintf(w, "\nprobe error vs the model's ground truth (per tex access, cycles):\n")
	tw = newNumTable(w)
	fmt.Fprintln(tw, "block\tmode\tprobes\taccesses\tmeasured\ttrue\tdiff\trel. error\t")
	for _, r := range runs {
		for _, pe := range r.Analysis.ProbeErrors {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.1f\t%.1f\t%+.1f\t%+.1f%%\t\n", r.Shape, r.Mode, pe.Mode, pe.Count,
				pe.Measured, pe.True, pe.Diff, 100*pe.RelErr)
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "(naive stamps the load's issue; auto = dummy consumer for tex, own cost ≈%d cycles on gtx480, docs/model.md)\n", vr.DummyProbeCost)

	if o.OutDir == "" {
		progress("done (no -o: no files written)")
		return nil
	}
	files, err := writeDemoFiles(ctx, o, ms, sc, view, runs, progress)
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
	return writeBytes(filepath.Join(dir, name), data)
}

// writeBytes writes data to path atomically (mode 0644): every whole
// output file of the commands goes through it or atomicfile.WriteFile.
func writeBytes(path string, data []byte) error {
	return atomicfile.WriteFile(path, 0o644, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// demoStem is a run's file stem, e.g. "auto-1x128".
func demoStem(r *vr.Result) string { return r.Mode + "-" + r.Shape.Stem() }

// writeDemoFiles writes bundles, exports, charts and report.html; it
// returns the names written.
func writeDemoFiles(ctx context.Context, o demoOptions, ms model.Spec, sc vr.Scene, view vr.View, runs []*vr.Result, progress func(string, ...any)) ([]string, error) {
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
		name := demoStem(r)
		progress("export %s", name)
		if r.Shape != (vr.Shape{X: 1, Y: 128}) {
			// Bundle only: the exports of the 1×128 runs show every format.
			if err := add(name+".bundle", fmt.Sprintf("run bundle, %s %s", r.Mode, r.Shape), r.Bundle); err != nil {
				return nil, err
			}
			continue
		}
		if err := add(name+".bundle", fmt.Sprintf("run bundle, %s %s (raw buffer, manifest, ground truth, model counters)", r.Mode, r.Shape), r.Bundle); err != nil {
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
				return nil, fmt.Errorf("demo: export %s %s: %w", name, fname, err)
			}
			if err := add(name+f.Ext, fmt.Sprintf("%s export, %s %s", fname, r.Mode, r.Shape), buf.Bytes()); err != nil {
				return nil, err
			}
		}
	}
	progress("charts and report")
	charts, err := vr.DemoCharts(runs, sc, ms.Name)
	if err != nil {
		return nil, err
	}
	for _, c := range charts {
		if err := writeFile(dir, c.Name, c.SVG); err != nil {
			return nil, err
		}
		names = append(names, c.Name)
	}
	rep := vr.DemoReport(runs, sc, view, ms.Name, charts, links, "ptxtrace "+version+", model "+ms.Name)
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
