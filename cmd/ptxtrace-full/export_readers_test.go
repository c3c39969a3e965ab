package main

import (
	"encoding/csv"
	"path/filepath"
	"strings"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"

	"github.com/ptxtrace/ptxtrace/exporters/crosscheck"
	"github.com/ptxtrace/ptxtrace/exporters/otlp/otlptest"
	"github.com/ptxtrace/ptxtrace/exporters/perfetto"
	"github.com/ptxtrace/ptxtrace/trace"
)

// csvRows exports run (one bundle) as CSV and returns its rows by column
// name.
func csvRows(t *testing.T, run string) []map[string]string {
	t.Helper()
	r := runCLI(t, "", "export", run)
	if r.code != 0 {
		t.Fatalf("export csv: exit %d: %s", r.code, r.stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, row := range rows[1:] {
		m := map[string]string{}
		for i, c := range rows[0] {
			m[c] = row[i]
		}
		out = append(out, m)
	}
	return out
}

// spanNames counts the spans the Collector read by name, and the region
// spans (those with ptxtrace.region.id).
func spanNames(req *coltracepb.ExportTraceServiceRequest) (names map[string]int, regions, total int) {
	names = map[string]int{}
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				total++
				names[s.Name]++
				for _, kv := range s.Attributes {
					if kv.Key == "ptxtrace.region.id" {
						regions++
					}
				}
			}
		}
	}
	return names, regions, total
}

// checkOTLPFile exports one bundle (or the launch file written for one
// launch) as OTLP/JSON at region and warp granularity, reads the files
// with the Collector's reader and compares the span counts with the CSV of
// the same run: region spans = CSV rows, warp spans = distinct warps,
// and the launch span starts at the base time.
func checkOTLPFile(t *testing.T, bin, run string, files func(g string) []string, rows [][]map[string]string) {
	t.Helper()
	base := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	// Launches of a model run follow each other from the base time.
	bs, err := trace.OpenRunDir(run)
	if err != nil {
		t.Fatal(err)
	}
	starts := make([]uint64, len(bs))
	next := base
	for i, b := range bs {
		starts[i] = uint64(next.UnixNano())
		next = next.Add(b.Meta.Duration())
		b.Close()
	}
	for _, g := range []string{"region", "warp"} {
		dst := filepath.Join(t.TempDir(), "t.otlp.json")
		r := runCLI(t, "", "export", "-f", "otlp", "--granularity", g, "--base-time", base.Format(time.RFC3339), "-o", dst, run)
		if r.code != 0 {
			t.Fatalf("export otlp: exit %d: %s", r.code, r.stderr)
		}
		for i, f := range files(dst) {
			req := otlptest.Read(t, bin, f)
			names, regions, total := spanNames(req)
			warps := map[string]bool{}
			ctas := map[string]bool{}
			for _, row := range rows[i] {
				warps[row["warp"]] = true
				ctas[row["cta_x"]+","+row["cta_y"]+","+row["cta_z"]] = true
			}
			want := 2 + len(ctas) + len(warps)
			if g == "region" {
				want += len(rows[i])
				if regions != len(rows[i]) {
					t.Errorf("%s %s: %d region spans, %d CSV rows", f, g, regions, len(rows[i]))
				}
			}
			if names["warp"] != len(warps) || total != want {
				t.Errorf("%s %s: %d spans (%d warps), want %d (%d warps)", f, g, total, names["warp"], want, len(warps))
			}
			for _, rs := range req.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, s := range ss.Spans {
						if s.Name == "ptxtrace.run" && s.StartTimeUnixNano != starts[i] {
							t.Errorf("%s: run span starts at %d, want %d", f, s.StartTimeUnixNano, starts[i])
						}
					}
				}
			}
		}
	}
}

// crossCheck runs the cross-format check on one bundle: every format read
// back by its reader gives the CSV's region counts and cycle sums, and CSV
// empty cells are Parquet NULLs.
func crossCheck(t *testing.T, bundle string) {
	t.Helper()
	tr := regionsOf(t, bundle)
	want := crosscheck.Of(tr)
	if want.MemN == 0 {
		t.Fatalf("%s: no load regions", bundle)
	}
	got := crosscheck.Formats(t, tr)
	if len(got) < 6 {
		t.Errorf("%d formats checked", len(got))
	}
	for f, x := range got {
		if x != want {
			t.Errorf("%s %s: %+v, want %+v", bundle, f, x, want)
		}
	}
	crosscheck.NullParity(t, tr)
}

