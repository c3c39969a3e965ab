package model

// This file is the contract between the functional core (package replay,
// which decides WHAT each warp does) and the timing model (this package,
// which decides WHEN). The model never parses PTX; replay never computes
// cycles. Replay lowers a kernel, creates the warps of a CTA when the model
// dispatches it, and executes one warp-instruction each time the model issues
// it.

// Class is the pipeline an instruction uses.
type Class uint8

// Instruction classes.
const (
	ClassInt      Class = iota // integer ALU, logic, moves, setp, conversions between ints
	ClassFP32                  // fp32 (and packed fp16/bf16) add/mul/fma
	ClassFP64                  // fp64 arithmetic
	ClassSFU                   // special function unit: sin, cos, ex2, lg2, rcp/rsqrt/sqrt .approx, tanh
	ClassConv                  // conversions involving floats (cvt)
	ClassTensor                // mma, wmma.mma, wgmma
	ClassLdSt                  // loads, stores, atomics, texture, surface (Mem says which)
	ClassBranch                // bra, brx, call, ret
	ClassBarrier               // bar.sync / barrier / bar.arrive / bar.red
	ClassFence                 // membar, fence
	ClassWarpSync              // shfl, vote, match, redux, activemask, bar.warp.sync
	ClassMisc                  // nop-like and everything else
	NumClasses
)

// MemOp is the kind of memory operation of an ClassLdSt instruction.
type MemOp uint8

// Memory operations.
const (
	MemNone MemOp = iota
	MemLoad
	MemStore
	MemAtomic // atom: read-modify-write, returns a value
	MemReduce // red: read-modify-write, no value
	MemTex    // tex, tld4: texture fetch (Effect.Texels)
	MemSurfLoad
	MemSurfStore
)

// Space is the state space a memory operation resolves to. Generic
// addresses are resolved by replay before they reach the model.
type Space uint8

// Spaces.
const (
	SpaceNone Space = iota
	SpaceGlobal
	SpaceShared
	SpaceLocal
	SpaceConst
	SpaceParam
	SpaceTex
	SpaceSurf
)

// Reg is a dense register number of a lowered kernel (replay assigns them;
// 0..NumRegs-1 per thread, predicates included).
type Reg uint16

// Inst is the static, timing-relevant view of one lowered instruction. Replay
// builds one per instruction when it lowers a kernel; the model may keep
// pointers to it and must not modify it.
type Inst struct {
	PC    int   // index in the lowered function
	Line  int   // 1-based line in the PTX file it came from
	Class Class // pipeline
	Dst   []Reg // registers written (scoreboard: RAW for later readers, WAW)
	Src   []Reg // registers read, the guard predicate included (a predicated-off instruction still waits for them)
	Mem   MemOp
	Space Space
	Size  int  // bytes per lane of a memory access (vector width included)
	Probe int  // probe-site id whose measured access this is (ground truth), or -1
	Clock bool // reads %clock, %clock64 or %globaltimer
	// Async marks an asynchronous copy (cp.async, TMA and bulk copies): a
	// memory operation without destination registers whose completion the
	// warp observes with an AsyncWait instruction.
	Async bool
	// AsyncWait marks a ClassFence instruction that waits only for the
	// warp's outstanding Async operations (cp.async.wait_group/wait_all,
	// mbarrier test_wait/try_wait), not for its other memory operations:
	// with AsyncKeep = N ≥ 0 for those of the groups committed before the
	// N most recent ones (cp.async.wait_group N), with AsyncKeep < 0 for
	// all of them, committed or not.
	AsyncWait bool
	AsyncKeep int
	// AsyncCommit closes the warp's current group of Async operations
	// (cp.async.commit_group, and cp.async.wait_all after its wait).
	AsyncCommit bool
	// Stamp marks the timer reads of a probed access's probe pair (the
	// begin read before it, the end read after it), so the ground truth
	// records when they issued (ProbeAccess.Begin, End).
	Stamp Stamp
}

