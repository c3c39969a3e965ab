// Package report writes report.html: a static, self-contained page that
// gathers a run's results — title, provenance line, a summary table,
// sections each with text, a chart and an optional table, and a list of
// links to the other output files (CSV, Parquet, CLOG2, Perfetto trace,
// pprof profile, timeline page, …) with short descriptions.
//
// The page is produced with html/template from a template embedded in the
// binary; all text is escaped by it. The style sheet is inline; there is no
// script and nothing is fetched when the page is viewed: charts are either
// inlined SVG (checked by CheckSVG: well-formed, root <svg>, no script,
// foreignObject, <style>, event attributes or references outside the
// document) or linked image files given as relative paths. Links in the
// Files list are plain anchors (html/template neutralises unsafe URL
// schemes such as javascript:).
//
// Invariants: the output is a pure function of the Report value (no clock;
// sections and links keep the given order; ids are s1, s2, …), so the same
// report renders to identical bytes. Render writes nothing when it returns
// an error about its input.
package report
