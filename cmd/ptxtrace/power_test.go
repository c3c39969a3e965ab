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
	for _, args := range [][]string{
		{"power", ptxPath},
		{"power", "--launch", spec, "--csv", "--json", ptxPath},
		{"power", "--launch", spec, "--bet", "-1", ptxPath},
	} {
		if r := runCLI(t, "", args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, r.code, r.stderr)
		}
	}
}
