// gaussian: Gaussian elimination (forward elimination without pivoting) of a dense
// size x size system a * x = b, one pivot column per pair of launches.
//
// Workload of seeds 000/002 (Rodinia-style "gaussian"). All values are float,
// matrices row-major.
//
// Host loop: for t = 0 .. size-2: gaussian_fan1(m, a, size, t); gaussian_fan2(m, a, b, size, t).
// Afterwards a is upper triangular, b the transformed right-hand side, and m
// holds the multipliers below the diagonal (the host back-substitutes).
// No pivoting: a[t][t] must be non-zero at every step.
//
// Kernel gaussian_fan1: multipliers for pivot column t.
//   Launch: 1D blocks of any size (512 is typical), 1D grid ceil((size-1-t)/blockDim.x).
//   Thread i (i < size-1-t) handles row r = t+1+i: m[r][t] = a[r][t] / a[t][t].
//
// Kernel gaussian_fan2: row update for pivot column t.
//   Launch: 2D blocks (e.g. 16x16 or 4x4), grid (ceil((size-1-t)/blockDim.x),
//   ceil((size-t)/blockDim.y)). Thread (x, y) with x < size-1-t, y < size-t
//   updates row r = t+1+x, column c = t+y: a[r][c] -= m[r][t] * a[t][c];
//   the threads with y == 0 also update b[r] -= m[r][t] * b[t].
//   Only rows below the pivot row are written, and m is only read, so the
//   result is independent of thread order.
// Inputs/outputs
//   m      float[size*size]: written by fan1 (column t, rows t+1..), read by fan2.
//   a      float[size*size]: read by fan1, updated in place by fan2.
//   b      float[size]: updated in place by fan2.

extern "C" __global__ void gaussian_fan1(float *m, const float *a, int size, int t)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= size - 1 - t)
        return;
    int r = t + 1 + i;
    m[r * size + t] = a[r * size + t] / a[t * size + t];
}

extern "C" __global__ void gaussian_fan2(const float *m, float *a, float *b, int size, int t)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= size - 1 - t || y >= size - t)
        return;
    int r = t + 1 + x;
    int c = t + y;
    float mult = m[r * size + t];
    a[r * size + c] -= mult * a[t * size + c];
    if (y == 0)
        b[r] -= mult * b[t];
}
