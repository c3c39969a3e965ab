package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/ptxtrace/ptxtrace/exporters/formats"
	parquetexp "github.com/ptxtrace/ptxtrace/exporters/parquet"
	"github.com/ptxtrace/ptxtrace/internal/atomicfile"
	"github.com/ptxtrace/ptxtrace/internal/par"
	"github.com/ptxtrace/ptxtrace/sweep"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/urfave/cli/v2"
)

type convertOptions struct {
	streams
	To     string   // key of formats.Formats
	OutDir string   // dataset root
	Jobs   int      // parallel conversions
	Inputs []string // bundle files or run directories
	From   string   // file listing more inputs, one a line ("" none, "-" stdin)
	Shard  sweep.Shard
}

func newConvertCommand() *cli.Command {
	return &cli.Command{
		Name:      "convert",
		Usage:     "convert many runs into a partitioned dataset",
		ArgsUsage: "RUN...",
		Description: "convert exports every RUN (bundle file or run directory) with --to into the\n" +
			"Hive-partitioned dataset under --out: DIR/kernel=NAME/run=ID/part-0.EXT, where\n" +
			"ID is the bundle's run id or, without one, the input's base name, a dash and\n" +
			"8 hex digits of the SHA-256 of its absolute path (unique per input); a run\n" +
			"directory with several traced launches gives one part-NNN.EXT per launch\n" +
			"(NNN = launch index, NAME = that launch's kernel). Runs are\n" +
			"converted in parallel (-j), each output written atomically (temporary file +\n" +
			"rename); an output that already exists is skipped, so an interrupted convert\n" +
			"resumes where it stopped. A run that fails is reported with its name and the\n" +
			"others still convert; the exit status is then 1. Progress goes to stderr.\n" +
			"--from LIST adds the runs listed in LIST; --shard I/N (or auto, as for 'sweep\n" +
			"run', docs/sweep.md) converts only the runs k (0-based, arguments then LIST) with\n" +
			"k mod N = I, so that a job array converts a list without overlap.\n" +
			"Flags may stand before or after the runs; \"--\" ends them.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "to", Usage: "output `FORMAT`: " + formatNames(), Value: "parquet"},
			&cli.StringFlag{Name: "out", Usage: "dataset root `DIR`", Required: true},
			&cli.IntFlag{Name: "j", Usage: "convert `N` runs at a time (default: number of CPUs)"},
			&cli.StringFlag{Name: "from", Usage: "also convert the runs listed in `LIST`, one a line (- for stdin)"},
			shardFlags()[0], shardFlags()[1],
		},
		Action: func(c *cli.Context) error {
			sh, err := shardOf(c, "convert")
			if err != nil {
				return err
			}
			return runConvert(c.Context, convertOptions{
				streams: streamsOf(c), To: c.String("to"), OutDir: c.String("out"), Jobs: c.Int("j"), Inputs: c.Args().Slice(),
				From: c.String("from"), Shard: sh,
			})
		},
	}
}

// readRunList reads a --from list: one run a line; blank lines and lines
// starting with # are skipped.
func readRunList(path string, stdin io.Reader) ([]string, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out, nil
}

// convertResult is the outcome of one input.
type convertResult struct {
	input, output string
	skipped       bool
	err           error
}

func runConvert(ctx context.Context, o convertOptions) error {
	f, ok := exportFormats()[o.To]
	if !ok {
		return usagef("convert: unknown format %q (want %s)", o.To, formatNames())
	}
	if o.From != "" {
		list, err := readRunList(o.From, o.Stdin)
		if err != nil {
			return err
		}
		o.Inputs = append(o.Inputs, list...)
	}
	if len(o.Inputs) == 0 {
		return usagef("convert: no runs given")
	}
	seen := map[string]string{}
	for _, in := range o.Inputs {
		abs, err := filepath.Abs(in)
		if err != nil {
			return err
		}
		if prev, dup := seen[abs]; dup {
			return usagef("convert: run %s given twice (also as %s)", in, prev)
		}
		seen[abs] = in
	}
	if o.Shard.N > 1 { // runs k with k mod N == I of the whole list
		var mine []string
		for k, in := range o.Inputs {
			if o.Shard.Owns(k) {
				mine = append(mine, in)
			}
		}
		o.Inputs = mine
	}
	jobs := o.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	claims := &outputClaims{by: map[string]string{}}
	results := make(chan convertResult)
	go func() {
		defer close(results)
		par.Do(ctx, len(o.Inputs), jobs, func(i int) {
			results <- convertOne(ctx, f, o.OutDir, o.Inputs[i], claims)
		})
	}()

	p := newProgress(o.Stderr, "convert", len(o.Inputs))
	var failed []convertResult
	done, skipped := 0, 0
	for r := range results {
		done++
		if r.skipped {
			skipped++
		}
		if r.err != nil {
			failed = append(failed, r)
			p.printf("convert: %s: %v", r.input, r.err)
		}
		suffix := ""
		if len(failed) > 0 {
			suffix = fmt.Sprintf(" (%d failed)", len(failed))
		}
		p.update(done, suffix)
	}
	p.finish(fmt.Sprintf("%d converted, %d already done, %d failed", done-skipped-len(failed), skipped, len(failed)))
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(failed) > 0 {
		return errReported
	}
	return nil
}

