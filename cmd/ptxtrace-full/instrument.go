package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/instrument/cudatool"
	"github.com/ptxtrace/ptxtrace/internal/atomicfile"
	"github.com/ptxtrace/ptxtrace/internal/readcap"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/urfave/cli/v2"
)

type instrumentOptions struct {
	streams
	File    string
	Output  string // "-" for stdout (the manifest then goes to MANIFEST or is not written)
	Opts    instrument.Options
	NoPtxas bool // do not ask ptxas -v for registers
	Write   bool // -w: Output may be the input file
}

func newInstrumentCommand() *cli.Command {
	return &cli.Command{
		Name:      "instrument",
		Usage:     "insert completion-based timing probes around memory accesses",
		ArgsUsage: "FILE.ptx -o OUT.ptx",
		Description: "instrument inserts a begin and an end timer read around every selected load\n" +
			"of every kernel and writes the instrumented PTX to OUT.ptx and its manifest\n" +
			"to OUT.probes.json (see docs/instrument.md and docs/buffer.md). Each\n" +
			"instrumented kernel gets a .u64 parameter __pt_buf (the trace buffer) and,\n" +
			"when a dummy probe is used, a .u32 parameter __pt_dummy the host sets to 0.\n\n" +
			"Modes: naive (timer reads only), fence (a CTA fence before the end read),\n" +
			"dummy (a consumer of the loaded value under an always-false predicate before\n" +
			"the end read), auto (dummy for every load whose value can be read, whatever\n" +
			"its space; fence only where nothing can consume the value: 128-bit or\n" +
			"undeclared destinations, and --region regions).\n\n" +
			"Flags may stand before or after FILE. Both outputs are written atomically. Registers per\n" +
			"thread for the occupancy check come from ptxas -v when ptxas is installed,\n" +
			"else from --regs.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "o", Usage: "output PTX `FILE` (the manifest goes next to it as FILE-without-.ptx.probes.json)"},
			&cli.StringFlag{Name: "mode", Value: "auto", Usage: "naive, fence, dummy or auto"},
			&cli.StringFlag{Name: "timer", Value: "clock64", Usage: "clock, clock64 or globaltimer"},
			&cli.StringFlag{Name: "space", Usage: "comma-separated state spaces to probe (global,shared,local,const,param,tex,generic; default all but param)"},
			&cli.StringFlag{Name: "kernel", Usage: "instrument only this kernel"},
			&cli.StringFlag{Name: "lines", Usage: "only loads on PTX lines `FROM-TO` of the input"},
			&cli.StringFlag{Name: "src", Usage: "only loads whose .loc is `FILE:LINE`, FILE:FROM-TO or :FROM-TO"},
			&cli.StringSliceFlag{Name: "region", Usage: "time the PTX lines `BEGIN:END` as a user region (repeatable)"},
			&cli.BoolFlag{Name: "no-loads", Usage: "probe only the --region regions", DisableDefaultText: true},
			&cli.IntFlag{Name: "capacity", Value: instrument.DefaultCapacity, Usage: "records per warp"},
			&cli.StringFlag{Name: "staging", Value: "auto", Usage: "auto, shared or global"},
			&cli.IntFlag{Name: "regs", Usage: "registers per thread for the occupancy check (default: from ptxas -v)"},
			&cli.IntFlag{Name: "block", Value: instrument.DefaultBlock, Usage: "threads per block when .reqntid/.maxntid do not say"},
			&cli.BoolFlag{Name: "w", Usage: "allow -o to name the input FILE (overwrite it)", DisableDefaultText: true},
			&cli.BoolFlag{Name: "no-ptxas", Usage: "do not run ptxas -v for register counts", DisableDefaultText: true},
		},
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) != 1 {
				return usagef("instrument: want exactly one FILE.ptx, got %d arguments", len(args))
			}
			if c.String("o") == "" {
				return usagef("instrument: -o OUT.ptx is required")
			}
			o := instrumentOptions{streams: streamsOf(c), File: args[0], Output: c.String("o"), NoPtxas: c.Bool("no-ptxas"), Write: c.Bool("w")}
			if !o.Write && o.Output != "-" && sameFile(o.File, o.Output) {
				return usagef("instrument: -o %s is the input file; pass -w to overwrite it", o.Output)
			}
			opts := instrument.Options{
				Mode: c.String("mode"), Timer: c.String("timer"), Kernel: c.String("kernel"),
				Capacity: c.Int("capacity"), Staging: c.String("staging"), Regs: c.Int("regs"),
				Block: c.Int("block"), NoLoads: c.Bool("no-loads"), Tool: "ptxtrace " + version,
			}
			if s := c.String("space"); s != "" {
				opts.Spaces = strings.Split(s, ",")
			}
			if s := c.String("lines"); s != "" {
				r, err := instrument.ParseRange(s)
				if err != nil {
					return usagef("instrument: --lines: %v", err)
				}
				opts.Lines = &r
			}
			if s := c.String("src"); s != "" {
				r, err := instrument.ParseSrc(s)
				if err != nil {
					return usagef("instrument: --src: %v", err)
				}
				opts.Src = &r
			}
			for _, s := range c.StringSlice("region") {
				r, err := instrument.ParseRegion(s)
				if err != nil {
					return usagef("instrument: --region: %v", err)
				}
				opts.Regions = append(opts.Regions, r)
			}
			o.Opts = opts
			return runInstrument(c.Context, o)
		},
	}
}

// maxKernelLines is how many kernels instrument describes one per line on
// stderr; the others are counted (a module may hold thousands).
const maxKernelLines = 20

