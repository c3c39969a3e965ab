// Package catalog lists every kernel the binary embeds, whatever its group:
// the ten samples (package samples, launch specs from launch.SampleSpec),
// the held-out kernels (samples/heldout) and the tensor-core samples
// (samples/modern), each with its files and a ready launch spec.
//
// Invariants: names are unique across groups (TestUniqueNames); Registry
// knows the generators and verifiers
// every listed launch spec names, so `ptxtrace run` can run any extracted
// sample as it is.
package catalog
