package frames

import (
	"path/filepath"
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
