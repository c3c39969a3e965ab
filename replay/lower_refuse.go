package replay

import (
	"fmt"
	"strings"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// Refusals. Replay executes an instruction only when its semantics are
// implemented exactly; everything else is refused at lowering (a positioned
// warning in Code.Warnings) and faults with FaultUnsupported if a warp
// reaches it. Nothing is executed as an approximation of a different
// instruction (an ldmatrix as a plain load, a cluster barrier as a CTA
// barrier, cvt.pack as cvt).

// unsupportedError is a refusal: the opcode spelling and why.
type unsupportedError struct {
	op  string // the base or compound opcode name ("ldmatrix", "cvt.pack")
	why string
}

func (e *unsupportedError) Error() string {
	return fmt.Sprintf("replay: %s is not supported: %s", e.op, e.why)
}

func refuse(name, format string, args ...any) error {
	return &unsupportedError{op: name, why: fmt.Sprintf(format, args...)}
}

// notImplemented gives the reason an opcode family is not executed.
func notImplemented(name string) string {
	switch {
	case strings.HasPrefix(name, "wmma"):
		return "the wmma fragment layouts are not implemented"
	case name == "mma.sp" || strings.HasPrefix(name, "wgmma"):
		return "tensor-core matrix multiply-accumulate is not implemented"
	case strings.HasPrefix(name, "tcgen05"):
		return "tensor memory and tcgen05 operations are not implemented"
	case name == "movmatrix":
		return "the movmatrix fragment layout is not implemented"
	case strings.HasPrefix(name, "mbarrier") || name == "cp.async.mbarrier.arrive":
		return "mbarrier objects are not implemented"
	case strings.HasPrefix(name, "cp.") || name == "st.async" || name == "red.async" || name == "st.bulk":
		return "asynchronous and bulk copies are not implemented"
	case strings.HasPrefix(name, "multimem"):
		return "multimem operations are not implemented"
	case strings.HasPrefix(name, "tensormap"):
		return "tensor-map operations are not implemented"
	case name == "barrier.cluster":
		return "cluster barriers are not implemented (barrier.cluster.arrive/wait are not CTA barriers)"
	case name == "cvt.pack":
		return "cvt.pack (saturating pack of two integers) is not implemented"
	case strings.HasPrefix(name, "clusterlaunchcontrol"):
		return "cluster launch control is not implemented"
	case name == "mapa" || name == "getctarank":
		return "distributed shared memory addressing is not implemented"
	case name == "istypep":
		return "istypep is not implemented"
	case name == "createpolicy":
		return "cache-policy creation is not implemented"
	case name == "stacksave" || name == "stackrestore" || name == "alloca":
		return "dynamic stack allocation is not implemented"
	case strings.HasPrefix(name, "v"):
		return "the SIMD video instructions are not implemented"
	}
	return "not implemented by replay"
}

// checkModifiers refuses combinations of modifiers the opcode table
// accepts one by one but replay does not execute: an atomic without an
// operation, min/max atomics on half-precision types.
func checkModifiers(name string, op *ptx.Opcode) error {
	if name != "atom" && name != "red" {
		return nil
	}
	at := op.Atom
	if at == "" {
		at = op.BoolOp
	}
	if _, ok := atomCodes[at]; !ok {
		return refuse(name, "atomic operation %q is not implemented", at)
	}
	if t := op.Type(); (at == ".min" || at == ".max") && isHalfFamily(t) {
		return refuse(name, "%s on %s is not implemented", at, t)
	}
	return nil
}
