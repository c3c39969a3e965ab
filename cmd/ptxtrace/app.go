package main

import (
	"context"
	"errors"
	"fmt"
	"go/scanner"
	"io"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// version is the release string printed by --version. It is a variable only
// so that the linker can stamp it (make build passes
// -ldflags "-X main.version=..."); the program never assigns it.
var version = "devel"

// streams are the standard streams a command reads and writes.
type streams struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// streamsOf returns the streams of the App running c.
func streamsOf(c *cli.Context) streams {
	return streams{Stdin: c.App.Reader, Stdout: c.App.Writer, Stderr: c.App.ErrWriter}
}

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// usageError is a mistake in how the command was invoked; it exits with
// status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// errReported tells run that the command already printed its diagnostics
// and only the exit status remains to be set.
var errReported = errors.New("errors reported")

// newApp builds the command-line application. Every call returns a new,
// independent App.
func newApp(s streams) *cli.App {
	app := &cli.App{
		Name:    "ptxtrace",
		Usage:   "completion-based memory timing for CUDA PTX kernels",
		Version: version,
		Description: "ptxtrace parses PTX, instruments memory accesses with timing probes, " +
			"replays kernels on a built-in GPU model and exports traces.\n" +
			"Pipeline: parse → instrument → replay → export.",
		Reader:    s.Stdin,
		Writer:    s.Stdout,
		ErrWriter: s.Stderr,
		Commands: []*cli.Command{
			newFmtCommand(),
			newInspectCommand(),
			newDemoCommand(),
			newInstrumentCommand(),
			newVerifyCommand(),
			newExportCommand(), newReportCommand(), newConvertCommand(),
			newRunCommand(),
			newModelCommand(), newSamplesCommand(), newSweepCommand(), newFramesCommand(), newViewCommand(),
			newPowerCommand(),
			newTransferCommand(),
			newDualflowCommand(),
		},
		// Never let the cli package call os.Exit: run decides the status.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   onUsageError,
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("unknown command %q (see 'ptxtrace help')", c.Args().First())
			}
			c.App.Writer = c.App.ErrWriter
			_ = cli.ShowAppHelp(c)
			return usagef("no command given")
		},
	}
	for _, cmd := range app.Commands {
		if cmd.OnUsageError == nil {
			cmd.OnUsageError = onUsageError
		}
	}
	return app
}

// onUsageError turns a flag parsing error into a usageError.
func onUsageError(c *cli.Context, err error, isSubcommand bool) error {
	name := c.App.Name
	if isSubcommand && c.Command != nil {
		name += " " + c.Command.Name
	}
	return usagef("%v (see '%s --help')", err, name)
}

// run runs ptxtrace with the given arguments (args[0] is the program name)
// and streams, and returns the process exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "ptxtrace: internal error: %v\n%s", r, debug.Stack())
			code = exitError
		}
	}()
	app := newApp(streams{Stdin: stdin, Stdout: stdout, Stderr: stderr})
	norm, err := normalizeArgs(app, args)
	if err == nil {
		err = app.RunContext(ctx, norm)
	}
	return report(stderr, err)
}

// report prints err the way the exit-code contract says and returns the
// exit status.
func report(stderr io.Writer, err error) int {
	var (
		usage *usageError
		exit  cli.ExitCoder // only the cli package's help command makes these
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "ptxtrace: %v\n", usage)
		return exitUsage
	case errors.As(err, &exit):
		fmt.Fprintf(stderr, "ptxtrace: %v\n", exit)
		return exitUsage
	case errors.Is(err, errReported):
		return exitError
	default:
		printError(stderr, err)
		return exitError
	}
}

// printError prints a failure: a PTX error list as one "file:line:col:
// message" line per error, anything else as "ptxtrace: <msg>".
func printError(w io.Writer, err error) {
	var list scanner.ErrorList
	if errors.As(err, &list) {
		scanner.PrintError(w, list)
		return
	}
	fmt.Fprintf(w, "ptxtrace: %v\n", err)
}
