package frames

import "fmt"

// PowerModel is a parametric GPU power-state model. Its defaults are
// assumptions (documented in docs/frames.md), chosen so that the
// break-even deep-sleep length TransitionUJ / (StandbyMW − DeepMW) is
// 8 ms, the seed's measured Nexus 5 break-even (Fig. 12).
type PowerModel struct {
	StandbyMW    float64 // idle, clocks on ("待機"), default 100
	DeepMW       float64 // deep sleep ("休止"), default 10
	TransitionUJ float64 // energy of one enter+exit pair, default 720
	WakeLatency  int64   // ns from wake request to work running, default 1 ms
}

// DefaultPower is the assumed model.
var DefaultPower = PowerModel{StandbyMW: 100, DeepMW: 10, TransitionUJ: 720, WakeLatency: 1_000_000}

// BreakEven is the shortest deep sleep that saves energy, in ns.
func (m PowerModel) BreakEven() int64 {
	d := m.StandbyMW - m.DeepMW
	if d <= 0 {
		return -1
	}
	return int64(m.TransitionUJ / d * 1e6) // µJ / mW = ms
}

// saving is the energy saved (µJ) by one deep sleep of d ns.
func (m PowerModel) saving(d int64) float64 {
	return (m.StandbyMW-m.DeepMW)*float64(d)/1e6 - m.TransitionUJ
}

// Control configures the seed's GPU state control.
type Control struct {
	Estimator Estimator
	// Fluctuation starts when FluctM of the last FluctN estimates missed
	// and ends after EndHits consecutive hits (seed: 3, 1, 2). FluctN = 0
	// disables fluctuation detection.
	FluctN, FluctM, EndHits int
	// NDKFrames consecutive frames with GPU work and zero draw
	// completions mark an NDK-style app: no deep sleep, frames excluded,
	// until a frame has completions again. 0 disables the rule.
	NDKFrames int
	// ResleepAfterWake disables the seed's rule "after a deep sleep woken
	// inside the frame, no deep sleep again in that frame" (an ablation).
	ResleepAfterWake bool
	// Threshold: deep sleep only if the frame has at least this many ns
	// left when the estimated last draw completes.
	Threshold int64
	Power     PowerModel
}

// DefaultControl is the seed prototype's setting: mean-3-ceil, n=3, m=1,
// 2 hits to end, NDK detection, 8 ms threshold, DefaultPower.
func DefaultControl() Control {
	return Control{Estimator: Estimator{Method: Mean, N: 3, Round: Ceil}, FluctN: 3, FluctM: 1, EndHits: 2,
		NDKFrames: 2, Threshold: 8_000_000, Power: DefaultPower}
}

func (c Control) check() error {
	if c.FluctN != 0 && (c.FluctM < 1 || c.FluctM > c.FluctN || c.EndHits < 1) {
		return fmt.Errorf("fluctuation rule needs 1 ≤ m ≤ n and end hits ≥ 1 (got n=%d m=%d end=%d)", c.FluctN, c.FluctM, c.EndHits)
	}
	if pw := c.Power; pw.StandbyMW < 0 || pw.DeepMW < 0 || pw.TransitionUJ < 0 {
		return fmt.Errorf("power model values must not be negative: %+v", pw)
	}
	if c.Threshold < 0 || c.NDKFrames < 0 || c.Power.WakeLatency < 0 {
		return fmt.Errorf("negative threshold, NDK frames or wake latency")
	}
	return nil
}

// FrameResult is the control's record of one frame.
type FrameResult struct {
	Estimate, Actual int
	Idle             bool // skipped: display idle (see Frame.Idle)
	Scored           bool // has a history and is not an NDK frame
	Fluctuating      bool // control off: fluctuation
	NDK              bool // NDK-style app: no draws observable, frame excluded
	Hit, Risk        bool // estimate == actual, actual > estimate (controlled frames)
	Decision         int64
	Sleeps           []Interval // deep sleeps
	Woken            bool       // GPU work woke a deep sleep inside the frame
	Late             bool       // the wake latency pushed the last draw past the frame end
}

