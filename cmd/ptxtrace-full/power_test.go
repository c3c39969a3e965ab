package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptxtrace/ptxtrace/exporters/perfetto"
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

// TestPowerFromBundle: `run --activity` stores the activity in every
// bundle of a multi-launch run (hotspot: 4 launches), and
// `power --from` gives identical numbers (table, and JSON with the ideal
// curves, at two BETs) from the run directory and from the Parquet that
// `export -f activity` writes (and activity-csv has every launch). A run
// without --activity is refused by name.
func TestPowerFromBundle(t *testing.T) {
	d := t.TempDir()
	inst := filepath.Join(d, "hotspot.ptx")
	spec := "../../launch/testdata/samples/hotspot/launch.yaml"
	if r := runCLI(t, "", "instrument", "--no-ptxas", "-o", inst, "../../samples/hotspot/hotspot.sm_52.ptx"); r.code != 0 {
		t.Fatalf("instrument: %s", r.stderr)
	}
	runDir, plainDir := filepath.Join(d, "hotspot.run"), filepath.Join(d, "plain.run")
	if r := runCLI(t, "", "run", "-q", "--activity", "--launch", spec, "-o", runDir, inst); r.code != 0 {
		t.Fatalf("run --activity: %s", r.stderr)
	}
	pq, csvPath := filepath.Join(d, "hotspot.parquet"), filepath.Join(d, "hotspot.csv")
	if r := runCLI(t, "", "export", "-f", "activity", "-o", pq, runDir); r.code != 0 {
		t.Fatalf("export -f activity: %s", r.stderr)
	}
	if r := runCLI(t, "", "export", "-f", "activity-csv", "-o", csvPath, runDir); r.code != 0 {
		t.Fatalf("export -f activity-csv: %s", r.stderr)
	}
	if b, err := os.ReadFile(csvPath); err != nil || !strings.HasPrefix(string(b), "launch,cycles,level,unit,sm,index,row,len,count,from,to\n") ||
		!strings.Contains(string(b), "\n3,") {
		t.Errorf("activity CSV: %v %.80q", err, b)
	}
	for _, args := range [][]string{{}, {"--json"}, {"--bet", "37", "--core-bet", "5"}} {
		a := runCLI(t, "", append([]string{"power", "--from", runDir}, args...)...)
		b := runCLI(t, "", append([]string{"power", "--from", pq}, args...)...)
		if a.code != 0 || b.code != 0 {
			t.Fatalf("power --from %v: exit %d, %d: %s%s", args, a.code, b.code, a.stderr, b.stderr)
		}
		if a.stdout != b.stdout {
			t.Errorf("power --from %v: run directory and exported Parquet differ:\n%s\n%s", args, a.stdout, b.stdout)
		}
		if len(args) == 0 && !strings.Contains(a.stdout, "4 launch(es)") {
			t.Errorf("power --from the run: not all 4 launches:\n%s", a.stdout)
		}
	}
	// Perfetto: every launch's file passes the checker and has an active
	// track per SM, and sp and ldst unit and lane tracks on each SM that
	// ran a CTA (hotspot: 12 CTAs per launch, round robin on SMs 0…11, no
	// sfu use): 15 + 12 × 4 counter tracks more than without.
	pf := filepath.Join(d, "hs.pftrace")
	if r := runCLI(t, "", "export", "-f", "perfetto", "-o", pf, runDir); r.code != 0 {
		t.Fatalf("export -f perfetto: %s", r.stderr)
	}
	if r := runCLI(t, "", "run", "-q", "--launch", spec, "-o", plainDir, inst); r.code != 0 {
		t.Fatalf("run: %s", r.stderr)
	}
	pf0 := filepath.Join(d, "plain.pftrace")
	if r := runCLI(t, "", "export", "-f", "perfetto", "-o", pf0, plainDir); r.code != 0 {
		t.Fatalf("export -f perfetto: %s", r.stderr)
	}
	for l := range 4 {
		var sum [2]*perfetto.Summary
		for i, p := range []string{pf, pf0} {
			f, err := os.Open(strings.TrimSuffix(p, ".pftrace") + fmt.Sprintf(".%03d.pftrace", l))
			if err != nil {
				t.Fatal(err)
			}
			sum[i], err = perfetto.Check(f)
			f.Close()
			if err != nil {
				t.Fatalf("launch %d: perfetto.Check: %v", l, err)
			}
		}
		if d := sum[0].CounterTrack - sum[1].CounterTrack; d != 15+12*4 {
			t.Errorf("launch %d: activity added %d counter tracks, want 63", l, d)
		}
	}
	// report --html: a power section on each launch's page of the run
	// with activity, none without.
	for _, c := range []struct {
		dir  string
		want bool
	}{{runDir, true}, {plainDir, false}} {
		page := filepath.Join(d, filepath.Base(c.dir)+".html")
		if r := runCLI(t, "", "report", "--html", page, c.dir); r.code != 0 {
			t.Fatalf("report --html %s: %s", c.dir, r.stderr)
		}
		b, err := os.ReadFile(strings.TrimSuffix(page, ".html") + ".003.html")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), "Power gating: busy and idle per level") && strings.Contains(string(b), "lane sp"); got != c.want {
			t.Errorf("report --html %s: power section %v, want %v", c.dir, got, c.want)
		}
	}
	if r := runCLI(t, "", "power", "--from", plainDir); r.code == 0 || !strings.Contains(r.stderr, "run --activity") {
		t.Errorf("power --from a run without activity: exit %d: %s", r.code, r.stderr)
	}
	if r := runCLI(t, "", "run", "--activity", "--launch", spec, "-o", plainDir, "../../samples/hotspot/hotspot.sm_52.ptx"); r.code != 2 || !strings.Contains(r.stderr, "instrumented") {
		t.Errorf("run --activity without a manifest: exit %d: %s", r.code, r.stderr)
	}
}

// TestPowerProgress: power's progress line appears only after 2 s (on a
// terminal: enabled), counts runs by launch indices restarting at 0, and
// names the launch and CTAs.
func TestPowerProgress(t *testing.T) {
	var early, late strings.Builder
	for _, c := range []struct {
		w     *strings.Builder
		start time.Time
	}{{&early, time.Now()}, {&late, time.Now().Add(-3 * time.Second)}} {
		p := &powerProgress{runProgress: newRunProgress(c.w, "power k.ptx", c.start, true)}
		p.launch(0, nil)
		p.launch(1, nil)
		p.last = time.Time{} // past the 200 ms throttle
		p.launch(0, nil)     // a second run of the spec
		p.last = time.Time{}
		p.cycles(1234, 5, 16)
		p.finish()
	}
	if early.Len() != 0 {
		t.Errorf("progress before 2 s: %q", early.String())
	}
	if got := late.String(); !strings.Contains(got, "\rpower k.ptx: run 1, 1 launch(es) done, 3.") ||
		!strings.Contains(got, "\rpower k.ptx: run 2, 1 launch(es) done, next at cycle 1234, 5/16 CTAs started, 3.") || !strings.HasSuffix(got, "\n") {
		t.Errorf("progress lines: %q", got)
	}
}
