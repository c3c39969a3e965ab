// Package manifest holds the probe manifest that `ptxtrace instrument`
// writes next to an instrumented PTX file (OUT.probes.json) and that the
// trace decoder reads to interpret a raw trace buffer (docs/buffer.md).
//
// Model: one Manifest describes one instrumented PTX module. It names the
// input file (and its SHA-256), the instrumentation id (first 8 bytes of the
// SHA-256 of the output PTX, hex; also in every buffer header), the timer,
// the buffer layout shared by all kernels of the module, and per kernel the
// parameters the host must append, the staging decision and every probe.
//
// Header is the raw buffer's 64-byte header (docs/buffer.md): the host
// computes it with Manifest.Header(grid, block), encodes it with
// Header.Bytes, and trace's decoder reads it with ParseHeader. The package
// imports only the standard library, so a real-GPU harness can use it.
//
// Invariants (checked by Validate):
//   - Version's major number is Major; readers reject other majors with a
//     clear message, newer minors are accepted (unknown fields are ignored).
//   - Probe ids are unique across the module, and each probe's Kernel names
//     a kernel of the manifest that lists it; the one exception (version
//     1.1) is a probe in a .func (Function set), listed with the same id,
//     region and kind under every kernel that reaches the function, once
//     per kernel.
//   - Every kernel of the module has an entry (1.1); one without probes has
//     staging "none" and no added parameters. Staging "dynamic" (1.1) means
//     the host sizes shared staging per launch (__pt_stage_off/_recs).
//   - Every region has exactly one begin and at least one end probe, all of
//     the same region kind, in the same kernel. An end probe of mode
//     group_seq (1.2: run-time paired cp.async pipelines) counts as an end
//     of every region its Closes lists.
//   - The layout agrees with docs/buffer.md: header 64 bytes, segment header
//     32 bytes, record 16 bytes, records per warp > 0.
//
// Checker makes Validate's checks a kernel at a time, in order, for a
// writer that never holds the whole manifest; Validate is a Checker fed
// every kernel.
//
// AppendKernel encodes one kernel to the bytes json.MarshalIndent gives,
// without reflection (large manifests are written a kernel at a time);
// the format is unchanged.
//
// The package has no global mutable state; Read and Write are pure functions
// of their arguments.
package manifest
