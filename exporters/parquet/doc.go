// Package parquet exports a trace as an Apache Parquet file with
// github.com/parquet-go/parquet-go: one row per region instance (the Row
// type; columns in docs/exporters.md), typed integer columns for ids and
// cycles, dictionary-encoded strings, zstd compression, row groups of at
// most Options.RowGroupRows rows (default 1Mi), and key/value metadata
// carrying the manifest JSON and the run information.
//
// Many runs form a Hive-partitioned dataset:
// DIR/kernel=NAME/run=ID/part-0.parquet (DatasetPath), which query engines
// (DuckDB, Spark, Arrow) read with kernel and run as partition columns.
//
// Invariants: rows appear in the order the exporter receives them (warp
// segment, then begin record); nullable columns (ns times, ground truth,
// space, loc_file, loc_line) are null exactly when the trace does not know
// them, the same cells the CSV exporter leaves empty; the output depends only
// on the trace (no wall-clock time is written).
package parquet
