package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ptxtrace/ptxtrace/exporters"
	csvexp "github.com/ptxtrace/ptxtrace/exporters/csv"
	parquetexp "github.com/ptxtrace/ptxtrace/exporters/parquet"
	"github.com/ptxtrace/ptxtrace/internal/atomicfile"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/urfave/cli/v2"

	clog2exp "github.com/ptxtrace/ptxtrace/exporters/clog2"
	otlpexp "github.com/ptxtrace/ptxtrace/exporters/otlp"
	perfettoexp "github.com/ptxtrace/ptxtrace/exporters/perfetto"
	pprofexp "github.com/ptxtrace/ptxtrace/exporters/pprof"
)

// exportFormat is one output format of `ptxtrace export` and `convert`.
type exportFormat struct {
	Ext string // file extension of its output, with the dot
	// New returns the exporter writing to w. b is the open run bundle (for
	// its metadata and counters); the regions come through exporters.Run.
	New func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error)
}

// exportFormats is THE table of export formats. To add a format, add one
// line here ("name": {Ext: ".x", New: func(w io.Writer, b *trace.Bundle)
// (exporters.Exporter, error) { return yourpkg.New(w, ...), nil }}).
func exportFormats() map[string]exportFormat { return exportFormatsWith(netOptions{}) }

// netOptions configures the formats that send to a collector.
type netOptions struct {
	Ctx      context.Context // bounds connection and export; Background when nil
	Endpoint string          // OTLP collector: host:port (plain text) or a URL; "" = OTEL_EXPORTER_OTLP_ENDPOINT
}

func exportFormatsWith(n netOptions) map[string]exportFormat {
	if n.Ctx == nil {
		n.Ctx = context.Background()
	}
	return map[string]exportFormat{
		"csv": {Ext: ".csv", New: func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error) {
			return csvexp.New(w, csvexp.Options{}), nil
		}},
		"parquet": {Ext: ".parquet", New: func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error) {
			return parquetexp.New(w, parquetexp.Options{}), nil
		}},

		"clog2": {Ext: ".clog2", New: func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error) {
			return clog2exp.New(w, clog2exp.Options{}), nil
		}},
		"perfetto": {Ext: ".pftrace", New: func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error) {
			return perfettoexp.New(w, perfettoexp.Options{Counters: b.Counters}), nil
		}},
		"chrome": {Ext: ".json", New: func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error) {
			return perfettoexp.NewJSON(w, perfettoexp.Options{Counters: b.Counters}), nil
		}},
		"pprof": {Ext: ".pb.gz", New: func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error) {
			return pprofexp.New(w, pprofexp.Options{}), nil
		}},
		"otlp": {Ext: ".otlp.json", New: func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error) {
			return otlpexp.NewStdout(w, otlpexp.Options{Granularity: otlpexp.Warp})
		}},
		"otlp-grpc": {Ext: "", New: func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error) {
			return otlpexp.NewGRPC(n.Ctx, n.Endpoint, otlpexp.Options{Granularity: otlpexp.Warp})
		}},
		"otlp-http": {Ext: "", New: func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error) {
			return otlpexp.NewHTTP(n.Ctx, n.Endpoint, otlpexp.Options{Granularity: otlpexp.Warp})
		}},
		// otlp-grpc/otlp-http send to --endpoint, or else to
		// OTEL_EXPORTER_OTLP_ENDPOINT (SDK default localhost:4317/4318).
	}
}

func formatNames() string {
	var names []string
	for n := range exportFormats() {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, "|")
}

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
		Description: "export decodes the trace of RUN (a run bundle file, or a run directory holding\n" +
			"run.bundle) and writes it with --format to -o (standard output for \"-\", the\n" +
			"default). Files are written atomically. The trace is streamed warp by warp,\n" +
			"so bundles larger than memory work. Formats: " + formatNames() + ".",
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
	f, ok := exportFormatsWith(netOptions{Ctx: ctx, Endpoint: o.Endpoint})[o.Format]
	if !ok {
		return usagef("export: unknown format %q (want %s)", o.Format, formatNames())
	}
	b, err := trace.OpenBundleFile(o.Run)
	if err != nil {
		return err
	}
	defer b.Close()
	write := func(w io.Writer) error { return exportBundle(ctx, b, f, w) }
	if o.Out == "-" {
		return write(o.Stdout)
	}
	if err := os.MkdirAll(filepath.Dir(o.Out), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(o.Out, 0o644, write)
}

// exportBundle verifies b's checksums and streams its regions into format
// f on w.
func exportBundle(ctx context.Context, b *trace.Bundle, f exportFormat, w io.Writer) error {
	if err := b.VerifyChecksums(); err != nil {
		return err
	}
	e, err := f.New(w, b)
	if err != nil {
		return err
	}
	d, err := b.Regions()
	if err != nil {
		return err
	}
	if err := exporters.Run(ctx, d, e); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}
