package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/ptxtrace/ptxtrace/dualflow"
	"github.com/ptxtrace/ptxtrace/instrument/cudatool"
	"github.com/ptxtrace/ptxtrace/internal/atomicfile"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/urfave/cli/v2"
)

type dualflowConvertOptions struct {
	streams
	PTX      string
	Distance int
	Form     string
}

type dualflowEvalOptions struct {
	streams
	Samples  []string
	Window   int
	Mem      string
	Distance int
	Warps    []int
	StudySMs int
	CSV, SVG string
	Workers  int
	PtxasN   bool // BASE allocated onto ptxas -v's count (spilling), else the minimum
	Profile  bool // place the conversion's movs/nops by the original run's profile
}

func newDualflowCommand() *cli.Command {
	return &cli.Command{
		Name:  "dualflow",
		Usage: "Dualflow (seed 002): distance-operand conversion and out-of-order issue study",
		Subcommands: []*cli.Command{
			{
				Name:      "alloc",
				Usage:     "allocate a PTX module's virtual registers onto N physical registers",
				ArgsUsage: "[--regs N | --min] KERNEL.ptx",
				Description: "alloc maps every kernel's virtual registers onto physical ones (interference colouring over\n" +
					"CFG liveness; b64 counts two 32-bit registers, predicates none) and prints the rewritten PTX,\n" +
					"with one comment line per kernel on stderr. N is --regs, else ptxas -v's count when ptxas\n" +
					"is installed; a kernel that needs more than N without spilling is refused. --min allocates\n" +
					"the fewest registers the PTX order allows instead.",
				Flags: []cli.Flag{
					&cli.IntFlag{Name: "regs", Usage: "register budget `N` per thread (default: ptxas -v)"},
					&cli.BoolFlag{Name: "min", Usage: "allocate the minimum the PTX order allows (no budget)", DisableDefaultText: true},
				},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usagef("dualflow alloc: expected one PTX file")
					}
					if c.Int("regs") < 0 || (c.Int("regs") > 0 && c.Bool("min")) {
						return usagef("dualflow alloc: --regs must be ≥ 0 and excludes --min")
					}
					return runDualflowAlloc(c.Context, streamsOf(c), c.Args().First(), c.Int("regs"), c.Bool("min"))
				},
			},
			{
				Name:      "convert",
				Usage:     "print a PTX module's kernels in reverse-Dualflow form",
				ArgsUsage: "[--distance D] [--form listing|ptx|ring] KERNEL.ptx",
				Description: "convert prints every function in reverse-Dualflow form (docs/dualflow.md): sources as\n" +
					"distances |d|, mov/nop at joins, spill/reload beyond the maximum distance D (0: unlimited),\n" +
					"then the static count of added instructions. --form ptx prints the light PTX encoding\n" +
					"the D-FLOW model runs, --form ring the ring emulation that checks the distances.",
				Flags: []cli.Flag{
					&cli.IntFlag{Name: "distance", Usage: "maximum encodable distance `D` (0: unlimited)"},
					&cli.StringFlag{Name: "form", Value: "listing", Usage: "output `FORM`: listing, ptx or ring"},
				},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usagef("dualflow convert: expected one PTX file")
					}
					if c.Int("distance") < 0 {
						return usagef("dualflow convert: --distance must be ≥ 0")
					}
					return runDualflowConvert(dualflowConvertOptions{streams: streamsOf(c), PTX: c.Args().First(),
						Distance: c.Int("distance"), Form: c.String("form")})
				},
			},
			{
				Name:      "eval",
				Usage:     "BASE vs D-FLOW on the Table 1 GPU (rtx3080) for bundled samples",
				ArgsUsage: "[--window N] [--mem ideal|barrier|colour] [--distance D] [--regs min|ptxas] [--profile] [--warps LIST] [--csv FILE] [--svg FILE] [SAMPLE...]",
				Description: "eval runs each bundled sample (default: gaussian lud pathfinder nn, then the others)\n" +
					"as BASE (registers allocated, in order), BASE-OoO, virtual-OoO and D-FLOW (Dualflow form,\n" +
					"out of order in a window) on the rtx3080 preset, checks every run's outputs against the\n" +
					"functional run, and prints cycles, WAR/WAW stall cycles, speedup and dynamic instruction\n" +
					"increase. --warps runs the resident-warp study on --study-sms SMs; --csv/--svg write the\n" +
					"operand-distance CDF (docs/dualflow.md).",
				Flags: []cli.Flag{
					&cli.IntFlag{Name: "window", Value: 8, Usage: "D-FLOW issue window `N` (seed: 8 collector units)"},
					&cli.StringFlag{Name: "mem", Value: "ideal", Usage: "memory ordering: ideal, barrier or colour"},
					&cli.IntFlag{Name: "distance", Usage: "maximum encodable distance `D` (0: unlimited)"},
					&cli.StringFlag{Name: "warps", Usage: "resident-warp `LIST` for the occupancy study, e.g. 64,48,32,16,8"},
					&cli.IntFlag{Name: "study-sms", Value: 4, Usage: "SMs of the occupancy study (few, so the samples fill them)"},
					&cli.StringFlag{Name: "csv", Usage: "write the operand-distance CDF to `FILE` (CSV)"},
					&cli.StringFlag{Name: "svg", Usage: "write the operand-distance CDF chart to `FILE`"},
					&cli.IntFlag{Name: "workers", Usage: "model worker goroutines (0: all cores); results do not depend on it"},
					&cli.BoolFlag{Name: "profile", Usage: "place the conversion's movs and nops by the original run's instruction counts (default: by loop depth)"},
					&cli.StringFlag{Name: "regs", Value: "min", Usage: "BASE register budget: min (what the PTX order needs) or ptxas (ptxas -v's N, spilling)"},
				},
				Action: func(c *cli.Context) error {
					if r := c.String("regs"); r != "min" && r != "ptxas" {
						return usagef("dualflow eval: --regs must be min or ptxas, got %q", r)
					}
					o := dualflowEvalOptions{PtxasN: c.String("regs") == "ptxas", Profile: c.Bool("profile"), streams: streamsOf(c), Samples: c.Args().Slice(), Window: c.Int("window"),
						Mem: c.String("mem"), Distance: c.Int("distance"), StudySMs: c.Int("study-sms"),
						CSV: c.String("csv"), SVG: c.String("svg"), Workers: c.Int("workers")}
					if o.Window < 1 || o.Window > 32 {
						return usagef("dualflow eval: --window must be 1..32")
					}
					if o.Distance < 0 || o.StudySMs < 1 {
						return usagef("dualflow eval: --distance must be ≥ 0 and --study-sms ≥ 1")
					}
					if s := c.String("warps"); s != "" {
						for _, f := range strings.Split(s, ",") {
							n, err := strconv.Atoi(strings.TrimSpace(f))
							if err != nil || n < 1 || n > 64 {
								return usagef("dualflow eval: --warps: %q is not a warp count 1..64", f)
							}
							o.Warps = append(o.Warps, n)
						}
					}
					return runDualflowEval(c.Context, o)
				},
			},
		},
	}
}

