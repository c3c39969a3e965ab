package frames

import "testing"

const ms = int64(1_000_000)

// synth builds frames of 16 ms; frame k's j-th completion is at
// start + 2(j+1) ms with GPU work in the millisecond before it.
func synth(counts []int) *Trace {
	t := &Trace{Name: "synth", Period: 16 * ms}
	for k, c := range counts {
		s := int64(k) * 16 * ms
		f := Frame{Start: s, End: s + 16*ms}
		for j := 0; j < c; j++ {
			at := s + int64(2*(j+1))*ms
			f.Completions = append(f.Completions, at)
			f.Busy = append(f.Busy, Interval{at - ms, at})
		}
		t.Frames = append(t.Frames, f)
	}
	return t
}

func lastControl() Control {
	c := DefaultControl()
	c.Estimator = Estimator{Method: Last, N: 1}
	c.Threshold = 0
	return c
}

func TestFluctuationRule(t *testing.T) {
	// k:      0 1 2 3 4 5 6 7 8
	counts := []int{1, 1, 1, 2, 2, 2, 2, 1, 3}
	// last estimates (k≥1): 1 1 1 2 2 2 2 1.
	// n=3, m=1, end after 2 hits: k3 misses (risk) → fluctuation from k4;
	// k4, k5 hit → ends after k5; k6 hit (controlled); k7 misses →
	// fluctuation from k8, so k8's risk (est 1, actual 3) is not taken.
	c := lastControl()
	c.FluctN, c.FluctM, c.EndHits = 3, 1, 2
	r, err := Simulate(synth(counts), c)
	if err != nil {
		t.Fatal(err)
	}
	wantFluct := []bool{false, false, false, false, true, true, false, false, true}
	for k, w := range wantFluct {
		if r.Frames[k].Fluctuating != w {
			t.Errorf("frame %d fluctuating = %v, want %v", k, r.Frames[k].Fluctuating, w)
		}
	}
	if r.Scored != 8 || r.Hits != 3 || r.Risks != 1 {
		t.Errorf("with fluctuation: scored %d hits %d risks %d, want 8 3 1", r.Scored, r.Hits, r.Risks)
	}
	if len(r.Frames[8].Sleeps) != 0 {
		t.Errorf("deep sleep during fluctuation: %v", r.Frames[8].Sleeps)
	}
	c.FluctN = 0
	r, _ = Simulate(synth(counts), c)
	// Without the rule: hits k1 k2 k4 k5 k6, risks k3 k8.
	if r.Hits != 5 || r.Risks != 2 {
		t.Errorf("without fluctuation: hits %d risks %d, want 5 2", r.Hits, r.Risks)
	}
}

func TestWakeInFrameRule(t *testing.T) {
	// Frame 1 has three draws but "last" estimates 1: the GPU sleeps
	// after the first (18 ms) and is woken at 21 ms by the second.
	tr := synth([]int{1, 3})
	c := lastControl()
	c.FluctN = 0
	r, err := Simulate(tr, c)
	if err != nil {
		t.Fatal(err)
	}
	f := r.Frames[1]
	want := []Interval{{18 * ms, 19 * ms}}
	// synth puts draw j at start+2(j+1) ms with work in [at−1, at): draws
	// at 18, 20, 22 ms, work [17,18) [19,20) [21,22).
	if len(f.Sleeps) != 1 || f.Sleeps[0] != want[0] || !f.Woken || f.Late {
		t.Fatalf("with rule: sleeps %v woken %v late %v, want %v woken, not late", f.Sleeps, f.Woken, f.Late, want)
	}
	// 1 ms of deep sleep: 90 mW × 1 ms − 720 µJ = −630 µJ.
	if !near(r.EnergyUJ, -630) || r.Transitions != 1 {
		t.Errorf("energy %v transitions %d, want −630 µJ, 1", r.EnergyUJ, r.Transitions)
	}
	c.ResleepAfterWake = true
	r, _ = Simulate(tr, c)
	f = r.Frames[1]
	// Without the rule it sleeps again in every gap: [18,19) [20,21) [22,32).
	if len(f.Sleeps) != 3 || f.Sleeps[1] != (Interval{20 * ms, 21 * ms}) || f.Sleeps[2] != (Interval{22 * ms, 32 * ms}) {
		t.Errorf("without rule: sleeps %v", f.Sleeps)
	}
	// Late: last draw at 22 ms; with an 11 ms wake latency 33 > 32.
	c.ResleepAfterWake = false
	c.Power.WakeLatency = 11 * ms
	r, _ = Simulate(tr, c)
	if !r.Frames[1].Late || r.Late != 1 {
		t.Errorf("late = %v, want true", r.Frames[1].Late)
	}
}

