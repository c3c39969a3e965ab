package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/ptxtrace/ptxtrace/internal/quickcmd"
	"github.com/urfave/cli/v2"
)

// version is the release string printed by --version. It is a variable only
// so that the linker can stamp it (make build passes
// -ldflags "-X main.version=..."); the program never assigns it.
var version = "devel"

// streams are the standard streams a command reads and writes.
type streams = quickcmd.Streams

// streamsOf returns the streams of the App running c.
func streamsOf(c *cli.Context) streams {
	return streams{Stdin: c.App.Reader, Stdout: c.App.Writer, Stderr: c.App.ErrWriter}
}

// Exit codes.
const (
	exitOK    = quickcmd.ExitOK
	exitError = quickcmd.ExitError
	exitUsage = quickcmd.ExitUsage
)

// usageError is a mistake in how the command was invoked; it exits with
// status 2.
type usageError = quickcmd.UsageError

func usagef(format string, args ...any) error { return quickcmd.Usagef(format, args...) }

// errReported tells run that the command already printed its diagnostics
// and only the exit status remains to be set.
var errReported = quickcmd.ErrReported

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

// report prints err the way the exit-code contract says
// (quickcmd.Report) and returns the exit status; the cli package's help
// command reports an unknown topic with a cli.ExitCoder, a usage error.
func report(stderr io.Writer, err error) int {
	var exit cli.ExitCoder
	if !errors.As(err, new(*usageError)) && errors.As(err, &exit) {
		fmt.Fprintf(stderr, "ptxtrace: %v\n", exit)
		return exitUsage
	}
	return quickcmd.Report(stderr, err)
}

// printError prints a failure: a PTX error list as one "file:line:col:
// message" line per error, anything else as "ptxtrace: <msg>".
func printError(w io.Writer, err error) { quickcmd.PrintError(w, err) }
