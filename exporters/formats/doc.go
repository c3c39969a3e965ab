// Package formats is the table of output formats: format name → file
// extension and exporter constructor, for `ptxtrace export`, `convert` and
// `demo`. It is a function returning a fresh map (Formats), not a registry
// that packages add themselves to: adding a format is one line in
// formats.go, and importing this package has no side effects.
//
// # Model
//
// A Format makes an exporters.Exporter for one run bundle; Export verifies
// the bundle's checksums and streams its regions into it. A run with
// several traced launches (trace.OpenRunDir) is exported either into one
// stream (formats with a launch column: csv, via ExportLaunches) or as one
// output per launch (every other format; LaunchPath names the files).
//
// # Invariants
//
//   - Formats returns a new map on every call; nothing is global.
//   - The network formats (otlp-grpc, otlp-http) have no extension: they
//     send to a collector and write nothing to the writer.
//   - Exports are deterministic: the same bundle gives the same bytes.
package formats
