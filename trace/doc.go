// Package trace is ptxtrace's trace data model: it decodes the raw
// timestamp buffer of an instrumented kernel launch (docs/buffer.md) with its
// probe manifest into probe-region instances, and reads and writes the run
// bundle that keeps a run's raw buffer, manifest, metadata, ground truth,
// model counters and, optionally, the model's recorded activity (Activity,
// chunk ACTV, for power-gating analyses) in one checksummed file
// (docs/trace.md).
//
// Model: a Trace has a Header (kernel, timer, buffer geometry, run metadata,
// the kernel's probes and regions from the manifest), the written Warps (one
// per buffer segment: ctaid, warp in CTA, %smid, record counts), the Regions
// (one per begin…end instance in one warp: timestamps and duration in timer
// units, in ns when the clock rate is known or the timer is %globaltimer, and
// the model's ground truth for the access it times), the Issues the decoder
// found (overflow with lost counts, unmatched begin/end, backwards clocks),
// and the ground truth and model Counters of the run.
//
// A run directory (`ptxtrace run`'s output) has one owner, rundir.go:
// RunDirWriter writes summary.json, NAME.bin outputs, trace[.NNN].bin and
// run[.NNN].bundle; RunBundles and OpenRunDir read every traced launch's
// bundle back in launch order. Counter names are the constants of
// counters.go, shared by the writer and the readers.
//
// Streaming: a Decoder reads the raw buffer through an io.ReaderAt one warp
// segment at a time (RegionSource); Bundle.Regions does the same over a
// bundle file, so traces larger than memory decode in memory bounded by one
// warp's records. Decode and Bundle.Trace load everything. MergeByTime gives
// begin/end events of all warps in time order with a bounded k-way merge.
//
// Invariants (Trace.CheckValid, Bundle.CheckValid):
//   - Header.Probes and Header.Regions are sorted by id; Region.Info points
//     to the region's entry and Info.ID == Region.ID.
//   - Warps are in increasing segment order; Regions are grouped by warp in
//     the same order and, within a warp, in increasing BeginRec order (time
//     order on that warp's SM); Issues likewise.
//   - BeginRec < EndRec < Warp.Stored; Start ≤ End; Cycles = End − Start;
//     for %clock, Start/End are extended past 32-bit wrap-around within the
//     warp. Timestamps of %clock/%clock64 compare only within one SM.
//   - Regions of mode group_seq (run-time paired cp.async, docs/buffer.md
//     "Run-time pairing") are closed by the first end record of a probe
//     whose Closes lists their region with tag Cover > their begin's tag
//     Group, several per end record, in begin order; they do not nest.
//     Regions of mode phase_seq (run-time paired TMA) likewise, closed per
//     warp by the first end record on their barrier with the parity of the
//     phase after the last one the warp observed there (Group, Cover: the
//     barrier address | parity).
//   - Stored = min(Count, RecordsPerWarp), Lost = Count − Stored; a warp
//     with Lost > 0 has an overflow Issue.
//   - An unknown probe id, a header that does not match the manifest (magic,
//     layout version, instrumentation id, timer, records per warp) or a
//     truncated buffer is an error (DecodeError with segment and record
//     index), never an Issue.
//
// Nothing here reads the wall clock or keeps global mutable state; a bundle's
// bytes depend only on its input.
package trace
