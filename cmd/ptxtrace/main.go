package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"syscall"

	"github.com/ptxtrace/ptxtrace/internal/quickcmd"
)

// fullName is the file name of the full binary, looked up next to the
// front's executable.
const fullName = "ptxtrace-full"

func main() {
	args := os.Args
	cmd, ok := parseQuick(args)
	if !ok {
		os.Exit(handOff(args, os.Stderr))
	}
	ctx, stop := context.Background(), func() {}
	if cmd.flags["w"] || len(cmd.files) > 1 {
		// An interrupt then ends the command between two files, as in the
		// full binary, rather than in the middle of one (-w's temporary
		// file). For one file printed to stdout there is no such point, so
		// the default action (exit at once) is kept and its cost, a signal
		// thread (~2.5 ms of CPU, docs/startup.md), not paid.
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	}
	code := runQuick(ctx, cmd, quickcmd.Streams{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
	stop()
	os.Exit(code)
}

// quick is a command line the front runs itself.
type quick struct {
	name  string          // "fmt" or "inspect"
	flags map[string]bool // the boolean flags given, by name
	files []string
}

// quickFlags returns the boolean flags of a command the front runs, the
// same as the full binary's flags of that command (TestFrontAgrees checks
// them against its help), or false for any other command.
func quickFlags(cmd string) ([]string, bool) {
	switch cmd {
	case "fmt":
		return []string{"canonical", "w", "all-errors"}, true
	case "inspect":
		return []string{"json", "all-errors"}, true
	}
	return nil, false
}

// parseQuick returns the command line args as a quick command, or false
// when the front does not run it (see the package documentation). args[0]
// is the program name.
func parseQuick(args []string) (quick, bool) {
	if len(args) < 2 {
		return quick{}, false
	}
	known, ok := quickFlags(args[1])
	if !ok {
		return quick{}, false
	}
	q := quick{name: args[1], flags: map[string]bool{}}
	rest := args[2:]
	for i := 0; i < len(rest); i++ {
		tok := rest[i]
		switch {
		case tok == "--":
			q.files = append(q.files, rest[i+1:]...)
			i = len(rest)
		case len(tok) > 1 && tok[0] == '-':
			name := tok[1:]
			if name[0] == '-' {
				name = name[1:]
			}
			if !slices.Contains(known, name) {
				return quick{}, false // help, a value, a typo: the full binary answers
			}
			q.flags[name] = true
		default:
			q.files = append(q.files, tok)
		}
	}
	if len(q.files) > 0 && (q.files[0] == "help" || q.files[0] == "h") {
		// urfave/cli gives every command a help subcommand: the full
		// binary prints the command's help, even after "--".
		return quick{}, false
	}
	return q, true
}

// runQuick runs q and returns the exit status.
func runQuick(ctx context.Context, q quick, s quickcmd.Streams) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(s.Stderr, "ptxtrace: internal error: %v\n%s", r, debug.Stack())
			code = quickcmd.ExitError
		}
	}()
	var err error
	switch q.name {
	case "fmt":
		err = quickcmd.RunFmt(ctx, quickcmd.FmtOptions{
			Streams:   s,
			Canonical: q.flags["canonical"],
			Write:     q.flags["w"],
			AllErrors: q.flags["all-errors"],
			Files:     q.files,
		})
	case "inspect":
		err = quickcmd.RunInspect(ctx, quickcmd.InspectOptions{
			Streams:   s,
			JSON:      q.flags["json"],
			AllErrors: q.flags["all-errors"],
			Files:     q.files,
		})
	}
	return quickcmd.Report(s.Stderr, err)
}

// fullPath returns the path of ptxtrace-full next to the running
// executable.
func fullPath() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	if resolved, err := filepath.EvalSymlinks(self); err == nil {
		self = resolved
	}
	return filepath.Join(filepath.Dir(self), fullName), nil
}

// handOff runs the full binary with args. On Unix it does not return when
// the exec succeeds; otherwise it returns the exit status to use.
func handOff(args []string, stderr io.Writer) int {
	path, err := fullPath()
	if err == nil {
		_, err = os.Stat(path)
	}
	if err != nil {
		fmt.Fprintf(stderr, "ptxtrace: %s is missing (%v); it runs every command but fmt and inspect: "+
			"install both binaries side by side (make build, or go install ./cmd/...)\n", fullName, err)
		return quickcmd.ExitError
	}
	return execFull(path, args, stderr)
}
