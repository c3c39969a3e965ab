package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/analysis"
	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// writeBundle writes a synthetic run bundle at path.
func writeBundle(t testing.TB, path string, s tt.Synth, meta trace.RunMeta) {
	t.Helper()
	var raw bytes.Buffer
	if _, err := s.WriteTo(&raw); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	in := &trace.BundleInput{Raw: raw.Bytes(), Manifest: s.Manifest(), Meta: meta,
		Counters: []trace.Counter{{Name: "cycles", SM: -1, Value: 1}}}
	if err := trace.WriteBundleFile(path, in); err != nil {
		t.Fatal(err)
	}
}

var smallSynth = tt.Synth{Warps: 8, WarpsPerCTA: 4, Iters: 3, Loads: 2, NumSMs: 2, Timer: 1}

func TestExportCSV(t *testing.T) {
	dir := t.TempDir()
	writeBundle(t, filepath.Join(dir, "run1", "run.bundle"), smallSynth, trace.RunMeta{ClockHz: 1e9})
	out := filepath.Join(dir, "out", "x.csv")
	r := runCLI(t, "", "export", "--format", "csv", "-o", out, filepath.Join(dir, "run1"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || int64(len(rows)) != 1+smallSynth.Regions() {
		t.Fatalf("%d rows (%v)", len(rows), err)
	}
	// stdout by default
	r = runCLI(t, "", "export", "--format", "parquet", filepath.Join(dir, "run1", "run.bundle"))
	if r.code != 0 || !strings.HasPrefix(r.stdout, "PAR1") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}

func TestExportErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.bundle")
	os.WriteFile(bad, []byte("not a bundle at all"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"export"}, 2, "exactly one RUN"},
		{[]string{"export", "--format", "nope", bad}, 2, `unknown format "nope"`},
		{[]string{"export", bad}, 1, "bad.bundle: trace: bundle: offset 0: bad magic"},
		{[]string{"report", filepath.Join(dir, "missing")}, 1, "no such file"},
	} {
		r := runCLI(t, "", tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", tc.args, r.code, r.stderr, tc.code, tc.want)
		}
	}
}

func TestReport(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.bundle")
	writeBundle(t, p, smallSynth, trace.RunMeta{ClockHz: 1e9})
	r := runCLI(t, "", "report", "--json", p)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rep analysis.Result
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Regions) != 1+smallSynth.Loads || len(rep.Warps) != smallSynth.Warps {
		t.Fatalf("report %+v", rep)
	}
	// Exact check of the memory share against a direct computation.
	tr := regionsOf(t, p)
	var total, mem uint64
	for _, reg := range tr.Regions {
		if reg.Info.Kind == "user" {
			total += reg.Cycles
		} else {
			mem += reg.Cycles
		}
	}
	if rep.Overall.Total != total || rep.Overall.Memory != mem || rep.Overall.Other != total-mem {
		t.Fatalf("memory %+v, want total %d memory %d", rep.Overall, total, mem)
	}
	for _, rs := range rep.Regions {
		if rs.Count != smallSynth.Warps*smallSynth.Iters || rs.Min > uint64(rs.Median) || rs.Median > rs.P95+1 || rs.P95 > float64(rs.Max)+1 {
			t.Errorf("region stats %+v", rs)
		}
	}
	if len(rep.Slowest) != smallSynth.Loads || !strings.HasPrefix(rep.Slowest[0].Source, "kern.cu:") {
		t.Errorf("slowest %+v", rep.Slowest)
	}
	r = runCLI(t, "", "report", "--warps", p)
	if r.code != 0 || !strings.Contains(r.stdout, "memory share:") || !strings.Contains(r.stdout, "slowest source lines") {
		t.Fatalf("text report: %d %s %s", r.code, r.stdout, r.stderr)
	}
}
