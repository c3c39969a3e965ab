// Package clog2 writes traces as CLOG2 files (MPE's log format, shown by
// Jumpshot after clog2TOslog2) and reads them back with a validating
// reader.
//
// # Format level
//
// Preamble, Writer, Sizer, Reader and Check know nothing about traces: a
// CLOG2 file is a 1024-byte preamble of NUL-separated ASCII tokens, then
// blocks of exactly block_size bytes (the last one too, zero padded) of
// big-endian records — a 24-byte header {f64 time in seconds, i32 icomm,
// rank, thread, rectype} and a fixed-size body per type — each block closed
// by ENDBLOCK and the last by ENDLOG, then the communicator table at the
// preamble's commtable_fptr. Writer flushes a block before a record when
// used + reclen + 24 ≥ block_size, as MPE does. Check enforces what MPE's
// Java reader chain relies on (see its doc): time order, definitions before
// use, a COMMEVT for every rank before its events, non-empty colors, FIFO
// pairing of state start/final events with nothing left unmatched.
//
// # Trace mapping
//
//   - Timelines: rank = the CTA's linear index (segment / warps per CTA),
//     thread = the warp in the CTA, icomm = 0 (MPI_COMM_WORLD). So every
//     warp has its own line; max_comm_world_size = highest CTA + 1,
//     max_thread_count = highest warp in CTA + 1. One WORLD_CREATE COMMEVT
//     is written per rank that has regions, before any event.
//   - States: one per (region kind, nesting level). The kind is the state
//     space of a load region ("global load", "tex load", …) or "user
//     region". The level is the lowest level of the warp whose previous
//     instance has ended when the region begins — the nesting depth for
//     properly nested regions — so instances of one state never overlap on
//     one line and MPE's FIFO pairing is exact. State i has stateID 300+i
//     and event types 600+2i (start, a BAREEVT) and 601+2i (final, a
//     CARGOEVT); STATEDEFs are written in order of label, then level (i in
//     that order from WriteRegions, in order of first appearance from
//     WriteEvent). Colors are X11 names from a
//     fixed palette per family (red tones for global, greens for shared,
//     blues for texture, grays for user regions, …).
//   - Cargo of each final event (format StateFormat; the converter shows a
//     state's info from its final event): ctaid.x, .y, .z, warp in CTA, SM,
//     begin probe id (i32 each) and the duration in timer units (i64),
//     big-endian.
//   - Time: seconds since the earliest region begin of the trace, from
//     timer units: 1 ns per unit for %globaltimer, 1/clock_hz for
//     %clock/%clock64 when the clock rate is known, else 1 ns per cycle.
//     %clock/%clock64 are per-SM counters, so lines of different SMs share
//     one axis only as far as the SMs' counters started together (true for
//     the built-in model).
//   - Order: all begin/end events in one time order. Two paths:
//     from WriteRegions (any source) the exporter keeps every region (56
//     bytes plus 16 bytes of sort key) and at End radix-sorts the events by
//     (time, region order, begin before end); from WriteEvent
//     (exporters.TimeOrdered: Run over a *trace.Decoder merges all warps
//     with trace.MergeByTime) it encodes events into blocks in a temporary
//     file as they come, memory bounded by the warps with open regions, and
//     at End writes the preamble and definitions — which end their block
//     early with ENDBLOCK — and copies the spooled blocks after them. Either
//     way every line's events are in order and the converter's drawables
//     come in increasing end time (-tc).
//
// # Invariants
//
// Output is deterministic: the same input through the same path gives the
// same bytes (the communicator's UUID comes from the instrumentation id).
// The spool file is removed at End and on Abort. No package-level mutable
// state.
package clog2
