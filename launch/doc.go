// Package launch is the launch-spec language of docs/launch.md: which
// kernel(s) of a PTX module to run on replay's SIMT machine, with which
// geometry, parameters, buffers, textures and __constant__ data, and how to
// check the outputs.
//
// # Model
//
// A Spec is one YAML document (ParseSpec rejects unknown fields and
// validates it). The single-launch form names a kernel, its grid, block and
// params; the multi-launch form declares device buffers and a sequence of
// steps (launch, repeat and until loops, fill, swap, set) over integer and
// float expressions (Expr: variables, buffer elements NAME[i], arithmetic,
// comparisons). Inputs run named generators of an explicit Registry once.
//
// Spec.Prepare binds a spec to a fresh replay.Device for a replay.Program:
// it runs the generators, allocates and initialises the buffers, fills the
// constant bank (Program.ConstVars, ConstInit), builds the texture and
// surface bindings in replay's slot order (Program.TexRefs, SurfRefs, then
// the objects, handles replay.TexHandleBase+i) and, for the single-launch
// form, packs the parameters and makes the replay.Kernel. With a manifest
// (an instrumented kernel) every launch gets a fresh raw trace buffer whose
// header is manifest.Manifest.Header (docs/buffer.md), passed in the
// parameter the instrumenter added, and the begin probe of every load
// region marks its access (replay.Code.SetProbe) for the model's ground
// truth.
//
// Prepared.Run executes the single launch or every step in order on that
// device, functionally (replay.Kernel.Run) or on a model.Spec
// (replay.Kernel.RunModel); each launch yields a LaunchResult (functional
// and timing results, the trace buffer). LaunchResult.Bundle turns a traced
// launch into a trace.BundleInput with the ground truth and the model's
// counters under the names of trace/counters.go. Prepared.Check compares
// output buffers with files or with the Registry's references and
// verifiers; SampleRegistry is the one for the bundled samples
// (samples/ref).
//
// A spec's transfers (transfers.go, docs/transfer.md) are host↔device
// copies around every launch: timed by a model.TransferSpec when
// ExecOptions.Transfer is set (LaunchResult.Transfers, ps relative to the
// kernel's start), never moving data.
//
// # Invariants
//
//   - Replay does not import this package (replay's TestDeps); launch uses
//     only replay's exported API.
//   - No global mutable state: the Registry is an explicit value built by
//     the caller (SampleRegistry returns a fresh one on every call).
//   - Deterministic: random inits use seeded PCG streams, set: assigns in
//     sorted name order, and Run's results do not depend on workers or
//     GOMAXPROCS (replay's guarantee).
//   - Bad specs are errors naming the field (steps[2].launch.params[0]),
//     never panics (FuzzParseSpec).
package launch
