// flashattn: FlashAttention-style softmax(Q·K^T)·V with an online softmax over key blocks.
//
// Kernel flashattn: block 128 threads (4 warps), grid seq_q/64; seq_q and
// seq_k multiples of 64, head size 64. Each CTA keeps its 64 query rows in
// shared memory and streams K and V in blocks of 64 keys through two
// cp.async.cg stages (block b+2 is prefetched into the stage block b used,
// one commit group per block, wait_group 1 while a later block is in flight).
// Warp w owns query rows 16w..16w+15 and keeps, per row, the running max m,
// the running sum l and the 16x64 f32 accumulator O in registers. For each
// key block b in order:
//   S = Q·K_b^T (mma.sync.m16n8k16, Q fragments loaded once by ldmatrix.x4,
//     K fragments by ldmatrix.x4);
//   m' = max(m, max_j S_ij) (shfl.xor within the quad);
//   alpha = ex2.approx((m - m') * c)  (0 for the first block: m = -inf);
//   p_ij = ex2.approx((S_ij - m') * c);
//   l = l * alpha + sum_j p_ij (this lane's p in key order, then shfl.xor 1, 2);
//   O = O * alpha + h(P)·V_b (mma.sync; h rounds p to f16; the score
//     accumulators are the A fragments; V fragments by ldmatrix.x4.trans);
//   m = m'.
// out_i = O_i / l_i (div.rn). c is scale*log2(e), passed as a float.
// Inputs
//   q     half[seq_q*64], k, v half[seq_k*64], row-major, read-only;
//   seq_q, seq_k, c.
// Outputs
//   out   float[seq_q*64] row-major: the recurrence above in exact arithmetic
//         is out[i*64+d] = sum_b F_b sum_{j in b} h(p_ij) v[j*64+d] / l_i, where
//         p_ij is relative to the running max after block b and F_b the
//         product of the later blocks' alphas.

#include <cuda_fp16.h>

#define BN 64   /* keys per block */
#define HD 64   /* head size */
#define PAD 72  /* halves per shared row */