func runDualflowAlloc(ctx context.Context, s streams, path string, regs int, minimum bool) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	file, err := dualflow.Parse(path, src)
	if err != nil {
		return err
	}
	var limits map[string]int
	if regs == 0 && !minimum {
		tools := cudatool.Find()
		if tools.Ptxas == "" {
			return fmt.Errorf("dualflow alloc: ptxas not found: give --regs N or --min")
		}
		us, err := tools.Resources(ctx, path, file, src)
		if err != nil {
			return err
		}
		limits = map[string]int{}
		for k, u := range us {
			limits[k] = u.Regs
		}
	}
	text, allocs, err := dualflow.AllocateFile(file, func(k string) int {
		if limits != nil {
			return limits[k]
		}
		return regs
	})
	if err != nil {
		return err
	}
	for _, a := range allocs {
		fmt.Fprintf(s.Stderr, "// %s: %d registers (N=%d; %d b16, %d b32, %d b64, %d pred; live-pressure bound %d)\n",
			a.Func.Fn.Name, a.Words, a.Limit, a.Count[dualflow.Class16], a.Count[dualflow.Class32], a.Count[dualflow.Class64], a.Count[dualflow.ClassPred], a.MaxLive)
	}
	_, err = io.WriteString(s.Stdout, text)
	return err
}