func TestNDKRule(t *testing.T) {
	tr := synth([]int{1, 1, 0, 0, 0, 1, 1})
	for _, k := range []int{2, 3, 4} { // GPU work, no draw completions
		s := tr.Frames[k].Start
		tr.Frames[k].Busy = []Interval{{s + 3*ms, s + 5*ms}}
	}
	c := lastControl()
	c.FluctN = 0
	c.NDKFrames = 2
	r, err := Simulate(tr, c)
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{false, false, true, true, true, false, false}
	for k, w := range want {
		if r.Frames[k].NDK != w {
			t.Errorf("frame %d NDK = %v, want %v", k, r.Frames[k].NDK, w)
		}
	}
	if len(r.Frames[4].Sleeps) != 0 {
		t.Errorf("deep sleep in an NDK frame: %v", r.Frames[4].Sleeps)
	}
	// Scored: frames 1, 5, 6 (frame 0 has no history, 2–4 excluded).
	if r.NDK != 3 || r.Scored != 3 {
		t.Errorf("NDK %d scored %d, want 3 3", r.NDK, r.Scored)
	}
	c.NDKFrames = 0
	r, _ = Simulate(tr, c)
	// Without the rule frame 4 (estimate 0) sleeps from its start until
	// the work at +3 ms wakes it.
	if len(r.Frames[4].Sleeps) != 1 || !r.Frames[4].Woken {
		t.Errorf("without rule: frame 4 sleeps %v woken %v", r.Frames[4].Sleeps, r.Frames[4].Woken)
	}
}

func TestThresholdBlocksShortIdle(t *testing.T) {
	tr := synth([]int{1, 1})
	c := lastControl()
	c.FluctN = 0
	// Frame 1: draw at 18 ms, frame ends 32 ms: 14 ms left.
	c.Threshold = 14 * ms
	if r, _ := Simulate(tr, c); r.SleepNS != 14*ms {
		t.Errorf("threshold 14 ms: sleep %d, want 14 ms", r.SleepNS)
	}
	c.Threshold = 14*ms + 1
	if r, _ := Simulate(tr, c); r.SleepNS != 0 {
		t.Errorf("threshold 14 ms + 1 ns: sleep %d, want 0", r.SleepNS)
	}
}

func TestModelTrace(t *testing.T) {
	p := 10 * ms
	iv := func(a, b int64) Interval { return Interval{a * ms, b * ms} }
	tr, err := ModelTrace("model", p, []Interval{iv(1, 3), iv(4, 6), iv(11, 13), iv(14, 16), iv(21, 23), iv(24, 26), iv(31, 33)})
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Counts(); len(got) != 4 || got[0] != 2 || got[1] != 2 || got[2] != 2 || got[3] != 1 {
		t.Fatalf("counts %v, want [2 2 2 1]", got)
	}
	c := DefaultControl()
	c.Threshold = 0
	r, err := Simulate(tr, c)
	if err != nil {
		t.Fatal(err)
	}
	// mean-3-ceil: k1 est 2 hit → sleep [16,20); k2 est 2 hit → [26,30);
	// k3 est 2, actual 1 → count never reached, no sleep, no risk.
	if r.SleepNS != 8*ms || r.Hits != 2 || r.Risks != 0 || r.Scored != 3 {
		t.Errorf("sleep %d hits %d risks %d scored %d, want 8 ms 2 0 3", r.SleepNS, r.Hits, r.Risks, r.Scored)
	}
	if _, err := ModelTrace("bad", 0, []Interval{iv(1, 2)}); err == nil {
		t.Error("zero period accepted")
	}
}
