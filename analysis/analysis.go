package analysis

import (
	"errors"
	"io"
	"math"
	"sort"

	"github.com/ptxtrace/ptxtrace/trace"
)

// Share is memory vs other time of one warp or a whole run (see the package
// documentation for the definitions).
type Share struct {
	Memory   uint64 // summed durations of the counted load regions
	Total    uint64 // active time: outermost user regions, or the warp's span
	Other    uint64 // Total − Memory (0 when Memory > Total)
	Accesses int    // load regions counted
	// MemoryShare is Memory / Total (0 when Total is 0).
	MemoryShare float64
	// MeanAccess is Memory / Accesses (NaN without accesses).
	MeanAccess float64
}

func (s *Share) finish() {
	if s.Memory > s.Total {
		s.Other = 0
	} else {
		s.Other = s.Total - s.Memory
	}
	s.MemoryShare = 0
	if s.Total > 0 {
		s.MemoryShare = float64(s.Memory) / float64(s.Total)
	}
	s.MeanAccess = math.NaN()
	if s.Accesses > 0 {
		s.MeanAccess = float64(s.Memory) / float64(s.Accesses)
	}
}

// WarpStats is one warp's share.
type WarpStats struct {
	Warp      uint32 // segment index
	CTA       [3]uint32
	WarpInCTA uint32
	SM        uint32
	Share
}

// RegionStats summarises the instances of one region.
type RegionStats struct {
	Region int
	Kind   string // load or user
	Space  string
	Mode   string
	Line   int
	Count  int
	// Measured duration (timer units): mean, population standard
	// deviation, minimum and maximum.
	Mean, StdDev float64
	Min, Max     uint64
	// Instances with ground truth and their mean true latency
	// (Complete − Issue); TruthMean is NaN when TruthCount is 0.
	TruthCount int
	TruthMean  float64
}

// ProbeError compares measured region durations with the model's ground
// truth for the load regions of one probe mode.
type ProbeError struct {
	Mode  string
	Count int // load region instances with ground truth
	// Means over those instances, in cycles.
	Measured, True float64
	// Diff = Measured − True; RelErr = Diff / True.
	Diff, RelErr float64
	// MeanAbsDiff is the mean of |measured − true| per instance.
	MeanAbsDiff float64
}

// Result is the analysis of one trace.
type Result struct {
	Kernel string
	// HasUser reports whether the kernel has user regions (then Total is
	// their time, else the warps' spans).
	HasUser bool
	Warps   []WarpStats // in segment order
	// Overall sums Memory, Total, Other and Accesses over all warps;
	// MemoryShare = Σ Memory / Σ Total and MeanAccess = Σ Memory / Σ
	// Accesses (the access-weighted mean).
	Overall Share
	// MeanWarpShare is the mean of the per-warp memory shares over the
	// warps with accesses (NaN if none).
	MeanWarpShare float64
	// MeanAccess is the mean over warps with accesses of their mean memory
	// time per access (NaN if none); Frequency = 1000 / MeanAccess, memory
	// references per 1000 cycles (seed 003 §6.3), 0 when undefined.
	MeanAccess float64
	Frequency  float64
	// Regions in region id order (only regions with instances).
	Regions []RegionStats
	// ProbeErrors per probe mode of the load regions, sorted by mode
	// (only modes with ground truth).
	ProbeErrors []ProbeError
	// Issues counts the decoder's issues by kind.
	Issues map[string]int
}

type regionAcc struct {
	count           int
	sum, sumSq      float64
	min, max        uint64
	truthN          int
	truthSum        float64
	kind, space, md string
	line            int
}

type errAcc struct {
	n                    int
	meas, truth, absDiff float64
}

