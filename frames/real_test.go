package frames

import (
	"github.com/ptxtrace/ptxtrace/exporters/perfetto"

	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func TestRealTracesAnalyze(t *testing.T) {
	d := sharedFrames(t)
	var ts []*Trace
	for _, n := range []string{"catapult-project_catapult__android_systrace.html", "Gracker_Perfetto-Skills__api32_startup_warm.perfetto-trace"} {
		tr, err := ReadFile(filepath.Join(d, n), BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, tr)
		idle := 0
		for _, f := range tr.Frames {
			if f.Idle {
				idle++
			}
		}
		t.Logf("%s: %s, period %d, %d frames (%d idle), source %s, layers %+v, busy %s", n, tr.FrameSource, tr.Period, len(tr.Frames), idle, tr.CompletionSource, tr.Layers, tr.BusySource)
		t.Logf("counts %v", tr.Counts())
	}
	rep, err := Analyze(ts, Options{Control: DefaultControl(), FluctLo: 3, FluctHi: 30})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Top(10) {
		t.Logf("%-14s idx %.1f minhit %.1f maxrisk %.1f  %+v", r.Estimator.Name(), r.Index, r.MinHit, r.MaxRisk, r.Scores)
	}
	for _, r := range rep.Runs {
		t.Logf("run scored %d hit %.1f risk %.1f fluct %d ndk %d sleep %.1f%% trans %d woken %d late %d E %.0f", r.Scored, r.HitRate(), r.RiskRate(), r.Fluctuating, r.NDK, r.SleepRatio(), r.Transitions, r.Woken, r.Late, r.EnergyUJ)
	}
	for _, r := range rep.Thresholds {
		t.Logf("th %d sleep %.1f%% trans %d late %d E %.0f", r.Threshold/1e6, r.SleepRatio(), r.Transitions, r.Late, r.EnergyUJ)
	}
	b := rep.BestFluct
	t.Logf("best fluct n=%d m=%d hit %.1f risk %.1f", b.FluctN, b.FluctM, b.HitRate(), b.RiskRate())
}

func TestReportOutputs(t *testing.T) {
	tr := synth([]int{1, 1, 2, 1, 1, 0, 1})
	rep, err := Analyze([]*Trace{tr}, Options{Control: DefaultControl(), FluctLo: 3, FluctHi: 5})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil || !strings.Contains(b.String(), "mean-3-ceil") {
		t.Fatalf("text: %v\n%s", err, b.String())
	}
	csvs, err := rep.CSV()
	if err != nil || len(csvs) != 5 {
		t.Fatalf("csv: %v %d", err, len(csvs))
	}
	// fluctuation sweep n=3…5: 2+3+4 settings plus the header.
	if n := strings.Count(string(csvs["fluctuation.csv"]), "\n"); n != 10 {
		t.Errorf("fluctuation.csv has %d lines, want 10", n)
	}
	if _, err := rep.JSON(); err != nil {
		t.Fatal(err)
	}
	charts, err := rep.Charts()
	if err != nil || len(charts) != 4 {
		t.Fatalf("charts: %v %d", err, len(charts))
	}
	b.Reset()
	if err := rep.WritePerfetto(&b, 0); err != nil {
		t.Fatal(err)
	}
	// The overlay must read back: every non-idle frame gives a begin/end.
	begins := 0
	if err := ReadPerfetto(bytes.NewReader(b.Bytes()), func(e Event) error {
		if e.Kind == Begin && strings.HasPrefix(e.Name, "actual ") {
			begins++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if begins != 7 {
		t.Errorf("overlay has %d frame slices, want 7", begins)
	}
	// The project's independent Perfetto checker (tracks before use,
	// balanced slices, per-sequence time order, no unknown fields).
	if _, err := perfetto.Check(bytes.NewReader(b.Bytes())); err != nil {
		t.Errorf("overlay fails the Perfetto checker: %v", err)
	}
}
