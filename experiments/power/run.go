package power

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/replay"
	"github.com/ptxtrace/ptxtrace/viewers/svg"
)

type launchResult = launch.LaunchResult

// Input is one workload: a program, its launch spec and the model.
type Input struct {
	Prog    *replay.Program
	Spec    *launch.Spec
	BaseDir string // directory the launch spec's files are relative to
	Model   model.Spec
	// Workers is model.Options.Workers; results do not depend on it.
	Workers int
	// OnLaunch, when set, is called after each launch (progress).
	OnLaunch func(i int, lr *launch.LaunchResult)
	// Progress, when set, is model.Options.Progress of every run.
	Progress model.ProgressFunc
}

// Run executes every launch of in on the model with a Recorder attached,
// checks the outputs the spec names, and returns the analysis under cfg.
// A failed output check is an error: activity of a wrong run is not
// reported.
func Run(ctx context.Context, in Input, cfg Config) (*Result, error) {
	rs, _, _, err := run(ctx, in, cfg, nil, []bool{false})
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// run is Run with the issue controller ctl (nil: none) and one recorder
// per element of compact (its Compact setting), returning one Result per
// recorder, the final contents of the output buffers and the
// controller's statistics.
func run(ctx context.Context, in Input, cfg Config, ctl *IssueControl, compact []bool) ([]*Result, map[string][]byte, *ControlStats, error) {
	return runWith(ctx, in, cfg, ctl, compact, nil, nil)
}

// runExtra is Run with an extra observer per part (nil: none).
func runExtra(ctx context.Context, in Input, cfg Config, extra func(part int) model.Observer) (*Result, map[string][]byte, *ControlStats, error) {
	rs, out, st, err := runWith(ctx, in, cfg, nil, []bool{false}, nil, extra)
	if err != nil {
		return nil, nil, nil, err
	}
	return rs[0], out, st, nil
}

// runWith is run also handing the kernel name and every recorder's
// launches to done (when set) after the outputs were checked, and
// attaching extra's observers (when set) besides the recorders.
func runWith(ctx context.Context, in Input, cfg Config, ctl *IssueControl, compact []bool, done func(kernel string, ls [][]*Launch),
	extra func(part int) model.Observer) ([]*Result, map[string][]byte, *ControlStats, error) {
	if err := in.Model.Validate(); err != nil {
		return nil, nil, nil, err
	}
	if ctl != nil {
		if err := ctl.Validate(&in.Model); err != nil {
			return nil, nil, nil, err
		}
	}
	reg := launch.SampleRegistry()
	prep, err := in.Spec.Prepare(in.Prog, launch.PrepareOptions{BaseDir: in.BaseDir, Registry: reg, GPU: &in.Model})
	if err != nil {
		return nil, nil, nil, err
	}
	launches := make([][]*Launch, len(compact))
	var names []string
	seen := map[string]bool{}
	var recs []*Recorder
	var ctls []*smControl
	stats := &ControlStats{}
	var ferr error
	control := func(sm int) *smControl {
		if ctls == nil {
			ctls = make([]*smControl, in.Model.NumSMs)
		}
		if ctls[sm] == nil {
			ctls[sm] = newSMControl(ctl, &in.Model)
		}
		return ctls[sm]
	}
	opt := model.Options{Workers: in.Workers, Progress: in.Progress, Observe: func(part int) model.Observer {
		if recs == nil {
			for _, c := range compact {
				r := NewRecorder(&in.Model)
				r.Compact = c
				recs = append(recs, r)
			}
		}
		var obs []model.Observer
		for _, r := range recs {
			if o := r.Observe(part); o != nil {
				obs = append(obs, o)
			}
		}
		if ctl != nil && part >= 0 && part < in.Model.NumSMs {
			obs = append(obs, control(part))
		}
		if extra != nil {
			obs = append(obs, extra(part))
		}
		return teeOf(obs...)
	}}
	if ctl != nil {
		opt.Policy = func(sm, sched int) model.IssuePolicy {
			p, err := model.NewPolicy(&in.Model, in.Model.SM.Scheduler)
			if err != nil {
				if ferr == nil {
					ferr = err
				}
				p, _ = model.NewPolicy(&in.Model, model.GTO)
			}
			return &ctlPolicy{inner: p, c: control(sm)}
		}
	}
	onLaunch := func(i int, lr *launch.LaunchResult) {
		if recs == nil || lr.Timing == nil {
			if ferr == nil {
				ferr = fmt.Errorf("power: launch %d (%s) ran without the recorder", i, lr.Kernel)
			}
			return
		}
		if !seen[lr.Kernel] {
			seen[lr.Kernel] = true
			names = append(names, lr.Kernel)
		}
		for j, rec := range recs {
			l, err := rec.Finish(lr.Timing.Cycles)
			if err != nil && ferr == nil {
				ferr = fmt.Errorf("launch %d (%s): %w", i, lr.Kernel, err)
			}
			launches[j] = append(launches[j], l)
		}
		recs = nil
		for _, c := range ctls {
			if c != nil {
				c.finish(stats)
			}
		}
		ctls = nil
		if in.OnLaunch != nil {
			in.OnLaunch(i, lr)
		}
	}
	if _, err := prep.Run(ctx, launch.ExecOptions{Model: &in.Model, ModelOpt: opt, OnLaunch: onLaunch}); err != nil {
		return nil, nil, nil, err
	}
	if ferr != nil {
		return nil, nil, nil, ferr
	}
	for _, c := range prep.Check(reg, in.BaseDir) {
		if !c.OK {
			return nil, nil, nil, fmt.Errorf("power: output %s differs from %s: %s", c.Buffer, c.Against, c.Msg)
		}
	}
	out := map[string][]byte{}
	for _, b := range prep.Buffers {
		if b.Output {
			out[b.Name] = append([]byte(nil), b.Alloc.Data...)
		}
	}
	kernel := strings.Join(names, "+")
	if done != nil {
		done(kernel, launches)
	}
	var rs []*Result
	for _, ls := range launches {
		r, err := Summarise(kernel, &in.Model, ls, cfg)
		if err != nil {
			return nil, nil, nil, err
		}
		rs = append(rs, r)
	}
	return rs, out, stats, nil
}

func pct(v float64) string { return strconv.FormatFloat(100*v, 'f', 2, 64) }

// WriteTable writes r as an aligned text table: per level the blocks,
// busy and idle shares, gated intervals and net saving at the level's
// BET, and the idle-interval histogram by decades.
func (r *Result) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%s on %s: %d launch(es), %d cycles, %d SMs, active cycles Σ %d (%.2f%% of %d SM-cycles)\n",
		r.Kernel, r.Model, r.Launches, r.Cycles, r.NumSMs, r.ActiveCycles,
		100*ratio(r.ActiveCycles, r.Core.Exposure), r.Core.Exposure)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "level\tblocks\tbusy%\tidle%\tBET\tgates\tnet%\tidle<10\t<100\t<1k\t<10k\t≥10k\t")
	for _, lv := range r.Levels() {
		saved, gates := lv.Net(lv.BET)
		d := lv.Idle.Decades()
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t\n", lv.Name, lv.Blocks,
			pct(ratio(lv.Busy, lv.Exposure)), pct(ratio(lv.IdleCycles(), lv.Exposure)), lv.BET, gates,
			pct(ratio(saved, lv.Exposure)), d[0], d[1], d[2], d[3], d[4])
	}
	return tw.Flush()
}

