// spmv: sparse matrix-vector product y = A*x, A in CSR, one thread per row.
//
// Kernel spmv: any 1D block, grid ceil(rows/block). Row r sums
// val[k] * x[col[k]] for k in [rowptr[r], rowptr[r+1]) in index order
// (nvcc contracts the multiply-add into an FMA) and writes y[r].
// Inputs
//   rowptr int32[rows+1], col int32[nnz], val float[nnz], x float[cols], read-only.
//   rows.
// Outputs
//   y      float[rows].

extern "C" __global__ void spmv(const int *rowptr, const int *col, const float *val, const float *x, float *y, int rows)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float sum = 0.0f;
    for (int k = rowptr[r]; k < rowptr[r + 1]; k++)
        sum += val[k] * x[col[k]];
    y[r] = sum;
}
