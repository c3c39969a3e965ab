package transfer

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ptxtrace/ptxtrace/model"
)

// DefaultSizes are the sweep's sizes: powers of two from 8 B to 64 MB.
func DefaultSizes() []int64 { return Sizes(8, 64<<20) }

// Sizes returns the powers of two from lo to hi (both rounded to powers of
// two: lo up, hi down); nil when the range is empty.
func Sizes(lo, hi int64) []int64 {
	var out []int64
	s := int64(1)
	for s < lo && s <= model.MaxTransferBytes {
		s *= 2
	}
	for ; s <= hi && s <= model.MaxTransferBytes; s *= 2 {
		out = append(out, s)
	}
	return out
}

// Series is one method's (or pair's) times over the sweep's sizes.
type Series struct {
	Name string          // "dma", …, or a pair "dma+dma", "dma|hub"
	Pair bool            // a pair of two transfers (seed Fig. 12)
	Dir  model.Direction // h2d or d2h
	Ps   []int64         // time per size, picoseconds
}

// Sweep is every method and pair in both directions over Sizes.
type Sweep struct {
	Spec   model.TransferSpec
	Sizes  []int64
	Series []Series // per direction (h2d, d2h): the five methods, then the eight pairs
}

// Run sweeps ts over sizes (ascending, positive). Buffers are 256-aligned.
func Run(ts model.TransferSpec, sizes []int64) (*Sweep, error) {
	if err := ts.Validate(); err != nil {
		return nil, err
	}
	if len(sizes) == 0 {
		return nil, fmt.Errorf("transfer sweep: no sizes")
	}
	for i, s := range sizes {
		if s <= 0 || (i > 0 && s <= sizes[i-1]) {
			return nil, fmt.Errorf("transfer sweep: sizes must be positive and ascending (size %d = %d)", i, s)
		}
	}
	sw := &Sweep{Spec: ts, Sizes: sizes}
	for _, d := range []model.Direction{model.HostToDevice, model.DeviceToHost} {
		for _, m := range model.TransferMethods() {
			se := Series{Name: string(m), Dir: d}
			for _, s := range sizes {
				ps, err := ts.TransferTime(m, d, 0, 0, s)
				if err != nil {
					return nil, err
				}
				se.Ps = append(se.Ps, ps)
			}
			sw.Series = append(sw.Series, se)
		}
		for _, p := range model.TransferPairs() {
			se := Series{Name: p.String(), Pair: true, Dir: d}
			for _, s := range sizes {
				ps, err := ts.PairTime(p, d, s)
				if err != nil {
					return nil, err
				}
				se.Ps = append(se.Ps, ps)
			}
			sw.Series = append(sw.Series, se)
		}
	}
	return sw, nil
}

// group returns the series of one direction and kind, in sweep order.
func (sw *Sweep) group(d model.Direction, pair bool) []Series {
	var out []Series
	for _, s := range sw.Series {
		if s.Dir == d && s.Pair == pair {
			out = append(out, s)
		}
	}
	return out
}

// best is the index within g of the fastest series at size index i (ties:
// the earlier series).
func best(g []Series, i int) int {
	b := 0
	for j := range g {
		if g[j].Ps[i] < g[b].Ps[i] {
			b = j
		}
	}
	return b
}

// Crossover is where the fastest method of a group changes: From is
// fastest at the size below Size, To from Size on.
type Crossover struct {
	Dir      model.Direction
	Pair     bool
	Size     int64
	From, To string
}

// Crossovers lists every change of the fastest method, per direction,
// singles then pairs, in size order.
func (sw *Sweep) Crossovers() []Crossover {
	var out []Crossover
	for _, d := range []model.Direction{model.HostToDevice, model.DeviceToHost} {
		for _, pair := range []bool{false, true} {
			g := sw.group(d, pair)
			for i := 1; i < len(sw.Sizes); i++ {
				a, b := best(g, i-1), best(g, i)
				if a != b {
					out = append(out, Crossover{Dir: d, Pair: pair, Size: sw.Sizes[i], From: g[a].Name, To: g[b].Name})
				}
			}
		}
	}
	return out
}

// Band is a maximal run of sizes with the same fastest method.
type Band struct {
	Dir          model.Direction
	Pair         bool
	Lo, Hi       int64  // sizes, inclusive
	Best         string // fastest method or pair
	RunnerUp     string // second fastest at Lo
	BestPs       [2]int64
	DMAPs        [2]int64 // the DMA baseline (dma, or dma+dma for pairs) at Lo and Hi
	BestAtLoOver float64  // runner-up time / best time at Lo (≥ 1)
}

// Bands is the recommendation table: per direction and kind, the size
// bands and their fastest method.
func (sw *Sweep) Bands() []Band {
	var out []Band
	for _, d := range []model.Direction{model.HostToDevice, model.DeviceToHost} {
		for _, pair := range []bool{false, true} {
			g := sw.group(d, pair)
			start := 0
			for i := 1; i <= len(sw.Sizes); i++ {
				if i < len(sw.Sizes) && best(g, i) == best(g, start) {
					continue
				}
				b := best(g, start)
				ru := -1
				for j := range g {
					if j != b && (ru < 0 || g[j].Ps[start] < g[ru].Ps[start]) {
						ru = j
					}
				}
				out = append(out, Band{Dir: d, Pair: pair, Lo: sw.Sizes[start], Hi: sw.Sizes[i-1],
					Best: g[b].Name, RunnerUp: g[ru].Name,
					BestPs:       [2]int64{g[b].Ps[start], g[b].Ps[i-1]},
					DMAPs:        [2]int64{g[0].Ps[start], g[0].Ps[i-1]},
					BestAtLoOver: float64(g[ru].Ps[start]) / float64(g[b].Ps[start])})
				start = i
			}
		}
	}
	return out
}

