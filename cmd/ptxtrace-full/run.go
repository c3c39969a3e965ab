package main

import (
	"context"
	"errors"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptxtrace/ptxtrace/experiments/power"
	"github.com/ptxtrace/ptxtrace/internal/readcap"
	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/model/specfile"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/replay"
	"github.com/ptxtrace/ptxtrace/samples/catalog"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/urfave/cli/v2"
)

// defaultRunModel is the model `ptxtrace run` uses without --model or
// --functional.
const defaultRunModel = "gtx480"

type runOptions struct {
	streams
	PTX        string
	Launch     string
	OutDir     string
	Manifest   string // "" = look next to the PTX
	Workers    int
	Functional bool
	Model      string        // preset name or spec file; "" = defaultRunModel
	Quiet      bool          // no progress line
	Timeout    time.Duration // wall-clock limit of the execution (0: none)
	MaxInsts   uint64        // per-warp instruction budget (0: the spec's, else replay's default)
	Activity   bool          // record the model's activity into the bundles (docs/power.md)
	SpinCheck  uint64        // instructions between a warp's spin probes (0: none)
}

func newRunCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "execute a PTX kernel on the built-in GPU model from a launch spec",
		ArgsUsage: "KERNEL.ptx --launch L.yaml [--model NAME|FILE | --functional] [-o RUN_DIR]",
		Description: "run lowers the kernel(s) named by the launch spec (docs/launch.md), allocates and\n" +
			"initialises buffers, textures and constants, and executes every launch with exact\n" +
			"SIMT semantics on the cycle-level timing model (--model: a preset " + strings.Join(model.PresetNames(), ", ") + ",\n" +
			"or a YAML/JSON spec file as for 'ptxtrace model show'; default " + defaultRunModel + "), or\n" +
			"functionally only (--functional: no timing, fastest). It writes RUN_DIR (default:\n" +
			"KERNEL.run next to the PTX): one NAME.bin per output buffer, printf.txt,\n" +
			"summary.json and, for an instrumented kernel (a .probes.json manifest next to the\n" +
			"PTX, or --manifest), trace.bin and run.bundle (raw buffer, manifest, run metadata,\n" +
			"the model's ground truth per probed access and its counters; deterministic bytes;\n" +
			"trace.NNN.bin and run.NNN.bundle per launch when several launches are traced).\n" +
			"Files are replaced atomically and only after a successful run. A kernel fault is\n" +
			"reported like compute-sanitizer (kernel, block, warp, lane, PC, file:line,\n" +
			"instruction) with exit status 1; failed output checks also exit 1.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "launch", Usage: "launch spec `FILE` (YAML)"},
			&cli.StringFlag{Name: "o", Usage: "write outputs to `RUN_DIR`"},
			&cli.StringFlag{Name: "manifest", Usage: "probe manifest `FILE` (default: KERNEL.probes.json when it exists)"},
			&cli.StringFlag{Name: "model", Usage: "timing model: preset `NAME` or spec FILE (default " + defaultRunModel + ")"},
			&cli.IntFlag{Name: "workers", Usage: "goroutines executing CTAs in functional mode (0: all cores); results do not depend on it"},
			&cli.BoolFlag{Name: "functional", Usage: "functional execution only (no timing model)", DisableDefaultText: true},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress line on stderr (it appears only on a terminal, after 2 s)", DisableDefaultText: true},
			&cli.DurationFlag{Name: "timeout", Usage: "stop the execution after `DURATION` of wall-clock time (0: none)"},
			&cli.BoolFlag{Name: "activity", Usage: "record when each SM, execution unit and lane is busy (power gating, docs/power.md) into every bundle's ACTV chunk; timing runs of instrumented kernels only", DisableDefaultText: true},
			&cli.Uint64Flag{Name: "spin-check", Value: replay.DefaultSpinCheck, Usage: "probe each warp for a spin loop every `N` of its instructions (0: never): a warp whose state repeats with only register work, or reads of memory no warp that can still run writes, in between is reported at once (PC, CTA, warp, the loop's source line)"},
			&cli.Uint64Flag{Name: "max-warp-insts", Usage: "fault a warp that executes more than `N` instructions, reporting its PC, CTA, warp and source line (default: the spec's max_warp_insts, else 200000000)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("run: expected one PTX file (see 'ptxtrace run --help')")
			}
			if c.String("launch") == "" {
				return usagef("run: --launch is required")
			}
			if c.Bool("functional") && c.String("model") != "" {
				return usagef("run: --functional and --model exclude each other")
			}
			if c.Bool("functional") && c.Bool("activity") {
				return usagef("run: --activity records the timing model's activity; drop --functional")
			}
			return runRun(c.Context, runOptions{streams: streamsOf(c), PTX: c.Args().First(),
				Launch: c.String("launch"), OutDir: c.String("o"), Manifest: c.String("manifest"),
				Workers: c.Int("workers"), Functional: c.Bool("functional"), Model: c.String("model"),
				Quiet: c.Bool("quiet"), Timeout: c.Duration("timeout"), MaxInsts: c.Uint64("max-warp-insts"), Activity: c.Bool("activity"),
				SpinCheck: c.Uint64("spin-check")})
		},
	}
}

