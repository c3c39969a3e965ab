// Package dualflow is seed 002's study (Matsuo, Mashimo, Shioya: the
// Dualflow instruction set on a GPU) done on ptxtrace's PTX front end and
// functional core.
//
// # Register allocation (regalloc.go)
//
// PTX names unlimited virtual registers, so it hides the false (WAR/WAW)
// dependencies a real register allocation creates. Allocate maps a
// function's virtual registers onto physical registers by greedy colouring
// of the interference graph built from per-block liveness over the CFG
// (Func): two registers of a class interfere when one is defined where the
// other is live. Classes are pred, b16, b32 and b64; b64 takes two 32-bit
// words and b16 one, so Allocation.Words is comparable with ptxas -v's
// "Used N registers" (predicates are not counted, as in ptxas). A budget
// N the colouring exceeds is met by spilling (spill.go): a spilled
// register lives in a .local slot, stored after every definition and
// reloaded into a fresh temporary before every use; the victim is the
// register live across the first point of maximal pressure whose next use
// is furthest along the CFG. A budget not met with everything spilled is
// refused, never silently exceeded. Invariants: Verify re-checks that no
// two simultaneously live registers share a physical register, that the
// count is within N and that no spilled register remains; the rewritten
// PTX declares only physical registers and computes the same values
// (tested on every sample at ptxas's N, byte for byte).
//
// # Dualflow form (convert.go)
//
// In the reverse-Dualflow form every instruction writes one implicit
// destination taken from a per-thread ring (the register pointer RP
// advances by one slot per instruction, by k slots for an instruction with
// k destinations) and names each source by its distance back from its own
// RP to the producing slot. Convert derives the distances by propagating,
// along the CFG, where the latest copy of every virtual register lies; at
// a join every incoming edge delivers the join's layout (the distance of
// each live-in from the join's entry) with the fewest instructions: a mov
// per value not already in place, a nop per empty slot (seed Fig. 7).
// Layouts start canonical (live-ins in declaration order at k+1..2) and
// are derived join by join from an incoming edge (layout.go), kept only
// when the function's loop-depth-weighted count of inserted instructions
// drops (ConvertProfiled weighs by a run's instruction counts instead of
// loop depth); a conditional forward edge's code is split off after the
// function so the other path does not run it. A source farther than the
// maximum encodable distance D is reloaded from a spill slot, written by a
// spill store right after every definition of that register. The result
// is a readable listing (|d| operands) and an executable PTX encoding of
// the Dualflow machine (ExecPTX): a per-thread ring in local memory that
// every operand is read from at RP-d and every result written to, so a
// wrong distance produces a wrong value and the samples' byte-identical
// outputs check the conversion.
//
// # D-FLOW timing (dflow.go)
//
// The model runs the Light encoding through Options.Wrap: every warp is a
// dfWarp around replay's warp. It groups the PCs of one Dualflow
// instruction, names sources by the ring slot of their register's latest
// copy in the warp's issue stream and destinations by fresh slots (true
// dependencies only; RingRegs slots per warp), and implements
// model.Reorderable: the window is the rest of the current straight-line
// segment (up to and including a branch or an instruction that may not be
// reordered), and an entry issued early first executes every older entry
// on replay's warp, in program order, keeping their effects. Functional
// results are therefore replay's in-order results; Evaluate compares every
// run's output buffers with the functional run and fails otherwise. The
// same wrapper with the program's own register names (plainTable) issues
// the allocated program (BASE-OoO) or the original (virtual-OoO) out of
// order, where WAR/WAW between window entries block and are counted.
//
// # Evaluation (eval.go, report.go)
//
// Evaluate runs a bundled sample's launch spec as virtual (original PTX,
// in order), BASE (allocated, in order), BASE-OoO, virtual-OoO and D-FLOW on
// a Config (Table1 = the rtx3080 preset, seed 002's Table 1). Counts keeps
// dynamic counts per SM part and sums them after the run, so results do
// not depend on Options.Workers. Study repeats BASE and D-FLOW with fewer
// resident warps (and a register file scaled with them).
package dualflow
