//go:build !unix

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"

	"github.com/ptxtrace/ptxtrace/internal/quickcmd"
)

// execFull runs the full binary as a child with the same arguments,
// environment and standard streams and returns its exit status (no execve
// outside Unix). Interrupts go to the child, which handles them.
func execFull(path string, args []string, stderr io.Writer) int {
	signal.Ignore(os.Interrupt)
	c := exec.Command(path, args[1:]...)
	c.Args = args
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := c.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		fmt.Fprintf(stderr, "ptxtrace: run %s: %v\n", path, err)
		return quickcmd.ExitError
	}
	return quickcmd.ExitOK
}
