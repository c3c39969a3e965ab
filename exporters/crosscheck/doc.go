// Package crosscheck exports one trace to every format ptxtrace writes and
// reads each file back with its own reader (the CLOG2 checker, the
// Perfetto and Chrome JSON checkers, google/pprof's parser, the
// OpenTelemetry Collector's OTLP/JSON reader, encoding/csv, parquet-go),
// so tests can require that all formats agree on what they hold: region
// instances and their cycles, memory and other, and which values are
// unknown (CSV empty cells and Parquet NULLs).
//
// It is a helper for tests (it takes a testing.TB) and lives outside any
// exporter's package so that tests of several packages share it.
package crosscheck