func runDualflowConvert(o dualflowConvertOptions) error {
	src, err := os.ReadFile(o.PTX)
	if err != nil {
		return err
	}
	file, err := dualflow.Parse(o.PTX, src)
	if err != nil {
		return err
	}
	switch o.Form {
	case "listing":
		for _, fn := range file.Functions() {
			if fn.Body == nil {
				continue
			}
			f, err := dualflow.Analyze(file, fn)
			if err != nil {
				return err
			}
			p, err := dualflow.Convert(f, o.Distance)
			if err != nil {
				return err
			}
			fmt.Fprint(o.Stdout, p.Listing())
			fmt.Fprintln(o.Stdout, p.StaticSummary())
		}
		return nil
	case "ptx", "ring":
		fm := dualflow.Light
		if o.Form == "ring" {
			fm = dualflow.Ring
		}
		text, _, _, err := dualflow.ConvertFile(file, o.Distance, fm)
		if err != nil {
			return err
		}
		_, err = io.WriteString(o.Stdout, text)
		return err
	}
	return usagef("dualflow convert: --form must be listing, ptx or ring, got %q", o.Form)
}

func runDualflowEval(ctx context.Context, o dualflowEvalOptions) error {
	mem, err := model.ParseMemOrder(o.Mem)
	if err != nil {
		return usagef("dualflow eval: --mem: %v", err)
	}
	names := o.Samples
	if len(names) == 0 {
		names = dualflow.EvalOrder()
	}
	cfg := dualflow.Config{Spec: dualflow.Table1(), Window: o.Window, MemOrder: mem, D: o.Distance, Workers: o.Workers, Profile: o.Profile}
	var rs []*dualflow.Result
	srcs := make([][]byte, len(names))
	for i, n := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		src, err := dualflow.SamplePTX(n)
		if err != nil {
			return err
		}
		srcs[i] = src
		cfg.RegLimit = nil
		if o.PtxasN {
			if cfg.RegLimit, err = ptxasLimits(ctx, n, src); err != nil {
				return err
			}
		}
		r, err := dualflow.Evaluate(ctx, n, src, cfg)
		if err != nil {
			return err
		}
		rs = append(rs, r)
	}
	fmt.Fprintf(o.Stdout, "rtx3080 (seed Table 1), window %d, memory order %s, maximum distance %s\n", o.Window, mem, distText(o.Distance))
	if err := dualflow.WriteTable(o.Stdout, rs); err != nil {
		return err
	}
	rows := dualflow.CDF(rs)
	if o.CSV != "" {
		if err := atomicfile.WriteFile(o.CSV, 0o644, func(w io.Writer) error { return dualflow.WriteCDFCSV(w, rows) }); err != nil {
			return err
		}
	}
	if o.SVG != "" {
		if err := atomicfile.WriteFile(o.SVG, 0o644, func(w io.Writer) error { return dualflow.WriteCDFSVG(w, rows, 100) }); err != nil {
			return err
		}
	}
	if len(o.Warps) > 0 {
		sc := cfg
		sc.Spec.NumSMs = o.StudySMs
		fmt.Fprintf(o.Stdout, "\nresident warps per SM (%d SMs; register file scaled with the warps): cycles BASE / D-FLOW\n", o.StudySMs)
		for i, n := range names {
			if err := ctx.Err(); err != nil {
				return err
			}
			ps, err := dualflow.Study(ctx, n, srcs[i], sc, o.Warps)
			if err != nil {
				return err
			}
			fmt.Fprintf(o.Stdout, "%-11s", n)
			for _, p := range ps {
				if p.Skipped != "" {
					fmt.Fprintf(o.Stdout, "  %2d: -", p.Warps)
					continue
				}
				fmt.Fprintf(o.Stdout, "  %2d: %d/%d", p.Warps, p.Base, p.DFlow)
			}
			if m := dualflow.MatchWarps(ps); m > 0 {
				fmt.Fprintf(o.Stdout, "  D-FLOW matches BASE@%d with %d warps (register file %d KB)\n", ps[0].Warps, m,
					dualflow.StudyRegisters(sc, m)*4/1024)
			} else {
				fmt.Fprintf(o.Stdout, "  D-FLOW never matches BASE@%d\n", ps[0].Warps)
			}
		}
	}
	return nil
}

// ptxasLimits returns ptxas -v's register count per kernel of src.
func ptxasLimits(ctx context.Context, name string, src []byte) (func(string) int, error) {
	tools := cudatool.Find()
	if tools.Ptxas == "" {
		return nil, fmt.Errorf("dualflow eval: --regs ptxas: ptxas not found")
	}
	file, err := dualflow.Parse(name+".ptx", src)
	if err != nil {
		return nil, err
	}
	us, err := tools.Resources(ctx, name+".ptx", file, src)
	if err != nil {
		return nil, err
	}
	return func(k string) int { return us[k].Regs }, nil
}

func distText(d int) string {
	if d == 0 {
		return "unlimited"
	}
	return strconv.Itoa(d)
}
