// Package web is ptxtrace's interactive viewer: an in-memory index of a
// run's regions (Index) and an HTTP handler (Server) that serves an embedded
// single-page front end (static/, plain JavaScript, nothing fetched from the
// network) and a small JSON API over the index.
//
// Model: a run's warps are rows, sorted by (SM, CTA z/y/x, warp in CTA) so
// that every node of the GPU → SM → CTA → warp tree is a contiguous range of
// rows. Each row keeps its regions in start order as parallel arrays (start,
// end, region id, ground-truth latency) with prefix sums of duration and of
// memory-region counts and a prefix maximum of end, about 45 bytes per
// region; the GPU and SM nodes also keep a pyramid of start histograms
// (HistBins bins at level 0, each level halving the resolution).
//
// Level of detail (Tiles): for a warp row and a time range [t0, t1) cut into
// px buckets with integer edges e_k = t0 + ⌊(t1−t0)·k/px⌋, a bucket holds the
// count, summed duration and memory-region count of the regions whose start
// lies in [e_k, e_k+1), computed exactly by binary search on the start array
// and the prefix sums; when the range holds few regions the row is answered
// with the regions themselves (every region with start < t1 and end > t0).
// A CTA node sums its warp rows exactly. A GPU or SM node is answered from
// its pyramid at the finest level whose bins are at least one pixel wide;
// those buckets carry their own edges (bin edges), so every count is exact
// for the edges it is given with — nothing is interpolated.
//
// Beside the warps (tracks.go, activity.go): the launch's host↔device
// transfers (trace.RunMeta.Transfers, ps from the kernel's start) are
// placed on the regions' axis only for model runs with a known clock rate
// (rounded to the nearest timer unit), else listed with a note; the
// model's recorded activity (trace.Activity, model cycles from the launch)
// becomes tree rows of level "act" only on a model run's %clock/%clock64
// axis: per SM a power state (active while a CTA is resident, idle
// intervals "gated" when at least the BET long, "idle" otherwise) and per
// unit kind the busy units and lanes from the recorded series, whose
// power-of-two buckets are grouped, never split, so values stay exact for
// their edges; the GPU row sums the SMs.
//
// Charts (charts.go): per run (RunCharts) region durations, memory vs
// other time per warp, probe error per region over the instances with
// ground truth, Fig. 10, Fig. 11 and stall cycles per SM; across runs
// (CompareCharts) Fig. 5, probe error per run and, for a probe mode with
// at least MinCorrelationRuns runs with the model's counters, frequency vs
// the run's own texture hit rate and frame rate with Pearson's r.
//
// On the wire (Tile.MarshalJSON) buckets travel as columns t0, t1, n, busy,
// mem of the non-empty buckets only, spans as [row, i, start, end, class].
//
// Security: the handler serves only the runs it was built with (addressed by
// index, never by path) and files of the embedded static tree; it makes no
// outgoing requests and the page references no external URL.
//
// Timestamps of %clock/%clock64 compare only within one SM; rows of
// different SMs share an axis for display only, as the run's header says.
package web