// runSummary is summary.json.
type runSummary struct {
	Kernel      string               `json:"kernel"`
	PTX         string               `json:"ptx"`
	Mode        string               `json:"mode"` // functional or timing
	Model       string               `json:"model,omitempty"`
	Grid        []int                `json:"grid,omitempty"`
	Block       []int                `json:"block,omitempty"`
	Launches    []launchSummary      `json:"launches"`
	CTAs        int                  `json:"ctas"`
	WarpInsts   uint64               `json:"warp_instructions"`
	ThreadInsts uint64               `json:"thread_instructions"`
	Cycles      uint64               `json:"cycles,omitempty"`
	Seconds     float64              `json:"seconds"`
	Sequential  bool                 `json:"sequential_ctas"`
	Outputs     []string             `json:"outputs"`
	Checks      []launch.CheckResult `json:"checks,omitempty"`
	Warnings    []string             `json:"warnings,omitempty"`
	Trace       string               `json:"trace,omitempty"`
	Bundles     []string             `json:"bundles,omitempty"`
	// timing mode: the launches' time at the core clock and their
	// host↔device transfers' time (docs/transfer.md)
	KernelPs   int64 `json:"kernel_ps,omitempty"`
	TransferPs int64 `json:"transfer_ps,omitempty"`
}

type launchSummary struct {
	Kernel      string  `json:"kernel"`
	Grid        [3]int  `json:"grid"`
	Block       [3]int  `json:"block"`
	CTAs        int     `json:"ctas"`
	ThreadInsts uint64  `json:"thread_instructions"`
	Cycles      uint64  `json:"cycles,omitempty"`
	IPC         float64 `json:"ipc,omitempty"`
	// Transfers: copies before/after the launch, ps from its kernel's start.
	Transfers []trace.Transfer `json:"transfers,omitempty"`
	// A grid launched from device code (dynamic parallelism): the index of
	// the launch whose grid launched it, its nesting depth, and (timing
	// mode) its start and end cycles counted from its host launch.
	LaunchedBy *int   `json:"launched_by,omitempty"`
	Depth      int    `json:"depth,omitempty"`
	StartCycle uint64 `json:"start_cycle,omitempty"`
	EndCycle   uint64 `json:"end_cycle,omitempty"`
}

// runInputs are the files a run reads: the program, the launch spec, the
// timing model (nil: functional) and the manifest of an instrumented kernel.
type runInputs struct {
	prog *replay.Program
	spec *launch.Spec
	ms   *model.Spec
	man  *manifest.Manifest
	act  *power.Session // --activity: the recorded launches
}

func runRun(ctx context.Context, o runOptions) error {
	in, err := readRunInputs(o)
	if err != nil {
		return err
	}
	if o.MaxInsts > 0 {
		in.spec.MaxWarpInsts = o.MaxInsts
	}
	if o.Activity && in.man == nil {
		return usagef("run: --activity stores the activity in the run bundle, which only an instrumented kernel has (no manifest %s)", manifestPath(o.PTX))
	}
	baseDir := filepath.Dir(o.Launch)
	reg := catalog.Registry() // every embedded sample's generators (samples extract)
	popt := launch.PrepareOptions{BaseDir: baseDir, Manifest: in.man, Registry: reg}
	if in.ms != nil {
		popt.GPU = in.ms // SM count and shared staging for this GPU
	}
	prep, err := in.spec.Prepare(in.prog, popt)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Launch, err) // name the spec, as its parse errors do
	}
	warn := warner(o.Stderr)
	warn(prep.Warnings())
	start := time.Now()
	res, err := executeRun(ctx, o, in, prep, start)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	warnings := prep.Warnings()
	warn(warnings)
	checks := prep.Check(reg, baseDir)

	dir := o.OutDir
	if dir == "" {
		dir = strings.TrimSuffix(o.PTX, ".ptx") + ".run"
	}
	sum := newRunSummary(o, in, res, elapsed, checks, warnings)
	if err := writeRunDir(dir, o, in, prep, res, sum); err != nil {
		return err
	}
	if len(res.Printf) > 0 {
		o.Stdout.Write(res.Printf)
	}
	what := fmt.Sprintf("%d thread-instructions", res.ThreadInsts)
	if in.ms != nil {
		what += fmt.Sprintf(", %d cycles on %s", res.Cycles, in.ms.Name)
		if res.TransferPs > 0 {
			what += fmt.Sprintf(" + %.3f µs of transfers", float64(res.TransferPs)/1e6)
		}
	}
	fmt.Fprintf(o.Stderr, "run %s: %d launch(es), %d CTAs, %s in %.3fs; outputs in %s\n",
		sum.Kernel, len(res.Launches), res.CTAs, what, elapsed.Seconds(), dir)
	for _, l := range res.Launches {
		if l.Timing != nil && l.Timing.Carveout != nil {
			c := l.Timing.Carveout
			fmt.Fprintf(o.Stderr, "launch %d (%s): the CTA needs more than shared.bytes; it ran with the carveout %d KB shared / %d KB L1D\n",
				l.Index, l.Kernel, c.SharedBytes>>10, c.L1DSets*c.L1DWays*in.ms.L1D.LineBytes>>10)
		}
	}
	failed := 0
	for _, c := range checks {
		status := "ok"
		if !c.OK {
			status = "FAILED"
			failed++
		}
		fmt.Fprintf(o.Stderr, "check %s against %s: %s (%s)\n", c.Buffer, c.Against, status, c.Msg)
	}
	if failed > 0 {
		return fmt.Errorf("run: %d check(s) failed", failed)
	}
	return nil
}