// manifestPath returns the manifest file next to a PTX file: the one
// instrument writes next to its output, and run and verify read by default.
func manifestPath(out string) string {
	return strings.TrimSuffix(out, ".ptx") + ".probes.json"
}

func runInstrument(ctx context.Context, o instrumentOptions) error {
	src, err := readcap.ReadFile(o.File, "PTX module", maxPTXBytes)
	if err != nil {
		return err
	}
	o.Opts.Output = o.Output
	// ptxas runs at most once, whichever path asks.
	var resources map[string]instrument.Resources
	asked := false
	askPtxas := func(header *ptx.File) map[string]instrument.Resources {
		if !asked {
			asked = true
			resources = ptxasResources(ctx, o, header, src)
		}
		return resources
	}
	if o.Output != "-" {
		// One function at a time, straight to the output file, and the
		// manifest beside it a kernel at a time; a module Stream refuses
		// is instrumented whole below, with the same output, warnings
		// and errors.
		var so instrument.StreamOptions
		if o.Opts.Regs == 0 && !o.NoPtxas {
			so.Resources = askPtxas
		}
		res, err := writePair(o, func(ptxw io.Writer, man instrument.ManifestSink) (*instrument.Result, error) {
			so.Manifest = man
			return instrument.Stream(ptxw, o.File, src, o.Opts, so)
		})
		if err == nil {
			printWarnings(o, res)
			describeOutput(o, res.Summary)
			return nil
		}
		if !errors.Is(err, instrument.ErrNotStreamed) {
			return err
		}
	}
	fset := token.NewFileSet()
	f, err := ptx.ParseFile(fset, o.File, src, 0)
	if err != nil {
		return err
	}
	if err := ptx.Check(fset, f); err != nil {
		return err // ptxas would reject the module, and its instrumented output
	}
	if o.Opts.Regs == 0 && !o.NoPtxas {
		o.Opts.Resources = askPtxas(f)
	}
	res, err := instrument.Instrument(fset, f, o.Opts)
	printWarnings(o, res)
	if err != nil {
		return err
	}
	if o.Output == "-" {
		var man bytes.Buffer
		if err := res.Manifest.Write(&man); err != nil {
			return err
		}
		_, err := o.Stdout.Write(res.PTX)
		return err
	}
	if _, err := writePair(o, func(ptxw io.Writer, man instrument.ManifestSink) (*instrument.Result, error) {
		if _, err := ptxw.Write(res.PTX); err != nil {
			return nil, err
		}
		return res, instrument.WriteManifest(man, res.Manifest)
	}); err != nil {
		return err
	}
	describeOutput(o, instrument.SummaryOf(res.Manifest))
	return nil
}

// writePair writes the output PTX and its manifest (write's two writers)
// and replaces both files, or neither: the manifest is renamed first, the
// PTX last, after both are complete and flushed to disk side by side; a
// failure leaves the old pair (atomicfile.Commit).
func writePair(o instrumentOptions, write func(ptxw io.Writer, man instrument.ManifestSink) (*instrument.Result, error)) (*instrument.Result, error) {
	pf, err := atomicfile.Create(o.Output, 0o644)
	if err != nil {
		return nil, err
	}
	defer pf.Abort() // nothing once committed
	mf, err := atomicfile.Create(manifestPath(o.Output), 0o644)
	if err != nil {
		return nil, err
	}
	defer mf.Abort()
	res, err := write(pf, mf)
	if err != nil {
		return nil, err
	}
	return res, atomicfile.Commit(mf, pf)
}

func printWarnings(o instrumentOptions, res *instrument.Result) {
	if res == nil {
		return
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(o.Stderr, "ptxtrace: warning: %s (output unchanged)\n", w)
	}
}

// describeOutput describes the written kernels on stderr.
func describeOutput(o instrumentOptions, s *instrument.Summary) {
	mp := manifestPath(o.Output)
	n, listed := 0, 0
	for _, k := range s.Kernels {
		n += k.Probes
		if listed++; listed <= maxKernelLines {
			fmt.Fprintf(o.Stderr, "ptxtrace: %s: %d probes, staging %s (%s)\n", k.Name, k.Probes, k.Staging, k.Reason)
		}
	}
	if listed > maxKernelLines {
		fmt.Fprintf(o.Stderr, "ptxtrace: … and %d more kernels (see the manifest)\n", listed-maxKernelLines)
	}
	fmt.Fprintf(o.Stderr, "ptxtrace: wrote %s and %s (%d probes, instrumentation id %s)\n", o.Output, mp, n, s.InstrumentationID)
}

// ptxasResources asks ptxas -v for each kernel's registers and static
// shared memory; it returns nil (and says why on stderr) when it cannot.
func ptxasResources(ctx context.Context, o instrumentOptions, f *ptx.File, src []byte) map[string]instrument.Resources {
	tools := cudatool.Find()
	if tools.Ptxas == "" {
		return nil
	}
	use, err := tools.Resources(ctx, o.File, f, src)
	if err != nil {
		if !errors.Is(err, cudatool.ErrNoTarget) {
			fmt.Fprintf(o.Stderr, "ptxtrace: note: %v; registers per thread unknown (use --regs)\n", err)
		}
		return nil
	}
	res := map[string]instrument.Resources{}
	for name, u := range use {
		res[name] = instrument.Resources{Regs: u.Regs, SharedBytes: u.SharedBytes}
	}
	return res
}

// sameFile reports whether paths a and b name the same file (an existing
// file by identity, else by absolute path).
func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	pa, errA := filepath.Abs(a)
	pb, errB := filepath.Abs(b)
	return errA == nil && errB == nil && pa == pb
}