// Analyze reads src to the end and computes its statistics. It keeps one
// accumulator per region and one WarpStats per warp, so it works on traces
// streamed from a bundle.
func Analyze(src trace.RegionSource) (*Result, error) {
	if src == nil {
		return nil, errors.New("analysis: nil source")
	}
	h := src.Header()
	res := &Result{Kernel: h.Kernel, Issues: map[string]int{}}
	for _, r := range h.Regions {
		res.HasUser = res.HasUser || r.Kind == "user"
	}
	accs := map[int]*regionAcc{}
	errs := map[string]*errAcc{}
	for {
		wr, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		for _, is := range wr.Issues {
			res.Issues[is.Kind.String()]++
		}
		ws := WarpStats{Warp: wr.Warp.Segment, CTA: wr.Warp.CTA, WarpInCTA: wr.Warp.WarpInCTA, SM: wr.Warp.SM}
		var user [][2]uint64 // outermost user regions [start, end]
		var lo, hi uint64 = math.MaxUint64, 0
		for i := range wr.Regions {
			r := &wr.Regions[i]
			lo, hi = min(lo, r.Start), max(hi, r.End)
			a := accs[r.ID]
			if a == nil {
				a = &regionAcc{min: math.MaxUint64}
				if r.Info != nil {
					a.kind, a.space, a.md, a.line = r.Info.Kind, r.Info.Space, r.Info.Mode, r.Info.Line
				}
				accs[r.ID] = a
			}
			c := float64(r.Cycles)
			a.count++
			a.sum += c
			a.sumSq += c * c
			a.min, a.max = min(a.min, r.Cycles), max(a.max, r.Cycles)
			if r.HasTruth {
				t := float64(r.TruthComplete - r.TruthIssue)
				a.truthN++
				a.truthSum += t
				if r.Info != nil && r.Info.Memory() {
					e := errs[r.Info.Mode]
					if e == nil {
						e = &errAcc{}
						errs[r.Info.Mode] = e
					}
					e.n++
					e.meas += c
					e.truth += t
					e.absDiff += math.Abs(c - t)
				}
			}
			if r.Info != nil && r.Info.Kind == "user" {
				if n := len(user); n == 0 || r.Start >= user[n-1][1] {
					user = append(user, [2]uint64{r.Start, r.End})
					ws.Total += r.Cycles
				}
			}
		}
		for i := range wr.Regions {
			r := &wr.Regions[i]
			if r.Info == nil || !r.Info.Memory() {
				continue
			}
			if res.HasUser && !within(user, r.Start, r.End) {
				continue
			}
			ws.Memory += r.Cycles
			ws.Accesses++
		}
		if !res.HasUser && len(wr.Regions) > 0 {
			ws.Total = hi - lo
		}
		ws.finish()
		res.Warps = append(res.Warps, ws)
		res.Overall.Memory += ws.Memory
		res.Overall.Total += ws.Total
		res.Overall.Accesses += ws.Accesses
	}
	res.Overall.finish()

	var sumMean, sumShare float64
	n := 0
	for _, w := range res.Warps {
		if w.Accesses == 0 {
			continue
		}
		n++
		sumMean += w.MeanAccess
		sumShare += w.MemoryShare
	}
	res.MeanAccess, res.MeanWarpShare = math.NaN(), math.NaN()
	if n > 0 {
		res.MeanAccess = sumMean / float64(n)
		res.MeanWarpShare = sumShare / float64(n)
		if res.MeanAccess > 0 {
			res.Frequency = 1000 / res.MeanAccess
		}
	}

	ids := make([]int, 0, len(accs))
	for id := range accs {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		a := accs[id]
		mean := a.sum / float64(a.count)
		rs := RegionStats{Region: id, Kind: a.kind, Space: a.space, Mode: a.md, Line: a.line, Count: a.count,
			Mean: mean, StdDev: math.Sqrt(max(0, a.sumSq/float64(a.count)-mean*mean)), Min: a.min, Max: a.max,
			TruthCount: a.truthN, TruthMean: math.NaN()}
		if a.truthN > 0 {
			rs.TruthMean = a.truthSum / float64(a.truthN)
		}
		res.Regions = append(res.Regions, rs)
	}
	modes := make([]string, 0, len(errs))
	for m := range errs {
		modes = append(modes, m)
	}
	sort.Strings(modes)
	for _, m := range modes {
		e := errs[m]
		pe := ProbeError{Mode: m, Count: e.n, Measured: e.meas / float64(e.n), True: e.truth / float64(e.n),
			MeanAbsDiff: e.absDiff / float64(e.n)}
		pe.Diff = pe.Measured - pe.True
		pe.RelErr = math.NaN()
		if pe.True > 0 {
			pe.RelErr = pe.Diff / pe.True
		}
		res.ProbeErrors = append(res.ProbeErrors, pe)
	}
	return res, nil
}

// within reports whether [s, e] lies inside one of the intervals (sorted,
// disjoint).
func within(iv [][2]uint64, s, e uint64) bool {
	i := sort.Search(len(iv), func(k int) bool { return iv[k][1] >= e })
	return i < len(iv) && iv[i][0] <= s
}

// ProbeErrorOf returns the probe error of mode in r.
func (r *Result) ProbeErrorOf(mode string) (ProbeError, bool) {
	for _, p := range r.ProbeErrors {
		if p.Mode == mode {
			return p, true
		}
	}
	return ProbeError{}, false
}

// WarpAccesses returns the durations of warp seg's counted load regions in
// time order (the seed's Fig. 11: one warp's memory time per access). It
// reads src to the end.
func WarpAccesses(src trace.RegionSource, seg uint32) ([]uint64, error) {
	var out []uint64
	for {
		wr, err := src.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if wr.Warp.Segment != seg {
			continue
		}
		for i := range wr.Regions {
			if r := &wr.Regions[i]; r.Info != nil && r.Info.Memory() {
				out = append(out, r.Cycles)
			}
		}
	}
}
