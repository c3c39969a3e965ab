package analysis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/ptxtrace/ptxtrace/trace"
)

// Share is memory vs other time of one warp or a whole run (see the package
// documentation for the definitions).
type Share struct {
	Memory   uint64 `json:"memory_cycles"` // summed durations of the counted load regions
	Total    uint64 `json:"total_cycles"`  // active time: outermost user regions, or the warp's span
	Other    uint64 `json:"other_cycles"`  // Total − Memory (0 when Memory > Total)
	Accesses int    `json:"accesses"`      // load regions counted
	// MemoryShare is Memory / Total (0 when Total is 0).
	MemoryShare float64 `json:"memory_share"`
	// MeanAccess is Memory / Accesses (NaN without accesses, hence not in
	// JSON: derive it from memory_cycles / accesses).
	MeanAccess float64 `json:"-"`
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
	Warp      uint32    `json:"warp"` // segment index
	CTA       [3]uint32 `json:"cta"`
	WarpInCTA uint32    `json:"warp_in_cta"`
	SM        uint32    `json:"sm"`
	Share
}

// RegionStats summarises the instances of one region.
type RegionStats struct {
	Region int    `json:"region"`
	Kind   string `json:"kind"` // load or user
	Space  string `json:"space,omitempty"`
	Mode   string `json:"mode,omitempty"`
	Line   int    `json:"ptx_line"`
	// Source is the region's .loc position file:line:col ("" without one).
	Source string `json:"source,omitempty"`
	Count  int    `json:"count"`
	// Measured duration (timer units): mean, population standard
	// deviation, minimum and maximum (exact), median and 95th percentile
	// (nearest rank, from a log-linear histogram: exact below 128, else
	// the midpoint of a bucket 1/64 of a power of two wide, relative error
	// below 0.8%).
	Mean   float64 `json:"mean_cycles"`
	StdDev float64 `json:"stddev_cycles"`
	Median float64 `json:"median_cycles"`
	P95    float64 `json:"p95_cycles"`
	Min    uint64  `json:"min_cycles"`
	Max    uint64  `json:"max_cycles"`
	// MeanNs is Mean in nanoseconds when the trace's clock rate is known
	// (trace.Header.HasNs), else 0.
	MeanNs float64 `json:"mean_ns,omitempty"`
	// Instances with ground truth and their mean true latency
	// (Complete − Issue); TruthMean is NaN when TruthCount is 0 (not in
	// JSON).
	TruthCount int     `json:"truth_count"`
	TruthMean  float64 `json:"-"`
}

// LineStats aggregates the counted load regions of one source line.
type LineStats struct {
	// Source is file:line from the region's .loc, else "ptx:LINE".
	Source string  `json:"source"`
	Count  int     `json:"count"`
	Total  uint64  `json:"total_cycles"`
	Mean   float64 `json:"mean_cycles"`
}

// ProbeError compares measured region durations with the model's ground
// truth for the load regions of one probe mode.
type ProbeError struct {
	Mode  string `json:"mode"`
	Count int    `json:"count"` // load region instances with ground truth
	// Means over those instances, in cycles.
	Measured float64 `json:"measured_cycles"`
	True     float64 `json:"true_cycles"`
	// Diff = Measured − True; RelErr = Diff / True (NaN when True is 0,
	// not in JSON).
	Diff   float64 `json:"diff_cycles"`
	RelErr float64 `json:"-"`
	// MeanAbsDiff is the mean of |measured − true| per instance.
	MeanAbsDiff float64 `json:"mean_abs_diff_cycles"`
}

