package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/analysis"
)

// TestReportDemoSweepAgree runs the three commands that print the memory
// share on one trace (volrender, auto probes, 1×128, view (0,0,0), 16×16
// image, 16³ volume) through their real entry points, `ptxtrace demo`,
// `ptxtrace report --json` on the demo's bundle and `ptxtrace sweep vr`,
// and checks that they print the same memory, other and total cycles,
// access count and share, and that these equal sums taken directly over the
// decoded regions (every tex load lies inside the kernel-body user region,
// so memory = Σ load cycles and total = Σ user cycles).
func TestReportDemoSweepAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the model")
	}
	// Demo: the Fig. 5 table row "1×128 auto".
	demoDir := filepath.Join(t.TempDir(), "demo")
	d := runCLI(t, "", "demo", "--image", "16", "--volume", "16", "-o", demoDir)
	if d.code != 0 {
		t.Fatalf("demo: exit %d\n%s", d.code, d.stderr)
	}
	var demoRow []string
	for _, line := range strings.Split(d.stdout, "\n") {
		if f := strings.Fields(line); len(f) >= 8 && f[0] == "1×128" && f[1] == "auto" {
			demoRow = f
			break
		}
	}
	if demoRow == nil {
		t.Fatalf("demo output has no 1×128 auto row:\n%s", d.stdout)
	}
	demoMem, demoOther := atou(t, demoRow[2]), atou(t, demoRow[3])
	demoCycles := demoRow[7]

	// Report on the demo's bundle.
	bundle := filepath.Join(demoDir, "auto-1x128.bundle")
	r := runCLI(t, "", "report", "--json", bundle)
	if r.code != 0 {
		t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
	}
	var rep analysis.Result
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}

	// Sweep: the same scene, one view, one shape.
	sweepDir := t.TempDir()
	s := runCLI(t, "", "sweep", "vr", "-o", sweepDir, "--image", "16", "--volume", "16", "--shapes", "1x128", "--views", "0,0,0", "-j", "1")
	if s.code != 0 {
		t.Fatalf("sweep: exit %d\n%s", s.code, s.stderr)
	}
	f, err := os.Open(filepath.Join(sweepDir, "sweep.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var sweepRow []string
	for _, row := range rows[1:] {
		if row[col["block"]] == "1×128" && row[col["mode"]] == "auto" {
			sweepRow = row
		}
	}
	if sweepRow == nil {
		t.Fatalf("sweep.csv has no 1×128 auto row: %v", rows)
	}

	// Independent sums over the decoded trace.
	tr := regionsOf(t, bundle)
	var mem, total uint64
	accesses := 0
	for _, rg := range tr.Regions {
		switch {
		case rg.Info.Kind == "user":
			total += rg.Cycles
		case rg.Info.Memory():
			mem += rg.Cycles
			accesses++
		}
	}
	if accesses == 0 || total <= mem {
		t.Fatalf("trace: %d accesses, memory %d, total %d", accesses, mem, total)
	}
	share := float64(mem) / float64(total)

	check := func(path string, gotMem, gotOther uint64, gotAcc int, gotShare float64, tol float64) {
		t.Helper()
		if gotMem != mem || gotOther != total-mem || gotAcc >= 0 && gotAcc != accesses || math.Abs(gotShare-share) > tol {
			t.Errorf("%s: memory %d other %d accesses %d share %.6f; trace: memory %d other %d accesses %d share %.6f",
				path, gotMem, gotOther, gotAcc, gotShare, mem, total-mem, accesses, share)
		}
	}
	check("report", rep.Overall.Memory, rep.Overall.Other, rep.Overall.Accesses, rep.Overall.MemoryShare, 1e-12)
	if rep.Overall.Total != total {
		t.Errorf("report: total %d, trace %d", rep.Overall.Total, total)
	}
	// The demo prints the share in percent with one decimal.
	demoShare, err := strconv.ParseFloat(strings.TrimSuffix(demoRow[4], "%"), 64)
	if err != nil {
		t.Fatal(err)
	}
	check("demo", demoMem, demoOther, -1, demoShare/100, 0.0005)
	sweepShare, err := strconv.ParseFloat(sweepRow[col["memory_share"]], 64)
	if err != nil {
		t.Fatal(err)
	}
	check("sweep", atou(t, sweepRow[col["memory_cycles"]]), atou(t, sweepRow[col["other_cycles"]]),
		int(atou(t, sweepRow[col["accesses"]])), sweepShare, 0.00005)
	// The same run: the demo's and the sweep's kernel cycles agree.
	if sweepRow[col["kernel_cycles"]] != demoCycles {
		t.Errorf("kernel cycles: demo %s, sweep %s", demoCycles, sweepRow[col["kernel_cycles"]])
	}
	// Per warp: the report's warps sum to the overall numbers.
	var wm, wt uint64
	for _, w := range rep.Warps {
		wm, wt = wm+w.Memory, wt+w.Total
	}
	if wm != mem || wt != total || len(rep.Warps) != len(tr.Warps) {
		t.Errorf("report per warp: Σ memory %d Σ total %d over %d warps; trace %d, %d over %d", wm, wt, len(rep.Warps), mem, total, len(tr.Warps))
	}
}

func atou(t *testing.T, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(fmt.Errorf("%q: %w", s, err))
	}
	return v
}