// readRunInputs reads the PTX, the launch spec, the model spec (unless
// functional) and the manifest (--manifest, or KERNEL.probes.json next to
// the PTX when it exists).
func readRunInputs(o runOptions) (*runInputs, error) {
	src, err := readcap.ReadFile(o.PTX, "PTX module", maxPTXBytes)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := ptx.ParseFile(fset, o.PTX, src, 0)
	if err != nil {
		return nil, err
	}
	if err := ptx.Check(fset, f); err != nil {
		return nil, err
	}
	in := &runInputs{}
	if in.prog, err = replay.NewProgram(f); err != nil {
		return nil, err
	}
	if in.spec, err = readLaunchSpec(o.Launch); err != nil {
		return nil, err
	}
	if !o.Functional {
		name := o.Model
		if name == "" {
			name = defaultRunModel
		}
		s, err := specfile.Load(name)
		if err != nil {
			return nil, err
		}
		if err := s.Validate(); err != nil {
			return nil, err
		}
		in.ms = &s
	}
	mpath := o.Manifest
	if mpath == "" {
		cand := manifestPath(o.PTX)
		if _, err := os.Stat(cand); err == nil {
			mpath = cand
		}
	}
	if mpath != "" {
		if in.man, err = readManifest(mpath); err != nil {
			return nil, err
		}
		if err := in.man.CheckPTX(src); err != nil {
			return nil, fmt.Errorf("%s: %w", mpath, err)
		}
	}
	return in, nil
}

// warner returns a function printing each distinct warning once.
func warner(w io.Writer) func([]string) {
	warned := map[string]bool{}
	return func(ws []string) {
		for _, s := range ws {
			if !warned[s] {
				warned[s] = true
				fmt.Fprintf(w, "ptxtrace: warning: %s\n", s)
			}
		}
	}
}

// executeRun runs the prepared spec with a progress line on stderr (a
// terminal only, after 2 s, not with --quiet) and the --timeout watchdog,
// and prints a kernel fault's report.
func executeRun(ctx context.Context, o runOptions, in *runInputs, prep *launch.Prepared, start time.Time) (*launch.SeqResult, error) {
	pr := newRunProgress(o.Stderr, in.spec.Kernel, start, !o.Quiet && isTerminal(o.Stderr))
	wd := newRunWatchdog(o.Timeout, o.SpinCheck)
	defer wd.stop()
	eo := launch.ExecOptions{Workers: o.Workers, Progress: pr.ctas, Model: in.ms, OnLaunch: pr.launch, OnKernel: wd.watch}
	if in.ms != nil && len(in.spec.Transfers) > 0 {
		ts, ok := model.TransferPreset(in.ms.Name)
		if !ok {
			return nil, fmt.Errorf("run: the launch spec has transfers, but model %q has no transfer parameters (presets: %s; docs/transfer.md)", in.ms.Name, strings.Join(model.PresetNames(), ", "))
		}
		eo.Transfer = &ts
	}
	eo.ModelOpt.Progress = pr.cycles
	var aerr error
	if o.Activity && in.ms != nil {
		in.act = power.NewSession(in.ms)
		eo.ModelOpt.Observe = in.act.Observe
		eo.OnLaunch = func(i int, lr *launch.LaunchResult) {
			if err := in.act.Finish(i, lr); err != nil && aerr == nil {
				aerr = err
			}
			pr.launch(i, lr)
		}
	}
	res, err := prep.Run(ctx, eo)
	pr.finish()
	if err == nil && aerr != nil {
		return nil, fmt.Errorf("run: --activity: %w", aerr)
	}
	if err != nil {
		var fault *replay.Fault
		if errors.As(err, &fault) {
			fmt.Fprint(o.Stderr, fault.Report())
		}
		if wd.hasFired() {
			return nil, fmt.Errorf("run: stopped by the --timeout %v watchdog (%s); the run directory is unchanged: %w", o.Timeout, pr.state(), err)
		}
		return nil, err
	}
	return res, nil
}