// Result is the analysis of one trace. Its JSON form is the output of
// `ptxtrace report --json`; fields that may be NaN are left out of it.
type Result struct {
	Kernel  string  `json:"kernel"`
	Timer   string  `json:"timer"`
	ClockHz float64 `json:"clock_hz,omitempty"`
	// HasUser reports whether the kernel has user regions (then Total is
	// their time, else the warps' spans).
	HasUser bool        `json:"has_user_regions"`
	Warps   []WarpStats `json:"per_warp"` // in segment order
	// Overall sums Memory, Total, Other and Accesses over all warps;
	// MemoryShare = Σ Memory / Σ Total and MeanAccess = Σ Memory / Σ
	// Accesses (the access-weighted mean).
	Overall Share `json:"memory"`
	// MeanWarpShare, MinWarpShare and MaxWarpShare are the mean, minimum
	// and maximum of the per-warp memory shares over the warps with
	// accesses (NaN if none).
	MeanWarpShare, MinWarpShare, MaxWarpShare float64 `json:"-"`
	// MeanAccess is the mean over warps with accesses of their mean memory
	// time per access (NaN if none); Frequency = 1000 / MeanAccess, memory
	// references per 1000 cycles (seed 003 §6.3), 0 when undefined.
	MeanAccess float64 `json:"-"`
	Frequency  float64 `json:"frequency_per_kcycle"`
	// Regions in region id order (only regions with instances).
	Regions []RegionStats `json:"regions"`
	// Slowest lists source lines by the summed duration of their counted
	// load regions, longest first (ties by Source), cut to Options.Top.
	Slowest []LineStats `json:"slowest_lines"`
	// ProbeErrors per probe mode of the load regions, sorted by mode
	// (only modes with ground truth).
	ProbeErrors []ProbeError `json:"probe_errors,omitempty"`
	// Decompose splits the load regions' measured time into issue wait,
	// true latency and post wait (probe cost and excess), per space/mode
	// and per source line; nil without stamped ground truth (runs on
	// hardware, bundles before minor version 1).
	Decompose *Decompose `json:"decomposition,omitempty"`
	// Issues counts the decoder's issues by kind; Lost sums the records
	// the warps lost to a full buffer.
	Issues map[string]int `json:"issues,omitempty"`
	Lost   uint64         `json:"lost_records,omitempty"`
}

// Options tune AnalyzeContext.
type Options struct {
	// Top is the number of slowest source lines kept in Result.Slowest;
	// negative keeps all.
	Top int
	// PostCost gives the documented probe cost after completion of a probe
	// mode (e.g. analysis.PostCost with the model's fence latency); nil or
	// false leaves Decomposition.Cost unset.
	PostCost func(mode string) (float64, bool)
}

type regionAcc struct {
	count      int
	sum, sumSq float64
	min, max   uint64
	hist       histogram
	truthN     int
	truthSum   float64
	info       *trace.RegionInfo
	line       *LineStats // the region's source line, once counted
}

type errAcc struct {
	n                    int
	meas, truth, absDiff float64
}

// Analyze reads src to the end and computes its statistics, keeping every
// slowest line. It is AnalyzeContext without cancellation.
func Analyze(src trace.RegionSource) (*Result, error) {
	return AnalyzeContext(context.Background(), src, Options{Top: -1})
}