// Stamp says which timer read of a probe pair an instruction is.
type Stamp int8

// Stamps.
const (
	StampNone  Stamp = iota
	StampBegin       // the begin timer read of the next probed access
	StampEnd         // the end timer read of the last probed access
)

// Texel is one texel a lane's texture fetch touches, in texel coordinates of
// the texture (X, Y, Z, Layer). The model maps texels to addresses with its
// own tiled layout, so a block shape changes the texture-cache hit rate.
type Texel struct {
	Tex     uint16 // texture number within the launch
	X, Y, Z int32
	Layer   int32
}

// Effect is what issuing one warp-instruction did. Slices are owned by the
// warp and valid until its next Issue.
type Effect struct {
	Active uint32    // lanes that executed (guard and divergence applied)
	Addr   []uint64  // per-lane byte address of a memory access, indexed by lane (len 32) — only Active lanes are meaningful
	Texels [][]Texel // per-lane texels of a texture fetch (len 32), nil otherwise
	// Space is the state space the access resolved to: a generic ld/st/atom
	// reports where its (first active) lane's address points; other memory
	// instructions report Inst.Space.
	Space  Space
	TexFmt TexInfo // texture geometry for the fetch's texture
	Exited bool    // the whole warp has exited
	// Barrier is set for bar.sync/barrier: the warp waits at barrier ID
	// until BarrierCount threads (0 = all threads of the CTA) arrive.
	Barrier      bool
	BarrierID    int
	BarrierCount int
	Arrive       bool // bar.arrive: counts toward the barrier without waiting
}

// TexInfo is the geometry of a texture as the model needs it.
type TexInfo struct {
	Width, Height, Depth int
	Layers               int
	TexelBytes           int
}

// Time is a cycle count of the core clock.
type Time uint64

// Clocks is what a warp sees of time when it issues an instruction: replay
// uses it for %clock, %clock64, %globaltimer and %smid.
type Clocks struct {
	Cycle       Time   // core cycle of the SM at issue
	GlobalTimer uint64 // ns since the launch started
	SMID        int
}

// # Call phases
//
// Run simulates in epochs (doc.go). Each epoch has a parallel phase, in
// which every SM simulates its own cycles, and a serial phase at the
// boundary. The methods of Warp, CTA and Kernel are called as follows, and
// an implementation may rely on it:
//
//   - Kernel.NumCTAs, ThreadsPerCTA, RegsPerThread, SharedPerCTA: on the
//     goroutine that called Run, before the first epoch (and again, for
//     ThreadsPerCTA and the resources, when an SM starts a CTA: on that
//     SM's goroutine; the answers must not change during a run).
//   - Kernel.NewCTA: only on the goroutine that called Run, only in serial
//     phases (the initial dispatch and epoch boundaries), never while any
//     SM is simulating. CTA ids are handed out in increasing order.
//   - CTA.Warps: once per CTA, on the goroutine of the SM the CTA was
//     dispatched to, in that SM's parallel phase, when the CTA starts
//     (CTALaunchLatency after its slot freed).
//   - Warp.Peek, Warp.Issue, Warp.ID and Windowed.Window: on the goroutine
//     of the warp's SM, in the parallel phase. The calls of one SM are
//     sequential and in cycle order. Different SMs run on different
//     goroutines concurrently only when the kernel implements
//     ConcurrentKernel and answers true and Options.Workers > 1; otherwise
//     the SMs of an epoch run one after another on the goroutine that called
//     Run, SM 0 first, and all calls happen on that goroutine.
//   - Warp.ID may also be called in a serial phase, on the goroutine that
//     called Run, to name a warp in a deadlock error.
//   - After Run returns no method is called again.
//
// Between the phases there is a happens-before edge (channel operations),
// so state written by one SM's goroutine in one epoch is visible to any
// goroutine in later phases.
//
// # Execution point and lookahead
//
// The contract is in-order issue with execution at issue: Peek shows the
// head instruction, and Issue executes exactly that instruction, now. A
// warp may also expose a window of decoded instructions past the head
// (Windowed): their registers and classes are known, so an issue policy can
// reason about independence, and a future out-of-order issue model can
// pick a younger instruction. Executing out of program order will add a
// method to issue the k-th instruction of the window; replay then has to
// buffer the functional effect of skipped instructions, which it can do
// only for straight-line code (it cannot know what follows a branch
// without executing it). The window therefore ends at the first
// instruction whose successor is not known without executing it (a branch,
// call, return, exit or barrier).

