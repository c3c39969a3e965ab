package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptxtrace/ptxtrace/internal/atomicfile"
	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/replay"
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
	Model      string // preset name or spec file; "" = defaultRunModel
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
			"the model's ground truth per probed access and its counters; deterministic bytes).\n" +
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
			return runRun(c.Context, runOptions{streams: streamsOf(c), PTX: c.Args().First(),
				Launch: c.String("launch"), OutDir: c.String("o"), Manifest: c.String("manifest"),
				Workers: c.Int("workers"), Functional: c.Bool("functional"), Model: c.String("model")})
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
}

type launchSummary struct {
	Kernel      string  `json:"kernel"`
	Grid        [3]int  `json:"grid"`
	Block       [3]int  `json:"block"`
	CTAs        int     `json:"ctas"`
	ThreadInsts uint64  `json:"thread_instructions"`
	Cycles      uint64  `json:"cycles,omitempty"`
	IPC         float64 `json:"ipc,omitempty"`
}

func runRun(ctx context.Context, o runOptions) error {
	src, err := os.ReadFile(o.PTX)
	if err != nil {
		return err
	}
	f, err := ptx.ParseFile(token.NewFileSet(), o.PTX, src, 0)
	if err != nil {
		return err
	}
	prog, err := replay.NewProgram(f)
	if err != nil {
		return err
	}
	spec, err := readLaunchSpec(o.Launch)
	if err != nil {
		return err
	}
	var ms *model.Spec
	if !o.Functional {
		name := o.Model
		if name == "" {
			name = defaultRunModel
		}
		s, err := loadSpec(name)
		if err != nil {
			return err
		}
		if err := s.Validate(); err != nil {
			return err
		}
		ms = &s
	}
	var man *manifest.Manifest
	mpath := o.Manifest
	if mpath == "" {
		cand := strings.TrimSuffix(o.PTX, ".ptx") + ".probes.json"
		if _, err := os.Stat(cand); err == nil {
			mpath = cand
		}
	}
	if mpath != "" {
		mf, err := os.Open(mpath)
		if err != nil {
			return err
		}
		man, err = manifest.Read(mf)
		mf.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", mpath, err)
		}
	}
	baseDir := filepath.Dir(o.Launch)
	reg := launch.SampleRegistry()
	popt := launch.PrepareOptions{BaseDir: baseDir, Manifest: man, Registry: reg}
	if ms != nil {
		popt.NumSMs = ms.NumSMs
	}
	prep, err := spec.Prepare(prog, popt)
	if err != nil {
		return err
	}
	warned := map[string]bool{}
	warn := func(ws []string) {
		for _, w := range ws {
			if !warned[w] {
				warned[w] = true
				fmt.Fprintf(o.Stderr, "ptxtrace: warning: %s\n", w)
			}
		}
	}
	warnings := prep.Warnings()
	warn(warnings)
	start := time.Now()
	var last time.Time
	shown := false
	progress := func(done, total int) {
		now := time.Now()
		if now.Sub(start) < time.Second || (now.Sub(last) < 200*time.Millisecond && done < total) {
			return
		}
		last = now
		shown = true
		fmt.Fprintf(o.Stderr, "\rrun %s: %d/%d CTAs (%d%%)", spec.Kernel, done, total, done*100/max(total, 1))
	}
	onLaunch := func(i int, lr *launch.LaunchResult) {
		if time.Since(start) < time.Second || i%16 != 0 {
			return
		}
		shown = true
		fmt.Fprintf(o.Stderr, "\rrun: %d launches", i+1)
	}
	res, err := prep.Run(ctx, launch.ExecOptions{Workers: o.Workers, Progress: progress, Model: ms, OnLaunch: onLaunch})
	if shown {
		fmt.Fprintln(o.Stderr)
	}
	if err != nil {
		var fault *replay.Fault
		if errors.As(err, &fault) {
			fmt.Fprint(o.Stderr, fault.Report())
		}
		return err
	}
	elapsed := time.Since(start)
	warnings = prep.Warnings()
	warn(warnings)
	checks := prep.Check(reg, baseDir)

	dir := o.OutDir
	if dir == "" {
		dir = strings.TrimSuffix(o.PTX, ".ptx") + ".run"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	kname := spec.Kernel
	if kname == "" && len(res.Launches) > 0 {
		kname = res.Launches[0].Kernel
	}
	sum := runSummary{Kernel: kname, PTX: o.PTX, Mode: "functional", Grid: spec.Grid, Block: spec.Block, CTAs: res.CTAs,
		WarpInsts: res.WarpInsts, ThreadInsts: res.ThreadInsts, Seconds: elapsed.Seconds(),
		Sequential: res.Sequential, Checks: checks, Warnings: warnings}
	if ms != nil {
		sum.Mode, sum.Model, sum.Cycles = "timing", ms.Name, uint64(res.Cycles)
	}
	for _, lr := range res.Launches {
		ls := launchSummary{Kernel: lr.Kernel, Grid: lr.Grid, Block: lr.Block, CTAs: lr.Func.CTAs, ThreadInsts: lr.Func.ThreadInsts}
		if lr.Timing != nil {
			ls.Cycles, ls.IPC = uint64(lr.Timing.Cycles), lr.Timing.IPC
		}
		sum.Launches = append(sum.Launches, ls)
	}
	write := func(name string, data []byte) error {
		sum.Outputs = append(sum.Outputs, name)
		return atomicfile.WriteFile(filepath.Join(dir, name), 0o644, func(w io.Writer) error {
			_, err := w.Write(data)
			return err
		})
	}
	for _, b := range prep.Buffers {
		if b.Output {
			if err := write(b.Name+".bin", b.Alloc.Data); err != nil {
				return err
			}
		}
	}
	if err := write("printf.txt", res.Printf); err != nil {
		return err
	}
	var traced []*launch.LaunchResult
	for _, lr := range res.Launches {
		if lr.Trace != nil {
			traced = append(traced, lr)
		}
	}
	for _, lr := range traced {
		tname, bname := "trace.bin", "run.bundle"
		if len(traced) > 1 {
			tname, bname = fmt.Sprintf("trace.%03d.bin", lr.Index), fmt.Sprintf("run.%03d.bundle", lr.Index)
		}
		if sum.Trace == "" {
			sum.Trace = tname
		}
		if err := write(tname, lr.Trace.Data); err != nil {
			return err
		}
		meta := trace.RunMeta{Source: "replay",
			Labels: map[string]string{"launch_spec": filepath.Base(o.Launch), "launch": fmt.Sprint(lr.Index)}}
		if ms != nil {
			arg := o.Model
			if arg == "" {
				arg = defaultRunModel
			}
			meta.Labels["model"] = ms.Name
			meta.Labels["model_arg"] = arg
		}
		in, err := lr.Bundle(man, ms, meta)
		if err != nil {
			return err
		}
		sum.Outputs = append(sum.Outputs, bname)
		sum.Bundles = append(sum.Bundles, bname)
		if err := trace.WriteBundleFile(filepath.Join(dir, bname), in); err != nil {
			return err
		}
	}
	js, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	if err := write("summary.json", append(js, '\n')); err != nil {
		return err
	}
	if len(res.Printf) > 0 {
		o.Stdout.Write(res.Printf)
	}
	what := fmt.Sprintf("%d thread-instructions", res.ThreadInsts)
	if ms != nil {
		what += fmt.Sprintf(", %d cycles on %s", res.Cycles, ms.Name)
	}
	fmt.Fprintf(o.Stderr, "run %s: %d launch(es), %d CTAs, %s in %.3fs; outputs in %s\n",
		kname, len(res.Launches), res.CTAs, what, elapsed.Seconds(), dir)
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

func readLaunchSpec(path string) (*launch.Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := launch.ParseSpec(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
