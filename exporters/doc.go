// Package exporters defines the one small streaming interface every output
// format implements (Exporter) and the driver that feeds it (Run). Each
// format lives in its own sub-package (exporters/csv, exporters/parquet,
// exporters/clog2, exporters/perfetto, exporters/pprof, exporters/otlp) and
// depends only on package trace and this package, never on replay or model
// internals.
//
// Model: an export is Begin(header) → per warp [WriteWarp] WriteRegions →
// End. Regions arrive by warp segment, then in begin-record order within the
// warp (time order on that warp's SM). Nothing is buffered by Run, so memory
// stays bounded by one warp's regions plus what the exporter itself keeps.
//
// Invariants: Run calls Begin exactly once before anything else and End at
// most once, only if everything before succeeded; on failure it calls Abort
// (if implemented) and returns the first error. There are no registries: the
// CLI maps format names to constructors in one table (cmd/ptxtrace-full/export.go).
package exporters
