package quickcmd

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
)

// FmtOptions are what `ptxtrace fmt` was asked to do.
type FmtOptions struct {
	Streams
	Canonical bool     // print in canonical layout instead of preserving the source
	Write     bool     // rewrite files in place instead of printing to stdout
	AllErrors bool     // report every parse error, not only the first ten
	Files     []string // files to format; none (or "-") means standard input
}

// RunFmt parses each file and prints it back to o.Stdout (or, with
// o.Write, rewrites it in place when it changes). A file that fails is
// reported on o.Stderr and the others are still processed; the result is
// then ErrReported.
func RunFmt(ctx context.Context, o FmtOptions) error {
	files := o.Files
	if len(files) == 0 {
		files = []string{"-"}
	}
	if o.Write {
		for _, name := range files {
			if name == "-" {
				return Usagef("fmt: -w needs file arguments, not standard input")
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
			PrintError(o.Stderr, err)
			failed = true
		}
	}
	if failed {
		return ErrReported
	}
	return nil
}

// fmtFile formats one file ("-" for standard input). On error nothing has
// been written, neither to stdout nor to the file.
func fmtFile(o FmtOptions, cfg *ptx.Config, mode ptx.Mode, name string) error {
	var (
		src  []byte
		perm fs.FileMode
		err  error
	)
	filename := name
	if name == "-" {
		filename = StdinName
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
