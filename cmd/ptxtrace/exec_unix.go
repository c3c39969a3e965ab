//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/ptxtrace/ptxtrace/internal/quickcmd"
)

// execFull replaces the process with the full binary: same arguments
// (argv[0] included), environment and open standard streams, so its exit
// status is the command's. It returns only when execve fails.
func execFull(path string, args []string, stderr io.Writer) int {
	err := syscall.Exec(path, args, os.Environ())
	fmt.Fprintf(stderr, "ptxtrace: run %s: %v\n", path, err)
	return quickcmd.ExitError
}
