// Package experiments is the home of the seed papers' experiments: each one
// is a library package under experiments/ plus a thin command in
// cmd/ptxtrace-full. It holds no code itself.
//
// # The pattern
//
// An experiment package (today experiments/vr, seed 003's volume
// rendering; next power gating, Dualflow issue and offloaded transfers)
// owns, as exported Go API with unit tests:
//
//   - the workload: the sample, its launch spec and the instrumentation it
//     needs (built on instrument, replay, samples);
//   - one run: instrument → replay on a model → bundle → decode → analyse,
//     returning plain values (Result) and, on request, the bundle bytes;
//   - the sweep: the job list, a bounded parallel runner whose results do
//     not depend on the number of workers, and the result table with its
//     CSV and correlation forms;
//   - the figures: chart values (viewers/svg) and the report page content
//     (viewers/report), returned as bytes and structs, never written.
//
// Every number comes from package analysis (shares, per-region and
// per-warp statistics, probe error, correlations): an experiment combines
// analysis results, it does not recompute them.
//
// The command (cmd/ptxtrace-full/<experiment>.go) only parses flags, loads the
// model preset, draws progress, prints tables and writes files atomically
// (internal/atomicfile). A new experiment copies that split: a package
// experiments/NAME with Run, Sweep and Table.{CSV, Correlations, Charts},
// and a `ptxtrace sweep NAME` subcommand of a few dozen lines.
//
// # Invariants
//
// Outputs are deterministic: the same options give byte-identical tables,
// CSV and charts whatever the parallelism or GOMAXPROCS. An experiment
// writes no files and reads no clock.
package experiments
