// Package perfetto writes traces for the Perfetto UI: native protobuf
// (Exporter, .pftrace) and the Chrome JSON trace event format
// (JSONExporter), and checks both (Check, CheckJSON).
//
// # Protobuf model
//
// A file is a concatenation of Trace.packet fields (tag 0x0a, length,
// TracePacket), built with protowire from the field numbers of Perfetto's
// perfetto_trace.proto (no generated code). Sequences: 1 is the kernel
// (its track and the counters), 2 + s is warp segment s (its tracks and
// slices); warps come in segment order and each warp's events in time
// order, so timestamps never decrease within a sequence (Check asserts it).
// The first packet of each sequence clears its incremental state and
// interns the event names (one per probe region: kind, space and the base
// name of the CUDA file:line, or the PTX line), categories (load,
// user, summary) and debug annotation names; slice packets refer to them by
// iid and set SEQ_NEEDS_INCREMENTAL_STATE. Timestamps are absolute ns:
// %globaltimer values, cycles at the run's clock rate, or cycles as ns when
// the rate is unknown (%clock/%clock64 are per SM, so SMs share an axis only
// as far as their counters started together), plus Options.BaseTime for
// model runs.
//
// Tracks: "kernel NAME" → "SM n" → "CTA (x,y,z)" → "warp w", each declared
// (TrackDescriptor with parent_uuid, explicit child order) before its first
// use. Regions are TYPE_SLICE_BEGIN/END pairs on their warp's track; a
// region that overlaps an open region without nesting in it goes to an
// extra track "warp w overlap k", so slices nest on every track. Slice
// arguments: cycles, region, instance, probe (the region's begin probe id,
// as in every format), end_probe, loc_file (full path) and truth_cycles
// (Options.NoArgs drops them). Model counters (Options.Counters) become counter tracks under
// their SM (or the kernel) with their value at the first and last timestamp.
// The model's recorded activity (Header.Activity, a bundle's ACTV chunk)
// becomes counter tracks under each SM: "active (CTA resident)" and, per
// unit kind used, "KIND units busy" and "KIND lanes busy" (mean busy
// instances and lanes per series bucket), on the kernel's sequence.
//
// # JSON model
//
// {"displayTimeUnit":"ns","otherData":{…},"traceEvents":[…]}: processes
// are SMs (pid SM+1, named by "M" events), threads are warps (tid segment+1,
// overlap lanes offset by lane × (segments+1)), regions are "X" events with
// ts/dur in µs at ns precision, counters are "C" events.
//
// # Size
//
// Options.MaxSlices caps region slices: once a warp's regions would go past
// it, the warp (and every later one) is written as one "aggregated regions"
// slice whose arguments carry its region count and cycle sums, so a huge
// trace still loads in the UI (which holds ~2 GiB) and totals stay exact.
//
// # Invariants
//
// Both exporters stream: memory is the regions open at once in one warp
// plus a set of seen SMs (and CTAs); output is deterministic (same input,
// same bytes); within a warp events are in time order, ends before begins
// at equal times and inner before outer ends. No package-level mutable
// state.
package perfetto
