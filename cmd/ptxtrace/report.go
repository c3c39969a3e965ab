package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/bits"
	"path/filepath"
	"sort"
	"text/tabwriter"

	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/urfave/cli/v2"
)

type reportOptions struct {
	streams
	JSON  bool   // print JSON instead of tables
	Top   int    // slowest source lines to list
	Warps bool   // list every warp's shares in the text output
	Run   string // bundle file or run directory
}

func newReportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "summarize a run: region durations, memory share, slowest lines",
		ArgsUsage: "RUN",
		Description: "report decodes RUN (bundle file or run directory; one report per traced\n" +
			"launch of a multi-launch run, a JSON array with --json) in one streaming pass and\n" +
			"prints per-region duration statistics (count, mean, median, p95, min, max in\n" +
			"cycles, and ns when the clock rate is known), the memory share per warp and\n" +
			"overall, and the slowest source lines. Medians and p95 come from a log-linear\n" +
			"histogram (relative error < 1%); counts, means, minima and maxima are exact.\n\n" +
			"Memory share: memory = the summed cycles of \"load\" regions; total = the summed\n" +
			"cycles of the outermost \"user\" regions when the kernel has user regions (then\n" +
			"only load regions inside a user region count as memory), otherwise the span of\n" +
			"the warp's regions (first begin to last end); other = total - memory.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON", DisableDefaultText: true},
			&cli.IntFlag{Name: "top", Usage: "list the `N` slowest source lines", Value: 10},
			&cli.BoolFlag{Name: "warps", Usage: "list every warp's memory share (text output)", DisableDefaultText: true},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("report: want exactly one RUN argument, got %d", c.NArg())
			}
			return runReport(c.Context, reportOptions{streams: streamsOf(c), JSON: c.Bool("json"), Top: c.Int("top"), Warps: c.Bool("warps"), Run: c.Args().First()})
		},
	}
}

// Report is the JSON form of `ptxtrace report`.
type Report struct {
	Kernel   string         `json:"kernel"`
	Timer    string         `json:"timer"`
	ClockHz  float64        `json:"clock_hz,omitempty"`
	Warps    int            `json:"warps"`
	Regions  []RegionStats  `json:"regions"`
	Memory   Share          `json:"memory"`
	PerWarp  []WarpShare    `json:"per_warp"`
	Slowest  []LineStats    `json:"slowest_lines"`
	Issues   map[string]int `json:"issues,omitempty"`
	LostRecs uint64         `json:"lost_records,omitempty"`
}

// RegionStats are the duration statistics of one region.
type RegionStats struct {
	Region int     `json:"region"`
	Kind   string  `json:"kind"`
	Space  string  `json:"space,omitempty"`
	Line   int     `json:"ptx_line"`
	Source string  `json:"source,omitempty"`
	Count  uint64  `json:"count"`
	Mean   float64 `json:"mean_cycles"`
	Median float64 `json:"median_cycles"`
	P95    float64 `json:"p95_cycles"`
	Min    uint64  `json:"min_cycles"`
	Max    uint64  `json:"max_cycles"`
	MeanNs float64 `json:"mean_ns,omitempty"`
}

// Share is memory vs other time.
type Share struct {
	Total       uint64  `json:"total_cycles"`
	Memory      uint64  `json:"memory_cycles"`
	Other       uint64  `json:"other_cycles"`
	MemoryShare float64 `json:"memory_share"`
}

// WarpShare is one warp's share.
type WarpShare struct {
	Warp uint32 `json:"warp"`
	SM   uint32 `json:"sm"`
	Share
}

// LineStats aggregates the load regions of one source line.
type LineStats struct {
	Source string  `json:"source"`
	Count  uint64  `json:"count"`
	Total  uint64  `json:"total_cycles"`
	Mean   float64 `json:"mean_cycles"`
}

func runReport(ctx context.Context, o reportOptions) error {
	bs, err := trace.OpenRunDir(o.Run)
	if err != nil {
		return err
	}
	defer func() {
		for _, b := range bs {
			b.Close()
		}
	}()
	rbs, err := trace.RunBundles(o.Run)
	if err != nil {
		return err
	}
	var reps []*Report
	for _, b := range bs {
		if err := b.VerifyChecksums(); err != nil {
			return err
		}
		d, err := b.Regions()
		if err != nil {
			return err
		}
		rep, err := buildReport(ctx, d, o.Top)
		if err != nil {
			return err
		}
		reps = append(reps, rep)
	}
	// A multi-launch run directory: one report per traced launch, in launch
	// order (JSON: an array of the reports).
	if o.JSON {
		enc := json.NewEncoder(o.Stdout)
		enc.SetIndent("", "  ")
		if len(reps) == 1 {
			return enc.Encode(reps[0])
		}
		return enc.Encode(reps)
	}
	for i, rep := range reps {
		if len(reps) > 1 {
			if i > 0 {
				fmt.Fprintln(o.Stdout)
			}
			fmt.Fprintf(o.Stdout, "== launch %d (%s) ==\n", rbs[i].Launch, filepath.Base(rbs[i].Path))
		}
		if err := printReport(o.Stdout, rep, o.Warps); err != nil {
			return err
		}
	}
	return nil
}