// convertOne converts one input: every traced launch of a run directory
// (part-0 for a single-launch run, part-NNN per launch NNN otherwise); an
// existing output is left alone.
func convertOne(ctx context.Context, f formats.Format, outDir, input string, claims *outputClaims) (res convertResult) {
	res.input = input
	defer func() {
		if r := recover(); r != nil {
			res.err = fmt.Errorf("internal error: %v", r)
		}
	}()
	rbs, err := trace.RunBundles(input)
	if err != nil {
		res.err = trimPathPrefix(err, input)
		return res
	}
	res.skipped = true
	for _, rb := range rbs {
		b, err := trace.OpenBundleFile(rb.Path)
		if err != nil {
			res.err = trimPathPrefix(err, input)
			return res
		}
		runID := b.Meta.RunID
		if runID == "" {
			runID = runName(input)
		}
		out := parquetexp.DatasetPartPath(outDir, b.Kernel, runID, rb.Launch, rb.Multi, f.Ext)
		if res.output == "" {
			res.output = out
		}
		if err := claims.claim(out, input); err != nil {
			b.Close()
			res.skipped = false
			res.err = err
			return res
		}
		if fi, err := os.Stat(out); err == nil && fi.Mode().IsRegular() {
			b.Close() // written by an earlier run: outputs appear only complete (rename)
			continue
		}
		res.skipped = false
		err = os.MkdirAll(filepath.Dir(out), 0o755)
		if err == nil {
			err = atomicfile.WriteFile(out, 0o644, func(w io.Writer) error { return f.Export(ctx, w, b) })
		}
		b.Close()
		if err != nil {
			if rb.Multi {
				err = fmt.Errorf("launch %d: %w", rb.Launch, err)
			}
			res.err = err
			return res
		}
	}
	return res
}

// runName is the run id of an input without one: its base name without
// extension (the directory name for a run directory), a dash and the first
// 8 hex digits of the SHA-256 of its absolute path, so that two runs whose
// directories share a base name (exp1/k.run, exp2/k.run) get distinct
// outputs.
func runName(input string) string {
	clean := filepath.Clean(input)
	base := filepath.Base(clean)
	switch fi, err := os.Stat(input); {
	case err == nil && fi.IsDir():
	case trace.IsRunBundleName(base):
		clean = filepath.Dir(clean)
		base = filepath.Base(clean)
	default:
		base = strings.TrimSuffix(base, filepath.Ext(base))
	}
	abs, err := filepath.Abs(clean)
	if err != nil {
		abs = clean
	}
	sum := sha256.Sum256([]byte(abs))
	return base + "-" + hex.EncodeToString(sum[:4])
}

// outputClaims records which input each output of one convert writes, so
// that two inputs mapping to one output (two bundles with the same run id)
// are an error rather than one silently replacing the other.
type outputClaims struct {
	mu sync.Mutex
	by map[string]string // output -> input
}

// claim records that input writes out; it fails when another input did.
func (c *outputClaims) claim(out, input string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.by[out]; ok && prev != input {
		return fmt.Errorf("output %s is also the output of %s (same kernel and run id); convert them separately into different --out roots", out, prev)
	}
	c.by[out] = input
	return nil
}

// trimPathPrefix drops a leading "input: " that the error already has, so
// the report names the input once.
func trimPathPrefix(err error, input string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	if s := err.Error(); strings.HasPrefix(s, input+": ") {
		return errors.New(strings.TrimPrefix(s, input+": "))
	}
	return err
}
