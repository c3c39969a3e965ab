package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptxtrace/ptxtrace/experiments/power"
	"github.com/ptxtrace/ptxtrace/exporters/formats"
	"github.com/ptxtrace/ptxtrace/exporters/otlp"
	"github.com/ptxtrace/ptxtrace/internal/atomicfile"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/urfave/cli/v2"
)

// exportFormats is the format table of exporters/formats (export,
// convert, demo).
func exportFormats() map[string]formats.Format { return formats.Formats(formats.NetOptions{}) }

// exportBundle verifies b's checksums and streams its regions into format
// f on w.
func exportBundle(ctx context.Context, b *trace.Bundle, f formats.Format, w io.Writer) error {
	return f.Export(ctx, w, b)
}

func formatNames() string { return strings.Join(formats.Names(), "|") }

type exportOptions struct {
	streams
	Format string // key of exportFormats
	Out    string // output file, "-" for stdout
	Run    string // bundle file or run directory
	// Endpoint and Timeout apply to otlp-grpc and otlp-http.
	Endpoint string
	Timeout  time.Duration
	// BaseTime is --base-time: "", "now" or RFC 3339 (formats.ParseBaseTime).
	BaseTime string
	// IDSalt is --id-salt (otlp.Options.RunSalt).
	IDSalt string
	// Granularity is --granularity ("" = the default, warp).
	Granularity string
}

func newExportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "export a run's trace in a standard format",
		ArgsUsage: "RUN",
		Description: "export decodes the trace of RUN (a run bundle file, or a run directory) and\n" +
			"writes it with --format to -o (standard output for \"-\", the default). Files are\n" +
			"written atomically. The trace is streamed warp by warp, so bundles larger than\n" +
			"memory work. A run directory of a multi-launch spec holds one run.NNN.bundle per\n" +
			"traced launch (NNN = launch index): csv writes every launch into one table with\n" +
			"a leading launch column; the other formats write one file per launch, -o FILE.EXT\n" +
			"becoming FILE.NNN.EXT. Formats: " + formatNames() + ".\n" +
			"activity (Parquet) and activity-csv write the model's recorded activity of every\n" +
			"launch into one file (the bundles' ACTV chunks, ptxtrace run --activity; rows of\n" +
			"docs/power.md, which ptxtrace power --from reads).\n" +
			"otlp writes OTLP/JSON lines (the OpenTelemetry Collector's file exporter format).\n" +
			"Model runs have no recorded wall-clock start: --base-time anchors kernel start\n" +
			"(otlp* default: now; give an RFC 3339 time for byte-reproducible output); the\n" +
			"launches of a multi-launch model run follow each other from it, back to back.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "output `FORMAT`: " + formatNames() + "|activity|activity-csv", Value: "csv"},
			&cli.StringFlag{Name: "o", Usage: "write to `FILE` (\"-\" = standard output)", Value: "-"},
			&cli.StringFlag{Name: "endpoint", Usage: "OTLP collector for otlp-grpc/otlp-http: `HOST:PORT` (plain text) or a URL (https:// for TLS); default $OTEL_EXPORTER_OTLP_ENDPOINT"},
			&cli.DurationFlag{Name: "timeout", Usage: "give up sending to the collector after `DURATION`", Value: 10 * time.Second},
			&cli.StringFlag{Name: "base-time", Usage: "wall-clock time of kernel start for runs without a recorded start (model runs): `TIME` = now or RFC 3339 " +
				"(2026-01-02T15:04:05Z); otlp formats default to now, perfetto to timestamps from 0; an explicit time makes the output byte-reproducible; chrome refuses it"},
			&cli.StringFlag{Name: "granularity", Usage: "deepest OTLP span `LEVEL`: launch, cta, warp or region", Value: "warp"},
			&cli.StringFlag{Name: "id-salt", Usage: "mix `SALT` into OTLP trace and span ids, so re-sending a run to the same backend gives new spans instead of duplicate ids"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("export: want exactly one RUN argument, got %d", c.NArg())
			}
			return runExport(c.Context, exportOptions{streams: streamsOf(c), Format: c.String("format"), Out: c.String("o"), Run: c.Args().First(),
				Endpoint: c.String("endpoint"), Timeout: c.Duration("timeout"), BaseTime: c.String("base-time"), IDSalt: c.String("id-salt"), Granularity: c.String("granularity")})
		},
	}
}

