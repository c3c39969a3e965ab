package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPower(t *testing.T) {
	ptxPath := "../../samples/nn/nn.sm_52.ptx"
	spec := "../../launch/testdata/samples/nn/launch.yaml"
	svgPath := filepath.Join(t.TempDir(), "nn.svg")
	r := runCLI(t, "", "power", "--launch", spec, "--csv", "--svg", svgPath, ptxPath)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	// Header, core, then unit and lane rows of gtx480's sp, sfu, ldst.
	if len(lines) != 8 || !strings.HasPrefix(lines[0], "kernel,model,level,") ||
		!strings.HasPrefix(lines[1], "nn_distance,gtx480,core,15,") || !strings.HasPrefix(lines[7], "nn_distance,gtx480,lane ldst,240,") {
		t.Errorf("csv:\n%s", r.stdout)
	}
	if b, err := os.ReadFile(svgPath); err != nil || !strings.HasPrefix(string(b), "<svg") && !strings.HasPrefix(string(b), "<?xml") {
		t.Errorf("svg: %v %.40q", err, b)
	}
	// --activity then --from: the same table from the Parquet file.
	act := filepath.Join(t.TempDir(), "nn.parquet")
	a := runCLI(t, "", "power", "--launch", spec, "--activity", act, ptxPath)
	b := runCLI(t, "", "power", "--from", act)
	if a.code != 0 || b.code != 0 || a.stdout != b.stdout || !strings.Contains(a.stdout, "lane sp") {
		t.Errorf("--activity/--from: exit %d, %d (%s%s)\n%s\n%s", a.code, b.code, a.stderr, b.stderr, a.stdout, b.stdout)
	}
	if r := runCLI(t, "", "power", "--from", svgPath); r.code == 0 {
		t.Errorf("--from an SVG accepted")
	}
	// --policies: header, then the 7 level rows of each of the 4 settings.
	// --congestion: nn's metric and the gtx480 calibration give a choice
	// line either way (all SMs or fewer).
	if r := runCLI(t, "", "power", "--launch", spec, "--congestion", "0.1", ptxPath); r.code != 0 || !strings.Contains(r.stdout, "congestion metric ") {
		t.Errorf("--congestion: exit %d: %s%s", r.code, r.stderr, r.stdout)
	}
	htmlPath := filepath.Join(t.TempDir(), "power.html")
	if r := runCLI(t, "", "power", "--launch", spec, "--policies", "--html", htmlPath, ptxPath); r.code != 0 {
		t.Fatalf("--html: exit %d: %s", r.code, r.stderr)
	}
	if b, err := os.ReadFile(htmlPath); err != nil || !strings.Contains(string(b), "Issue control and thread compaction (seed Fig. 17)") || !strings.Contains(string(b), "<svg") {
		t.Errorf("--html page: %v", err)
	}
	r = runCLI(t, "", "power", "--launch", spec, "--policies", "--csv", ptxPath)
	if r.code != 0 {
		t.Fatalf("--policies: exit %d: %s", r.code, r.stderr)
	}
	lines = strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 1+4*7 || !strings.HasPrefix(lines[0], "setting,kernel,") || !strings.HasPrefix(lines[1], "normal,nn_distance,gtx480,core,") ||
		!strings.HasPrefix(lines[28], "mix,nn_distance,gtx480,lane ldst,") {
		t.Errorf("--policies csv:\n%s", r.stdout)
	}
	// a100 has 4 partitioned sp units: the seed's 2-unit controller refuses it
	if r := runCLI(t, "", "power", "--launch", spec, "--policies", "--model", "a100", ptxPath); r.code == 0 || !strings.Contains(r.stderr, "needs 2 sp units") {
		t.Errorf("--policies on a100: exit %d: %s", r.code, r.stderr)
	}
	for _, args := range [][]string{
		{"power", "--launch", spec, "--policies", "--consolidate", ptxPath},
		{"power", "--launch", spec, "--policies", "--slice", "0", ptxPath},
		{"power", "--from", act, ptxPath},
		{"power", "--launch", spec, "--congestion", "0.1", "--policies", ptxPath},
		{"power", "--launch", spec, "--congestion", "-1", ptxPath},
		{"power", "--launch", spec, "--policies", "--activity", act, ptxPath},
		{"power", ptxPath},
		{"power", "--launch", spec, "--csv", "--json", ptxPath},
		{"power", "--launch", spec, "--bet", "-1", ptxPath},
	} {
		if r := runCLI(t, "", args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, r.code, r.stderr)
		}
	}
}