// newRunSummary fills summary.json's fields except the file lists.
func newRunSummary(o runOptions, in *runInputs, res *launch.SeqResult, elapsed time.Duration, checks []launch.CheckResult, warnings []string) *runSummary {
	kname := in.spec.Kernel
	if kname == "" && len(res.Launches) > 0 {
		kname = res.Launches[0].Kernel
	}
	sum := &runSummary{Kernel: kname, PTX: o.PTX, Mode: "functional", Grid: in.spec.Grid, Block: in.spec.Block, CTAs: res.CTAs,
		WarpInsts: res.WarpInsts, ThreadInsts: res.ThreadInsts, Seconds: elapsed.Seconds(),
		Sequential: res.Sequential, Checks: checks, Warnings: warnings}
	if in.ms != nil {
		sum.Mode, sum.Model, sum.Cycles = "timing", in.ms.Name, uint64(res.Cycles)
		sum.KernelPs, sum.TransferPs = res.KernelPs, res.TransferPs
	}
	for _, lr := range res.Launches {
		ls := launchSummary{Kernel: lr.Kernel, Grid: lr.Grid, Block: lr.Block, CTAs: lr.Func.CTAs, ThreadInsts: lr.Func.ThreadInsts}
		if lr.Timing != nil {
			ls.Cycles, ls.IPC = uint64(lr.Timing.Cycles), lr.Timing.IPC
			ls.Transfers = lr.Transfers
		}
		if d := lr.Device; d != nil {
			by := lr.LaunchedBy
			ls.LaunchedBy, ls.Depth, ls.StartCycle, ls.EndCycle = &by, d.Depth, uint64(d.Start), uint64(d.End)
		}
		sum.Launches = append(sum.Launches, ls)
	}
	return sum
}

// writeRunDir writes the run directory (trace.RunDirWriter owns its
// layout): output buffers, printf.txt, every traced launch's raw buffer and
// bundle, then summary.json.
func writeRunDir(dir string, o runOptions, in *runInputs, prep *launch.Prepared, res *launch.SeqResult, sum *runSummary) error {
	w, err := trace.CreateRunDir(dir)
	if err != nil {
		return err
	}
	defer w.Abort() // a failure leaves the old run as it was
	for _, b := range prep.Buffers {
		if b.Output {
			if err := w.WriteBuffer(b.Name, b.Alloc.Data); err != nil {
				return err
			}
		}
	}
	if err := w.WriteFile(trace.RunPrintfFile, res.Printf); err != nil {
		return err
	}
	traced := res.Traced()
	for _, lr := range traced {
		meta := trace.RunMeta{Source: "replay",
			Labels: map[string]string{"launch_spec": filepath.Base(o.Launch), "launch": fmt.Sprint(lr.Index)}}
		if in.ms != nil {
			arg := o.Model
			if arg == "" {
				arg = defaultRunModel
			}
			meta.Labels["model"] = in.ms.Name
			meta.Labels["model_arg"] = arg
		}
		bin, err := lr.Bundle(in.man, in.ms, meta)
		if err != nil {
			return err
		}
		if in.act != nil {
			if bin.Activity, err = in.act.Chunk(lr.Index); err != nil {
				return err
			}
		}
		tname, _, err := w.WriteTrace(lr.Index, len(traced) > 1, bin)
		if err != nil {
			return err
		}
		if sum.Trace == "" {
			sum.Trace = tname
		}
	}
	sum.Bundles = w.Bundles()
	sum.Outputs = w.Outputs()
	if err := w.WriteSummary(sum); err != nil {
		return err
	}
	return w.Close()
}

func readLaunchSpec(path string) (*launch.Spec, error) {
	b, err := readcap.ReadFile(path, "launch spec", maxSpecBytes)
	if err != nil {
		return nil, err
	}
	s, err := launch.ParseSpec(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
