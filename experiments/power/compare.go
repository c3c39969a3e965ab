package power

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/viewers/svg"
)

// Comparison is one workload under the seed's four SIMD-level settings
// (§5.2, Fig. 17): normal (the model's issue), issue (IssueControl), comp
// (thread compaction on normal issue) and mix (both). Compaction changes
// no timing, so two model runs serve the four: normal and comp come from
// the same run, issue and mix from the controlled one.
type Comparison struct {
	Normal, Issue, Comp, Mix *Result
	Control                  IssueControl
	// Slices are the controlled run's time slices per state.
	Slices ControlStats
}

// RunComparison runs in without and with ctl, each with a plain and a
// compacting recorder, and refuses a difference in any output buffer's
// bytes between the two runs.
func RunComparison(ctx context.Context, in Input, cfg Config, ctl IssueControl) (*Comparison, error) {
	if err := ctl.Validate(&in.Model); err != nil {
		return nil, err
	}
	n, nout, _, err := run(ctx, in, cfg, nil, []bool{false, true})
	if err != nil {
		return nil, err
	}
	is, iout, st, err := run(ctx, in, cfg, &ctl, []bool{false, true})
	if err != nil {
		return nil, err
	}
	if err := sameOutputs(nout, iout, "normal and issue-controlled runs"); err != nil {
		return nil, err
	}
	return &Comparison{Normal: n[0], Comp: n[1], Issue: is[0], Mix: is[1], Control: ctl, Slices: *st}, nil
}

// Settings returns the four settings in the seed's order with their names.
func (c *Comparison) Settings() ([4]string, [4]*Result) {
	return [4]string{"normal", "issue", "comp", "mix"}, [4]*Result{c.Normal, c.Issue, c.Comp, c.Mix}
}

// Fig17 is one setting's row of seed Fig. 17: the net gateable share of the
// controlled unit kind's lanes (a) and units at their BETs, and the
// execution cycles relative to normal (b).
type Fig17 struct {
	Setting   string     `json:"setting"`
	Cycles    model.Time `json:"cycles"`
	Relative  float64    `json:"relative_cycles"`
	LaneShare float64    `json:"lane_share"`
	UnitShare float64    `json:"unit_share"`
}

// Rows returns the Fig. 17 rows of the controlled unit kind.
func (c *Comparison) Rows() ([]Fig17, error) {
	names, rs := c.Settings()
	kind := "lane " + c.Control.Unit.String()
	ukind := "unit " + c.Control.Unit.String()
	var out []Fig17
	for i, r := range rs {
		row := Fig17{Setting: names[i], Cycles: r.Cycles, Relative: ratio(r.Cycles, c.Normal.Cycles)}
		found := 0
		for _, lv := range r.Levels() {
			switch lv.Name {
			case kind:
				row.LaneShare = lv.Share(lv.BET)
				found++
			case ukind:
				row.UnitShare = lv.Share(lv.BET)
				found++
			}
		}
		if found != 2 {
			return nil, fmt.Errorf("power: %s has no %s level", r.Model, kind)
		}
		out = append(out, row)
	}
	return out, nil
}

// WriteTable writes the Fig. 17 rows and the controller's time in each
// state.
func (c *Comparison) WriteTable(w io.Writer) error {
	rows, err := c.Rows()
	if err != nil {
		return err
	}
	u := c.Control.Unit.String()
	fmt.Fprintf(w, "%s on %s, %s lanes and units at BET %d; issue control: slices of %d cycles, down %v, up %v\n",
		c.Normal.Kernel, c.Normal.Model, u, c.Normal.Config.LaneBET[c.Control.Unit], c.Control.Slice, c.Control.Down, c.Control.Up)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "setting\tcycles\trelative\tlane %s net%%\tunit %s net%%\t\n", u, u)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%s\t%s\t\n", r.Setting, r.Cycles, r.Relative, pct(r.LaneShare), pct(r.UnitShare))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var tot uint64
	for _, n := range c.Slices.Slices {
		tot += n
	}
	fmt.Fprintf(w, "SM-slices in State-1…4: %v", c.Slices.Slices)
	if tot > 0 {
		fmt.Fprintf(w, " (%.1f / %.1f / %.1f / %.1f %%)", 100*float64(c.Slices.Slices[0])/float64(tot),
			100*float64(c.Slices.Slices[1])/float64(tot), 100*float64(c.Slices.Slices[2])/float64(tot),
			100*float64(c.Slices.Slices[3])/float64(tot))
	}
	_, err = fmt.Fprintln(w)
	return err
}

// WriteCSV writes the level rows of the four settings, with a leading
// setting column (and a header when header is set).
func (c *Comparison) WriteCSV(w io.Writer, header bool) error {
	cw := csv.NewWriter(w)
	if header {
		cw.Write(append([]string{"setting"}, CSVHeader...))
	}
	names, rs := c.Settings()
	for i, r := range rs {
		for _, row := range r.rows() {
			cw.Write(append([]string{names[i]}, row...))
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSON writes the four results (with curves), the Fig. 17 rows, the
// control settings and the state statistics.
func (c *Comparison) WriteJSON(w io.Writer) error {
	rows, err := c.Rows()
	if err != nil {
		return err
	}
	names, rs := c.Settings()
	v := struct {
		Settings map[string]JSON `json:"settings"`
		Fig17    []Fig17         `json:"fig17"`
		Control  IssueControl    `json:"control"`
		Slices   ControlStats    `json:"slices"`
	}{map[string]JSON{}, rows, c.Control, c.Slices}
	for i, r := range rs {
		v.Settings[names[i]] = JSON{r, r.Curves(CurveBETs())}
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// float formats v for CSV.
func float(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }

// Chart is seed Fig. 17 for one workload: per setting, the net gateable
// share (%) of the controlled kind's lanes and units, and the execution
// cycles relative to normal (%).
func (c *Comparison) Chart() *svg.BarChart {
	rows, _ := c.Rows()
	u := c.Control.Unit.String()
	ch := &svg.BarChart{
		Title:       fmt.Sprintf("Issue control and compaction: %s on %s", c.Normal.Kernel, c.Normal.Model),
		Desc:        "seed 000 Fig. 17: (a) net gateable share of cycles at the BET, (b) execution cycles relative to normal",
		YLabel:      "%",
		ValueLabels: true,
		ValueFormat: "%.1f",
	}
	lane := svg.BarSeries{Name: "lane " + u + " net gateable (%)"}
	unit := svg.BarSeries{Name: "unit " + u + " net gateable (%)"}
	rel := svg.BarSeries{Name: "relative cycles (%)"}
	for _, r := range rows {
		ch.Categories = append(ch.Categories, r.Setting)
		lane.Values = append(lane.Values, 100*r.LaneShare)
		unit.Values = append(unit.Values, 100*r.UnitShare)
		rel.Values = append(rel.Values, 100*r.Relative)
	}
	ch.Series = []svg.BarSeries{lane, unit, rel}
	return ch
}
