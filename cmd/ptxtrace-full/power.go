package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptxtrace/ptxtrace/experiments/power"
	"github.com/ptxtrace/ptxtrace/internal/atomicfile"
	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/urfave/cli/v2"
)

type powerOptions struct {
	streams
	PTX, Launch, Model string
	BET, CoreBET       int
	CSV, JSON          bool
	SVG                string
	Workers            int
	Consolidate        bool
	Policies           bool
	Slice              int
	Activity, From     string
	HTML               string
	Congestion         float64
}

func newPowerCommand() *cli.Command {
	return &cli.Command{
		Name:      "power",
		Usage:     "ideal power-gating analysis (seed 000) of a kernel on the timing model",
		ArgsUsage: "--launch L.yaml [--model NAME|FILE] [--bet N] [--policies | --consolidate] [--csv | --json] [--svg FILE] KERNEL.ptx  |  --from FILE.parquet|RUN_DIR",
		Description: "power runs every launch of the spec on the timing model (default " + defaultRunModel + ")\n" +
			"recording when each SM (core), each execution-unit instance and each lane is busy,\n" +
			"checks the outputs, and prints per level the busy and idle shares, the number of\n" +
			"idle intervals ≥ BET (gates), the net saving Σ(idle ≥ BET) − gates × BET as a share\n" +
			"of blocks × cycles, and the idle-interval histogram by decades (docs/power.md).\n" +
			"--svg writes the ideal curve (net saving against BET 1 … 10,000) as an SVG chart.\n" +
			"--consolidate adds the consolidated CTA placement (seed Fig. 15); --policies runs normal,\n" +
			"issue (4-state SIMD issue control with warp splitting), comp (thread compaction) and mix\n" +
			"(seed Fig. 17). --activity exports the recorded activity (Parquet or CSV); --from\n" +
			"analyses such a Parquet file with the same numbers as the run it came from.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "launch", Usage: "launch spec `FILE` (YAML)"},
			&cli.StringFlag{Name: "model", Usage: "timing model: preset `NAME` or spec FILE (default " + defaultRunModel + ")"},
			&cli.IntFlag{Name: "bet", Value: power.SeedBET, Usage: "break-even time of units and lanes, `CYCLES`"},
			&cli.IntFlag{Name: "core-bet", Usage: "break-even time of SMs, `CYCLES` (0: active cycles, as the seed)"},
			&cli.BoolFlag{Name: "csv", Usage: "print CSV rows instead of the table", DisableDefaultText: true},
			&cli.BoolFlag{Name: "json", Usage: "print JSON (with the ideal curves) instead of the table", DisableDefaultText: true},
			&cli.StringFlag{Name: "svg", Usage: "write the ideal-curve chart to `FILE`"},
			&cli.BoolFlag{Name: "consolidate", Usage: "also run with CTAs consolidated on as few SMs as fit (seed §3.1.1) and report active-cycle reduction and slowdown", DisableDefaultText: true},
			&cli.BoolFlag{Name: "policies", Usage: "run under the seed's SIMD-level settings normal, issue (4-state issue control with warp splitting), comp (thread compaction) and mix, and print seed Fig. 17: net gateable share of the sp lanes and units, and cycles relative to normal", DisableDefaultText: true},
			&cli.Float64Flag{Name: "congestion", Usage: "congestion-aware CTA issue control (seed §3.1.2): measure the metric, run on the fewest SMs whose slowdown the gtx480 calibration of docs/power.md predicts within `BOUND` (e.g. 0.05), report active cycles and slowdown", DefaultText: "off"},
			&cli.IntFlag{Name: "slice", Value: int(power.DefaultIssueControl().Slice), Usage: "issue control's time slice T, `CYCLES` (with --policies)"},
			&cli.StringFlag{Name: "html", Usage: "also write a self-contained report page to `FILE` (tables and charts of the analysis, consolidation, policies)"},
			&cli.StringFlag{Name: "activity", Usage: "also write the recorded activity (busy cycles, idle-interval histograms, core busy intervals per block) to `FILE`: Parquet, or CSV when FILE ends in .csv"},
			&cli.StringFlag{Name: "from", Usage: "analyse recorded activity instead of running a kernel: `PATH` = a Parquet file written by --activity or 'export -f activity', or a run directory or bundle of 'run --activity'"},
			&cli.IntFlag{Name: "workers", Usage: "model worker goroutines (0: all cores); results do not depend on it"},
		},
		Action: func(c *cli.Context) error {
			switch {
			case c.String("from") != "" && (c.NArg() != 0 || c.String("launch") != "" || c.Bool("policies") || c.Bool("consolidate") || c.String("activity") != ""):
				return usagef("power: --from takes no PTX file, --launch, --policies, --consolidate or --activity")
			case c.String("from") == "" && c.NArg() != 1:
				return usagef("power: expected one PTX file (see 'ptxtrace power --help')")
			case c.String("from") == "" && c.String("launch") == "":
				return usagef("power: --launch is required")
			case c.IsSet("congestion") && (c.Bool("policies") || c.Bool("consolidate") || c.String("activity") != "" || c.String("from") != ""):
				return usagef("power: --congestion excludes --policies, --consolidate, --activity and --from")
			case c.IsSet("congestion") && !(c.Float64("congestion") >= 0):
				return usagef("power: --congestion must be ≥ 0")
			case c.String("activity") != "" && (c.Bool("policies") || c.Bool("consolidate")):
				return usagef("power: --activity records the plain run only; drop --policies and --consolidate")
			}
			if c.Bool("csv") && c.Bool("json") {
				return usagef("power: --csv and --json exclude each other")
			}
			if c.Int("bet") < 0 || c.Int("core-bet") < 0 {
				return usagef("power: --bet and --core-bet must be ≥ 0")
			}
			if c.Bool("policies") && c.Bool("consolidate") {
				return usagef("power: --policies and --consolidate exclude each other")
			}
			if c.Int("slice") <= 0 {
				return usagef("power: --slice must be > 0")
			}
			cong := -1.0
			if c.IsSet("congestion") {
				cong = c.Float64("congestion")
			}
			return runPower(c.Context, powerOptions{streams: streamsOf(c), PTX: c.Args().First(),
				Launch: c.String("launch"), Model: c.String("model"), BET: c.Int("bet"), CoreBET: c.Int("core-bet"),
				CSV: c.Bool("csv"), JSON: c.Bool("json"), SVG: c.String("svg"), Workers: c.Int("workers"),
				Consolidate: c.Bool("consolidate"), Policies: c.Bool("policies"), Slice: c.Int("slice"),
				Activity: c.String("activity"), From: c.String("from"), HTML: c.String("html"), Congestion: cong})
		},
	}
}

