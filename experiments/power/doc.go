// Package power is the power-gating experiment of seed paper 000
// (Matsumoto et al.): it records, through the timing model's observer seam,
// when each gateable block of the GPU is idle, and evaluates ideal power
// gating with a break-even time (BET) as the seed defines it.
//
// # Model
//
// Three levels of blocks are tracked on every SM of a model.Spec:
//
//   - core: the SM is active while at least one CTA is resident (CTAStart
//     to the CTAFinish that leaves it empty), idle otherwise;
//   - unit: each instance of each execution-unit kind (sp, sfu, ldst, …) is
//     busy in the [From, To) intervals of its model.UnitEvents;
//   - lane: lane j of a unit with L lanes at clock multiplier M serves,
//     in pass p of the P = ceil(32/(L·M)) passes of a warp-instruction
//     (each occ/P core cycles long), the threads p·L·M + c·L + j for
//     c = 0 … M−1; it is busy in that pass when one of them is in the
//     instruction's active mask. On gtx480 (sp: 2 × 16 lanes, M = 2) a warp
//     takes one core cycle and lane j runs threads j and j+16.
//
// Every block's timeline is reduced on the fly to its busy-cycle count and
// an exact idle-interval histogram (interval length → count): an idle
// interval is a maximal run of cycles in [0, Cycles) of one launch in which
// the block is not busy, including the run before its first and after its
// last busy cycle (a block never used has one idle interval spanning the
// launch). The core level also keeps its busy intervals as a run-length
// stream. Nothing is stored per cycle or per issue: a block's memory is
// bounded by its number of distinct idle-interval lengths.
//
// # Break-even analysis (seed §4)
//
// A block is gated on every idle interval of length ≥ BET and nowhere
// else (ideal control). Net saved cycles = Σ(idle intervals ≥ BET) −
// (number of such intervals) × BET, reported as a share of the level's
// exposure (number of blocks × execution cycles). The seed evaluates SIMD
// units with BET = 100 and the core level by the sum of active cycles over
// all SMs; Config makes the BET of every level and unit kind settable.
//
// # Policies
//
// CTA consolidation is a model option (SM.CTAPlacement, RunConsolidation).
// The seed's SIMD-level policies (Comparison, RunComparison) run through
// the model's seams: IssueControl wraps each scheduler's built-in issue
// policy and, from an Observer counting the SM's issued sp lane slots per
// time slice, applies one of four states with IssueQueue.LimitUnits and
// IssueQueue.SplitUnit (warp splitting); thread compaction is a recording
// mode (Recorder.Compact) since it changes no timing. Every policy changes
// timing only: RunConsolidation and RunComparison refuse a run whose
// output buffers differ in any byte from the plain run's.
//
// # Export
//
// Activity (RecordActivity) is the recorded blocks of every launch;
// WriteParquet, WriteCSV and ReadParquet carry it as ActivityRows, and the
// analysis of a file read back equals the analysis of the run. A Session
// records the launches of any launch.Prepared.Run (ptxtrace run
// --activity); Launch.Chunk turns a launch into a run bundle's ACTV chunk
// (trace.Activity, with per-SM busy time series in at most 1,024
// power-of-two buckets) and FromBundles / ReadRun turn chunks back into an
// Activity with the same analysis. Sections is the power part of ptxtrace
// report's page.
//
// # Cost
//
// One model call per issue: the recorder declines IssueEvents
// (model.IssueFilter) and Mem events (model.MemFilter) and counts issues
// from UnitBusy. Per UnitBusy event: the unit's track, one row of the
// SM's table (issued, threads, busy unit and lane cycles; stall events
// count into the same rows), and the lanes as a group (laneGroup): while
// every lane of an instance has the same timeline end, one shared track
// stands for all of them, and a divergent issue updates its active lanes
// in one loop (addLanes). Per launch an SM allocates its tracks, one
// 256-count dense histogram (32-bit counts) per used block and one table
// of seriesCap rows (32-bit counts; a table or histogram count that would
// pass 2^32−1 turns 64-bit, so every count stays exact); no allocation
// per issue. Nothing runs per cycle; memory is bounded by distinct idle
// lengths per block and seriesCap rows per SM.
//
// # Invariants
//
// A Recorder's result depends only on the simulated events, which the model
// delivers in the same order whatever Options.Workers and GOMAXPROCS, so
// every table, CSV, JSON and chart is byte-identical across them. The
// package writes no files and reads no clock.
package power
