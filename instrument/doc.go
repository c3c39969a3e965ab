// Package instrument inserts completion-based timing probes into PTX
// kernels (Kanda et al., seed 003) and describes them in a manifest
// (package manifest). It edits the ptx AST and never executes anything;
// running ptxas for register counts and SASS checks is the caller's
// business (package instrument/cudatool).
//
// Model. A site is a load (ld, ldu, tex, tld4) of a selected state space
// in a selected kernel (.entry) or in a .func it calls (directly or not):
// such functions get the warp's trace context as added parameters at every
// call (funcs.go). Each site becomes a load region with a
// begin probe (timer read immediately before the load) and an end probe
// (timer read after the load has completed). A user region (--region) has
// a begin probe before its first instruction and an end probe after (or,
// for a control transfer, before) its last one. Completion of a load is
// forced before the end read by
//
//   - fence: the lightest CTA-scope fence of the target (fence.acq_rel.cta
//     on sm_70+ with PTX ≥ 6.0, else membar.cta): it stalls the warp until
//     its outstanding memory operations are performed;
//   - dummy: the load's first destination register is stored, under the
//     predicate %__pt_p0 = (__pt_dummy != 0), false at run time, into the
//     warp's own scratch word of the trace buffer. The store uses the
//     loaded value (C1), writes program output (C2) and never runs (C3);
//     being a memory operation, ptxas keeps it before the end timer read,
//     and it cannot issue before the load completes (all of a load's
//     destination registers arrive together);
//   - naive: nothing (the paper's baseline).
//
// An asynchronous copy (cp.async, cp.async.bulk{.tensor} with an mbarrier)
// is a site too when its wait follows it on its path (async.go): the begin
// read goes before the copy, the end read after the program's own wait —
// the cp.async.wait_group/wait_all that covers its group, or the exit of
// the try_wait loop on its mbarrier (modes wait_group, mbarrier). A
// cp.async of a multi-stage pipeline, whose covering wait lies in a later
// iteration, is paired at run time (pipeline.go, mode group_seq): its begin
// record carries the thread's commit count, each wait's end record the
// number of groups it completed, and the decoder pairs them. A TMA or bulk
// copy whose wait loop lies in a later iteration is paired at run time by
// its mbarrier's phase (tma.go, mode phase_seq): its begin record carries
// the barrier's shared address, each wait loop's end record the barrier
// and the parity it waited for.
//
// Auto mode uses the dummy consumer for every load whose destination can be
// read, whatever its state space: a fence would also wait for the warp's
// older in-flight stores and atomics and charge them to the load. The fence
// remains for user regions and loads without a readable destination.
//
// Records (docs/buffer.md) are written after the end read, so their cost
// stays outside the measured interval: the lowest active lane reserves
// slots with one atomic add on the warp's count and writes 16-byte records
// that fit; the count always goes up (overflow is counted, never written).
// A probe that waits for completion selects that lane (register work only)
// before its begin read, so that after completion only the atomic, the
// address arithmetic and the stores remain (records.go).
// The count and records live in the warp's slot of the dynamic shared
// staging array __pt_stage (staging auto/shared) or directly in the warp's
// global segment (staging global, or a launch whose host passes 0 staged
// records or too little dynamic shared memory); both are addressed
// generically through %__pt_a0. The staged records per warp R are chosen
// per launch by the host with PlanStaging (blocks per SM unchanged); record
// i ≥ R goes straight to its place in the global segment, so the records are
// those of global staging whatever their number.
//
// Invariants.
//   - The kernel's own registers, memory and control flow are untouched:
//     added code writes only %__pt_ registers (declared in one block at the
//     top of the body), the __pt_stage array and the trace buffer; with
//     __pt_dummy = 0 no dummy instruction executes, and even with another
//     value the dummy store only writes the warp's own slot.
//   - Every ret/exit of the kernel branches to one exit block that flushes
//     the warp's records (see docs/instrument.md for divergent exits).
//   - Probe ids are unique in the module; each region has one begin and one
//     end probe; out_line names the probed instruction in the output.
//   - No global mutable state; Instrument modifies only the File it is given.
//     The statements it inserts may be shared between (and within) the
//     File's functions, one node per distinct generated instruction: treat
//     them as read-only.
//   - Cost is linear in the input (no whole-output re-parse; indexed
//     lookups); modules of PTX ISA < 2.0 or for sm_1x with sites are
//     refused (the probes need ISA 2.0 and sm_20).
//   - Stream instruments a module one segment (a run of functions joined
//     by calls of traced functions) at a time, writing to an io.Writer:
//     its output, manifest and warnings are byte for byte Instrument's on
//     the whole module, or it returns ErrNotStreamed (then the caller
//     discards what was written and calls Instrument). Both passes run
//     on StreamOptions.Workers goroutines (GOMAXPROCS), a batch of
//     segments each, joined strictly in order: the output does not
//     depend on their number. Its memory is the input, the manifest and
//     a few batches (docs/instrument.md, "Large modules"). Its first pass does not parse a piece holding only a
//     kernel that calls nothing (plainKernel): the second pass checks it
//     and counts its sites, and refuses after writing if the first pass
//     would have. WriteManifest writes Manifest.Write's bytes one kernel
//     at a time (manifest.AppendKernel).
package instrument
