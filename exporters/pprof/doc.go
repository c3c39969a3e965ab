// Package pprof writes a trace as a pprof profile (profile.proto, gzipped)
// with github.com/google/pprof/profile, so `go tool pprof` ranks probe
// regions by cycles and lists them on the CUDA source.
//
// Model:
//   - Sample types: memory_cycles (load regions), other_cycles (user
//     regions), regions (instance count) and truth_cycles (the model's
//     ground-truth latency of the probed loads, when the run has it);
//     memory_cycles is the default. Cycles are timer units (ns for
//     %globaltimer, whose unit is then "nanoseconds").
//   - Locations: one per probe region, at the region's PTX instruction
//     (a synthetic address in one mapping for the PTX module), with one Line
//     naming the function of the kernel and the source position of the
//     region's nearest .loc (CUDA file:line:col); regions without .loc use
//     the PTX file and line. Functions: one per (kernel, source file), named
//     after the kernel, so `pprof -list KERNEL` shows cycles on CUDA lines.
//   - Samples: one per region (per region and SM with Options.BySM), with
//     labels kind (load/user), mode (naive/fence/dummy), state_space, ptx
//     (line and instruction text), region (id) and sm (with BySM), for
//     -tagfocus/-tagshow. Ids are string labels because pprof drops numeric
//     labels whose value is 0.
//   - TimeNanos is the run's wall-clock anchor; DurationNanos the kernel's
//     duration (run metadata or the span of the regions) when a clock rate
//     or %globaltimer makes ns known.
//
// Invariants: memory is one accumulator per region (and SM); output is
// deterministic (samples sorted by region, then SM; gzip without a
// timestamp); the profile passes profile.CheckValid before it is written.
package pprof
