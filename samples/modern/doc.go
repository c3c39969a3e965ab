// Package modern is the tensor-core and asynchronous-copy sample group
// (issue 23): kernels shaped like the code of today's fast GEMM and
// attention implementations, each with an independent Go reference in
// samples/ref (modern.go).
//
//   - tiledmm: a Triton-style tiled matmul for sm_80 (3-stage cp.async
//     pipeline, ldmatrix, mma.sync m16n8k16), CUDA with inline PTX.
//   - attention: Q·Kᵀ, row softmax and ·V for one 16-row query block per
//     warp with mma.sync, the score fragments reused as the A operand.
//   - flashattn: the FlashAttention recurrence (online softmax) over key
//     blocks streamed through two cp.async stages, with mma.sync.
//   - wmmagemm: a GEMM with nvcuda::wmma 16×16×16 fragments.
//   - wgmmagemm: an sm_90a GEMM with TMA (cp.async.bulk.tensor and an
//     mbarrier) and wgmma.mma_async; hand-written PTX (CUDA 11.8 cannot
//     emit PTX ISA 8.0), its tensor maps built by the launch spec.
//
// Each kernel lives in <name>/ with its source (.cu, absent for
// hand-written PTX), its PTX (generate.sh) and a launch spec launch.yaml
// whose inputs come from ref.ModernGenerators and whose checks name the
// verifiers of Registry. The group is separate from samples/ and
// samples/heldout so that their goldens and tables are not changed by it.
//
// Invariants: the outputs are functions of the inputs (no atomics), so
// replay gives the same bytes in functional and timing mode. With the
// generators' exact inputs (n/8 values) every f32 sum is exact in any
// order and the references compare bit for bit; with full-precision f16
// inputs they allow the tolerance derived in ref.MMAChainTol (and, for
// the attention kernels, the per-element bounds of ref.Attention and
// ref.FlashAttention), never a tuned one.
package modern