// AnalyzeContext reads src to the end and computes its statistics. It
// keeps one accumulator per region and source line and one WarpStats per
// warp, so it works on traces streamed from a bundle. It checks ctx
// between warps.
func AnalyzeContext(ctx context.Context, src trace.RegionSource, o Options) (*Result, error) {
	if src == nil {
		return nil, errors.New("analysis: nil source")
	}
	h := src.Header()
	res := &Result{Kernel: h.Kernel, Timer: h.Timer.String(), ClockHz: h.Meta.ClockHz, HasUser: hasUser(h), Issues: map[string]int{}}
	accs := map[int]*regionAcc{}
	errs := map[string]*errAcc{}
	lines := map[string]*LineStats{}
	var user [][2]uint64
	dec := decomposer{cost: o.PostCost, byKind: map[string]*decAcc{}, byLine: map[string]*decAcc{}}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
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
		res.Lost += uint64(wr.Warp.Lost)
		for i := range wr.Regions {
			addRegion(accs, errs, &wr.Regions[i])
			dec.add(h, &wr.Regions[i])
		}
		ws := WarpStats{Warp: wr.Warp.Segment, CTA: wr.Warp.CTA, WarpInCTA: wr.Warp.WarpInCTA, SM: wr.Warp.SM}
		var userTime uint64
		user, userTime = userSpans(wr.Regions, user[:0])
		if res.HasUser {
			ws.Total = userTime
		} else {
			ws.Total = span(wr.Regions)
		}
		for i := range wr.Regions {
			r := &wr.Regions[i]
			if !counted(r, res.HasUser, user) {
				continue
			}
			ws.Memory += r.Cycles
			ws.Accesses++
			a := accs[r.ID]
			if a.line == nil {
				key := sourceOf(r.Info)
				if a.line = lines[key]; a.line == nil {
					a.line = &LineStats{Source: key}
					lines[key] = a.line
				}
			}
			l := a.line
			l.Count++
			l.Total += r.Cycles
		}
		ws.finish()
		res.Warps = append(res.Warps, ws)
		res.Overall.Memory += ws.Memory
		res.Overall.Total += ws.Total
		res.Overall.Accesses += ws.Accesses
	}
	res.Overall.finish()
	res.warpMeans()
	res.Regions = regionStats(h, accs)
	res.ProbeErrors = probeErrors(errs)
	res.Decompose = dec.result()
	res.Slowest = slowest(lines, o.Top)
	return res, nil
}

// hasUser reports whether the trace's kernel has user regions.
func hasUser(h *trace.Header) bool {
	for _, r := range h.Regions {
		if r.Kind == "user" {
			return true
		}
	}
	return false
}

// userSpans appends to dst the outermost user regions of one warp's
// regions (ordered by start) as [start, end] intervals and returns them
// with their summed durations.
func userSpans(regs []trace.Region, dst [][2]uint64) ([][2]uint64, uint64) {
	var total uint64
	for i := range regs {
		r := &regs[i]
		if r.Info == nil || r.Info.Kind != "user" {
			continue
		}
		if n := len(dst); n == 0 || r.Start >= dst[n-1][1] {
			dst = append(dst, [2]uint64{r.Start, r.End})
			total += r.Cycles
		}
	}
	return dst, total
}

// span is the time from the first begin to the last end of regs (0 when
// empty).
func span(regs []trace.Region) uint64 {
	if len(regs) == 0 {
		return 0
	}
	var lo, hi uint64 = math.MaxUint64, 0
	for i := range regs {
		lo, hi = min(lo, regs[i].Start), max(hi, regs[i].End)
	}
	return hi - lo
}

// counted reports whether r is memory time: a load region, inside an
// outermost user region when the kernel has user regions.
func counted(r *trace.Region, hasUser bool, user [][2]uint64) bool {
	return r.Info != nil && r.Info.Memory() && (!hasUser || within(user, r.Start, r.End))
}

