//go:build unix

package dualflow

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time (benchmarks report it:
// wall time is unreliable on a shared machine).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