func runPower(ctx context.Context, o powerOptions) error {
	cfg := power.DefaultConfig().WithBET(model.Time(o.BET))
	cfg.CoreBET = model.Time(o.CoreBET)
	if o.From != "" {
		act, err := readActivity(o.From)
		if err != nil {
			return err
		}
		r, err := act.Summarise(cfg)
		if err != nil {
			return err
		}
		return writePowerResult(o, r, nil)
	}
	in, err := readRunInputs(runOptions{PTX: o.PTX, Launch: o.Launch, Model: o.Model})
	if err != nil {
		return err
	}
	pr := &powerProgress{runProgress: newRunProgress(o.Stderr, "power "+filepath.Base(o.PTX), time.Now(), isTerminal(o.Stderr))}
	pin := power.Input{Prog: in.prog, Spec: in.spec, BaseDir: filepath.Dir(o.Launch), Model: *in.ms, Workers: o.Workers,
		OnLaunch: pr.launch, Progress: pr.cycles}
	if o.Congestion >= 0 {
		cc, err := power.RunCTAControl(ctx, pin, cfg, power.DefaultCongestion(), power.DefaultCalibration(), o.Congestion)
		pr.finish()
		if err != nil {
			return err
		}
		if err := writePowerResult(o, cc.Normal, nil); err != nil {
			return err
		}
		if o.CSV || o.JSON {
			return nil
		}
		fmt.Fprintln(o.Stdout)
		return cc.WriteSummary(o.Stdout)
	}
	if o.Policies {
		ctl := power.DefaultIssueControl()
		ctl.Slice = model.Time(o.Slice)
		cmp, err := power.RunComparison(ctx, pin, cfg, ctl)
		pr.finish()
		if err != nil {
			return err
		}
		switch {
		case o.CSV:
			return cmp.WriteCSV(o.Stdout, true)
		case o.JSON:
			return cmp.WriteJSON(o.Stdout)
		}
		if o.SVG != "" {
			if err := writeSVG(o.SVG, cmp.Chart().Render); err != nil {
				return err
			}
		}
		if err := writePowerHTML(o, cmp.Normal, nil, cmp); err != nil {
			return err
		}
		return cmp.WriteTable(o.Stdout)
	}
	var r *power.Result
	var cons *power.Consolidation
	if o.Consolidate {
		cons, err = power.RunConsolidation(ctx, pin, cfg)
		if cons != nil {
			r = cons.Normal
		}
	} else if o.Activity != "" {
		var act *power.Activity
		if act, err = power.RecordActivity(ctx, pin); err == nil {
			r, err = act.Summarise(cfg)
		}
		if err == nil {
			err = atomicfile.WriteFile(o.Activity, 0o644, func(w io.Writer) error {
				if strings.HasSuffix(o.Activity, ".csv") {
					return act.WriteCSV(w)
				}
				return act.WriteParquet(w)
			})
		}
	} else {
		r, err = power.Run(ctx, pin, cfg)
	}
	pr.finish()
	if err != nil {
		return err
	}
	return writePowerResult(o, r, cons)
}

