// Package model is ptxtrace's cycle-level, execution-driven SIMT GPU timing
// model. Replay (the functional core) decides what each warp does; this
// package decides when: it dispatches CTAs to SMs, picks a warp per
// scheduler per cycle, calls Warp.Issue at the cycle the instruction
// issues, and times the instruction's effect. The contract is iface.go,
// including which goroutine calls each Warp, CTA and Kernel method when.
//
// # Seams
//
//   - Issue policy (sched.go): a warp scheduler asks its IssuePolicy, once
//     per simulated cycle, to try its warps in the policy's order
//     (IssueQueue.TryIssue). Whether a warp can issue is the SM's rule
//     (below), not the policy's. GTO, LRR and TwoLevel are built in and
//     chosen by Spec.SM.Scheduler; Options.Policy supplies any other.
//   - Observers (hooks.go): per-SM and memory-side Observers receive
//     issue, unit-busy, stall, CTA and memory-level events. They cannot
//     change the result, their event streams are deterministic, and
//     nothing attached costs one nil test per event site.
//   - Lookahead (iface.go, Windowed): a warp may expose decoded
//     instructions past its head. With Options.Window > 1 a warp that is
//     Reorderable may issue any entry of its window whose true operands
//     are ready (out-of-order timing, in-order semantics: ooo.go);
//     otherwise only the head issues.
//   - Options.Wrap replaces the kernel for a run (package dualflow uses it
//     to present warps in another instruction set).
//
// # Why naive clock probes are wrong here
//
// Nothing in the model knows about probes. The effect of seed 003 follows
// from three rules of the core:
//
//   - In-order issue per warp with a scoreboard of pending writes: an
//     instruction issues when every register it reads or writes (its
//     guard predicate included, so a predicated-off instruction still
//     waits) has no pending write. WAR needs no check: operands are read
//     at issue, and issue is in order.
//   - Non-blocking loads: a load marks its destinations pending and the
//     warp goes on issuing independent instructions. A clock read right
//     after the load therefore issues one cycle later, long before the
//     data arrives.
//   - A clock read returns the cycle at which it issues (Clocks.Cycle).
//
// A fence (ClassFence) issues only when the warp has no outstanding memory
// operation and then blocks the warp for SM.FenceLatency cycles; a consumer
// of the load's destination (even predicated off) issues when the data is
// back. Either placed before the end stamp makes it measure completion.
// An async wait (ClassFence with Inst.AsyncWait: cp.async.wait_group,
// mbarrier waits) issues only when the warp has no outstanding Async
// operation (asynchronous copies), whatever its other memory operations,
// and then blocks the warp like a fence.
//
// # Timing rules (what the microbenchmark tests derive their numbers from)
//
//   - A warp issues at most one instruction per cycle; each scheduler
//     issues at most one per cycle, from the first warp its policy tries
//     that can issue (GTO, LRR, two-level or Options.Policy). A warp
//     instruction occupies an instance of its unit for
//     ceil(32/(Lanes*ClockMul)) * Interval cycles; its result is ready
//     Latency cycles after issue. A branch blocks its warp for the branch
//     latency (no prediction).
//   - Memory instructions spend Classes.LdSt.Latency cycles in address
//     generation, then enter the SM's memory pipeline, which performs one
//     tag lookup per line transaction per cycle (PerCycle for the texture
//     cache), and one pass per way of a shared-memory bank conflict
//     (Shared.CyclesPerWay each). A memory instruction issues only when
//     the pipeline will be free when it arrives.
//   - Coalescing: the active lanes' byte ranges are grouped by the cache
//     line of the accessed cache, sectors recorded per line; each line is
//     one transaction. Loads of global (when L1D.CachesGlobal), local and
//     surface data go through L1; otherwise straight to L2. Stores are
//     write-through and evict the line from L1 (local stores keep it);
//     atomics are performed at L2.
//   - A miss takes an MSHR (or merges into the line's) and a slot of the
//     SM's miss queue (Icnt.MissQueue), which drains into the crossbar at
//     Icnt.FlitBytes per cycle. Without an MSHR or a queue slot the memory
//     pipeline stalls (stall reasons Pipeline and Interconnect).
//   - A request reaches its L2 slice Icnt.Latency cycles after it is
//     injected, queues at the slice's input port (flits), and is looked
//     up. Its response leaves the slice L2.Latency cycles after the data is
//     there (at once for a hit; after DRAM for a miss), queues at the
//     slice's output port and at the SM's ejection port, and arrives
//     Icnt.Latency cycles later. L2 is write-back, write-allocate at sector
//     granularity; dirty victims are written to DRAM.
//   - DRAM: per channel a queue of DRAM.QueueSize requests scheduled
//     FR-FCFS (oldest row hit among requests whose bank is ready, else the
//     oldest) or FCFS; open-row banks with tRCD, tRP, tCL, tRAS and tCCD
//     (in DRAM clocks, converted to core cycles rounding up) and a data
//     bus of BytesPerClock per DRAM clock; DRAM.Latency is added to every
//     read.
//
// # Determinism and parallelism
//
// Simulated time is integer core cycles. The GPU advances in epochs of
// Quantum() cycles. Within an epoch every SM runs on its own, reading only
// its own state and the responses delivered to it, so SMs can run in
// parallel. At the epoch boundary, serially: the SMs' requests are handed
// to the memory side in SM order, the memory side (a discrete-event
// simulation ordered by (time, seq)) processes every event earlier than
// the boundary plus Icnt.Latency, its responses are given to the SMs, and
// freed CTA slots are refilled in (free time, SM) order. With workers, and
// when 2*Quantum() <= 2*Icnt.Latency + L2.Latency (every preset), the
// memory side instead advances to that horizon on a helper worker,
// starting at the boundary (alongside the refill) and overlapping the next
// epoch, and its responses reach the SMs after that epoch: each SM's worker
// moves them into the SM's inbox before running it in the epoch after. An
// event at or after the previous horizon answers no earlier than
// L2.Latency + Icnt.Latency after it, so after that epoch (Run checks
// this, and catches the memory side up before declaring a deadlock). The
// requests and responses change hands by swapping per-SM buffers, so an
// SM's traffic is written and read only by its own worker and the memory
// side's.
//
// The quantum costs no accuracy. A request made in a later epoch reaches
// the memory side no earlier than the boundary plus Icnt.Latency, so no
// event the boundary processes could have been affected by it; and every
// response arrives at least L2.Latency + 2*Icnt.Latency after the request
// that caused it, and a new CTA starts CTALaunchLatency after the slot
// freed. With a quantum no longer than Lookahead(), the minimum of these,
// every response and every CTA start falls in a future epoch, exactly
// when a global cycle-by-cycle simulation with the same arbitration
// order would have produced it (Run checks this). The quantum therefore
// only sets how often SMs synchronise.
//
// Functional order: replay executes an instruction when Issue is called.
// Serially (the default) SMs run one after another within an epoch, so the
// order of Issue calls is fixed: by epoch, then SM, then cycle. SMs run
// concurrently only for a kernel that implements ConcurrentKernel and
// answers true, promising that its CTAs do not communicate through global
// memory within a launch (no atomics whose values matter, no flags). Then
// the interleaving of Issue calls across SMs varies, but the timing result
// cannot: it depends only on each SM's own instruction stream.
//
// # Invariants
//
//   - Results are identical across runs, Options.Workers and GOMAXPROCS,
//     and with or without observers; so is each observer's event stream.
//   - A clock read returns its issue cycle; probe ground truth records the
//     issue and completion cycle of every probed access per warp in issue
//     order (Result.Probes).
//   - Events are (time, seq)-ordered where order matters: each SM's
//     response inbox is a 4-ary min-heap (heap.go), the memory side's
//     events a calendar queue with a heap for items outside its window
//     (calq.go) that pops in exactly the heap's order; seq breaks ties in
//     creation order and is unique, so equal times pop deterministically
//     whatever the queue's shape.
//   - No allocation per instruction in steady state: warp, memory-op and
//     request records are pooled; idle cycles are skipped, not stepped.
//   - What a scheduler skips never changes an answer: the GTO scan passes
//     over warps waiting for an event (notBefore never) until a response
//     or barrier release wakes them, and a scheduler whose warps all wait
//     or are held by the memory pipeline reuses that cycle's stall reason
//     until a warp's wake-up time, a pipeline change or an event
//     (IssueQueue.idleUntil, sleep in sched.go).
//   - A Spec is a value; nothing here modifies one or keeps global state.
//
// # Host↔device transfers
//
// transfer.go is a separate, closed-form model of copies between host and
// device memory (seed 001): DMA, IORW, the HUB and GPC microcontrollers'
// DMA in 2^n-byte chunks (PlanChunks) and overlapped pairs, in integer
// picoseconds, with per-preset parameters (TransferPreset,
// transfer_presets.go). It never touches the kernel simulation;
// docs/transfer.md gives its formulas and the source of every value.
//
// docs/model.md lists every preset value and its source.
package model
