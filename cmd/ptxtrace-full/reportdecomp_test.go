package main

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/analysis"
	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// TestReportDecomposition writes a bundle whose ground truth has stamps
// (issue 3 cycles after the begin read, 50 cycles of latency) and the
// model's fence latency label, and checks report's decomposition against
// the regions decoded directly: post wait = mean measured − 3 − 50.
func TestReportDecomposition(t *testing.T) {
	s := smallSynth
	var raw bytes.Buffer
	if _, err := s.WriteTo(&raw); err != nil {
		t.Fatal(err)
	}
	var truth []trace.TruthAccess
	for w := 0; w < s.Warps; w++ {
		for it := 0; it < s.Iters; it++ {
			for l := 1; l <= s.Loads; l++ {
				truth = append(truth, trace.TruthAccess{Warp: uint32(w), Probe: tt.BeginID(l), Begin: 1000, Issue: 1003, Complete: 1053, End: 1060})
			}
		}
	}
	p := filepath.Join(t.TempDir(), "r.bundle")
	in := &trace.BundleInput{Raw: raw.Bytes(), Manifest: s.Manifest(), Truth: truth,
		Meta: trace.RunMeta{ClockHz: 1e9, Labels: map[string]string{launch.FenceLatencyLabel: "9"}}}
	if err := trace.WriteBundleFile(p, in); err != nil {
		t.Fatal(err)
	}
	b, err := trace.OpenBundleFile(p)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := b.Trace()
	b.Close()
	if err != nil {
		t.Fatal(err)
	}
	sum, n, mode := map[string]float64{}, map[string]int{}, map[string]string{}
	for _, reg := range tr.Regions {
		if reg.Info.Memory() {
			k := reg.Info.Space + "/" + reg.Info.Mode
			sum[k] += float64(reg.Cycles)
			n[k]++
			mode[k] = reg.Info.Mode
		}
	}
	r := runCLI(t, "", "report", "--json", p)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rep analysis.Result
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Decompose == nil || len(rep.Decompose.ByKind) != len(n) || len(rep.Decompose.ByLine) != s.Loads {
		t.Fatalf("decomposition %+v (kinds %v)", rep.Decompose, n)
	}
	for _, d := range rep.Decompose.ByKind {
		mean := sum[d.Key] / float64(n[d.Key])
		cost, _ := analysis.PostCost(mode[d.Key], 9)
		if d.Count != n[d.Key] || d.IssueWait != 3 || d.True != 50 || math.Abs(d.PostWait-(mean-53)) > 1e-9 ||
			d.Cost == nil || *d.Cost != cost || math.Abs(*d.Excess-(mean-53-cost)) > 1e-9 {
			t.Errorf("%s: %+v, want count %d, wait 3, true 50, post %.3f, cost %v", d.Key, d, n[d.Key], mean-53, cost)
		}
	}
	r = runCLI(t, "", "report", p)
	if r.code != 0 || !strings.Contains(r.stdout, "load time decomposition") {
		t.Fatalf("text report: %d %s %s", r.code, r.stdout, r.stderr)
	}
}
