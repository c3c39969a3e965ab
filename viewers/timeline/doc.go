// Package timeline writes a self-contained HTML page showing regions per
// warp over time: one row per Row (e.g. "SM 0 / CTA 3 / warp 1"), one bar
// per Span coloured by Kind (memory, other, …), a hover <title> on every
// bar with its kind, label, start, end and duration, and a legend with the
// span count and summed duration per kind.
//
// It takes plain Go values (Row, Span) and imports no trace package; the CLI
// adapts trace data to it (`ptxtrace report --html`: one row per warp, one
// span per region).
//
// SVG writes the chart alone as a static SVG document (colours and text
// styles as attributes, no script, no style sheet), the same bars at the
// same positions as the page, so that viewers/report can inline it; Totals
// and Info give the page's legend and description for the caller to show
// beside it.
//
// # Zoom
//
// The chart is an inline SVG that is complete on its own (the whole time
// range). A small inline vanilla-JS script (no libraries, under 200 lines)
// adds zooming: drag across the chart to zoom to that range, the wheel zooms
// around the pointer, shift+wheel pans, and buttons zoom in/out/reset. The
// script recomputes bar positions from data-s/data-e attributes that hold
// times relative to the first start, so zoomed positions stay exact up to
// 2^53 time units. Options.NoScript leaves the script out.
//
// # Cap and aggregation
//
// At most Options.MaxSpans bars (DefaultMaxSpans = 20000) and
// Options.MaxRows rows (DefaultMaxRows = 2000) are drawn. When the drawn
// rows hold more spans than the cap, the time range is divided into nb
// equal buckets, nb the largest power of two not above the chart width
// (rounded up to a power of two) whose result fits the cap, and in each row
// all spans of one kind whose start falls in the same bucket become one bar
// from the earliest start to the latest end, marked class "agg" (slightly
// lighter) with a hover title giving the number of merged spans and their
// summed duration. A bucket holding a single span of a kind still shows
// that span exactly. At full width a bucket is at most about one pixel, so
// the overview looks the same; zooming in on an aggregated page shows the
// merged bars, not their parts: to inspect detail, render fewer rows or a
// shorter time window. If even one bar per kind and row is over the cap,
// trailing rows are dropped as well. The page states which of these
// happened (Plan reports the same numbers to the caller).
//
// # Invariants
//
// Same input → byte-identical page: spans are drawn sorted by (Start, End,
// Kind, Label) within their row, kinds are ordered memory, other, then by
// name, no clock or random value is written, numbers are formatted fixed.
// Spans with End < Start are not drawn and are counted on the page. All
// text is XML/HTML-escaped; colours from Options.Colors are used only if
// they are #rgb/#rrggbb or a plain name. Nothing is loaded from outside the
// page.
package timeline