// Warp is one warp of a running CTA, implemented by replay.
type Warp interface {
	// Peek returns the next instruction the warp will issue, or nil once
	// the warp has exited. It does not execute anything. Called after
	// every Issue and once when the CTA starts.
	Peek() *Inst
	// Issue executes Peek()'s instruction functionally, now. An error is
	// a kernel fault (replay formats it with CTA/warp/lane/PC).
	Issue(c Clocks) (*Effect, error)
	// ID is the warp's index within its CTA.
	ID() int
}

// Windowed is implemented by warps that can show decoded instructions past
// their head (see "Execution point and lookahead" above). Window appends
// to buf up to n instructions in program order, Peek()'s first, and stops
// early where the warp cannot know the next instruction without executing
// (after a branch, call, return, exit or barrier, or whatever the warp
// chooses). It executes nothing and must not change what Peek and Issue
// do. With n <= 0 or an exited warp it appends nothing.
type Windowed interface {
	Window(buf []*Inst, n int) []*Inst
}

// Reorderable is implemented by warps that let the model issue an
// instruction of their window out of program order (Options.Window > 1;
// ooo.go states the issue rules). IssueAt issues the k-th instruction of
// the window (0 is Peek()'s). The warp keeps in-order semantics: it
// executes the window's older instructions functionally first (their
// effects are returned when they issue later) and then the k-th; Peek
// returns the oldest instruction not yet issued. The model asks for k > 0
// only for instructions of classes Int, FP32, FP64, SFU, Conv and Misc
// and for loads and stores that are not texture or surface accesses,
// without Clock or Stamp; the warp's Window must end at (include, then
// stop after) any other instruction.
type Reorderable interface {
	Windowed
	IssueAt(k int, c Clocks) (*Effect, error)
}

// Window appends up to n instructions of w's window to buf: w's own Window
// when it implements Windowed, else the head alone (the in-order default).
func Window(w Warp, buf []*Inst, n int) []*Inst {
	if n <= 0 {
		return buf
	}
	if ww, ok := w.(Windowed); ok {
		return ww.Window(buf, n)
	}
	if in := w.Peek(); in != nil {
		buf = append(buf, in)
	}
	return buf
}

// CTA is one thread block, created by replay when the model dispatches it.
type CTA interface {
	// Warps returns the CTA's warps, warp i at index i; see Call phases.
	Warps() []Warp
}

// Releaser is an optional interface of a CTA. The model calls Release once
// the CTA has finished (every warp retired, its memory operations done), on
// the goroutine of the CTA's SM, in that SM's parallel phase; after it no
// method of the CTA or of its warps is called again, so the CTA may reuse
// their storage for a later CTA.
type Releaser interface {
	Release()
}

// Kernel is a launch as the model sees it, implemented by replay.
type Kernel interface {
	// NumCTAs is the number of CTAs in the grid.
	NumCTAs() int
	// Resources per CTA, for dispatch limits.
	ThreadsPerCTA() int
	RegsPerThread() int
	SharedPerCTA() int // static + dynamic bytes
	// NewCTA creates CTA number i (linear id) on SM sm; see Call phases.
	NewCTA(i int, sm int) (CTA, error)
}
