package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSweepVRSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the model")
	}
	dir := t.TempDir()
	args := []string{"sweep", "vr", "-o", dir, "--image", "16", "--volume", "16", "--shapes", "1x128,8x16,128x1", "--views", "0,0,0", "-j", "2"}
	r := runCLI(t, "", args...)
	if r.code != 0 {
		t.Fatalf("sweep: exit %d\n%s", r.code, r.stderr)
	}
	f, err := os.Open(filepath.Join(dir, "sweep.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+3*3 || rows[0][0] != "view" {
		t.Fatalf("sweep.csv has %d rows: %v", len(rows), rows[0])
	}
	for _, name := range []string{"correlations.csv", "report.html", "fig5_share_v0_0_0.svg", "fig_freq_hitrate_v0_0_0.svg", "fig_freq_fps_v0_0_0.svg"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	// stderr is no terminal: the summary line, no progress line.
	if !strings.Contains(r.stdout, "Pearson r") || !strings.Contains(r.stderr, "sweep vr: 9 runs in") || strings.Contains(r.stderr, "\r") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	// Same results with -j 1.
	dir2 := t.TempDir()
	args[3] = dir2
	args[len(args)-1] = "1"
	if r := runCLI(t, "", args...); r.code != 0 {
		t.Fatalf("sweep -j 1: exit %d", r.code)
	}
	for _, name := range []string{"sweep.csv", "correlations.csv", "report.html"} {
		a, _ := os.ReadFile(filepath.Join(dir, name))
		b, _ := os.ReadFile(filepath.Join(dir2, name))
		if string(a) != string(b) {
			t.Errorf("%s differs between -j 2 and -j 1", name)
		}
	}
	if r := runCLI(t, "", "sweep", "nope"); r.code != exitUsage {
		t.Errorf("sweep nope: exit %d", r.code)
	}
}

func TestSamplesCommand(t *testing.T) {
	r := runCLI(t, "", "samples", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "volrender") || !strings.Contains(r.stdout, "d_render") {
		t.Fatalf("samples list: exit %d\n%s", r.code, r.stdout)
	}
	dir := t.TempDir()
	if r := runCLI(t, "", "samples", "extract", "volrender", "-o", dir); r.code != 0 {
		t.Fatalf("extract: exit %d\n%s", r.code, r.stderr)
	}
	for _, n := range []string{"volrender.cu", "volrender.sm_52.ptx", "volrender.sm_80.ptx"} {
		if _, err := os.Stat(filepath.Join(dir, "volrender", n)); err != nil {
			t.Error(err)
		}
	}
	if r := runCLI(t, "", "samples", "extract", "nope", "-o", dir); r.code != exitUsage {
		t.Errorf("extract nope: exit %d", r.code)
	}
}

// TestSamplesOtherGroups extracts a held-out kernel and a tensor-core
// sample and runs each as extracted: their launch specs name generators
// and verifiers outside launch.SampleRegistry (run failed on them with an
// unknown generator before the catalog's registry), and the run's checks
// compare the outputs with the references.
func TestSamplesOtherGroups(t *testing.T) {
	r := runCLI(t, "", "samples", "list")
	for _, want := range []string{"scan", "heldout", "tiledmm", "modern"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("samples list lacks %q:\n%s", want, r.stdout)
		}
	}
	dir := t.TempDir()
	for _, c := range []struct{ name, ptx string }{{"scan", "scan.sm_52.ptx"}, {"tiledmm", "tiledmm.sm_80.ptx"}} {
		if r := runCLI(t, "", "samples", "extract", c.name, "-o", dir); r.code != 0 {
			t.Fatalf("extract %s: exit %d\n%s", c.name, r.code, r.stderr)
		}
		d := filepath.Join(dir, c.name)
		out := filepath.Join(t.TempDir(), c.name+".run")
		r := runCLI(t, "", "run", "--functional", "-q", filepath.Join(d, c.ptx), "--launch", filepath.Join(d, "launch.yaml"), "-o", out)
		if r.code != 0 {
			t.Fatalf("run %s: exit %d\n%s", c.name, r.code, r.stderr)
		}
		out2 := r.stdout + r.stderr
		if n := strings.Count(out2, "check "); n == 0 || strings.Count(out2, ": ok (") != n {
			t.Errorf("run %s: want every check ok:\n%s", c.name, out2)
		}
	}
}
