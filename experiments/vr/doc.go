// Package vr is seed 003's volume-rendering experiment (Kanda et al., §6):
// the embedded volrender sample (samples, kernel d_render, sm_52 PTX)
// rendered on the cycle-level model for thread-block shapes × viewpoints,
// uninstrumented ("app") and instrumented with naive and completion
// ("auto") probes on its texture loads.
//
// # Model
//
// Instrument returns the volrender PTX, instrumented in one mode (or the
// original): probes on tex loads only (the seed's texture references),
// timer %clock64, and one user region around the whole kernel body so that
// a warp's active time is measured. Capacity gives the records per warp a
// render needs.
//
// Run renders one Scene from one View with one Shape: LaunchSpec is the
// launch spec (docs/launch.md) it replays; the launch runs on the model,
// its trace is bundled, decoded and analysed with package analysis. A
// Result holds the model counters (cycles, frame rate at the preset's
// clock, texture hit rate), the analysis, and the seed's Fig. 11 series
// (the counted accesses of the warp with the most memory time).
//
// Sweep runs every View × Shape × {app, naive, auto} in parallel and
// returns a Table: one Row per run with its app baseline. The runs of a
// sweep share its generated inputs through an Inputs: the volume is made
// once and every run's texture wraps those bytes read-only (package launch
// does not copy a texture's generated data), so a 512³ u8 volume costs
// 128 MiB once, whatever the number of runs in parallel.
// Table.Correlations is the Pearson r of each mode's memory-reference
// frequency with the app's hit rate and frame rate over the shapes of one
// view; Table.CSV and CorrelationsCSV are the files, Table.Charts and
// DemoCharts the seed's Figs. 5–11 as SVG bytes, Table.Report and
// DemoReport the report.html content.
//
// # Invariants
//
// Every number is analysis's: vr selects and combines analysis.Result
// fields, it computes no share, mean or correlation of its own. Results do
// not depend on SweepOptions.Jobs (rows are in job order, each run uses
// one model worker). Nothing is written to disk and no clock is read.
package vr
