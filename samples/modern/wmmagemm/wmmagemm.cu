// wmmagemm: an f16 GEMM with f32 accumulation on nvcuda::wmma 16x16x16 fragments.
//
// Kernel wmmagemm: block 128 threads (4 warps), grid (N/64, M/64); M and N
// multiples of 64, K a multiple of 32 (no masking). Each CTA stages 64x32 of
// A and 32x64 of B per k-tile in shared memory (16-byte vector loads, rows
// padded to 40 and 72 halves), and warp w accumulates its 32x32 quarter (rows
// 32*(w/2), columns 32*(w%2)) in 2x2 accumulator fragments with
// wmma::mma_sync, k steps of 16 in increasing k. The accumulators are stored
// straight to global memory (wmma::store_matrix_sync, row-major).
// Inputs
//   a     half[M*K] row-major, read-only;  b  half[K*N] row-major, read-only;
//   M, N, K.
// Outputs
//   c     float[M*N] row-major: c[i*N+j] = sum_k a[i*K+k]*b[k*N+j], accumulated
//         in f32 by the tensor core in increasing k.

#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define BM 64
#define BN 64
#define BK 32
#define APAD 40
#define BPAD 72

extern "C" __global__ void __launch_bounds__(128) wmmagemm(const __half *a, const __half *b, float *c, int M, int N, int K)
{
    __shared__ __align__(32) __half As[BM * APAD];
    __shared__ __align__(32) __half Bs[BK * BPAD];
    const int tid = threadIdx.x, warp = tid >> 5;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int wm = (warp >> 1) * 32, wn = (warp & 1) * 32;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = 0; i < 2; i++) {
            int ch = tid + 128 * i;
            int r = ch >> 2, cc = (ch & 3) * 8;
            *(uint4 *)&As[r * APAD + cc] = *(const uint4 *)&a[(size_t)(bm + r) * K + k0 + cc];
            int rb = ch >> 3, cb = (ch & 7) * 8;
            *(uint4 *)&Bs[rb * BPAD + cb] = *(const uint4 *)&b[(size_t)(k0 + rb) * N + bn + cb];
        }
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb[2];
            for (int i = 0; i < 2; i++)
                wmma::load_matrix_sync(fa[i], &As[(wm + 16 * i) * APAD + kk], APAD);
            for (int j = 0; j < 2; j++)
                wmma::load_matrix_sync(fb[j], &Bs[kk * BPAD + wn + 16 * j], BPAD);
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++)
                    wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::store_matrix_sync(&c[(size_t)(bm + wm + 16 * i) * N + bn + wn + 16 * j], acc[i][j], N, wmma::mem_row_major);
}