func ratio(a, b model.Time) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// CSVHeader is the header of WriteCSV's rows.
var CSVHeader = []string{"kernel", "model", "level", "blocks", "cycles", "exposure", "busy", "idle",
	"bet", "gates", "saved", "net_share", "idle_lt10", "idle_lt100", "idle_lt1k", "idle_lt10k", "idle_ge10k"}

// WriteCSV writes one row per level (with a header when header is set).
func (r *Result) WriteCSV(w io.Writer, header bool) error {
	cw := csv.NewWriter(w)
	if header {
		cw.Write(CSVHeader)
	}
	for _, row := range r.rows() {
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// rows are WriteCSV's rows.
func (r *Result) rows() [][]string {
	var out [][]string
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	for _, lv := range r.Levels() {
		saved, gates := lv.Net(lv.BET)
		d := lv.Idle.Decades()
		out = append(out, []string{r.Kernel, r.Model, lv.Name, strconv.Itoa(lv.Blocks), u(uint64(r.Cycles)),
			u(uint64(lv.Exposure)), u(uint64(lv.Busy)), u(uint64(lv.IdleCycles())), u(uint64(lv.BET)),
			u(gates), u(uint64(saved)), float(lv.Share(lv.BET)),
			u(d[0]), u(d[1]), u(d[2]), u(d[3]), u(d[4])})
	}
	return out
}

// JSON is the JSON form of a Result: the result and its ideal curves.
type JSON struct {
	*Result
	Curves []Curve `json:"curves"`
}

// WriteJSON writes r with its ideal curves as indented JSON.
func (r *Result) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(JSON{r, r.Curves(CurveBETs())}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Chart is the ideal curve of every level of r: net saving share (%)
// against BET on a log10 axis.
func (r *Result) Chart() *svg.LineChart {
	c := &svg.LineChart{
		Title:  fmt.Sprintf("Ideal power gating: %s on %s", r.Kernel, r.Model),
		Desc:   "net gateable share of cycles (idle intervals ≥ BET, minus BET per gating) against the break-even time",
		XLabel: "log10 BET (cycles)",
		YLabel: "net saving (% of cycles)",
		Style:  svg.LinesMarkers,
		YZero:  true,
	}
	for _, cv := range r.Curves(CurveBETs()) {
		s := svg.LineSeries{Name: cv.Level}
		for i, b := range cv.BETs {
			s.X = append(s.X, log10(float64(b)))
			s.Y = append(s.Y, 100*cv.Share[i])
		}
		c.Series = append(c.Series, s)
	}
	return c
}