// TestExportReadersOnRuns checks the exports of a demo model run and of a
// two-launch run with their readers: the cross-format check on every
// bundle, `export -f otlp` files read by the OpenTelemetry Collector's
// reader (when it can be built) and the Perfetto checker.
func TestExportReadersOnRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the model")
	}
	bin, err := otlptest.Build(t.TempDir())
	if err != nil {
		t.Logf("OTLP files not read back: %v", err)
	}
	t.Run("demo", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "out")
		if r := runCLI(t, "", "demo", "--image", "16", "--volume", "16", "-o", dir); r.code != 0 {
			t.Fatalf("demo: exit %d: %s", r.code, r.stderr)
		}
		run := filepath.Join(dir, "auto-1x128.bundle")
		rows := csvRows(t, run)
		if len(rows) == 0 {
			t.Fatal("no regions")
		}
		crossCheck(t, run)
		if bin != "" {
			checkOTLPFile(t, bin, run, func(dst string) []string { return []string{dst} }, [][]map[string]string{rows})
		}
		checkPerfetto(t, run, len(rows))
	})
	t.Run("multi-launch", func(t *testing.T) {
		out := multiLaunchRun(t)
		var rows [2][]map[string]string
		for _, row := range csvRows(t, out) {
			switch row["launch"] {
			case "0":
				rows[0] = append(rows[0], row)
			case "1":
				rows[1] = append(rows[1], row)
			default:
				t.Fatalf("launch %q", row["launch"])
			}
		}
		files := func(dst string) []string {
			d := filepath.Dir(dst)
			return []string{filepath.Join(d, "t.000.otlp.json"), filepath.Join(d, "t.001.otlp.json")}
		}
		for _, b := range []string{"run.000.bundle", "run.001.bundle"} {
			crossCheck(t, filepath.Join(out, b))
		}
		if bin != "" {
			checkOTLPFile(t, bin, out, files, rows[:])
		}
	})
}

// checkPerfetto exports run as a Perfetto trace, with and without a base
// time, and checks it with perfetto.Check (per-sequence time order
// included): one slice per CSV row.
func checkPerfetto(t *testing.T, run string, rows int) {
	t.Helper()
	for _, extra := range [][]string{nil, {"--base-time", "2026-11-24T00:00:00Z"}} {
		r := runCLI(t, "", append(append([]string{"export", "-f", "perfetto"}, extra...), run)...)
		if r.code != 0 {
			t.Fatalf("export perfetto: exit %d: %s", r.code, r.stderr)
		}
		s, err := perfetto.Check(strings.NewReader(r.stdout))
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, st := range s.Slices {
			n += st.Count
		}
		if n != int64(rows) || s.Sequences < 2 {
			t.Errorf("perfetto %v: %d slices on %d sequences, want %d slices", extra, n, s.Sequences, rows)
		}
		if extra != nil && s.MinTs < uint64(time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC).UnixNano()) {
			t.Errorf("perfetto %v: first timestamp %d before the base time", extra, s.MinTs)
		}
	}
}

// TestExportBaseTimeFlags: bad --base-time and --granularity values are
// usage errors; chrome refuses a base time.
func TestExportBaseTimeFlags(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run.bundle")
	writeBundle(t, run, smallSynth, trace.RunMeta{ClockHz: 1e9})
	for _, args := range [][]string{
		{"-f", "otlp", "--base-time", "yesterday"},
		{"-f", "otlp", "--granularity", "thread"},
		{"-f", "chrome", "--base-time", "now"},
	} {
		r := runCLI(t, "", append(append([]string{"export"}, args...), run)...)
		if r.code != 2 {
			t.Errorf("%v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	a := runCLI(t, "", "export", "-f", "otlp", "--base-time", "2026-01-02T03:04:05Z", run)
	b := runCLI(t, "", "export", "-f", "otlp", "--base-time", "2026-01-02T03:04:05Z", run)
	c := runCLI(t, "", "export", "-f", "otlp", "--base-time", "2026-01-02T03:04:05Z", "--id-salt", "2", run)
	if a.code != 0 || a.stdout != b.stdout || a.stdout == c.stdout {
		t.Errorf("explicit base time: exit %d; identical %v; salted differs %v", a.code, a.stdout == b.stdout, a.stdout != c.stdout)
	}
}
