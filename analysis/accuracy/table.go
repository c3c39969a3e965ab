package accuracy

import (
	"fmt"
	"sort"
	"strings"
)

// Table formats rows as a Markdown table: one line per row with the
// overall numbers, the per-space relative errors and the cause of a
// failure.
func Table(rows []Row) string {
	var b strings.Builder
	b.WriteString("| kernel | preset (PTX) | mode | regions | true | measured | cost | issue wait | |meas−wait−true−cost|/true | |meas−true−cost|/true | underestimate | per space (incl. wait) | ok | strict |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for i := range rows {
		r := &rows[i]
		if r.NotRun != "" || r.Err != nil {
			fmt.Fprintf(&b, "| %s | %s (%s) | %s | – | – | – | – | – | – | – | – | – | %s | %s |\n", r.Kernel, r.Preset, r.Arch, r.Mode, r.Cause(), r.Cause())
			continue
		}
		var sp []string
		for _, s := range r.Spaces {
			sp = append(sp, fmt.Sprintf("%s/%s %d: %.1f%%", s.Space, s.Probe, s.Regions, 100*s.RelErr))
		}
		ok, strict := "yes", "yes"
		if !r.OK() {
			ok = "**no**"
		}
		if !r.OKStrict() {
			strict = "no"
		}
		fmt.Fprintf(&b, "| %s | %s (%s) | %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f%% | %.1f%% | %.1f%% | %s | %s | %s |\n",
			r.Kernel, r.Preset, r.Arch, r.Mode, r.Regions, r.TrueMean, r.MeasMean, r.CostMean, r.IssueWait,
			100*r.NetErr, 100*r.RelErr, 100*r.Under, strings.Join(sp, ", "), ok, strict)
	}
	return b.String()
}

// Summary counts, per mode, the rows that are OK among those of the mode.
type Summary struct {
	Mode      string
	OK, Rows  int
	OKOverall int      // rows meeting the threshold over all their regions, issue wait included (Row.OKOverall)
	OKStrict  int      // rows meeting the per-space rule, issue wait included (Row.OKStrict)
	Failing   []string // "kernel/preset: cause" of the rows not OK
}

// Summarize returns one Summary per mode, in the order modes first appear.
func Summarize(rows []Row) []Summary {
	var out []Summary
	idx := map[string]int{}
	for i := range rows {
		r := &rows[i]
		j, ok := idx[r.Mode]
		if !ok {
			j = len(out)
			idx[r.Mode] = j
			out = append(out, Summary{Mode: r.Mode})
		}
		s := &out[j]
		s.Rows++
		if r.OKOverall() {
			s.OKOverall++
		}
		if r.OKStrict() {
			s.OKStrict++
		}
		if r.OK() {
			s.OK++
		} else {
			s.Failing = append(s.Failing, fmt.Sprintf("%s/%s (%s): %s", r.Kernel, r.Preset, r.Arch, r.Cause()))
		}
	}
	return out
}

// Fraction is OK / Rows (0 for no rows).
func (s Summary) Fraction() float64 {
	if s.Rows == 0 {
		return 0
	}
	return float64(s.OK) / float64(s.Rows)
}

// Matrix formats the rows of one mode as a Markdown kernel × preset table
// (kernels and presets in the order they first appear). Each cell is the
// mean error without the issue wait (naive: the underestimate) in percent,
// marked ✗ when the row fails the acceptance, or the reason it did not run.
func Matrix(rows []Row, mode string) string {
	var kernels, presets []string
	cell := map[[2]string]*Row{}
	for i := range rows {
		r := &rows[i]
		if r.Mode != mode {
			continue
		}
		k := [2]string{r.Kernel, r.Preset}
		if _, ok := cell[k]; !ok {
			if !contains(kernels, r.Kernel) {
				kernels = append(kernels, r.Kernel)
			}
			if !contains(presets, r.Preset) {
				presets = append(presets, r.Preset)
			}
		}
		cell[k] = r
	}
	var b strings.Builder
	b.WriteString("| " + mode + " | " + strings.Join(presets, " | ") + " |\n|---")
	b.WriteString(strings.Repeat("|---", len(presets)) + "|\n")
	for _, k := range kernels {
		b.WriteString("| " + k)
		for _, p := range presets {
			r := cell[[2]string{k, p}]
			switch {
			case r == nil:
				b.WriteString(" | ")
			case r.NotRun != "":
				b.WriteString(" | not run")
			case r.Err != nil:
				b.WriteString(" | error")
			default:
				v := r.NetErr
				if mode == "naive" {
					v = r.Under
				}
				mark := ""
				if !r.OK() {
					mark = " ✗"
				}
				fmt.Fprintf(&b, " | %.1f%%%s", 100*v, mark)
			}
		}
		b.WriteString(" |\n")
	}
	return b.String()
}

func contains(s []string, v string) bool {
	for _, e := range s {
		if e == v {
			return true
		}
	}
	return false
}

// Worst formats the probed loads of r whose mean excess (measured − true −
// cost) is largest, at most n of them, one per line.
func Worst(r *Row, n int) string {
	ls := append([]LineStat(nil), r.Lines...)
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].MeanExcess > ls[j].MeanExcess })
	var b strings.Builder
	for i := 0; i < len(ls) && i < n; i++ {
		l := ls[i]
		fmt.Fprintf(&b, "line %d %s (%s/%s, %d regions, true %.0f): excess mean %+.1f max %+.0f, of which issue wait %.1f\n",
			l.Line, strings.TrimSpace(l.Text), l.Space, l.Probe, l.Regions, l.TrueMean, l.MeanExcess, l.MaxExcess, l.IssueWait)
	}
	return b.String()
}