// Result sums a control run.
type Result struct {
	Frames              []FrameResult
	Scored, Hits, Risks int // over scored frames, hits/risks of controlled frames
	Fluctuating, NDK    int
	SleepNS, FrameNS    int64
	Transitions, Woken  int
	Late                int
	EnergyUJ            float64 // net energy saved (negative: lost)
	Threshold           int64
	FluctN, FluctM      int
}

// HitRate and RiskRate are percentages over scored frames.
func (r *Result) HitRate() float64  { return pct(r.Hits, r.Scored) }
func (r *Result) RiskRate() float64 { return pct(r.Risks, r.Scored) }

// SleepRatio is deep-sleep time as a percentage of frame time (Fig. 13).
func (r *Result) SleepRatio() float64 {
	if r.FrameNS == 0 {
		return 0
	}
	return 100 * float64(r.SleepNS) / float64(r.FrameNS)
}

// Simulate runs the control over a trace's frames.
func Simulate(t *Trace, c Control) (*Result, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	p := c.Estimator.NewPredictor()
	res := &Result{Threshold: c.Threshold, FluctN: c.FluctN, FluctM: c.FluctM}
	fluct, ndk := false, false
	var window []bool // misses since the last fluctuation end
	consec := 0
	var ndkRun []int // indexes of the current run of GPU-work-without-draw frames
	for i := range t.Frames {
		f := &t.Frames[i]
		fr := FrameResult{Actual: f.Count(), Decision: -1}
		if f.Idle {
			fr.Idle = true
			res.Frames = append(res.Frames, fr)
			continue
		}
		ready := p.Ready()
		if ready {
			fr.Estimate = p.Estimate()
		}
		// In NDK mode the control is off; frames without draws are
		// excluded (their count is unobservable), a frame with draws ends
		// the mode and is scored as uncontrolled.
		fr.Fluctuating, fr.NDK = fluct, ndk && fr.Actual == 0
		if ready && !fluct && !ndk {
			fr.Hit = fr.Estimate == fr.Actual
			fr.Risk = fr.Actual > fr.Estimate
			c.sleep(f, &fr)
		}
		res.Frames = append(res.Frames, fr)

		// NDK detection.
		if fr.Actual > 0 {
			ndk, ndkRun = false, ndkRun[:0]
		} else if len(f.Busy) > 0 && c.NDKFrames > 0 {
			ndkRun = append(ndkRun, i)
			if len(ndkRun) >= c.NDKFrames && !ndk {
				ndk = true
				for _, k := range ndkRun {
					res.Frames[k].NDK = true
				}
			}
		} else {
			ndkRun = ndkRun[:0]
		}
		// Fluctuation detection on every estimate (the driver always
		// knows whether its estimate was right).
		if ready && c.FluctN > 0 {
			hit := fr.Estimate == fr.Actual
			if fluct {
				if hit {
					consec++
				} else {
					consec = 0
				}
				if consec >= c.EndHits {
					fluct, window = false, window[:0]
				}
			} else {
				window = append(window, !hit)
				if len(window) > c.FluctN {
					window = window[1:]
				}
				miss := 0
				for _, m := range window {
					if m {
						miss++
					}
				}
				if miss >= c.FluctM {
					fluct, consec = true, 0
				}
			}
		}
		p.Observe(fr.Actual)
	}
	first := true
	for i := range res.Frames {
		fr := &res.Frames[i]
		f := &t.Frames[i]
		if fr.Idle {
			continue
		}
		res.FrameNS += f.End - f.Start
		for _, s := range fr.Sleeps {
			res.SleepNS += s.End - s.Start
			res.Transitions++
			res.EnergyUJ += c.Power.saving(s.End - s.Start)
		}
		if fr.Woken {
			res.Woken++
		}
		if fr.Late {
			res.Late++
		}
		if fr.Fluctuating {
			res.Fluctuating++
		}
		if first { // the first frame has no history
			first = false
			if fr.NDK {
				res.NDK++
			}
			continue
		}
		if fr.NDK {
			res.NDK++
			continue
		}
		fr.Scored = true
		res.Scored++
		if fr.Hit {
			res.Hits++
		}
		if fr.Risk {
			res.Risks++
		}
	}
	return res, nil
}

