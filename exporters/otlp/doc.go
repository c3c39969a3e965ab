// Package otlp sends a trace as OpenTelemetry spans with the otel Go SDK:
// OTLP over gRPC or HTTP to an endpoint, OTLP/JSON lines to a file as the
// Collector's file exporter writes them (NewFile), or the SDK's stdout dump
// (NewStdout, for debugging: OTLP readers do not load it).
//
// Model: one trace per launch. Spans nest run ("ptxtrace.run") → launch
// (named after the kernel) → CTA ("cta") → warp ("warp") → region (named
// by kind and state space: "global load", "user region"), down to the
// chosen Granularity. Names stay low-cardinality; ids (CTA x/y/z, warp,
// SM, region id and instance, probes, PTX line, CUDA file:line) and cycle
// sums are attributes. Timestamps are explicit: the run's wall-clock
// anchor (RunMeta.StartUnixNs, else Options.BaseTime, else the Unix epoch)
// plus the time since the origin — kernel start for model runs (whose
// clocks start at the launch; the run and launch spans then last
// TotalCycles), else the earliest region begin — in ns from %globaltimer or
// cycles at the run's clock rate (1 ns per cycle when the rate is unknown).
//
// Caps: at most Options.MaxSpans spans per export, granted CTAs first,
// then warps, then regions, in trace order; parents count what they lost in
// ptxtrace.spans.dropped, and every CTA/warp/launch span carries the sums
// of all its regions (ptxtrace.regions, ptxtrace.cycles,
// ptxtrace.memory.regions, ptxtrace.memory.cycles) whether or not their
// spans were sent.
//
// Invariants: spans are created at End, when the time origin is known, so
// children lie within their parents; memory is one aggregate per warp plus
// at most MaxSpans region records; trace and span ids derive from the
// trace's identity (instrumentation id, kernel, run id, start time) and
// Options.RunSalt, so a re-export repeats them unless the salt changes. No
// global state: each Exporter has its own
// TracerProvider, shut down at End.
package otlp
