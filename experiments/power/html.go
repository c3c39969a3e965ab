package power

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/ptxtrace/ptxtrace/viewers/report"
)

// levelTable is r's per-level table (WriteTable's columns).
func levelTable(r *Result, caption string) *report.Table {
	t := &report.Table{Caption: caption, Columns: []string{"level", "blocks", "busy %", "idle %", "BET", "gates", "net %",
		"idle < 10", "< 100", "< 1k", "< 10k", "≥ 10k"}}
	for _, lv := range r.Levels() {
		saved, gates := lv.Net(lv.BET)
		d := lv.Idle.Decades()
		u := func(v uint64) string { return strconv.FormatUint(v, 10) }
		t.Rows = append(t.Rows, []string{lv.Name, strconv.Itoa(lv.Blocks), pct(ratio(lv.Busy, lv.Exposure)) + " %",
			pct(ratio(lv.IdleCycles(), lv.Exposure)) + " %", u(uint64(lv.BET)), u(gates), pct(ratio(saved, lv.Exposure)) + " %",
			u(d[0]), u(d[1]), u(d[2]), u(d[3]), u(d[4])})
	}
	return t
}

// HTML is the power section of a report page: the analysis of r (table
// and ideal curve), and, when given, the consolidation (seed Fig. 15) and
// the four SIMD-level settings (seed Fig. 17).
func HTML(r *Result, cons *Consolidation, cmp *Comparison, generated string) (*report.Report, error) {
	rep := &report.Report{
		Title: fmt.Sprintf("ptxtrace power: %s on %s", r.Kernel, r.Model),
		Intro: fmt.Sprintf("Ideal power gating (seed 000, docs/power.md): %d launch(es), %d cycles, %d SMs. "+
			"Net %% is Σ(idle intervals ≥ BET) − gates × BET over blocks × cycles.", r.Launches, r.Cycles, r.NumSMs),
		Generated: generated,
		Summary:   levelTable(r, "Busy, idle and net gateable shares per level, idle intervals by length"),
	}
	var b bytes.Buffer
	if err := r.Chart().Render(&b); err != nil {
		return nil, err
	}
	rep.Sections = append(rep.Sections, report.Section{Title: "Ideal curve", SVG: b.Bytes(),
		Text: "Net gateable share of every level against the break-even time, 1 … 10,000 cycles."})
	if cons != nil {
		var s bytes.Buffer
		cons.WriteSummary(&s)
		rep.Sections = append(rep.Sections, report.Section{Title: "CTA consolidation (seed Fig. 15)", Text: s.String(),
			Table: levelTable(cons.Consolidated, "Consolidated placement")})
	}
	if cmp != nil {
		rows, err := cmp.Rows()
		if err != nil {
			return nil, err
		}
		var c bytes.Buffer
		if err := cmp.Chart().Render(&c); err != nil {
			return nil, err
		}
		t := &report.Table{Columns: []string{"setting", "cycles", "relative", "lane net %", "unit net %"}}
		for _, row := range rows {
			t.Rows = append(t.Rows, []string{row.Setting, strconv.FormatUint(uint64(row.Cycles), 10), fmt.Sprintf("%.3f", row.Relative),
				pct(row.LaneShare) + " %", pct(row.UnitShare) + " %"})
		}
		var s bytes.Buffer
		fmt.Fprintf(&s, "SM-slices in State-1 … 4: %v (slices of %d cycles).", cmp.Slices.Slices, cmp.Control.Slice)
		rep.Sections = append(rep.Sections, report.Section{Title: "Issue control and thread compaction (seed Fig. 17)",
			Text: s.String(), SVG: c.Bytes(), Table: t})
	}
	return rep, nil
}

// Sections are the power sections of another report page (ptxtrace
// report --html on a run recorded with --activity): r's level table and
// its ideal curve.
func Sections(r *Result) ([]report.Section, error) {
	var b bytes.Buffer
	if err := r.Chart().Render(&b); err != nil {
		return nil, err
	}
	return []report.Section{
		{Title: "Power gating: busy and idle per level (seed 000)", Table: levelTable(r, ""),
			Text: fmt.Sprintf("Model activity recorded by ptxtrace run --activity: %d launch(es), %d cycles, %d SMs, active cycles Σ %d. "+
				"Net %% is Σ(idle intervals ≥ BET) − gates × BET over blocks × cycles (docs/power.md); BET %d for units and lanes, core by active cycles.",
				r.Launches, r.Cycles, r.NumSMs, r.ActiveCycles, SeedBET)},
		{Title: "Power gating: ideal curve", SVG: b.Bytes(),
			Text: "Net gateable share of every level against the break-even time, 1 … 10,000 cycles."},
	}, nil
}