// sleep decides the frame's deep sleeps. The decision point is the
// completion of the estimated number of draws (the frame start for an
// estimate of 0); deep sleep begins when the GPU is next idle, if at least
// Threshold remains at the decision point, and lasts until GPU work
// arrives (a wake inside the frame) or the frame ends.
func (c Control) sleep(f *Frame, fr *FrameResult) {
	switch {
	case fr.Estimate == 0:
		fr.Decision = f.Start
	case fr.Actual >= fr.Estimate:
		fr.Decision = f.Completions[fr.Estimate-1]
	default:
		return // fewer draws than estimated: the count is never reached
	}
	if f.End-fr.Decision < c.Threshold {
		return
	}
	at := idleFrom(f.Busy, fr.Decision)
	for at < f.End {
		next := nextBusy(f.Busy, at)
		if next < 0 || next >= f.End {
			fr.Sleeps = append(fr.Sleeps, Interval{at, f.End})
			return
		}
		if next > at {
			fr.Sleeps = append(fr.Sleeps, Interval{at, next})
		}
		if !fr.Woken && next > at {
			fr.Woken = true
			if last := f.Completions; len(last) > 0 && last[len(last)-1] >= next && last[len(last)-1]+c.Power.WakeLatency > f.End {
				fr.Late = true
			}
		}
		if !c.ResleepAfterWake {
			return
		}
		at = idleFrom(f.Busy, next)
		if f.End-at < c.Threshold {
			return
		}
	}
}

// idleFrom is the first instant ≥ t at which no busy interval runs.
func idleFrom(busy []Interval, t int64) int64 {
	for _, b := range busy {
		if b.Start <= t && t < b.End {
			t = b.End
		}
	}
	return t
}

// nextBusy is the start of the first busy interval starting at or after
// t, or −1.
func nextBusy(busy []Interval, t int64) int64 {
	for _, b := range busy {
		if b.Start >= t {
			return b.Start
		}
	}
	return -1
}

// SweepThreshold runs the control at each threshold (Fig. 13).
func SweepThreshold(ts []*Trace, c Control, thresholds []int64) ([]Result, error) {
	var out []Result
	for _, th := range thresholds {
		c.Threshold = th
		agg, err := simulateAll(ts, c)
		if err != nil {
			return nil, err
		}
		out = append(out, agg)
	}
	return out, nil
}

// SweepFluctuation runs the control for n = nLo…nHi, m = 1…n−1 (Fig. 9).
func SweepFluctuation(ts []*Trace, c Control, nLo, nHi int) ([]Result, error) {
	var out []Result
	for n := nLo; n <= nHi; n++ {
		for m := 1; m < n; m++ {
			c.FluctN, c.FluctM = n, m
			agg, err := simulateAll(ts, c)
			if err != nil {
				return nil, err
			}
			out = append(out, agg)
		}
	}
	return out, nil
}

// simulateAll sums Simulate over traces (Frames left empty).
func simulateAll(ts []*Trace, c Control) (Result, error) {
	agg := Result{Threshold: c.Threshold, FluctN: c.FluctN, FluctM: c.FluctM}
	for _, t := range ts {
		r, err := Simulate(t, c)
		if err != nil {
			return agg, err
		}
		agg.Scored += r.Scored
		agg.Hits += r.Hits
		agg.Risks += r.Risks
		agg.Fluctuating += r.Fluctuating
		agg.NDK += r.NDK
		agg.SleepNS += r.SleepNS
		agg.FrameNS += r.FrameNS
		agg.Transitions += r.Transitions
		agg.Woken += r.Woken
		agg.Late += r.Late
		agg.EnergyUJ += r.EnergyUJ
	}
	return agg, nil
}
