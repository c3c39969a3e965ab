// Package accuracy measures how well the instrumentation's probes time
// memory accesses, against the timing model's ground truth (issue 10).
//
// Measure takes cases (a kernel's PTX per architecture, a launch spec and
// the registry its inputs and checks need) and, for every case × model
// preset × instrumentation mode, instruments the PTX (package instrument),
// replays it on the model (package replay), decodes the trace buffer of
// every launch (trace.Decode) and pairs each decoded load region with the
// model's ground truth for the access it times: the k-th instance of a
// (warp, begin probe) region is the k-th probed access of that warp and
// probe (model.Result.Probes, launch.LaunchResult.Truth). The original
// kernel runs once per case × preset; every instrumented run must leave
// every output buffer byte-identical to it, else the row carries an error.
//
// Per region the true latency is Complete − Issue, the measured one the
// region's cycles, the issue wait Issue − Begin (Begin: the cycle the
// probe pair's begin timer read issued, model.ProbeAccess.Begin), and the
// documented own cost of the probe (docs/instrument.md, docs/model.md) is
// 0 for naive, 1 + SM.FenceLatency for fence and 2 for dummy (the
// predicated-off consumer store), of which PostCost (0, SM.FenceLatency, 1)
// is after completion and 1 cycle the minimum issue wait. A row reports the
// error mean |measured − issue wait − true − post cost| / mean true (NetErr,
// judged by Row.OK: issue 10's acceptance, issue wait reported separately),
// the strict error mean |measured − true − cost| / mean true (RelErr,
// Row.OKStrict also per state space), the mean issue wait and the
// underestimate (mean true − mean measured) / mean true. Naive is OK when it
// underestimates by at least 80 %, the other modes when NetErr ≤ 5 %.
//
// A run-time paired cp.async region (probe mode group_seq: a copy of a
// multi-stage pipeline timed to the first wait covering its group) is
// compared with truth computed from the model alone (pipeline.go): an
// observer of the model's issue events gives the warp's commits and waits,
// the PTX ISA's wait_group rule each copy's closing wait; the true value is
// the copy's issue to that wait's issue (the completion the program
// observes), and the copy's latency (issue to its groups' completion) is
// reported beside it (Stat.LatMean, Hidden, Slack, LatErr). Row.Cycles and
// OrigCycles give the probes' cost on the kernel's run time. A run-time
// paired TMA region (probe mode phase_seq) is compared likewise with truth
// from replay's barrier events (replay.Kernel.ObserveMbarrier: each copy's
// barrier and phase parity at issue, each wait's barrier, parity and
// answer) and the model's issue cycles of the waits (tma.go).
//
// Exceptions are reported, never hidden: a configuration the model cannot
// run (the CTA needs more shared memory than the preset has) is a row with
// NotRun set and its cause; when auto staging put the trace slots in shared
// memory that the preset lacks (instrument sizes staging for the PTX's
// target, not for the model), the kernel is instrumented again with global
// staging and the row's Note says so.
//
// Results depend only on the inputs: replay's timing mode is deterministic.
package accuracy
