// Package csv exports a trace as CSV (RFC 4180, written with encoding/csv):
// one header row, then one row per region instance, in the order the
// exporter receives them (by warp segment, then begin record). The columns
// are documented in docs/exporters.md and listed by Columns.
//
// Numbers are written deterministically: integers in decimal, floats with
// strconv's shortest round-trip form ('f' format, no exponent); columns
// whose value is unknown (ns without a clock rate, ground truth for regions
// without it) are empty.
package csv
