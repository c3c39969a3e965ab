package formats

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ptxtrace/ptxtrace/exporters"
	clog2exp "github.com/ptxtrace/ptxtrace/exporters/clog2"
	csvexp "github.com/ptxtrace/ptxtrace/exporters/csv"
	otlpexp "github.com/ptxtrace/ptxtrace/exporters/otlp"
	parquetexp "github.com/ptxtrace/ptxtrace/exporters/parquet"
	perfettoexp "github.com/ptxtrace/ptxtrace/exporters/perfetto"
	pprofexp "github.com/ptxtrace/ptxtrace/exporters/pprof"
	"github.com/ptxtrace/ptxtrace/trace"
)

// Format is one output format.
type Format struct {
	Ext string // file extension of its output, with the dot; "" for the network formats
	// New returns the exporter writing to w. b is the open run bundle (for
	// its metadata and counters); the regions come through exporters.Run.
	New func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error)
	// NewLaunch, when set, returns the exporter of launch index launch of
	// a multi-launch run into a stream shared by all launches; first says
	// whether it is the stream's first launch. Formats without it write one
	// output per launch.
	NewLaunch func(w io.Writer, b *trace.Bundle, launch int, first bool) (exporters.Exporter, error)
}

// NetOptions configure the formats that send to a collector, and the
// time anchoring and span ids of the OTLP and Perfetto formats.
type NetOptions struct {
	Ctx      context.Context // bounds connection and export; Background when nil
	Endpoint string          // OTLP collector: host:port (plain text) or a URL; "" = OTEL_EXPORTER_OTLP_ENDPOINT
	// BaseTime is the wall-clock time of kernel start for runs without a
	// recorded start (model runs), for otlp, otlp-grpc, otlp-http and
	// perfetto; zero keeps the default (Unix epoch for OTLP, timestamps
	// from 0 for Perfetto). chrome refuses a non-zero BaseTime (see
	// perfetto.Options.BaseTime).
	BaseTime time.Time
	// RunSalt is mixed into OTLP trace and span ids (otlp.Options.RunSalt).
	RunSalt string
	// Granularity is the deepest OTLP span level; zero (otlp.Launch) is
	// taken as the default, otlp.Warp, unless GranularitySet.
	Granularity    otlpexp.Granularity
	GranularitySet bool
}

// ParseBaseTime parses a --base-time value: "" (zero: the default),
// "now" (now), or an RFC 3339 time with optional fractional seconds.
func ParseBaseTime(s string, now time.Time) (time.Time, error) {
	switch s {
	case "":
		return time.Time{}, nil
	case "now":
		return now, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("base time %q: want now or an RFC 3339 time such as 2026-01-02T15:04:05Z", s)
	}
	if t.UnixNano() < 0 || t.Year() > 2261 {
		return time.Time{}, fmt.Errorf("base time %q: outside 1970..2261 (Unix ns in int64)", s)
	}
	return t, nil
}

// Formats returns the table of formats, a fresh map on every call. To add
// a format, add one entry here.
func Formats(n NetOptions) map[string]Format {
	if n.Ctx == nil {
		n.Ctx = context.Background()
	}
	otlpOpt := otlpexp.Options{Granularity: otlpexp.Warp, BaseTime: n.BaseTime, RunSalt: n.RunSalt}
	if n.GranularitySet {
		otlpOpt.Granularity = n.Granularity
	}
	return map[string]Format{
		"csv": {Ext: ".csv",
			New: func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error) {
				return csvexp.New(w, csvexp.Options{}), nil
			},
			NewLaunch: func(w io.Writer, b *trace.Bundle, launch int, first bool) (exporters.Exporter, error) {
				return csvexp.New(w, csvexp.Options{NoHeader: !first, LaunchColumn: true, Launch: launch}), nil
			}},
		"parquet": {Ext: ".parquet", New: func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error) {
			return parquetexp.New(w, parquetexp.Options{}), nil
		}},
		"clog2": {Ext: ".clog2", New: func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error) {
			return clog2exp.New(w, clog2exp.Options{}), nil
		}},
		"perfetto": {Ext: ".pftrace", New: func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error) {
			return perfettoexp.New(w, perfettoexp.Options{Counters: b.Counters, BaseTime: n.BaseTime}), nil
		}},
		"chrome": {Ext: ".json", New: func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error) {
			return perfettoexp.NewJSON(w, perfettoexp.Options{Counters: b.Counters, BaseTime: n.BaseTime}), nil
		}},
		"pprof": {Ext: ".pb.gz", New: func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error) {
			return pprofexp.New(w, pprofexp.Options{}), nil
		}},
		// otlp writes OTLP/JSON lines, as the Collector's file exporter.
		"otlp": {Ext: ".otlp.json", New: func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error) {
			return otlpexp.NewFile(w, otlpOpt), nil
		}},
		// otlp-grpc/otlp-http send to Endpoint, or else to
		// OTEL_EXPORTER_OTLP_ENDPOINT (SDK default localhost:4317/4318).
		"otlp-grpc": {Ext: "", New: func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error) {
			return otlpexp.NewGRPC(n.Ctx, n.Endpoint, otlpOpt)
		}},
		"otlp-http": {Ext: "", New: func(w io.Writer, b *trace.Bundle) (exporters.Exporter, error) {
			return otlpexp.NewHTTP(n.Ctx, n.Endpoint, otlpOpt)
		}},
	}
}

// Names lists the format names, sorted.
func Names() []string {
	var names []string
	for n := range Formats(NetOptions{}) {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Export verifies b's checksums and streams its regions into format f on
// w.
func (f Format) Export(ctx context.Context, w io.Writer, b *trace.Bundle) error {
	e, err := f.New(w, b)
	if err != nil {
		return err
	}
	return run(ctx, b, e)
}

// Merges reports whether the format writes several launches into one
// stream (ExportLaunches).
func (f Format) Merges() bool { return f.NewLaunch != nil }

// ExportLaunches writes the bundles of several launches (launches[i] is
// the launch index of bs[i]) into one stream, in order. Only formats that
// Merge can.
func (f Format) ExportLaunches(ctx context.Context, w io.Writer, bs []*trace.Bundle, launches []int) error {
	if f.NewLaunch == nil {
		return fmt.Errorf("export: the format writes one output per launch, not one stream for %d launches", len(bs))
	}
	if len(launches) != len(bs) {
		return fmt.Errorf("export: %d bundles, %d launch indices", len(bs), len(launches))
	}
	for i, b := range bs {
		e, err := f.NewLaunch(w, b, launches[i], i == 0)
		if err != nil {
			return err
		}
		if err := run(ctx, b, e); err != nil {
			return fmt.Errorf("launch %d: %w", launches[i], err)
		}
	}
	return nil
}

func run(ctx context.Context, b *trace.Bundle, e exporters.Exporter) error {
	if err := b.VerifyChecksums(); err != nil {
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

// LaunchPath is the output file of launch index launch when a run's
// launches go to one file each: path with ".NNN" (the launch index, as in
// run.NNN.bundle) before the format's extension, or before the path's own
// extension when it does not end in ext, or at the end.
func LaunchPath(path, ext string, launch int) string {
	tag := fmt.Sprintf(".%03d", launch)
	switch {
	case ext != "" && strings.HasSuffix(path, ext) && len(path) > len(ext):
		return strings.TrimSuffix(path, ext) + tag + ext
	case filepath.Ext(path) != "":
		e := filepath.Ext(path)
		return strings.TrimSuffix(path, e) + tag + e
	}
	return path + tag
}
