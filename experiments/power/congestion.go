package power

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/ptxtrace/ptxtrace/model"
)

// Congestion is the seed's congestion metric for CTA issue control
// (§3.1.2, Fig. 8): Alpha × (interconnect stall cycle rate) + Beta /
// (unit utilisation), measured on the first CTAs of a kernel.
type Congestion struct {
	Alpha float64 `json:"alpha"`
	Beta  float64 `json:"beta"`
}

// DefaultCongestion is the seed's α = 0.5, β = 1.0.
func DefaultCongestion() Congestion { return Congestion{Alpha: 0.5, Beta: 1.0} }

// Metric is the congestion metric of one run, measured on each SM from
// cycle 0 to the end of its first CTA (the first wave), summed over SMs and
// launches: StallRate is the scheduler-cycles stalled on the interconnect
// over all scheduler-cycles of the windows, Utilisation the sp unit busy
// cycles over all sp unit-cycles of the windows.
type Metric struct {
	StallRate   float64 `json:"stall_rate"`
	Utilisation float64 `json:"utilisation"`
	Value       float64 `json:"value"`
}

// congestionProbe is one SM's observer for the metric.
type congestionProbe struct {
	model.BaseObserver
	done       bool
	stall      model.Time // interconnect stall scheduler-cycles
	busy       model.Time // sp busy unit-cycles
	window     model.Time // end of the first CTA
	sched, sps int
}

// ObservesMem and ObservesIssue are false: the probe needs neither
// (model.MemFilter, model.IssueFilter).
func (p *congestionProbe) ObservesMem() bool   { return false }
func (p *congestionProbe) ObservesIssue() bool { return false }

func (p *congestionProbe) Stall(e model.StallEvent) {
	if !p.done && e.Reason == model.StallInterconnect {
		p.stall += e.To - e.From
	}
}

func (p *congestionProbe) UnitBusy(e model.UnitEvent) {
	if !p.done && e.Unit == model.UnitSP {
		p.busy += e.To - e.From
	}
}

func (p *congestionProbe) CTAFinish(e model.CTAEvent) {
	if !p.done {
		p.done, p.window = true, e.Cycle
	}
}

// SMSweep is one workload run on every SM and with CTAs on fewer SMs.
type SMSweep struct {
	NumSMs int
	Metric Metric
	Normal *Result
	// Reduced[i] ran with CTAs on SMs[i] SMs.
	SMs     []int
	Reduced []*Result
	outputs map[string][]byte // the plain run's output buffers
}

// Slowdown is Reduced[i]'s execution cycles over Normal's, minus 1.
func (s *SMSweep) Slowdown(i int) float64 { return ratio(s.Reduced[i].Cycles, s.Normal.Cycles) - 1 }

// RunSMSweep runs in on all SMs, measuring the congestion metric, then
// with CTAs on each of sms SMs, refusing any difference in output bytes.
func RunSMSweep(ctx context.Context, in Input, cfg Config, c Congestion, sms []int) (*SMSweep, error) {
	if in.Model.SM.CTASMs != 0 {
		return nil, fmt.Errorf("power: model %s already sets cta_sms %d", in.Model.Name, in.Model.SM.CTASMs)
	}
	var probes []*congestionProbe
	var stall, sched, busy, unit float64
	in2 := in
	prev := in.OnLaunch
	sp := in.Model.SM.Units.SP.Count
	extra := func(part int) model.Observer {
		if part < 0 || part >= in.Model.NumSMs {
			return nil
		}
		p := &congestionProbe{sched: in.Model.SM.Schedulers, sps: sp}
		probes = append(probes, p)
		return p
	}
	in2.OnLaunch = func(i int, lr *launchResult) {
		for _, p := range probes {
			w := p.window
			if !p.done {
				w = lr.Timing.Cycles // the SM got no CTA, or none finished
				if p.busy == 0 && p.stall == 0 {
					continue // an SM without CTAs is not in the metric
				}
			}
			stall += float64(p.stall)
			sched += float64(p.sched) * float64(w)
			busy += float64(p.busy)
			unit += float64(p.sps) * float64(w)
		}
		probes = nil
		if prev != nil {
			prev(i, lr)
		}
	}
	rs, nout, _, err := runExtra(ctx, in2, cfg, extra)
	if err != nil {
		return nil, err
	}
	sw := &SMSweep{NumSMs: in.Model.NumSMs, Normal: rs, SMs: sms}
	if sched > 0 {
		sw.Metric.StallRate = stall / sched
	}
	if unit > 0 {
		sw.Metric.Utilisation = busy / unit
	}
	sw.Metric.Value = c.Alpha*sw.Metric.StallRate + c.Beta/math.Max(sw.Metric.Utilisation, 1e-3)
	for _, n := range sms {
		r, err := runOnSMs(ctx, in, cfg, n, nout)
		if err != nil {
			return nil, err
		}
		sw.Reduced = append(sw.Reduced, r)
	}
	sw.outputs = nout
	return sw, nil
}

// runOnSMs runs in with CTAs on n SMs and refuses outputs other than want.
func runOnSMs(ctx context.Context, in Input, cfg Config, n int, want map[string][]byte) (*Result, error) {
	if n <= 0 || n > in.Model.NumSMs {
		return nil, fmt.Errorf("power: %d SMs: want 1 … %d", n, in.Model.NumSMs)
	}
	in.Model.SM.CTASMs = n
	r, out, _, err := run(ctx, in, cfg, nil, []bool{false})
	if err != nil {
		return nil, err
	}
	if err := sameOutputs(want, out, fmt.Sprintf("%d and %d SMs", in.Model.NumSMs, n)); err != nil {
		return nil, err
	}
	return r[0], nil
}

