// Package runreport lays out one run's analysis (package analysis) and its
// regions as a timeline (viewers/timeline) into a viewers/report page:
// the page of `ptxtrace report --html`.
//
// It only selects and formats values: every number on the page is
// analysis's or the trace's. The page is a pure function of its inputs
// (no clock; the provenance line is the caller's), so the same run gives
// identical bytes. At most timeline.DefaultMaxRows warps are drawn, the
// first WarpBars in the per-warp chart; the page says when warps were left
// out.
package runreport
