// Package viewers is the root of ptxtrace's presentation layer: everything
// that turns analysis results and traces into files a person looks at.
//
// It holds no code itself; the work is in three sub-packages, which import
// no ptxtrace pipeline package: viewers/svg imports internal/stats (shared
// with package analysis, so a chart's Pearson r is the same number as the
// analysis table's), viewers/timeline imports viewers/svg (palette, number
// and escape formatting), viewers/report imports nothing of ptxtrace. The
// pipeline packages (ptx … analysis) never need viewers; viewers takes
// plain Go values, and the callers that adapt results to them are the
// experiments (experiments/vr) and the CLI (`ptxtrace report --html`):
//
//   - viewers/svg: deterministic, standalone SVG charts (bar, scatter with a
//     least-squares line and Pearson r, line/series) for the figures of the
//     seed paper's evaluation (memory share per mode and block shape,
//     memory-reference frequency against texture-cache hit rate and frame
//     rate, per-warp average memory time, one warp's memory-time series).
//   - viewers/report: a static, self-contained report.html (summary table,
//     chart sections, links to the other output files).
//   - viewers/timeline: a self-contained HTML timeline of regions per warp,
//     with a small inline script for zooming, or the same chart as a static
//     SVG that viewers/report can inline (`ptxtrace report --html`).
//
// Invariants shared by all three: output is a pure function of the input
// (same values → byte-identical files; no clocks, no random ids, no map
// iteration order), floats are printed with fixed formatting, all text is
// escaped, and nothing refers to a resource outside the file (no fonts,
// scripts, style sheets or images fetched at view time).
package viewers
