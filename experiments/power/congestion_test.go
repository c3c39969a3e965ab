package power

import (
	"context"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
)

// Fit recovers a line from points on it, and Choose takes the fewest SMs
// within the bound (by hand: slowdown at 14 SMs = 0.01 m, at 10 SMs =
// 0.05 m; at m = 1, a bound of 0.03 admits 14 only).
func TestFitChoose(t *testing.T) {
	var sweeps []*SMSweep
	for _, m := range []float64{1, 2, 4} {
		s := &SMSweep{Metric: Metric{Value: m}, Normal: &Result{Cycles: 1000}, SMs: []int{14, 10}}
		s.Reduced = []*Result{{Cycles: model.Time(math.Round(1000 * (1 + 0.01*m)))}, {Cycles: model.Time(math.Round(1000 * (1 + 0.05*m)))}}
		sweeps = append(sweeps, s)
	}
	cal, err := Fit(sweeps)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(cal.A[0]) > 1e-9 || math.Abs(cal.B[0]-0.01) > 1e-9 || math.Abs(cal.B[1]-0.05) > 1e-9 {
		t.Errorf("fit A %v B %v", cal.A, cal.B)
	}
	if i := cal.Choose(1, 0.03); i != 0 {
		t.Errorf("Choose(1, 0.03) = %d, want 0 (14 SMs)", i)
	}
	if i := cal.Choose(1, 0.06); i != 1 {
		t.Errorf("Choose(1, 0.06) = %d, want 1 (10 SMs)", i)
	}
	if i := cal.Choose(4, 0.03); i != -1 {
		t.Errorf("Choose(4, 0.03) = %d, want -1", i)
	}
	if _, err := Fit(sweeps[:1]); err == nil {
		t.Error("fit of one workload accepted")
	}
}

// cta_sms 13 leaves SMs 13 and 14 without CTAs; the outputs are the
// same (RunSMSweep refuses a difference) and the metric is in range.
func TestSMSweep(t *testing.T) {
	in := sampleInput(t, "nn")
	var empty []int
	in.OnLaunch = func(_ int, lr *launch.LaunchResult) {
		n := 0
		for _, s := range lr.Timing.SMs {
			if s.CTAs == 0 {
				n++
			}
		}
		empty = append(empty, n)
	}
	sw, err := RunSMSweep(context.Background(), in, DefaultConfig(), DefaultCongestion(), []int{13})
	if err != nil {
		t.Fatal(err)
	}
	if len(empty) != 2 || empty[0] != 0 || empty[1] != 2 {
		t.Errorf("SMs without CTAs per run: %v, want [0 2]", empty)
	}
	m := sw.Metric
	if m.Utilisation <= 0 || m.Utilisation > 1 || m.StallRate < 0 || m.StallRate > 1 ||
		math.Abs(m.Value-(0.5*m.StallRate+1/m.Utilisation)) > 1e-12 {
		t.Errorf("metric %+v", m)
	}
	if sw.Reduced[0].Cycles < sw.Normal.Cycles {
		t.Logf("nn on 13 SMs is faster: %d vs %d cycles", sw.Reduced[0].Cycles, sw.Normal.Cycles)
	}
	s, _ := model.Preset("gtx480")
	s.SM.CTASMs = 16
	if s.Validate() == nil {
		t.Error("cta_sms 16 of 15 accepted")
	}
}

