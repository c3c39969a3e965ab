// tiledmm: a Triton-style tiled f16 matmul with f32 accumulation on tensor cores.
//
// Kernel tiledmm: block 128 threads (4 warps), grid (N/64, M/64); M and N
// multiples of 64, K a multiple of 32 (no masking). Each CTA computes a 64x64
// tile of C; warp w owns the 32x32 quarter (rows 32*(w/2), columns 32*(w%2)).
// The K loop runs over 32-wide k-tiles through a 3-stage cp.async pipeline
// (cp.async.cg 16-byte copies, one commit group per k-tile, wait_group 1),
// like the code Triton emits for sm_80. Fragments come from shared memory with
// ldmatrix.x4 (A, row-major) and ldmatrix.x4.trans (B, row-major K x N), and
// mma.sync.m16n8k16.row.col.f32.f16.f16.f32 accumulates: per warp 2x4 mma per
// 16-wide k step, k steps in increasing k. Shared rows are padded (A: 40
// halves, B: 72 halves) so ldmatrix rows hit different banks.
// Inputs
//   a     half[M*K] row-major, read-only;  b  half[K*N] row-major, read-only;
//   M, N, K.
// Outputs
//   c     float[M*N] row-major: c[i*N+j] = sum_k a[i*K+k]*b[k*N+j], accumulated
//         in f32 by the tensor core, k-tile by k-tile in increasing k.

#include <cuda_fp16.h>

#define BM 64
#define BN 64
#define BK 32
#define STAGES 3
#define APAD 40 /* halves per A row in shared memory (80 bytes) */
#define BPAD 72 /* halves per B row in shared memory (144 bytes) */

__device__ __forceinline__ unsigned smem(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void cp_async16(unsigned dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}

__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }

template <int N>
__device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

__device__ __forceinline__ void ldsm_x4(unsigned r[4], unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

__device__ __forceinline__ void ldsm_x4_trans(unsigned r[4], unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

__device__ __forceinline__ void mma16816(float d[4], const unsigned a[4], const unsigned b[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

extern "C" __global__ void __launch_bounds__(128) tiledmm(const __half *a, const __half *b, float *c, int M, int N, int K)
{
    __shared__ __align__(128) __half As[STAGES][BM * APAD];
    __shared__ __align__(128) __half Bs[STAGES][BK * BPAD];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int wm = (warp >> 1) * 32, wn = (warp & 1) * 32;
    const int ktiles = K / BK;

    // one k-tile: A is 64 rows x 4 chunks of 8 halves, B 32 rows x 8 chunks; 2 chunks each per thread
    auto load = [&](int stage, int kt) {
        for (int i = 0; i < 2; i++) {
            int ch = tid + 128 * i;
            int r = ch >> 2, cc = (ch & 3) * 8;
            cp_async16(smem(&As[stage][r * APAD + cc]), a + (size_t)(bm + r) * K + kt * BK + cc);
            int rb = ch >> 3, cb = (ch & 7) * 8;
            cp_async16(smem(&Bs[stage][rb * BPAD + cb]), b + (size_t)(kt * BK + rb) * N + bn + cb);
        }
    };

    float acc[2][4][4];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            for (int e = 0; e < 4; e++)
                acc[i][j][e] = 0.0f;

    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ktiles)
            load(s, s);
        cp_commit();
    }
    for (int kt = 0; kt < ktiles; kt++) {
        cp_wait<STAGES - 2>();
        __syncthreads();
        int next = kt + STAGES - 1;
        if (next < ktiles)
            load(next % STAGES, next);
        cp_commit();
        const __half *as = As[kt % STAGES], *bs = Bs[kt % STAGES];
        for (int kk = 0; kk < BK; kk += 16) {
            unsigned af[2][4], bf[2][4];
            for (int i = 0; i < 2; i++)
                ldsm_x4(af[i], smem(&as[(wm + 16 * i + (lane & 15)) * APAD + kk + (lane >> 4) * 8]));
            for (int j = 0; j < 2; j++)
                ldsm_x4_trans(bf[j], smem(&bs[(kk + (lane & 15)) * BPAD + wn + 16 * j + (lane >> 4) * 8]));
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 4; j++)
                    mma16816(acc[i][j], af[i], &bf[j >> 1][2 * (j & 1)]);
        }
    }
    cp_wait<0>();

    const int g = lane >> 2, q = lane & 3;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) {
            int row = bm + wm + 16 * i + g, col = bn + wn + 8 * j + 2 * q;
            *(float2 *)&c[(size_t)row * N + col] = make_float2(acc[i][j][0], acc[i][j][1]);
            *(float2 *)&c[(size_t)(row + 8) * N + col] = make_float2(acc[i][j][2], acc[i][j][3]);
        }
}
