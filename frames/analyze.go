package frames

import (
	"fmt"
	"os"
)

// Options configure Analyze.
type Options struct {
	Control    Control
	Thresholds []int64 // default 0, 1, …, 16 ms
	// FluctLo…FluctHi is the n range of the fluctuation sweep (default
	// 3…30 like seed Fig. 9); FluctHi < FluctLo skips the sweep.
	FluctLo, FluctHi int
}

// Report is the full analysis of one or more traces.
type Report struct {
	Traces     []*Trace
	Ranking    []Ranked // all 42, best index first
	Runs       []*Result
	Thresholds []Result // summed over traces
	Fluct      []Result // summed over traces
	BestFluct  *Result  // lowest risk, then highest hit, then smallest n, m
	Control    Control
}

// Top is the first k of the ranking (seed Table 2 lists 8).
func (r *Report) Top(k int) []Ranked { return r.Ranking[:min(k, len(r.Ranking))] }

// Analyze runs the estimator ranking, the control and both sweeps.
func Analyze(ts []*Trace, opt Options) (*Report, error) {
	if len(ts) == 0 {
		return nil, fmt.Errorf("no traces")
	}
	if opt.Thresholds == nil {
		for ms := int64(0); ms <= 16; ms++ {
			opt.Thresholds = append(opt.Thresholds, ms*1_000_000)
		}
	}
	rep := &Report{Traces: ts, Control: opt.Control}
	var seqs [][]int
	for _, t := range ts {
		seqs = append(seqs, t.Counts())
	}
	rep.Ranking = Rank(Estimators(), seqs)
	for _, t := range ts {
		r, err := Simulate(t, opt.Control)
		if err != nil {
			return nil, err
		}
		rep.Runs = append(rep.Runs, r)
	}
	var err error
	if rep.Thresholds, err = SweepThreshold(ts, opt.Control, opt.Thresholds); err != nil {
		return nil, err
	}
	if opt.FluctHi >= opt.FluctLo && opt.FluctLo >= 2 {
		if rep.Fluct, err = SweepFluctuation(ts, opt.Control, opt.FluctLo, opt.FluctHi); err != nil {
			return nil, err
		}
		for i := range rep.Fluct {
			f := &rep.Fluct[i]
			b := rep.BestFluct
			if b == nil || f.RiskRate() < b.RiskRate() || f.RiskRate() == b.RiskRate() && f.HitRate() > b.HitRate() {
				rep.BestFluct = f
			}
		}
	}
	return rep, nil
}

// ReadFile reads and builds one trace file of any supported format.
func ReadFile(path string, opt BuildOptions) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return BuildFrom(path, func(fn func(Event) error) error {
		_, err := Read(f, fn)
		return err
	}, opt)
}
