// Package replay executes PTX kernels on the CPU with exact SIMT semantics.
//
// # Model
//
// A Program is a parsed module with its module variables laid out (the
// constant bank, .global variables, texture references). Program.Lower
// lowers one .entry and every .func it calls into a Code: a dense array of
// instructions per function, each with its operands resolved to register
// offsets, decoded sub-operations, branch targets, reconvergence points and
// a precomputed model.Inst (Class, Dst, Src, Mem, Space, Size, Line, Probe).
// Interpretation never looks at the AST or at names: every source operand
// is a register; immediates, symbol addresses and non-dynamic special
// registers are "constant registers" filled when a frame is created.
//
// A Kernel is a launch (Code, geometry, parameter buffer, constant bank,
// device memory). It implements model.Kernel; its CTAs implement model.CTA
// and their warps model.Warp, so a timing model can create CTAs and issue
// warp-instructions one at a time (Peek returns the static Inst, Issue
// executes it and returns the Effect: active lanes, per-lane addresses and
// resolved space, barrier arrivals, exit). Kernel.Run is the functional
// scheduler used without a model.
//
// Kernel.RunModel executes a launch on a model.Spec (SMs in parallel where
// the kernel allows it, see "Parallel timing mode"). Replay is the SIMT
// machine only: the YAML launch-spec language that sets up devices,
// buffers, textures and multi-launch sequences (docs/launch.md), the sample
// references and the trace bundles live downstream in package launch, which
// drives replay through this public API (Program, Lower, Launch, NewKernel,
// Device, Run, RunModel). Replay imports ptx, model, internal/fpx and
// internal/texture only (TestDeps).
//
// # Textures and surfaces
//
// Texture references (.texref, old-style .tex) are bound by slot, texture
// and surface objects are u64 handles passed as parameters
// (Launch.Textures: Program.TexRefs slots, then Program.SurfRefs slots, then
// the objects; handle TexHandleBase+i names object i). tex, tld4
// and txq sample internal/texture and report each lane's touched texels
// (model.Effect.Texels, TexFmt) for the model's texture cache; suld/sust .b
// access surface memory that lives in a device allocation, so surface
// stores follow the same deterministic write scheme as global stores.
//
// # SIMT execution and reconvergence
//
// A warp has 32 lanes, a live mask (lanes that exist) and an exited mask.
// Control flow uses a reconvergence stack per call frame (the classic
// immediate-post-dominator scheme): a divergent branch turns the current
// entry into the reconvergence entry at the branch block's immediate
// post-dominator (ptx.BuildCFG) and pushes the taken and not-taken paths;
// the not-taken path runs first; an entry is popped when it reaches its
// reconvergence PC. ret jumps to the function's end (the CFG exit block);
// reaching the end of the entry is exiting. A call runs the callee for the
// calling lanes in a new frame (its own registers, reconvergence stack and
// a local-memory frame holding its .local and .param variables), which
// allows recursion up to 1024 frames / 1 MiB of local memory per thread.
//
// Where this differs from hardware: Volta and later schedule threads
// independently (a diverged warp may interleave its paths, and lanes of a
// warp may wait for each other in spin loops); this stack machine runs one
// path to its reconvergence point before the other, so intra-warp spin
// locks between divergent paths do not terminate (caught as runaway), and
// warp-synchronous operations see only the lanes active on the current
// path.
//
// # Barriers
//
// bar/barrier (.sync, .arrive, .red, with or without .cta and .aligned)
// follow the PTX ISA: a thread at a barrier waits for all non-exited
// threads of its warp, then the warp arrives once; exited threads never
// take part, so `if (i >= n) return; ... __syncthreads();` runs when a
// warp straddles n. Lanes of a warp may reach a barrier on different paths
// of the reconvergence stack: a path that reaches it first is parked and
// the warp's other lanes run (a pending sibling path, or lanes waiting at
// a reconvergence point, which are split off and run on as independent
// thread scheduling allows) until they exit or reach the barrier too; a
// .aligned barrier must then be the same instruction, a non-.aligned one
// the same barrier id. Lanes that can no longer reach it (waiting at
// another barrier, a guard that is false for some lanes, lanes only an
// outer call frame could bring there) are a barrier-divergence fault, as
// compute-sanitizer's synccheck reports. Barriers count warps (the ISA's
// per-warp arrival): a CTA-wide barrier waits for every warp that has not
// exited, one with a thread count for count/32 warps (rounded up; if fewer
// warps can ever arrive, the launch faults with a deadlock, where a GPU
// would hang). bar.red.popc/.and/.or combine the predicates of the
// participating non-exited threads. bar.warp.sync uses the same parking:
// the lanes of its membermask on other paths run to a bar.warp.sync of
// their own before the executing path continues.
//
// # Refused instructions
//
// An instruction whose semantics replay does not implement exactly is
// refused at lowering: Code.Warnings gets "file:line:col: replay: OP is not
// supported: why" and a warp that reaches it faults (FaultUnsupported) with
// that reason; nothing runs as an approximation (other mma/wmma/wgmma
// shapes, bulk copies, cluster barriers, cvt.pack, vector or 128-bit
// atomics, ...).
// ldmatrix and stmatrix are executed exactly for .m8n8 .b16 (.x1/.x2/.x4,
// .trans, shared or generic addresses into shared memory), with the ISA's
// fragment layout (exec_matrix.go).
//
// Lowering is table-driven: opTable (lower_table.go) maps every compound
// opcode name (ptx.Facts.Name) to its lowering function (lower_*.go, one
// file per family, as exec_*.go for execution) and to the modifiers and
// types it accepts; an opcode missing from the table or a modifier not
// listed for it is refused. The table is therefore the set of accepted
// spellings, and TestSpellingCoverage requires a hand-derived conformance
// case for every (opcode, modifier) pair of it.
//
// # Memory
//
// Global memory is a Device: a flat 64-bit address space of allocations
// (256-byte aligned, separated by unmapped gaps), starting at GlobalBase.
// Shared memory is per CTA (static variables first, then the dynamic area
// for extern .shared arrays at a 16-byte boundary), local memory per thread
// (call frames), the constant bank per launch, the parameter buffer per
// launch. Generic addresses use windows: SharedWindow, LocalWindow,
// ConstWindow and ParamWindow map to those spaces (cvta adds or removes the
// window base); any other generic address is global. Every access is
// bounds- and alignment-checked.
//
// An `.address_size 32` module has 32-bit generic addresses: its device
// (NewDeviceFor) allocates from GlobalBase32 and NewKernel refuses a
// launch whose allocations reach GlobalLimit32; its windows are
// SharedWindow32 … ParamWindow32 (Window32Size bytes each, ending at 4 GiB).
//
// cp.async (exec_async.go) copies at issue; its shared destination stays
// pending (CTA.async) until the issuing thread's cp.async.wait_group covers
// its group, and every shared access overlapping a pending destination is
// an async-race fault, so no read observes a value the ISA leaves
// undefined.
//
// TMA tiled loads (exec_tma.go) read global memory at issue and complete
// (write shared memory, complete_tx) when a wait on their mbarrier would
// otherwise fail; their destinations are pending ranges like cp.async's.
// wmma (exec_wmma.go) uses the mma.sync fragment tables (the ISA leaves the
// wmma distribution unspecified); wgmma (exec_wgmma.go) reads its operands
// through shared-memory matrix descriptors with the canonical swizzled
// layouts, each warp computing its 16 rows of D at issue. Indirect calls
// resolve function addresses (FuncAddrBase + 16·declaration index) per
// lane and split the warp like brx.idx when lanes differ.
//
// mma.sync m16n8k16 (exec_mma.go) follows the ISA's fragment layouts; its
// floating-point result uses a documented numerical model (exact products,
// float64 accumulation in k order, one rounding) and every such instruction
// is listed in Code.Notices: within a tolerance of hardware, not bit-exact.
//
// mbarrier objects (exec_mbarrier.go) live in shared memory in replay's own
// 64-bit encoding (pending and expected counts, tx-count, valid bit, phase
// parity); try_wait answers like test_wait.
//
// Module-scope .reg declarations (PTX 1.x: %rv1, %ra1, …) are registers
// of every function that does not declare the name itself. Each call frame
// has its own registers, which is exact only while no value travels between
// functions through a module-scope register, so lowering refuses a kernel in
// which two functions use the same one.
//
// # Dynamic parallelism
//
// Calls of the CUDA device runtime (cudaGetParameterBuffer[V2],
// cudaLaunchDevice[V2], cudaGetLastError, cudaPeekAtLastError) are
// built-ins (cdp.go). A device-side launch is queued; Run and RunModel run
// the queue after the host-launched grid, in launch order, each grid to
// completion (in timing mode on the model, one after another, each after
// model.Spec.DeviceLaunchNs). Invariants: a child never starts before the grid
// that launched it has finished; the host launch returns only when the
// queue is empty; a kernel that calls the device runtime runs its CTAs one
// after another and never concurrently on several SMs, so launch order is
// the CTA, warp and lane order and every result is deterministic; streams
// other than NULL and device-side cudaDeviceSynchronize are refused
// (docs/model.md, "Dynamic parallelism").
//
// # Parallel execution and determinism
//
// Run executes CTAs on Workers goroutines in waves of WaveSize CTAs (a
// constant). Within a wave each CTA writes global memory into a private
// overlay (byte-granular, copy-on-write pages) and reads its own writes over
// the memory as it was before the wave; after the wave the overlays are
// merged into the device in CTA order, so conflicting writes resolve as if
// the CTAs had run one after another in CTA order, and printf output is
// concatenated in CTA order. Kernels with atomics or reductions on global
// or generic memory run their CTAs sequentially in CTA order against the
// device directly (atomics see each other). Either way the output bytes do
// not depend on Workers or GOMAXPROCS. Within a CTA the functional
// scheduler runs warps round-robin, 64 instructions (or up to a barrier or
// exit) at a time; %clock/%clock64/%globaltimer read the warp's own
// instruction count in functional mode and the model's Clocks otherwise.
//
// # Parallel timing mode
//
// Kernel implements model.ConcurrentKernel. ConcurrentIssue answers true
// unless some instruction of the lowered entry or of a function it calls
//
//   - is an atomic or reduction (atom, red, sured, ...) that is not on
//     shared, local or param memory (global or generic: its address could
//     be shared with another CTA);
//   - accesses global or generic memory with .volatile, .mmio, .acquire,
//     .release, .acq_rel or .sc semantics, or with .relaxed at a scope other
//     than .cta or .cluster (a CTA is its own cluster);
//   - is a membar or fence of scope .gl, .gpu or .sys.
//
// Exception: atomics and volatile accesses whose address operand is based
// on a register with the instrumentation's reserved prefix %__pt_
// (instrument/rewrite.go) count as CTA-private: they address only the
// warp's own trace segment or shared slot.
//
// With ConcurrentIssue true, RunModel gives every CTA an overlay, as Run
// does: a CTA's loads see device memory plus its own writes, its stores
// (and atomics, read-modify-write through the overlay) go to the overlay.
// When a CTA's warps have all exited its overlay waits; the waiting
// overlays are merged into the device in CTA order at the start of each
// NewCTA call (the model makes those only in its serial phases: initial
// dispatch and epoch boundaries) and after model.Run returns. No goroutine
// writes device memory while SMs run, and what is merged when depends only
// on the deterministic timing. Everything else Issue touches is per CTA or
// per warp (printf output, faults, instruction counts and budget) or
// read-only (code, textures, constant bank). Programs without inter-CTA
// communication within a launch get exactly the serial results, and every
// program gets results that do not depend on model.Options.Workers or
// GOMAXPROCS. Kernels that do not qualify run with their SMs one after
// another (model.Run's rule) writing the device directly, so cross-CTA
// atomics see each other in the model's issue order. Kernel.SetSerial
// forces that path for any kernel.
//
// CTA implements model.Releaser: once the model has finished a CTA its
// warps' storage (one slab per CTA, with the entry frame's registers and
// reconvergence stack inside each warp) returns to the kernel and is
// reset for a later CTA, in timing and functional mode alike; a released
// CTA keeps only its printf output, fault and counts.
//
// # Faults
//
// Out-of-bounds and misaligned accesses, writes to read-only spaces,
// barrier divergence and deadlock, runaway execution (a per-warp
// instruction budget, Launch.MaxWarpInsts), trap, failed device asserts and
// unsupported instructions stop the launch with a *Fault naming the kernel,
// CTA, warp, lane, thread, PC, PTX file:line and the instruction text.
// Run reports the fault of the lowest-numbered faulting CTA of the first
// faulting wave. A warp proven to spin (its whole state repeats at one
// instruction with only register work in between, spin.go; probed every
// Kernel.SetSpinCheck instructions) faults as runaway at once, long before
// its budget runs out; so does a warp polling memory once every warp that
// could still write that memory is proven stuck as well (looping without
// writing, exited, or blocked at a barrier; spinmem.go). The proofs are
// exact, so they never stop a loop that can exit.
//
// # Invariants
//
//   - Code, Program and the model.Inst values are immutable after Lower
//     (SetProbe is the one exception and must precede launches).
//   - No global mutable state.
//   - Register values are stored zero-extended to 64 bits at the width of
//     the operation that wrote them; readers truncate to their own width.
//
// Arithmetic follows the PTX ISA with bit-exact IEEE rounding through
// internal/fpx: every rounding modifier, .ftz, .sat, canonical NaNs;
// approximate instructions are within the ISA's error bounds but not
// bit-identical to any GPU's special-function unit.
package replay
