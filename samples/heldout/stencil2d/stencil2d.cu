// stencil2d: one Jacobi step of a 2D 5-point integer stencil with a shared halo tile.
//
// Kernel stencil2d: block exactly 16x16, grid (ceil(cols/16), ceil(rows/16)).
// The block loads an 18x18 tile (one-cell halo, zeros outside the grid) of
// in (rows x cols, row-major) into shared memory; the halo cells are loaded by
// the edge threads. out[r][c] = 4*in[r][c] - (N + S + E + W), neighbours
// outside the grid counting as 0 (32-bit wrap-around).
// Inputs
//   in   int32[rows*cols], read-only;  rows, cols.
// Outputs
//   out  int32[rows*cols].

#define B 16

__device__ static int at(const int *in, int r, int c, int rows, int cols)
{
    return (r >= 0 && r < rows && c >= 0 && c < cols) ? in[r * cols + c] : 0;
}

extern "C" __global__ void stencil2d(const int *in, int *out, int rows, int cols)
{
    __shared__ int s[B + 2][B + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int c = blockIdx.x * B + tx, r = blockIdx.y * B + ty;
    s[ty + 1][tx + 1] = at(in, r, c, rows, cols);
    if (tx == 0)
        s[ty + 1][0] = at(in, r, c - 1, rows, cols);
    if (tx == B - 1)
        s[ty + 1][B + 1] = at(in, r, c + 1, rows, cols);
    if (ty == 0)
        s[0][tx + 1] = at(in, r - 1, c, rows, cols);
    if (ty == B - 1)
        s[B + 1][tx + 1] = at(in, r + 1, c, rows, cols);
    __syncthreads();
    if (r < rows && c < cols)
        out[r * cols + c] = 4 * s[ty + 1][tx + 1] - (s[ty][tx + 1] + s[ty + 2][tx + 1] + s[ty + 1][tx] + s[ty + 1][tx + 2]);
}