__device__ __forceinline__ unsigned smem(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void cp_async16(unsigned dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}

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

__device__ __forceinline__ float ex2(float x)
{
    float y;
    asm("ex2.approx.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ unsigned pack(float lo, float hi)
{
    __half2 h = __floats2half2_rn(lo, hi);
    return *(unsigned *)&h;
}

extern "C" __global__ void __launch_bounds__(128) flashattn(const __half *q, const __half *k, const __half *v, float *out, int seq_q, int seq_k, float c)
{
    __shared__ __align__(128) __half Qs[64 * PAD];
    __shared__ __align__(128) __half Ks[2][BN * PAD];
    __shared__ __align__(128) __half Vs[2][BN * PAD];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int q0 = blockIdx.x * 64;
    const int nb = seq_k / BN;

    auto load_kv = [&](int stage, int blk) {
        for (int i = 0; i < 4; i++) {
            int ch = tid + 128 * i, r = ch >> 3, cc = (ch & 7) * 8;
            cp_async16(smem(&Ks[stage][r * PAD + cc]), k + (size_t)(blk * BN + r) * HD + cc);
            cp_async16(smem(&Vs[stage][r * PAD + cc]), v + (size_t)(blk * BN + r) * HD + cc);
        }
    };
    for (int i = 0; i < 4; i++) {
        int ch = tid + 128 * i, r = ch >> 3, cc = (ch & 7) * 8;
        cp_async16(smem(&Qs[r * PAD + cc]), q + (size_t)(q0 + r) * HD + cc);
    }
    load_kv(0, 0);
    asm volatile("cp.async.commit_group;\n" ::);
    if (nb > 1)
        load_kv(1, 1);
    asm volatile("cp.async.commit_group;\n" ::);

    float m0 = -INFINITY, m1 = -INFINITY, l0 = 0.0f, l1 = 0.0f;
    float acc[HD / 8][4];
    for (int j = 0; j < HD / 8; j++)
        for (int e = 0; e < 4; e++)
            acc[j][e] = 0.0f;
    unsigned qa[HD / 16][4];

    for (int b = 0; b < nb; b++) {
        const int st = b & 1;
        asm volatile("cp.async.wait_group 1;\n" ::);
        __syncthreads();
        if (b == 0)
            for (int kk = 0; kk < HD / 16; kk++)
                ldsm_x4(qa[kk], smem(&Qs[(16 * warp + (lane & 15)) * PAD + 16 * kk + (lane >> 4) * 8]));

        float s[BN / 8][4];
        for (int j = 0; j < BN / 8; j++)
            for (int e = 0; e < 4; e++)
                s[j][e] = 0.0f;
        for (int kk = 0; kk < HD / 16; kk++)
            for (int j = 0; j < BN / 8; j += 2) {
                unsigned bb[4];
                ldsm_x4(bb, smem(&Ks[st][(8 * j + (lane & 7) + ((lane >> 4) << 3)) * PAD + 16 * kk + ((lane >> 3) & 1) * 8]));
                mma16816(s[j], qa[kk], &bb[0]);
                mma16816(s[j + 1], qa[kk], &bb[2]);
            }

        float n0 = m0, n1 = m1;
        for (int j = 0; j < BN / 8; j++) {
            n0 = fmaxf(n0, fmaxf(s[j][0], s[j][1]));
            n1 = fmaxf(n1, fmaxf(s[j][2], s[j][3]));
        }
        for (int o = 1; o <= 2; o <<= 1) {
            n0 = fmaxf(n0, __shfl_xor_sync(0xffffffff, n0, o));
            n1 = fmaxf(n1, __shfl_xor_sync(0xffffffff, n1, o));
        }
        const float a0 = ex2((m0 - n0) * c), a1 = ex2((m1 - n1) * c);
        float r0 = 0.0f, r1 = 0.0f;
        for (int j = 0; j < BN / 8; j++) {
            s[j][0] = ex2((s[j][0] - n0) * c);
            s[j][1] = ex2((s[j][1] - n0) * c);
            s[j][2] = ex2((s[j][2] - n1) * c);
            s[j][3] = ex2((s[j][3] - n1) * c);
            r0 += s[j][0] + s[j][1];
            r1 += s[j][2] + s[j][3];
        }
        for (int o = 1; o <= 2; o <<= 1) {
            r0 += __shfl_xor_sync(0xffffffff, r0, o);
            r1 += __shfl_xor_sync(0xffffffff, r1, o);
        }
        l0 = l0 * a0 + r0;
        l1 = l1 * a1 + r1;
        m0 = n0;
        m1 = n1;
        for (int j = 0; j < HD / 8; j++) {
            acc[j][0] *= a0;
            acc[j][1] *= a0;
            acc[j][2] *= a1;
            acc[j][3] *= a1;
        }
        for (int kt = 0; kt < BN / 16; kt++) {
            unsigned a[4] = {pack(s[2 * kt][0], s[2 * kt][1]), pack(s[2 * kt][2], s[2 * kt][3]),
                             pack(s[2 * kt + 1][0], s[2 * kt + 1][1]), pack(s[2 * kt + 1][2], s[2 * kt + 1][3])};
            for (int j = 0; j < HD / 8; j += 2) {
                unsigned bb[4];
                ldsm_x4_trans(bb, smem(&Vs[st][(16 * kt + (lane & 15)) * PAD + 8 * j + (lane >> 4) * 8]));
                mma16816(acc[j], a, &bb[0]);
                mma16816(acc[j + 1], a, &bb[2]);
            }
        }
        __syncthreads();
        if (b + 2 < nb)
            load_kv(st, b + 2);
        asm volatile("cp.async.commit_group;\n" ::);
    }
    asm volatile("cp.async.wait_group 0;\n" ::);

    const int g = lane >> 2, qq = lane & 3;
    const int row = q0 + 16 * warp + g;
    for (int j = 0; j < HD / 8; j++) {
        int col = 8 * j + 2 * qq;
        *(float2 *)&out[(size_t)row * HD + col] = make_float2(acc[j][0] / l0, acc[j][1] / l0);
        *(float2 *)&out[(size_t)(row + 8) * HD + col] = make_float2(acc[j][2] / l1, acc[j][3] / l1);
    }
}