// writePowerResult writes r (and the consolidated run, when cons is set)
// as the options ask.
func writePowerResult(o powerOptions, r *power.Result, cons *power.Consolidation) error {
	if err := writePowerHTML(o, r, cons, nil); err != nil {
		return err
	}
	if o.SVG != "" {
		if err := writeSVG(o.SVG, r.Chart().Render); err != nil {
			return err
		}
	}
	switch {
	case o.CSV:
		if err := r.WriteCSV(o.Stdout, true); err != nil || cons == nil {
			return err
		}
		return cons.Consolidated.WriteCSV(o.Stdout, false)
	case o.JSON:
		if cons != nil {
			return cons.WriteJSON(o.Stdout)
		}
		return r.WriteJSON(o.Stdout)
	}
	if err := r.WriteTable(o.Stdout); err != nil || cons == nil {
		return err
	}
	fmt.Fprintln(o.Stdout, "\nconsolidated CTA placement:")
	if err := cons.Consolidated.WriteTable(o.Stdout); err != nil {
		return err
	}
	return cons.WriteSummary(o.Stdout)
}

// writeSVG renders a chart and writes it atomically to path.
func writeSVG(path string, render func(io.Writer) error) error {
	var b bytes.Buffer
	if err := render(&b); err != nil {
		return err
	}
	return writeBytes(path, b.Bytes())
}

// writePowerHTML writes the --html page when asked for.
func writePowerHTML(o powerOptions, r *power.Result, cons *power.Consolidation, cmp *power.Comparison) error {
	if o.HTML == "" {
		return nil
	}
	page, err := power.HTML(r, cons, cmp, "ptxtrace "+version)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(o.HTML, 0o644, page.Render)
}

// readActivity reads --from: a run directory or bundle (ptxtrace run
// --activity), or an activity Parquet file (--activity, ptxtrace export -f
// activity).
func readActivity(path string) (*power.Activity, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var magic [len(trace.BundleMagic)]byte
	if st.IsDir() {
		return power.ReadRun(path)
	}
	if n, _ := f.ReadAt(magic[:], 0); n == len(magic) && string(magic[:]) == trace.BundleMagic {
		return power.ReadRun(path)
	}
	act, err := power.ReadParquet(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return act, nil
}

// powerProgress is power's progress line (a terminal only, after 2 s, like
// run's): which model run (power runs a spec several times under
// --policies, --consolidate and --congestion), which launch, the cycle
// reached and the CTAs started, and the time spent.
type powerProgress struct {
	*runProgress
	run, launchNo int
}

// launch is power.Input.OnLaunch: a launch index that does not grow
// starts the next run.
func (p *powerProgress) launch(i int, _ *launch.LaunchResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i == 0 {
		p.run++
	}
	p.launchNo = i + 1
	p.draw()
}

// cycles is model.Options.Progress.
func (p *powerProgress) cycles(cycle model.Time, started, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cycle, p.done, p.total = cycle, started, total
	p.draw()
}

// draw writes the line when due (mu held).
func (p *powerProgress) draw() {
	if p.due(false) {
		next := ""
		if p.cycle > 0 {
			next = fmt.Sprintf("next at cycle %d, ", p.cycle)
		}
		if p.total > 0 {
			next += fmt.Sprintf("%d/%d CTAs started, ", p.done, p.total)
		}
		fmt.Fprintf(p.w, "\r%s: run %d, %d launch(es) done, %s%.1f s ",
			p.kernel, max(p.run, 1), p.launchNo, next, time.Since(p.start).Seconds())
	}
}
