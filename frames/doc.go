// Package frames reads Android frame traces (systrace HTML, atrace/ftrace
// text, Perfetto protobuf) and runs seed paper 004's frame-end estimation
// on them (Noro et al., "GPU state control by estimating the end of one
// frame's drawing"): the 42 draw-count estimators of its Table 1, their
// hit/risk/score/index ranking (Table 2), the risk controls of its
// section 3.3–3.4 (fluctuation detection, no second deep sleep in a frame
// woken after one, NDK-style apps) and the deep-sleep decision against a
// threshold with a parametric GPU power-state model (Figs. 12–13).
//
// # Model
//
// A reader turns a trace into a stream of Events (slice begin/end, counter
// samples, GPU frequency changes) in trace order, calling a callback per
// event: memory is bounded by the longest line (text) or packet
// (protobuf), never by the trace size. Build folds that stream into a
// Trace: display frames (from VSYNC counter samples, or a fixed period),
// the app-side draw completions per frame (eglSwapBuffers, else
// queueBuffer, outside SurfaceFlinger's process) per layer (drawing
// thread) and in total, and GPU busy intervals (from GPU events when the
// trace has them, else a proxy flagged as such).
//
// The analysis (Estimators, Evaluate, Rank, Simulate, sweeps) works on
// plain sequences of per-frame counts and per-frame timings, so frames of
// ptxtrace's own multi-launch model runs (ModelTrace) go through the same
// code as real traces.
//
// # Invariants
//
// Time is integer nanoseconds. Percentages are computed from integer
// counts. Every result is deterministic; nothing reads a clock or writes
// a file. Malformed input is an error naming the line (text) or byte
// offset (protobuf); it is never skipped silently.
package frames