func runExport(ctx context.Context, o exportOptions) error {
	err := runExport1(ctx, o)
	if err != nil && strings.HasPrefix(o.Format, "otlp") {
		return otlpError(o, err)
	}
	return err
}

// otlpError names the collector in a failed OTLP export, and says what a
// deadline means.
func otlpError(o exportOptions, err error) error {
	ep := o.Endpoint
	if ep == "" {
		ep = os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	}
	if ep == "" {
		ep = "the default endpoint (localhost)"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("export: %s to %s: no answer within --timeout %v (is the collector running there?)", o.Format, ep, o.Timeout)
	}
	return fmt.Errorf("export: %s to %s: %w", o.Format, ep, err)
}

func runExport1(ctx context.Context, o exportOptions) error {
	if o.Format == "activity" || o.Format == "activity-csv" {
		return exportActivity(o)
	}
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	base, err := formats.ParseBaseTime(o.BaseTime, time.Now())
	if err != nil {
		return usagef("export: --base-time: %v", err)
	}
	if o.BaseTime == "" && strings.HasPrefix(o.Format, "otlp") {
		// Default: now, so that a backend's default search (Jaeger: the
		// last 2 days) finds a fresh export of a model run.
		base = time.Now()
	}
	if !base.IsZero() && o.Format == "chrome" {
		return usagef("export: --base-time: chrome JSON cannot hold Unix-epoch ns exactly (readers parse ts as a double of µs); use -f perfetto")
	}
	net := formats.NetOptions{Ctx: ctx, Endpoint: o.Endpoint, BaseTime: base, RunSalt: o.IDSalt}
	if o.Granularity != "" {
		if net.Granularity, err = otlp.ParseGranularity(o.Granularity); err != nil {
			return usagef("export: --granularity: %v", err)
		}
		net.GranularitySet = true
	}
	f, ok := formats.Formats(net)[o.Format]
	if !ok {
		return usagef("export: unknown format %q (want %s)", o.Format, formatNames())
	}
	rbs, err := trace.RunBundles(o.Run)
	if err != nil {
		return err
	}
	if len(rbs) > 1 && o.Out == "-" && f.Ext != "" && !f.Merges() {
		return usagef("export: %s has %d traced launches and %s writes one file per launch: give -o FILE (written as %s, ...)",
			o.Run, len(rbs), o.Format, formats.LaunchPath("FILE"+f.Ext, f.Ext, rbs[0].Launch))
	}
	bs, err := trace.OpenRunDir(o.Run)
	if err != nil {
		return err
	}
	defer func() {
		for _, b := range bs {
			b.Close()
		}
	}()
	launches := make([]int, len(rbs))
	for i, rb := range rbs {
		launches[i] = rb.Launch
	}
	if len(bs) == 1 {
		return writeExport(o, o.Out, func(w io.Writer) error { return f.Export(ctx, w, bs[0]) })
	}
	if f.Merges() {
		return writeExport(o, o.Out, func(w io.Writer) error { return f.ExportLaunches(ctx, w, bs, launches) })
	}
	start := base // model runs: launch k starts when launch k−1 ends
	for i, b := range bs {
		out := o.Out
		if out != "-" {
			out = formats.LaunchPath(o.Out, f.Ext, launches[i])
		}
		fl := f
		if !base.IsZero() && b.Meta.StartUnixNs == 0 {
			n := net
			n.BaseTime = start
			fl = formats.Formats(n)[o.Format]
			start = start.Add(b.Meta.Duration())
		}
		if err := writeExport(o, out, func(w io.Writer) error { return fl.Export(ctx, w, b) }); err != nil {
			return fmt.Errorf("launch %d: %w", launches[i], err)
		}
	}
	return nil
}

// writeExport runs write on standard output ("-") or atomically on file
// out.
func writeExport(o exportOptions, out string, write func(io.Writer) error) error {
	if out == "-" {
		return write(o.Stdout)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(out, 0o644, write)
}

// exportActivity writes the run's activity (every bundle's ACTV chunk) as
// power.ActivityRows: Parquet, or CSV for activity-csv.
func exportActivity(o exportOptions) error {
	act, err := power.ReadRun(o.Run)
	if err != nil {
		return err
	}
	if o.Format == "activity" && o.Out == "-" && isTerminal(o.Stdout) {
		return usagef("export: activity is binary Parquet: give -o FILE.parquet")
	}
	return writeExport(o, o.Out, func(w io.Writer) error {
		if o.Format == "activity-csv" {
			return act.WriteCSV(w)
		}
		return act.WriteParquet(w)
	})
}
