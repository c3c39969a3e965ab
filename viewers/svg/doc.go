// Package svg renders deterministic, standalone SVG charts: bar charts
// (Grouped, Stacked, Stacked100), scatter plots with a least-squares line
// and Pearson's r per series in the legend, and line/series charts.
//
// # Model
//
// A chart is a plain struct of data plus an embedded Options (size, font,
// palette, id prefix, notes; the zero value means the documented
// defaults); Render(w) writes one complete SVG document. Charts map to the
// seed paper's figures: BarChart with Stacked100 for the memory/other share
// per block shape and probe mode (Fig. 5), ScatterChart for
// memory-reference frequency against texture-cache hit rate or frame rate
// (Figs. 6–9, one point per block shape, Point.Label = "8×16"), BarChart
// (or LineChart) for per-warp average memory time in one SM (Fig. 10) and
// LineChart for one warp's memory time per access (Fig. 11). Pearson and
// LinearFit are exported so callers can put the same numbers in tables.
//
// # Invariants
//
//   - Determinism: the same value renders to the same bytes. Coordinates
//     are printed fixed-point with at most two decimals (Num), data values
//     with FormatValue, r with three decimals; no clock, random or map
//     order is involved, and ids derive from the title (FNV-1a) unless
//     Options.IDPrefix is set.
//   - Well-formed, self-contained XML: every text is escaped (Escape also
//     replaces characters XML does not allow), the root carries width,
//     height and a matching viewBox "0 0 W H", fonts are named, never
//     loaded, and nothing outside the document is referenced.
//   - Accessibility: <title> and <desc> (the caller's description plus a
//     generated data summary and the notes) labelled via aria-labelledby.
//   - One mark per drawn datum: each bar is a <rect class="bar sN">, each
//     scatter/line point a <path class="mark sN"> (with a hover <title>),
//     each line series one <path class="line sN"> with one vertex per
//     point, each fitted line a <path class="fit sN">. Tests count them.
//   - Degenerate data never panics: NaN, ±Inf and |v| > 1e150 are skipped
//     and counted in a note under the chart; empty charts get a default
//     axis; a constant range is padded (±5 %, ±1 around 0); a single point
//     has no fit and r = n/a; tick loops are bounded.
//
// Axes: bar charts use "nice" ranges (ends on ticks, including 0); scatter
// and line charts pad the data range by 4 % per side and put nice ticks
// (1, 2, 2.5, 5 × 10^k) inside it. Colours come from Palette (Okabe–Ito,
// readable in print and by colour-blind readers) and series also differ in
// marker shape.
package svg