type regionAcc struct {
	count, sum, min, max uint64
	hist                 histogram
}

// buildReport computes the report in one pass over src.
func buildReport(ctx context.Context, src trace.RegionSource, top int) (*Report, error) {
	h := src.Header()
	rep := &Report{Kernel: h.Kernel, Timer: h.Timer.String(), ClockHz: h.Meta.ClockHz, Issues: map[string]int{}}
	hasUser := false
	for _, r := range h.Regions {
		hasUser = hasUser || r.Kind == "user"
	}
	accs := make([]regionAcc, len(h.Regions))
	idx := map[*trace.RegionInfo]int{}
	for i := range h.Regions {
		idx[&h.Regions[i]] = i
		accs[i].min = math.MaxUint64
	}
	lines := map[string]*LineStats{}
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
		rep.Warps++
		rep.LostRecs += uint64(wr.Warp.Lost)
		for _, is := range wr.Issues {
			rep.Issues[is.Kind.String()]++
		}
		var ws Share
		var userEnds []uint64 // [start,end) of outermost user regions, pairs
		var lo, hi uint64 = math.MaxUint64, 0
		for i := range wr.Regions {
			r := &wr.Regions[i]
			a := &accs[idx[r.Info]]
			a.count++
			a.sum += r.Cycles
			a.min = min(a.min, r.Cycles)
			a.max = max(a.max, r.Cycles)
			a.hist.add(r.Cycles)
			lo, hi = min(lo, r.Start), max(hi, r.End)
			if r.Info.Kind == "user" {
				if n := len(userEnds); n == 0 || r.Start >= userEnds[n-1] {
					userEnds = append(userEnds, r.Start, r.End)
					ws.Total += r.Cycles
				}
			}
		}
		for i := range wr.Regions {
			r := &wr.Regions[i]
			if !r.Info.Memory() {
				continue
			}
			if hasUser && !inside(userEnds, r.Start, r.End) {
				continue
			}
			ws.Memory += r.Cycles
			key := sourceOf(r.Info)
			l := lines[key]
			if l == nil {
				l = &LineStats{Source: key}
				lines[key] = l
			}
			l.Count++
			l.Total += r.Cycles
		}
		if !hasUser && len(wr.Regions) > 0 {
			ws.Total = hi - lo
		}
		ws.finish()
		rep.PerWarp = append(rep.PerWarp, WarpShare{Warp: wr.Warp.Segment, SM: wr.Warp.SM, Share: ws})
		rep.Memory.Total += ws.Total
		rep.Memory.Memory += ws.Memory
	}
	rep.Memory.finish()
	for i, a := range accs {
		if a.count == 0 {
			continue
		}
		info := &h.Regions[i]
		s := RegionStats{Region: info.ID, Kind: info.Kind, Space: info.Space, Line: info.Line, Source: locOf(info),
			Count: a.count, Mean: float64(a.sum) / float64(a.count), Median: a.hist.quantile(0.5), P95: a.hist.quantile(0.95), Min: a.min, Max: a.max}
		if h.HasNs() {
			s.MeanNs = h.Ns(1) * s.Mean
		}
		rep.Regions = append(rep.Regions, s)
	}
	for _, l := range lines {
		l.Mean = float64(l.Total) / float64(l.Count)
		rep.Slowest = append(rep.Slowest, *l)
	}
	sort.Slice(rep.Slowest, func(i, j int) bool {
		a, b := rep.Slowest[i], rep.Slowest[j]
		if a.Total != b.Total {
			return a.Total > b.Total
		}
		return a.Source < b.Source
	})
	if top >= 0 && len(rep.Slowest) > top {
		rep.Slowest = rep.Slowest[:top]
	}
	return rep, nil
}

// inside reports whether [s,e] lies within one of the [start,end) pairs.
func inside(pairs []uint64, s, e uint64) bool {
	i := sort.Search(len(pairs)/2, func(k int) bool { return pairs[2*k+1] >= e })
	return i < len(pairs)/2 && pairs[2*i] <= s
}

