// transpose: matrix transpose through a padded 32x33 shared tile.
//
// Kernel transpose: block exactly 32x8, grid (ceil(cols/32), ceil(rows/32)).
// Each block reads a 32x32 tile of in (rows x cols, row-major) with coalesced
// loads, 4 rows per thread, into a 32x33 float tile (padding avoids bank
// conflicts), and after a barrier writes it transposed to out (cols x rows).
// Inputs
//   in    float[rows*cols], read-only;  rows, cols.
// Outputs
//   out   float[cols*rows]: out[c*rows + r] = in[r*cols + c].

#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < cols && y + j < rows)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < rows && y + j < cols)
            out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
