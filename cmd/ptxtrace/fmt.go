package main

import (
	"bytes"
	"context"
	"fmt"
	"go/token"
	"io"
	"io/fs"
	"os"

	"github.com/ptxtrace/ptxtrace/internal/atomicfile"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/urfave/cli/v2"
)

// stdinName is the file name parse errors use for standard input.
const stdinName = "<stdin>"

type fmtOptions struct {
	streams
	Canonical bool     // print in canonical layout instead of preserving the source
	Write     bool     // rewrite files in place instead of printing to stdout
	AllErrors bool     // report every parse error, not only the first ten
	Files     []string // files to format; none (or "-") means standard input
}

func newFmtCommand() *cli.Command {
	return &cli.Command{
		Name:      "fmt",
		Usage:     "parse PTX files and print them back",
		ArgsUsage: "[FILE...]",
		Description: "fmt parses each FILE and prints it to stdout. By default the output is the\n" +
			"input byte for byte (a round-trip check of the parser); with --canonical\n" +
			"it is re-laid out in ptxtrace's canonical style. Without FILE, or with\n" +
			"FILE \"-\", it reads standard input. Flags may stand before or after the files.\n\n" +
			"With -w each file is rewritten in place, atomically and keeping its mode,\n" +
			"and only when its contents change. A file with parse errors is never\n" +
			"written: its errors are printed as file:line:col: message lines, the\n" +
			"remaining files are still processed and the exit status is 1.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "canonical", Usage: "print in canonical layout", DisableDefaultText: true},
			&cli.BoolFlag{Name: "w", Usage: "write the result back to each file instead of stdout", DisableDefaultText: true},
			&cli.BoolFlag{Name: "all-errors", Usage: "report all parse errors, not only the first 10", DisableDefaultText: true},
		},
		Action: func(c *cli.Context) error {
			return runFmt(c.Context, fmtOptions{
				streams:   streamsOf(c),
				Canonical: c.Bool("canonical"),
				Write:     c.Bool("w"),
				AllErrors: c.Bool("all-errors"),
				Files:     c.Args().Slice(),
			})
		},
	}
}

func runFmt(ctx context.Context, o fmtOptions) error {
	files := o.Files
	if len(files) == 0 {
		files = []string{"-"}
	}
	if o.Write {
		for _, name := range files {
			if name == "-" {
				return usagef("fmt: -w needs file arguments, not standard input")
			}
		}
	}

	cfg := &ptx.Config{Mode: ptx.Preserve}
	if o.Canonical {
		cfg.Mode = ptx.Canonical
	}
	// fmt only prints what it parsed, from the tokens: operand lists
	// are checked but not kept.
	mode := ptx.SkipOperands
	if o.AllErrors {
		mode |= ptx.AllErrors
	}

	failed := false
	for _, name := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fmtFile(o, cfg, mode, name); err != nil {
			printError(o.Stderr, err)
			failed = true
		}
	}
	if failed {
		return errReported
	}
	return nil
}

// fmtFile formats one file ("-" for standard input). On error nothing has
// been written, neither to stdout nor to the file.
func fmtFile(o fmtOptions, cfg *ptx.Config, mode ptx.Mode, name string) error {
	var (
		src  []byte
		perm fs.FileMode
		err  error
	)
	filename := name
	if name == "-" {
		filename = stdinName
		if o.Stdin == nil {
			return fmt.Errorf("%s: no standard input", filename)
		}
		src, err = io.ReadAll(o.Stdin)
	} else {
		var fi fs.FileInfo
		if fi, err = os.Stat(name); err == nil {
			if !fi.Mode().IsRegular() {
				return fmt.Errorf("%s: not a regular file", name)
			}
			perm = fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
			src, err = os.ReadFile(name)
		}
	}
	if err != nil {
		return err
	}

	f, err := ptx.ParseFile(token.NewFileSet(), filename, src, mode)
	if err != nil {
		return err
	}
	if !o.Write {
		// The file parsed, so printing can fail only in the writer:
		// stream to stdout (Fprint writes in pieces) instead of
		// building the output in memory first.
		return cfg.Fprint(o.Stdout, f)
	}
	var out bytes.Buffer
	out.Grow(len(src) + len(src)/8)
	if err := cfg.Fprint(&out, f); err != nil {
		return fmt.Errorf("%s: %w", filename, err)
	}
	if bytes.Equal(out.Bytes(), src) {
		return nil // unchanged: leave the file (and its modification time) alone
	}
	return atomicfile.WriteFile(name, perm, func(w io.Writer) error {
		_, err := w.Write(out.Bytes())
		return err
	})
}