func (s *Share) finish() {
	if s.Memory > s.Total {
		s.Other = 0
	} else {
		s.Other = s.Total - s.Memory
	}
	if s.Total > 0 {
		s.MemoryShare = float64(s.Memory) / float64(s.Total)
	}
}

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

func printReport(w io.Writer, rep *Report, warps bool) error {
	fmt.Fprintf(w, "kernel %s, timer %s", rep.Kernel, rep.Timer)
	if rep.ClockHz > 0 {
		fmt.Fprintf(w, ", clock %.4g GHz", rep.ClockHz/1e9)
	}
	fmt.Fprintf(w, ", %d warps\n\n", rep.Warps)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "region\tkind\tspace\tptx line\tcount\tmean\tmedian\tp95\tmin\tmax\tmean ns\tsource\t")
	for _, r := range rep.Regions {
		ns := "-"
		if r.MeanNs > 0 {
			ns = fmt.Sprintf("%.1f", r.MeanNs)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%.1f\t%.0f\t%.0f\t%d\t%d\t%s\t%s\t\n",
			r.Region, r.Kind, r.Space, r.Line, r.Count, r.Mean, r.Median, r.P95, r.Min, r.Max, ns, r.Source)
	}
	tw.Flush()
	m := rep.Memory
	fmt.Fprintf(w, "\nmemory share: %.1f%% (memory %d cycles, other %d, total %d)\n", 100*m.MemoryShare, m.Memory, m.Other, m.Total)
	if len(rep.PerWarp) > 0 {
		lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
		for _, ws := range rep.PerWarp {
			lo, hi, sum = math.Min(lo, ws.MemoryShare), math.Max(hi, ws.MemoryShare), sum+ws.MemoryShare
		}
		fmt.Fprintf(w, "per warp: mean %.1f%%, min %.1f%%, max %.1f%%\n", 100*sum/float64(len(rep.PerWarp)), 100*lo, 100*hi)
	}
	if warps {
		tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "warp\tsm\tmemory\tother\ttotal\tshare\t")
		for _, ws := range rep.PerWarp {
			fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%.1f%%\t\n", ws.Warp, ws.SM, ws.Memory, ws.Other, ws.Total, 100*ws.MemoryShare)
		}
		tw.Flush()
	}
	if len(rep.Slowest) > 0 {
		fmt.Fprintln(w, "\nslowest source lines (load regions, by total cycles):")
		tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "source\tcount\ttotal\tmean\t")
		for _, l := range rep.Slowest {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t\n", l.Source, l.Count, l.Total, l.Mean)
		}
		tw.Flush()
	}
	if len(rep.Issues) > 0 || rep.LostRecs > 0 {
		keys := make([]string, 0, len(rep.Issues))
		for k := range rep.Issues {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprint(w, "\ndecoder issues:")
		for _, k := range keys {
			fmt.Fprintf(w, " %s %d;", k, rep.Issues[k])
		}
		fmt.Fprintf(w, " lost records %d\n", rep.LostRecs)
	}
	return nil
}

// histogram is a log-linear histogram of cycle counts: values below 128
// are exact; above, each power of two is split into 64 buckets, and a
// quantile is reported as its bucket's midpoint (relative error < 0.8%).
type histogram struct {
	counts map[uint32]uint64
	n      uint64
}

const histSub = 6 // 2^6 sub-buckets per power of two

func bucketOf(v uint64) uint32 {
	if v < 2<<histSub {
		return uint32(v)
	}
	e := uint(bits.Len64(v)) - histSub - 1
	return uint32((uint64(e)+1)<<histSub) + uint32(v>>e)
}

// bucketRange returns the values [lo, hi] of bucket b.
func bucketRange(b uint32) (lo, hi uint64) {
	if b < 2<<histSub {
		return uint64(b), uint64(b)
	}
	e := uint(b>>histSub) - 2
	m := uint64(b) - uint64(e+1)<<histSub
	return m << e, (m+1)<<e - 1
}

func (h *histogram) add(v uint64) {
	if h.counts == nil {
		h.counts = map[uint32]uint64{}
	}
	h.counts[bucketOf(v)]++
	h.n++
}

// quantile returns the q-quantile (nearest rank), as its bucket's midpoint.
func (h *histogram) quantile(q float64) float64 {
	if h.n == 0 {
		return 0
	}
	keys := make([]uint32, 0, len(h.counts))
	for k := range h.counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = max(rank, 1)
	var c uint64
	for _, k := range keys {
		c += h.counts[k]
		if c >= rank {
			lo, hi := bucketRange(k)
			return (float64(lo) + float64(hi)) / 2
		}
	}
	lo, hi := bucketRange(keys[len(keys)-1])
	return (float64(lo) + float64(hi)) / 2
}
