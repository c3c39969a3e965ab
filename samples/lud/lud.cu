// lud: in-place LU decomposition without pivoting of a dense n x n float matrix,
// blocked into BLOCK x BLOCK = 16 x 16 tiles (right-looking).
//
// Workload of seeds 000/002 (Rodinia-style "lud").
//
// The matrix a is row-major with n a positive multiple of 16. On return it
// holds L (unit lower triangle, diagonal ones not stored) below the diagonal
// and U on and above it, so that L * U equals the original matrix.
// No pivoting: every leading principal minor must be non-singular.
//
// Host loop (offset walks down the diagonal in steps of 16):
//   for (offset = 0; offset < n - 16; offset += 16) {
//       lud_diagonal <<<1, 16>>>(a, n, offset);
//       lud_perimeter<<<(n - offset) / 16 - 1, 32>>>(a, n, offset);
//       lud_internal <<<dim3((n - offset) / 16 - 1, (n - offset) / 16 - 1), dim3(16, 16)>>>(a, n, offset);
//   }
//   lud_diagonal<<<1, 16>>>(a, n, n - 16);
//
// Kernel lud_diagonal: factors the diagonal tile D at (offset, offset) into
//   L11 * U11. Launch: exactly 1 block of 16 threads. Shared: 16x16 floats.
// Kernel lud_perimeter: block j (0-based) handles the tile U12 to the right of
//   D at (offset, offset+16*(j+1)) -- solving L11 * U12 = A12 -- and the tile L21
//   below D at (offset+16*(j+1), offset) -- solving L21 * U11 = A21.
//   Launch: 1D grid of (n-offset)/16 - 1 blocks of exactly 32 threads: threads
//   0..15 own one column of U12 each, threads 16..31 one row of L21 each.
//   Shared: three 16x16 float tiles.
// Kernel lud_internal: trailing update A22 -= L21 * U12 for the tile at
//   (offset+16*(by+1), offset+16*(bx+1)). Launch: grid ((n-offset)/16 - 1)^2 in
//   2D, blocks of exactly 16x16 threads. Shared: two 16x16 float tiles.
// Each kernel writes only tiles no other block of the same launch reads, and
// every sum is accumulated in a fixed order, so results are deterministic.

#define BLOCK 16

extern "C" __global__ void lud_diagonal(float *a, int n, int offset)
{
    __shared__ float d[BLOCK][BLOCK];
    int tx = threadIdx.x;
    float *base = a + offset * n + offset;

    for (int r = 0; r < BLOCK; r++)
        d[r][tx] = base[r * n + tx];
    __syncthreads();

    for (int k = 0; k < BLOCK - 1; k++) {
        // Column k below the pivot becomes the multipliers (L).
        if (tx > k)
            d[tx][k] /= d[k][k];
        __syncthreads();
        // Thread tx updates column tx of the trailing rows.
        if (tx > k) {
            for (int r = k + 1; r < BLOCK; r++)
                d[r][tx] -= d[r][k] * d[k][tx];
        }
        __syncthreads();
    }

    for (int r = 0; r < BLOCK; r++)
        base[r * n + tx] = d[r][tx];
}

extern "C" __global__ void lud_perimeter(float *a, int n, int offset)
{
    __shared__ float diag[BLOCK][BLOCK];
    __shared__ float right[BLOCK][BLOCK]; // A12, becomes U12
    __shared__ float below[BLOCK][BLOCK]; // A21, becomes L21

    int tid = threadIdx.x; // 0..31
    int half = tid / BLOCK; // 0: U12 column owner, 1: L21 row owner
    int j = tid % BLOCK;
    int tile = offset + (blockIdx.x + 1) * BLOCK;

    float *pDiag = a + offset * n + offset;
    float *pRight = a + offset * n + tile;
    float *pBelow = a + tile * n + offset;

    // 32 threads load 3 tiles: each pass loads two rows of the diagonal tile
    // and one row each of the other two.
    for (int r = half; r < BLOCK; r += 2)
        diag[r][j] = pDiag[r * n + j];
    for (int r = 0; r < BLOCK; r++) {
        if (half == 0)
            right[r][j] = pRight[r * n + j];
        else
            below[r][j] = pBelow[r * n + j];
    }
    __syncthreads();

    if (half == 0) {
        // Forward substitution with unit lower L11, column j of U12.
        for (int r = 1; r < BLOCK; r++) {
            float s = right[r][j];
            for (int k = 0; k < r; k++)
                s -= diag[r][k] * right[k][j];
            right[r][j] = s;
        }
    } else {
        // Row j of L21: solve x * U11 = row j of A21, left to right.
        for (int c = 0; c < BLOCK; c++) {
            float s = below[j][c];
            for (int k = 0; k < c; k++)
                s -= below[j][k] * diag[k][c];
            below[j][c] = s / diag[c][c];
        }
    }
    __syncthreads();

    for (int r = 0; r < BLOCK; r++) {
        if (half == 0)
            pRight[r * n + j] = right[r][j];
        else
            pBelow[r * n + j] = below[r][j];
    }
}

extern "C" __global__ void lud_internal(float *a, int n, int offset)
{
    __shared__ float l[BLOCK][BLOCK]; // L21 tile of this block's row
    __shared__ float u[BLOCK][BLOCK]; // U12 tile of this block's column

    int tx = threadIdx.x, ty = threadIdx.y;
    int row = offset + (blockIdx.y + 1) * BLOCK + ty;
    int col = offset + (blockIdx.x + 1) * BLOCK + tx;

    l[ty][tx] = a[row * n + offset + tx];
    u[ty][tx] = a[(offset + ty) * n + col];
    __syncthreads();

    float s = 0.0f;
    for (int k = 0; k < BLOCK; k++)
        s += l[ty][k] * u[k][tx];
    a[row * n + col] -= s;
}