// CTAControl is the congestion-aware CTA issue control on one workload:
// the metric of the plain run, the SMs chosen within Bound (0: all), and
// the run on them.
type CTAControl struct {
	Metric  Metric
	Bound   float64
	SMs     int
	Normal  *Result
	Reduced *Result // nil when SMs is 0
}

// RunCTAControl measures in's metric, chooses the fewest SMs whose
// slowdown cal predicts within bound, and runs on them.
func RunCTAControl(ctx context.Context, in Input, cfg Config, c Congestion, cal *Calibration, bound float64) (*CTAControl, error) {
	if cal.NumSMs != in.Model.NumSMs {
		return nil, fmt.Errorf("power: the calibration was fitted on %d SMs, model %s has %d", cal.NumSMs, in.Model.Name, in.Model.NumSMs)
	}
	sw, err := RunSMSweep(ctx, in, cfg, c, nil)
	if err != nil {
		return nil, err
	}
	cc := &CTAControl{Metric: sw.Metric, Bound: bound, Normal: sw.Normal}
	if i := cal.Choose(sw.Metric.Value, bound); i >= 0 {
		cc.SMs = cal.SMs[i]
		if cc.Reduced, err = runOnSMs(ctx, in, cfg, cc.SMs, sw.outputs); err != nil {
			return nil, err
		}
	}
	return cc, nil
}

// WriteSummary writes the metric, the choice and its effect.
func (c *CTAControl) WriteSummary(w io.Writer) error {
	fmt.Fprintf(w, "congestion metric %.3f (interconnect stall rate %.4f, sp utilisation %.3f); slowdown bound %.1f%%: ",
		c.Metric.Value, c.Metric.StallRate, c.Metric.Utilisation, 100*c.Bound)
	if c.Reduced == nil {
		_, err := fmt.Fprintf(w, "no SM count within the bound, all %d SMs\n", c.Normal.NumSMs)
		return err
	}
	_, err := fmt.Fprintf(w, "%d of %d SMs: active cycles %d → %d (%+.2f%%), cycles %d → %d (slowdown %+.2f%%)\n",
		c.SMs, c.Normal.NumSMs, c.Normal.ActiveCycles, c.Reduced.ActiveCycles, 100*(ratio(c.Reduced.ActiveCycles, c.Normal.ActiveCycles)-1),
		c.Normal.Cycles, c.Reduced.Cycles, 100*(ratio(c.Reduced.Cycles, c.Normal.Cycles)-1))
	return err
}

// Calibration is the linear relation between the metric and the slowdown
// of running on SMs[i] SMs: slowdown ≈ A[i] + B[i] × metric, fitted by
// least squares over workloads (the seed's Fig. 8 correlation, for 14 … 8
// SMs).
type Calibration struct {
	NumSMs int       `json:"num_sms"` // the model's SMs it was fitted on
	SMs    []int     `json:"sms"`
	A      []float64 `json:"a"`
	B      []float64 `json:"b"`
}

// DefaultCalibration is the fit of docs/power.md (TestCongestionTable):
// the 10 samples and 5 seed-like workloads on gtx480, α = 0.5, β = 1.0.
func DefaultCalibration() *Calibration {
	return &Calibration{NumSMs: 15, SMs: []int{14, 13, 12, 11, 10, 9, 8},
		A: []float64{0.0932, 0.1087, 0.1359, 0.1497, 0.1813, 0.3258, 0.3703},
		B: []float64{-0.00776, -0.00862, -0.01090, -0.01195, -0.01464, -0.02672, -0.02976}}
}

// Fit fits a Calibration to sweeps, which must share their SMs.
func Fit(sweeps []*SMSweep) (*Calibration, error) {
	if len(sweeps) < 2 {
		return nil, fmt.Errorf("power: calibration needs at least 2 workloads, got %d", len(sweeps))
	}
	cal := &Calibration{NumSMs: sweeps[0].NumSMs, SMs: sweeps[0].SMs}
	for i := range cal.SMs {
		var sx, sy, sxx, sxy float64
		n := float64(len(sweeps))
		for _, s := range sweeps {
			if len(s.SMs) != len(cal.SMs) || s.SMs[i] != cal.SMs[i] {
				return nil, fmt.Errorf("power: calibration sweeps of different SM counts")
			}
			x, y := s.Metric.Value, s.Slowdown(i)
			sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
		}
		d := n*sxx - sx*sx
		if d == 0 {
			return nil, fmt.Errorf("power: calibration: every workload has the same metric")
		}
		b := (n*sxy - sx*sy) / d
		cal.A = append(cal.A, (sy-b*sx)/n)
		cal.B = append(cal.B, b)
	}
	return cal, nil
}

// Predict is the fitted slowdown on SMs[i] SMs at metric m.
func (c *Calibration) Predict(i int, m float64) float64 { return c.A[i] + c.B[i]*m }

// Choose returns the index in SMs of the fewest SMs whose predicted
// slowdown at metric m is within bound, or -1 (run on all SMs).
func (c *Calibration) Choose(m, bound float64) int {
	best := -1
	for i, n := range c.SMs {
		if c.Predict(i, m) <= bound && (best < 0 || n < c.SMs[best]) {
			best = i
		}
	}
	return best
}
