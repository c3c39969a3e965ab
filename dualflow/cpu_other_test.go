//go:build !unix

package dualflow

import "time"

func cpuTime() time.Duration { return 0 }
