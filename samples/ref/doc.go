// Package ref holds independent CPU references for the sample kernels in
// ../ (samples/<name>/<name>.cu): deterministic input generators and plain Go
// implementations of what each kernel (with its documented host loop) must
// compute, with the tolerance a GPU — or ptxtrace's replay — may differ by.
//
// # Model
//
// For each sample there is an input generator, seeded and platform-independent
// (SplitMix64; e.g. VecAddInputs(n, seed)), returning the exact buffers a launch
// uses (element types and layouts are documented on each input type; matrices
// are row-major, all data little-endian on the device), and a reference
// written from the algorithm's definition in the .cu header, not from the
// kernel's parallel decomposition:
//
//	vecadd     VecAdd       c = a + b
//	matmul     MatMul       triple loop
//	reduce     Reduce       plain sum
//	nn         NN           distance formula
//	pathfinder Pathfinder   DP recurrence (PathfinderStep: one launch)
//	bfs        BFS          sequential queue BFS (BFSFinalState: all buffers)
//	hotspot    Hotspot      stencil equation, any number of steps
//	lud        LUD          sequential Doolittle LU without pivoting
//	gaussian   Gaussian     forward elimination over all steps (A, B, M)
//	volrender  Render       ray caster with exact trilinear filtering
//
// Float references compute in float64 from the float32 inputs and return a
// Floats (values, per-element scale, Tolerance); Compare(got, want) checks a
// kernel's float32 output element by element and lists mismatches. Integer
// outputs (bfs, pathfinder) are exact: CompareInts. volrender returns an
// Image with a per-pixel, per-channel tolerance in 8-bit levels:
// CompareRGBA8. Generators() exposes the input generators by name for launch
// specs (a plain map built per call; there is no registry or global state).
//
// # Tolerances (u = 2⁻²⁴, γ_n = n·u/(1−n·u))
//
// Every bound below holds for any float32 evaluation order with or without
// FMA contraction, so it covers nvcc's contractions (fma.rn.f32 in matmul,
// hotspot, nn, lud_internal, volrender) and a replay that executes the PTX
// exactly; none assumes fast-math (the PTX uses div.rn, sqrt.rn, rcp.rn; the
// only approximation is volrender's rsqrt.approx).
//
//	vecadd     exact: one correctly rounded add equals float32(a+b).
//	matmul     |Δ| ≤ γ_{K+2}·Σ_k|A_ik·B_kj| per element (K-term dot product).
//	reduce     |Δ| ≤ 1e-5·Σ|in| (README's bound; rigorous for summation depth
//	           ≤ 167); ReduceLaunchTolerance(n, grid, block, finalBlock) gives
//	           γ_depth for deeper launches. The two kernels add in an order
//	           fixed by the launch shape (no atomics), so the GPU result is
//	           deterministic; ReduceFixedOrder reproduces its bits (a
//	           determinism check, not a reference), the tolerance only bounds
//	           its rounding against the float64 sum.
//	nn         |Δ| ≤ 4u·d: two rounded differences, a square, a fused
//	           multiply-add, sqrt.rn (≤ 3u), one spare u for unfused code.
//	hotspot    |Δ| ≤ running bound: γ_8 times the stencil on absolute values
//	           per step, propagated through the stencil across steps.
//	lud        |Δ| ≤ 2 × a first-order running error bound of Doolittle LU,
//	gaussian   valid for any summation order (blocked tiles or sequential)
//	           and for FMA or mul+sub (lud_diagonal and gaussian use mul.f32
//	           then sub.f32, lud_internal fma): γ_{m+2}(|a|+Σ|l||u|) for each
//	           m-term update plus propagated errors of l and u. gaussian's
//	           below-diagonal entries, 0 in exact arithmetic, are rounding
//	           residues bounded by 2u(1+u)·|a_rt|. Inputs are diagonally
//	           dominant by rows and columns, so no pivoting is needed.
//	bfs,       exact.
//	pathfinder
//	volrender  per pixel and channel, a first-order bound accumulated along
//	           the ray (see Render): the hardware's 8-bit filter weights
//	           (TexWeightQuantum) on both textures, the float32 sample
//	           positions (t accumulated in float32, rsqrt.approx), weighted
//	           by transmittance, plus one sample's contribution for each
//	           discrete decision (early termination at 0.95, the last step,
//	           hit/miss) made within its error margin, plus the truncation to
//	           8 bits. For the default scenes (32³ volumes, density 0.05,
//	           40×32 image, views (0,0,0), (90,0,90), (30,45,10)) the bound is
//	           4–13 levels at its worst pixel while the host emulation with
//	           exact, rounded and truncated 8-bit weights stays within 1 level.
//
// # volrender launch setup
//
// volume: Volume(kind, n, seed), a 3D cudaArray of 8-bit unsigned texels
// (cudaChannelFormatKindUnsigned, 8 bits), cudaReadModeNormalizedFloat (v/255),
// normalizedCoords = 1, cudaFilterModeLinear, cudaAddressModeClamp on all three
// axes; voxel (x, y, z) at index (z·n + y)·n + x. transfer: TransferFunction(),
// a 1D cudaArray of float4, normalizedCoords = 1, cudaFilterModeLinear,
// cudaAddressModeClamp. c_invViewMatrix: ViewMatrix(alpha, beta, gamma,
// distance). DefaultRenderParams gives density 0.05, brightness 1, transfer
// offset 0, scale 1.
//
// # Cross-check
//
// hostemu_test.go builds ../testdata/refcheck/refcheck.cc (the samples' .cu
// compiled as host C++ over ../testdata/hostemu/emu.h), runs every sample's
// host loop on the generated inputs and compares the outputs with these
// references; volrender is run with exact and with 8-bit quantized filter
// weights. It is skipped with -short or without a C++20 compiler.
package ref