// FormatBytes prints a size as 8B, 4KB, 64MB (powers of 1024 when exact).
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KB"
	}
	return strconv.FormatInt(n, 10) + "B"
}

// us formats ps as microseconds with 3 decimals (exact: 1 ps = 10^-6 µs
// is below the printed resolution, so the value is rounded half up).
func us(ps int64) string { return strconv.FormatFloat(float64(ps)/1e6, 'f', 3, 64) }

// ns formats ps as nanoseconds with exactly 3 decimals (no rounding).
func ns(ps int64) string { return fmt.Sprintf("%d.%03d", ps/1000, ps%1000) }

func kind(pair bool) string {
	if pair {
		return "pair"
	}
	return "single"
}

// WriteTable prints, per direction, the single methods' and the pairs'
// times in µs (the fastest of each row marked *), the crossovers and the
// recommendation table.
func (sw *Sweep) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "transfer model %s (PCIe %d.0 x%d): time per copy, µs; * fastest\n", sw.Spec.Name, sw.Spec.Link.Gen, sw.Spec.Link.Lanes)
	for _, d := range []model.Direction{model.HostToDevice, model.DeviceToHost} {
		for _, pair := range []bool{false, true} {
			g := sw.group(d, pair)
			title := d.String() + " single transfer"
			if pair {
				title = d.String() + " two transfers (+ sequential, | overlapped)"
			}
			fmt.Fprintf(w, "\n%s\n", title)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprint(tw, "bytes\t")
			for _, s := range g {
				fmt.Fprintf(tw, "%s \t", s.Name)
			}
			fmt.Fprintln(tw)
			for i, size := range sw.Sizes {
				b := best(g, i)
				fmt.Fprintf(tw, "%s\t", FormatBytes(size))
				for j, s := range g {
					mark := " "
					if j == b {
						mark = "*"
					}
					fmt.Fprintf(tw, "%s%s\t", us(s.Ps[i]), mark)
				}
				fmt.Fprintln(tw)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
	}
	fmt.Fprintln(w, "\ncrossovers (fastest method changes at SIZE):")
	for _, c := range sw.Crossovers() {
		fmt.Fprintf(w, "  %s %-6s at %-6s %s -> %s\n", c.Dir, kind(c.Pair), FormatBytes(c.Size), c.From, c.To)
	}
	return sw.WriteRecommendations(w)
}

// WriteRecommendations prints the per-band recommendation table.
func (sw *Sweep) WriteRecommendations(w io.Writer) error {
	fmt.Fprintln(w, "\nrecommendation per size band:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "dir\tkind\tsizes\tuse\ttime µs\tvs DMA\tnext best (×slower at low end)")
	for _, b := range sw.Bands() {
		sizes := FormatBytes(b.Lo)
		if b.Hi != b.Lo {
			sizes += " … " + FormatBytes(b.Hi)
		}
		t := us(b.BestPs[0])
		if b.Hi != b.Lo {
			t += " … " + us(b.BestPs[1])
		}
		vs := fmt.Sprintf("%.2fx", float64(b.DMAPs[0])/float64(b.BestPs[0]))
		if b.Hi != b.Lo {
			vs += fmt.Sprintf(" … %.2fx", float64(b.DMAPs[1])/float64(b.BestPs[1]))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s (%.2fx)\n", b.Dir, kind(b.Pair), sizes, b.Best, t, vs, b.RunnerUp, b.BestAtLoOver)
	}
	return tw.Flush()
}

// WriteCSV writes one row per direction, kind, method and size: time in
// ns with three decimals (exact) and whether it is the fastest of its
// kind at that size.
func (sw *Sweep) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"model", "direction", "kind", "method", "bytes", "time_ns", "fastest"}); err != nil {
		return err
	}
	for _, d := range []model.Direction{model.HostToDevice, model.DeviceToHost} {
		for _, pair := range []bool{false, true} {
			g := sw.group(d, pair)
			for j, s := range g {
				for i, size := range sw.Sizes {
					rec := []string{sw.Spec.Name, d.String(), kind(pair), s.Name, strconv.FormatInt(size, 10), ns(s.Ps[i]),
						strconv.FormatBool(best(g, i) == j)}
					if err := cw.Write(rec); err != nil {
						return err
					}
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// Recommend returns the fastest single method for each direction and
// size band as "h2d: iorw 8B…128KB, dma 256KB…64MB" lines.
func (sw *Sweep) Recommend() []string {
	var out []string
	for _, d := range []model.Direction{model.HostToDevice, model.DeviceToHost} {
		var parts []string
		for _, b := range sw.Bands() {
			if b.Dir == d && !b.Pair {
				parts = append(parts, fmt.Sprintf("%s %s…%s", b.Best, FormatBytes(b.Lo), FormatBytes(b.Hi)))
			}
		}
		out = append(out, d.String()+": "+strings.Join(parts, ", "))
	}
	return out
}

// ParseBytes parses a size: digits with an optional suffix B, KB, MB or GB
// (powers of 1024; case-insensitive).
func ParseBytes(s string) (int64, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	mul := int64(1)
	for _, sf := range []struct {
		suf string
		m   int64
	}{{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(u, sf.suf) {
			u, mul = strings.TrimSuffix(u, sf.suf), sf.m
			break
		}
	}
	n, err := strconv.ParseInt(u, 10, 64)
	if err != nil || n <= 0 || n > model.MaxTransferBytes/mul {
		return 0, fmt.Errorf("size %q: want a positive number of bytes up to 1TB, with an optional suffix B, KB, MB or GB", s)
	}
	return n * mul, nil
}
