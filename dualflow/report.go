package dualflow

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ptxtrace/ptxtrace/model"
)

// WriteTable prints the evaluation results, one row per sample.
func WriteTable(w io.Writer, rs []*Result) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "sample\tBASE cycles\tBASE WAW\tBASE-OoO cycles\tBASE-OoO WAR/WAW\tD-FLOW cycles\tD-FLOW WAR/WAW\tvirtual-OoO cycles\tspeedup\tinsts\tmov\tnop\tspill\treload\tBASE spill\tBASE reload\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.3f\t%+.1f%%\t%d\t%d\t%d\t%d\t%d\t%d\t\n", r.Sample,
			r.Base.Cycles, r.Base.Stalls.FalseDep, r.BaseOoO.Cycles, r.BaseOoO.Stalls.FalseDep,
			r.DFlow.Cycles, r.DFlow.Stalls.FalseDep, r.VirtualOoO.Cycles, r.Speedup(), 100*r.InstIncrease(),
			r.Dyn[KMov], r.Dyn[KNop], r.Dyn[KSpill], r.Dyn[KReload], r.SpillDyn[0], r.SpillDyn[1])
	}
	return tw.Flush()
}

// CDFRow is one point of an operand-distance CDF.
type CDFRow struct {
	Sample, Kernel string
	Dist           int
	Count          uint64
	Cum            float64 // fraction of operands at distance <= Dist
}

// CDF returns the operand-distance CDF of every kernel of the results.
func CDF(rs []*Result) []CDFRow {
	var out []CDFRow
	for _, r := range rs {
		for _, k := range r.Counts.Kernels() {
			h := r.Counts.DistanceCDF(k)
			var total, cum uint64
			for _, n := range h {
				total += n
			}
			if total == 0 {
				continue
			}
			for d, n := range h {
				cum += n
				if n == 0 && d != len(h)-1 {
					continue
				}
				out = append(out, CDFRow{r.Sample, k, d, n, float64(cum) / float64(total)})
			}
		}
	}
	return out
}

// WriteCDFCSV writes CDF rows as CSV.
func WriteCDFCSV(w io.Writer, rows []CDFRow) error {
	if _, err := fmt.Fprintln(w, "sample,kernel,distance,operands,cumulative"); err != nil {
		return err
	}
	for _, r := range rows {
		if _, err := fmt.Fprintf(w, "%s,%s,%d,%d,%.6f\n", r.Sample, r.Kernel, r.Dist, r.Count, r.Cum); err != nil {
			return err
		}
	}
	return nil
}

// WriteCDFSVG draws the CDFs (distance 0..maxD on x, cumulative share on
// y), one step line per kernel, as a standalone SVG.
func WriteCDFSVG(w io.Writer, rows []CDFRow, maxD int) error {
	const W, H, L, B, T, R = 720, 420, 60, 50, 20, 220
	pw, ph := float64(W-L-R), float64(H-T-B)
	x := func(d int) float64 { return L + pw*float64(min(d, maxD))/float64(maxD) }
	y := func(c float64) float64 { return T + ph*(1-c) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", W, H)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	for i := 0; i <= 10; i++ {
		c := float64(i) / 10
		fmt.Fprintf(&b, `<line x1="%d" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%.1f</text>`+"\n", L, L+pw, y(c), y(c), L-4, y(c)+4, c)
	}
	for d := 0; d <= maxD; d += maxD / 10 {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", x(d), H-B+16, d)
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">operand distance</text>`+"\n", L+pw/2, H-12)
	fmt.Fprintf(&b, `<text x="14" y="%.1f" transform="rotate(-90 14 %.1f)" text-anchor="middle">share of operands (cumulative)</text>`+"\n", T+ph/2, T+ph/2)
	colours := []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}
	series := 0
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && rows[j].Sample == rows[i].Sample && rows[j].Kernel == rows[i].Kernel {
			j++
		}
		col := colours[series%len(colours)]
		var pts []string
		prev := 0.0
		for _, r := range rows[i:j] {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f %.1f,%.1f", x(r.Dist), y(prev), x(r.Dist), y(r.Cum)))
			prev = r.Cum
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(maxD), y(prev)))
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`+"\n", col, strings.Join(pts, " "))
		ly := T + 14*series + 10
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="2"/><text x="%d" y="%d">%s/%s</text>`+"\n",
			W-R+10, W-R+30, ly, ly, col, W-R+34, ly+4, rows[i].Sample, rows[i].Kernel)
		series++
		i = j
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// StudyPoint is one resident-warp limit of the occupancy study.
type StudyPoint struct {
	Warps       int
	Base, DFlow uint64 // cycles
	Skipped     string // why the point was not run (a CTA does not fit)
}

// Study runs BASE and D-FLOW of sample name with at most each of warps
// resident warps per SM (threads per SM limited to match) on cfg.
func Study(ctx context.Context, name string, src []byte, cfg Config, warps []int) ([]StudyPoint, error) {
	var out []StudyPoint
	for _, wp := range warps {
		c := cfg
		c.BaseOnly = true
		c.Spec.SM.MaxWarps = wp
		c.Spec.SM.MaxThreads = wp * model.WarpSize
		c.Spec.SM.Registers = StudyRegisters(cfg, wp)
		r, err := Evaluate(ctx, name, src, c)
		if err != nil {
			if e := err.Error(); strings.Contains(e, "exceeds sm.") || strings.Contains(e, "sm.registers is") {
				out = append(out, StudyPoint{Warps: wp, Skipped: err.Error()})
				continue
			}
			return nil, err
		}
		out = append(out, StudyPoint{Warps: wp, Base: r.Base.Cycles, DFlow: r.DFlow.Cycles})
	}
	return out, nil
}

// StudyRegisters is the register file per SM that Study gives a point
// with warps resident warps: cfg's, scaled by warps / cfg's warp limit.
func StudyRegisters(cfg Config, warps int) int {
	return cfg.Spec.SM.Registers * warps / cfg.Spec.SM.MaxWarps
}

// MatchWarps returns the fewest resident warps at which D-FLOW is at least
// as fast as BASE at the first (largest) point, or 0 if none is.
func MatchWarps(ps []StudyPoint) int {
	if len(ps) == 0 || ps[0].Skipped != "" {
		return 0
	}
	ref := ps[0].Base
	best := 0
	for _, p := range ps {
		if p.Skipped == "" && p.DFlow <= ref && (best == 0 || p.Warps < best) {
			best = p.Warps
		}
	}
	return best
}

// EvalOrder is the default sample order of an evaluation: the seed's four
// benchmarks, then every other bundled sample with a launch spec.
func EvalOrder() []string {
	return []string{"gaussian", "lud", "pathfinder", "nn", "vecadd", "matmul", "reduce", "hotspot", "bfs", "volrender"}
}

// StaticSummary is one line counting the instructions the conversion added.
func (p *Program) StaticSummary() string {
	return fmt.Sprintf("// %s: %d instructions, added %d mov, %d nop, %d spill, %d reload, %d init, %d bra, %d ret; max distance %d",
		p.Func.Fn.Name, p.Static[KInst], p.Static[KMov], p.Static[KNop], p.Static[KSpill], p.Static[KReload], p.Static[KInit], p.Static[KBra], p.Static[KRet], p.MaxDist)
}
