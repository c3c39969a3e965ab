// Package heldout is the held-out kernel set: CUDA kernels written
// independently of the project's samples to measure the probes on code the
// instrumentation was not tuned for (issue 10). Each kernel lives in
// <name>/<name>.cu with nvcc's PTX for sm_52 and sm_80 next to it
// (generate.sh; histogram also has a -G build and stencil2d a -lineinfo
// build) and a launch spec <name>/launch.yaml whose inputs come from
// samples/ref's HeldoutGenerators and whose checks name the independent Go
// references of samples/ref (heldout.go).
//
// The files are embedded (FS); List describes the kernels; Registry returns
// a launch.Registry with the samples' generators and references plus the
// held-out ones. Invariants: every kernel's outputs are a function of its
// inputs and launch shape (integer atomics commute; the only float kernels,
// transpose and spmv, have no atomics), so replay must give the same bytes in
// functional and timing mode, instrumented or not.
package heldout