// TestCongestionTable prints docs/power.md's Fig. 8 and Fig. 16 tables
// (PTXTRACE_POWER_TABLE=1): every workload on 15 and on 14 … 8 SMs.
func TestCongestionTable(t *testing.T) {
	if os.Getenv("PTXTRACE_POWER_TABLE") == "" {
		t.Skip("set PTXTRACE_POWER_TABLE=1 to print the tables of docs/power.md")
	}
	sms := []int{14, 13, 12, 11, 10, 9, 8}
	names := []string{"bfs", "hotspot", "nn", "lud", "pathfinder", "gaussian", "matmul", "reduce", "vecadd", "volrender"}
	var ins []Input
	for _, n := range names {
		ins = append(ins, sampleInput(t, n))
	}
	for _, n := range seedlikeNames {
		names = append(names, n+" (seed-like)")
		ins = append(ins, seedlikeInput(t, n))
	}
	var sweeps []*SMSweep
	f8 := "| workload | stall rate | sp utilisation | metric | slowdown 15→13 |\n| --- | ---: | ---: | ---: | ---: |\n"
	for i, in := range ins {
		sw, err := RunSMSweep(context.Background(), in, DefaultConfig(), DefaultCongestion(), sms)
		if err != nil {
			t.Fatal(err)
		}
		sweeps = append(sweeps, sw)
		f8 += fmt.Sprintf("| %s | %.3f | %.3f | %.2f | %+.1f %% |\n", names[i], sw.Metric.StallRate, sw.Metric.Utilisation, sw.Metric.Value, 100*sw.Slowdown(1))
	}
	cal, err := Fit(sweeps)
	if err != nil {
		t.Fatal(err)
	}
	fit := "| SMs | A | B |\n| ---: | ---: | ---: |\n"
	for i, n := range cal.SMs {
		fit += fmt.Sprintf("| %d | %+.4f | %+.5f |\n", n, cal.A[i], cal.B[i])
	}
	f16 := "| workload | bound | SMs | active cycles | reduction | slowdown |\n| --- | ---: | ---: | ---: | ---: | ---: |\n"
	for _, bound := range []float64{0.05, 0.10} {
		for i, sw := range sweeps {
			c := cal.Choose(sw.Metric.Value, bound)
			if c < 0 {
				f16 += fmt.Sprintf("| %s | %.0f %% | 15 | %d | 0 | 0 |\n", names[i], 100*bound, sw.Normal.ActiveCycles)
				continue
			}
			r := sw.Reduced[c]
			f16 += fmt.Sprintf("| %s | %.0f %% | %d | %d → %d | %+.1f %% | %+.1f %% |\n", names[i], 100*bound, sw.SMs[c],
				sw.Normal.ActiveCycles, r.ActiveCycles, 100*(ratio(r.ActiveCycles, sw.Normal.ActiveCycles)-1), 100*sw.Slowdown(c))
		}
	}
	t.Logf("\nFig. 8\n%s\nfit: slowdown ≈ A + B × metric\n%s\nFig. 16\n%s", f8, fit, f16)
}

// RunCTAControl refuses a model the calibration was not fitted on, and
// on gtx480 either keeps all SMs or runs on the chosen count with the same
// outputs (runOnSMs refuses a difference).
func TestRunCTAControl(t *testing.T) {
	in := sampleInput(t, "nn")
	in.Model.NumSMs = 14
	if _, err := RunCTAControl(context.Background(), in, DefaultConfig(), DefaultCongestion(), DefaultCalibration(), 0.1); err == nil {
		t.Error("14-SM model accepted by the 15-SM calibration")
	}
	in = sampleInput(t, "nn")
	cc, err := RunCTAControl(context.Background(), in, DefaultConfig(), DefaultCongestion(), DefaultCalibration(), 0.1)
	if err != nil {
		t.Fatal(err)
	}
	// nn's metric m: the predicted slowdown A + B·m of the chosen count is
	// within 10 %, and no smaller count's is
	cal := DefaultCalibration()
	for i, n := range cal.SMs {
		p := cal.A[i] + cal.B[i]*cc.Metric.Value
		if n < cc.SMs && p <= 0.1 || n == cc.SMs && p > 0.1 {
			t.Errorf("%d SMs predicted %.3f; chose %d", n, p, cc.SMs)
		}
	}
	if (cc.SMs == 0) != (cc.Reduced == nil) {
		t.Errorf("SMs %d, reduced %v", cc.SMs, cc.Reduced != nil)
	}
}
