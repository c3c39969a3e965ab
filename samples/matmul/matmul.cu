// matmul: single-precision matrix product C = A * B with 16x16 shared-memory tiles.
//
// Kernel matmul: one thread per element of C.
//   Launch: block (16, 16) exactly (TILE = 16), grid (ceil(N/16), ceil(M/16)).
//   Static shared memory: two 16x16 float tiles (2 KiB).
// Inputs
//   A      float[M*K], row-major M x K.
//   B      float[K*N], row-major K x N.
//   M, N, K  arbitrary positive sizes; partial tiles are padded with zeros.
// Output
//   C      float[M*N], row-major M x N. Each element is accumulated in order
//          k = 0, 1, ..., K-1 (the compiler may contract into fused multiply-add).

#define TILE 16

extern "C" __global__ void matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float sA[TILE][TILE];
    __shared__ float sB[TILE][TILE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;

    float sum = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        int ka = k0 + tx; // column of A loaded by this thread
        int kb = k0 + ty; // row of B loaded by this thread
        sA[ty][tx] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
        sB[ty][tx] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        __syncthreads();

        for (int k = 0; k < TILE; k++)
            sum += sA[ty][k] * sB[k][tx];
        __syncthreads();
    }

    if (row < M && col < N)
        C[row * N + col] = sum;
}
