package main

import (
	"context"
	_ "embed"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"

	"github.com/ptxtrace/ptxtrace/internal/atomicfile"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/urfave/cli/v2"
)

// demoPTX is a small hand-written vector-add kernel, compiled into the
// binary so the demo needs no files.
//
//go:embed testdata/vecadd.ptx
var demoPTX []byte

const demoName = "vecadd.ptx"

type demoOptions struct {
	streams
	OutDir string // where to write the demo's files; "" writes none
}

func newDemoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "run the pipeline on a built-in kernel",
		Description: "demo runs the ptxtrace pipeline (parse → instrument → replay → export) on an\n" +
			"embedded vector-add kernel and prints what each stage did. With -o DIR the\n" +
			"stage outputs are written to DIR (created if needed). Stages that are not\n" +
			"built yet are listed as such.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "o", Usage: "write the stage outputs to `DIR`"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("demo takes no arguments, got %q", c.Args().First())
			}
			return runDemo(c.Context, demoOptions{streams: streamsOf(c), OutDir: c.String("o")})
		},
	}
}

func runDemo(ctx context.Context, o demoOptions) error {
	if o.OutDir == "-" {
		return usagef("demo: -o names a directory; standard output is not supported")
	}
	w := o.Stdout
	fmt.Fprintln(w, "ptxtrace demo: parse → instrument → replay → export")

	// Stage 1: parse.
	f, err := ptx.ParseFile(token.NewFileSet(), demoName, demoPTX, ptx.AllErrors)
	if err != nil {
		return fmt.Errorf("demo: embedded kernel does not parse: %w", err)
	}
	kernels, total := 0, 0
	for _, fn := range f.Functions() {
		if fn.Kind == ptx.Entry {
			kernels++
		}
		if fn.Body != nil {
			total += countInstructions(fn.Body)
		}
	}
	fmt.Fprintf(w, "[1/4] parse       %s (embedded): %d %s, %d instructions\n",
		demoName, kernels, plural(kernels, "kernel", "kernels"), total)
	for _, fn := range f.Functions() {
		if fn.Kind != ptx.Entry || fn.Body == nil {
			continue
		}
		fmt.Fprintf(w, "                  kernel %s: %d parameters, %d instructions\n",
			fn.Name, len(fn.Params), countInstructions(fn.Body))
	}
	if o.OutDir != "" {
		if err := ctx.Err(); err != nil {
			return err
		}
		path, err := writeDemoPTX(o.OutDir, f)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "                  wrote %s\n", path)
	}

	// Stages 2-4 do not exist yet.
	fmt.Fprintln(w, "[2/4] instrument  not built yet")
	fmt.Fprintln(w, "[3/4] replay      not built yet")
	fmt.Fprintln(w, "[4/4] export      not built yet")
	return nil
}

// writeDemoPTX writes the parsed kernel, printed in canonical layout, into
// dir and returns the file's path.
func writeDemoPTX(dir string, f *ptx.File) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, demoName)
	cfg := &ptx.Config{Mode: ptx.Canonical}
	err := atomicfile.WriteFile(path, 0o644, func(w io.Writer) error { return cfg.Fprint(w, f) })
	return path, err
}

// countInstructions counts the instructions in b, nested blocks included.
func countInstructions(b *ptx.Block) int {
	n := 0
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ptx.Instruction:
			n++
		case *ptx.Block:
			n += countInstructions(s)
		}
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
