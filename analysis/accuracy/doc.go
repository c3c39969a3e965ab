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
// region's cycles, and the documented own cost of the probe (docs/instrument.md,
// docs/model.md) is 0 for naive, 1 + SM.FenceLatency for fence and 2 for
// dummy (the predicated-off consumer store). A row reports the mean
// absolute error |measured − true − cost| as a fraction of the mean true
// latency, and the underestimate (mean true − mean measured) / mean true,
// over all its regions and per state space and probe mode. Acceptance (Row.OK): naive underestimates by at least 80 %
// on average; every other mode is within 5 % (mean relative error) over
// all regions and in every state space.
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
