package accuracy

import (
	"fmt"
	"strings"
)

// Table formats rows as a Markdown table: one line per row with the
// overall numbers, the per-space relative errors and the cause of a
// failure.
func Table(rows []Row) string {
	var b strings.Builder
	b.WriteString("| kernel | preset (PTX) | mode | regions | true | measured | cost | |meas−true−cost|/true | underestimate | per space | ok |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for i := range rows {
		r := &rows[i]
		if r.NotRun != "" || r.Err != nil {
			fmt.Fprintf(&b, "| %s | %s (%s) | %s | – | – | – | – | – | – | – | %s |\n", r.Kernel, r.Preset, r.Arch, r.Mode, r.Cause())
			continue
		}
		var sp []string
		for _, s := range r.Spaces {
			sp = append(sp, fmt.Sprintf("%s/%s %d: %.1f%%", s.Space, s.Probe, s.Regions, 100*s.RelErr))
		}
		ok := "yes"
		if !r.OK() {
			ok = "**no**"
		}
		fmt.Fprintf(&b, "| %s | %s (%s) | %s | %d | %.1f | %.1f | %.1f | %.1f%% | %.1f%% | %s | %s |\n",
			r.Kernel, r.Preset, r.Arch, r.Mode, r.Regions, r.TrueMean, r.MeasMean, r.CostMean,
			100*r.RelErr, 100*r.Under, strings.Join(sp, ", "), ok)
	}
	return b.String()
}

// Summary counts, per mode, the rows that are OK among those of the mode.
type Summary struct {
	Mode     string
	OK, Rows int
	Failing  []string // "kernel/preset: cause"
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