// addRegion adds one region instance to its accumulator and, for a load
// region with ground truth, to its probe mode's error.
func addRegion(accs map[int]*regionAcc, errs map[string]*errAcc, r *trace.Region) {
	a := accs[r.ID]
	if a == nil {
		a = &regionAcc{min: math.MaxUint64, info: r.Info}
		accs[r.ID] = a
	}
	c := float64(r.Cycles)
	a.count++
	a.sum += c
	a.sumSq += c * c
	a.min, a.max = min(a.min, r.Cycles), max(a.max, r.Cycles)
	a.hist.add(r.Cycles)
	if !r.HasTruth {
		return
	}
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

// warpMeans sets the means over the warps with accesses.
func (res *Result) warpMeans() {
	var sumMean, sumShare float64
	lo, hi := math.Inf(1), math.Inf(-1)
	n := 0
	for _, w := range res.Warps {
		if w.Accesses == 0 {
			continue
		}
		n++
		sumMean += w.MeanAccess
		sumShare += w.MemoryShare
		lo, hi = math.Min(lo, w.MemoryShare), math.Max(hi, w.MemoryShare)
	}
	res.MeanAccess, res.MeanWarpShare = math.NaN(), math.NaN()
	res.MinWarpShare, res.MaxWarpShare = math.NaN(), math.NaN()
	if n == 0 {
		return
	}
	res.MeanAccess = sumMean / float64(n)
	res.MeanWarpShare = sumShare / float64(n)
	res.MinWarpShare, res.MaxWarpShare = lo, hi
	if res.MeanAccess > 0 {
		res.Frequency = 1000 / res.MeanAccess
	}
}

func regionStats(h *trace.Header, accs map[int]*regionAcc) []RegionStats {
	ids := make([]int, 0, len(accs))
	for id := range accs {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	var out []RegionStats
	for _, id := range ids {
		a := accs[id]
		mean := a.sum / float64(a.count)
		rs := RegionStats{Region: id, Count: a.count,
			Mean: mean, StdDev: math.Sqrt(max(0, a.sumSq/float64(a.count)-mean*mean)), Min: a.min, Max: a.max,
			Median: a.hist.quantile(0.5), P95: a.hist.quantile(0.95), TruthCount: a.truthN, TruthMean: math.NaN()}
		if in := a.info; in != nil {
			rs.Kind, rs.Space, rs.Mode, rs.Line, rs.Source = in.Kind, in.Space, in.Mode, in.Line, locOf(in)
		}
		if h.HasNs() {
			rs.MeanNs = h.Ns(1) * mean
		}
		if a.truthN > 0 {
			rs.TruthMean = a.truthSum / float64(a.truthN)
		}
		out = append(out, rs)
	}
	return out
}

func probeErrors(errs map[string]*errAcc) []ProbeError {
	modes := make([]string, 0, len(errs))
	for m := range errs {
		modes = append(modes, m)
	}
	sort.Strings(modes)
	var out []ProbeError
	for _, m := range modes {
		e := errs[m]
		pe := ProbeError{Mode: m, Count: e.n, Measured: e.meas / float64(e.n), True: e.truth / float64(e.n),
			MeanAbsDiff: e.absDiff / float64(e.n)}
		pe.Diff = pe.Measured - pe.True
		pe.RelErr = math.NaN()
		if pe.True > 0 {
			pe.RelErr = pe.Diff / pe.True
		}
		out = append(out, pe)
	}
	return out
}

// slowest orders the lines by total duration (ties by source) and keeps
// top of them (all when top < 0).
func slowest(lines map[string]*LineStats, top int) []LineStats {
	out := make([]LineStats, 0, len(lines))
	for _, l := range lines {
		l.Mean = float64(l.Total) / float64(l.Count)
		out = append(out, *l)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Total != b.Total {
			return a.Total > b.Total
		}
		return a.Source < b.Source
	})
	if top >= 0 && len(out) > top {
		out = out[:top]
	}
	return out
}

// locOf is a region's .loc position file:line:col, "" without one.
func locOf(r *trace.RegionInfo) string {
	if r.LocFile == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", r.LocFile, r.LocLine, r.LocCol)
}

// sourceOf names a region's source line: file:line from .loc, else the PTX
// line.
func sourceOf(r *trace.RegionInfo) string {
	if r.LocFile != "" {
		return fmt.Sprintf("%s:%d", r.LocFile, r.LocLine)
	}
	return fmt.Sprintf("ptx:%d", r.Line)
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
// time order (the seed's Fig. 11: one warp's memory time per access):
// the load regions Analyze counts as memory time, so when the kernel has
// user regions only those inside an outermost user region. It reads src to
// the end.
func WarpAccesses(src trace.RegionSource, seg uint32) ([]uint64, error) {
	user := hasUser(src.Header())
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
		spans, _ := userSpans(wr.Regions, nil)
		for i := range wr.Regions {
			if r := &wr.Regions[i]; counted(r, user, spans) {
				out = append(out, r.Cycles)
			}
		}
	}
}
