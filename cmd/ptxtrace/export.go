package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptxtrace/ptxtrace/exporters/formats"
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
			"becoming FILE.NNN.EXT. Formats: " + formatNames() + ".",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "output `FORMAT`: " + formatNames(), Value: "csv"},
			&cli.StringFlag{Name: "o", Usage: "write to `FILE` (\"-\" = standard output)", Value: "-"},
			&cli.StringFlag{Name: "endpoint", Usage: "OTLP collector for otlp-grpc/otlp-http: `HOST:PORT` (plain text) or a URL (https:// for TLS); default $OTEL_EXPORTER_OTLP_ENDPOINT"},
			&cli.DurationFlag{Name: "timeout", Usage: "give up sending to the collector after `DURATION`", Value: 10 * time.Second},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("export: want exactly one RUN argument, got %d", c.NArg())
			}
			return runExport(c.Context, exportOptions{streams: streamsOf(c), Format: c.String("format"), Out: c.String("o"), Run: c.Args().First(),
				Endpoint: c.String("endpoint"), Timeout: c.Duration("timeout")})
		},
	}
}

func runExport(ctx context.Context, o exportOptions) error {
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	f, ok := formats.Formats(formats.NetOptions{Ctx: ctx, Endpoint: o.Endpoint})[o.Format]
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
	for i, b := range bs {
		out := o.Out
		if out != "-" {
			out = formats.LaunchPath(o.Out, f.Ext, launches[i])
		}
		if err := writeExport(o, out, func(w io.Writer) error { return f.Export(ctx, w, b) }); err != nil {
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
