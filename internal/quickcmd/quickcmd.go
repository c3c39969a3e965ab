package quickcmd

import (
	"context"
	"errors"
	"fmt"
	"go/scanner"
	"io"
	"strings"
)

// Streams are the standard streams a command reads and writes.
type Streams struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// Exit statuses.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// StdinName is the file name parse errors use for standard input.
const StdinName = "<stdin>"

// UsageError is a mistake in how the command was invoked; it exits with
// status 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef returns a *UsageError with the formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// ErrReported tells Report that the command already printed its
// diagnostics and only the exit status remains to be set.
var ErrReported = errors.New("errors reported")

// Report prints err the way the exit-status contract says (see the package
// documentation) and returns the exit status.
func Report(stderr io.Writer, err error) int {
	var usage *UsageError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "ptxtrace: %v\n", usage)
		return ExitUsage
	case errors.Is(err, ErrReported):
		return ExitError
	case errors.Is(err, context.Canceled):
		// An interrupt or SIGTERM: say so, rather than "context canceled".
		if msg := err.Error(); msg != context.Canceled.Error() {
			fmt.Fprintf(stderr, "ptxtrace: interrupted: %s\n", strings.TrimSuffix(msg, ": "+context.Canceled.Error()))
		} else {
			fmt.Fprintln(stderr, "ptxtrace: interrupted")
		}
		return ExitError
	default:
		PrintError(stderr, err)
		return ExitError
	}
}

// PrintError prints a failure: a PTX error list as one "file:line:col:
// message" line per error, anything else as "ptxtrace: <msg>".
func PrintError(w io.Writer, err error) {
	var list scanner.ErrorList
	if errors.As(err, &list) {
		scanner.PrintError(w, list)
		return
	}
	fmt.Fprintf(w, "ptxtrace: %v\n", err)
}
