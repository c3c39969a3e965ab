package replay

import (
	"fmt"
	"strings"
)

// FaultKind classifies kernel faults.
type FaultKind string

// Fault kinds.
const (
	FaultOutOfBounds   FaultKind = "out-of-bounds"      // access outside every allocation / the space's size
	FaultMisaligned    FaultKind = "misaligned"         // address not a multiple of the access size
	FaultBarrierDiverg FaultKind = "barrier-divergence" // bar.sync reached by part of a warp's live lanes
	FaultDeadlock      FaultKind = "deadlock"           // warps wait at barriers that can never complete
	FaultRunaway       FaultKind = "runaway"            // instruction budget exhausted
	FaultTrap          FaultKind = "trap"               // trap / brkpt-free abort
	FaultAssert        FaultKind = "assert"             // __assertfail
	FaultUnsupported   FaultKind = "unsupported"        // an instruction replay cannot execute
	FaultStack         FaultKind = "stack-overflow"     // call depth or local memory exhausted
	FaultBadTexture    FaultKind = "bad-texture"        // a texture handle that names no texture
	FaultAsyncRace     FaultKind = "async-race"         // shared memory accessed while a cp.async to it is pending
	FaultInvalid       FaultKind = "invalid"            // anything else (bad call target, ...)
)

// Fault is a kernel fault, reported the way compute-sanitizer would: what
// went wrong and where (kernel, CTA, warp, lane, PC, PTX file:line, the
// instruction).
type Fault struct {
	Kind   FaultKind
	Msg    string // e.g. "invalid global read of 4 bytes at 0x100000400"
	Kernel string
	CTA    [3]int
	Thread [3]int // thread index of Lane within the CTA (when Lane >= 0)
	Warp   int
	Lane   int // -1 for a warp-level fault
	PC     int
	Func   string // function holding the instruction
	File   string
	Line   int
	Inst   string
	Addr   uint64
	// Grid names the grid when it was launched from device code (dynamic
	// parallelism); "" for the host-launched grid.
	Grid string
}

// Error renders the fault on one line, starting with file:line.
func (f *Fault) Error() string {
	var sb strings.Builder
	if f.File != "" {
		fmt.Fprintf(&sb, "%s:%d: ", f.File, f.Line)
	}
	fmt.Fprintf(&sb, "kernel fault (%s): %s", f.Kind, f.Msg)
	fmt.Fprintf(&sb, " [kernel %s, block (%d,%d,%d), warp %d", f.Kernel, f.CTA[0], f.CTA[1], f.CTA[2], f.Warp)
	if f.Lane >= 0 {
		fmt.Fprintf(&sb, ", lane %d, thread (%d,%d,%d)", f.Lane, f.Thread[0], f.Thread[1], f.Thread[2])
	}
	fmt.Fprintf(&sb, ", pc %d", f.PC)
	if f.Func != "" && f.Func != f.Kernel {
		fmt.Fprintf(&sb, " in %s", f.Func)
	}
	if f.Grid != "" {
		fmt.Fprintf(&sb, "; %s", f.Grid)
	}
	sb.WriteString("]")
	if f.Inst != "" {
		fmt.Fprintf(&sb, ": %s", f.Inst)
	}
	return sb.String()
}

// Report renders the fault in compute-sanitizer's multi-line style.
func (f *Fault) Report() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "========= %s\n", capitalize(f.Msg))
	fmt.Fprintf(&sb, "=========     at %s:%d (pc %d) %s\n", f.File, f.Line, f.PC, f.Inst)
	if f.Lane >= 0 {
		fmt.Fprintf(&sb, "=========     by thread (%d,%d,%d) in block (%d,%d,%d) (warp %d, lane %d)\n",
			f.Thread[0], f.Thread[1], f.Thread[2], f.CTA[0], f.CTA[1], f.CTA[2], f.Warp, f.Lane)
	} else {
		fmt.Fprintf(&sb, "=========     by warp %d in block (%d,%d,%d)\n", f.Warp, f.CTA[0], f.CTA[1], f.CTA[2])
	}
	fmt.Fprintf(&sb, "=========     kernel %s, kind %s\n", f.Kernel, f.Kind)
	if f.Grid != "" {
		fmt.Fprintf(&sb, "=========     in %s\n", f.Grid)
	}
	return sb.String()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
