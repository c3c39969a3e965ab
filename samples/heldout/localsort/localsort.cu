// localsort: each thread sorts 8 integers in a per-thread local array.
//
// Kernel localsort: any 1D block, grid ceil(n/block); thread i copies
// in[8i .. 8i+7] into a local array, insertion-sorts it there (data-dependent
// indices keep the array in local memory: loads after local stores), and writes
// the sorted 8 values to out[8i ..], then out2[i] = the number of distinct values.
// Inputs
//   in    int32[8n], read-only.
//   n     number of groups of 8.
// Outputs
//   out   int32[8n]: each group of 8 sorted ascending.
//   out2  int32[n]: distinct values per group.

#define K 8

extern "C" __global__ void localsort(const int *in, int *out, int *out2, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v[K];
    for (int k = 0; k < K; k++)
        v[k] = in[i * K + k];
    for (int k = 1; k < K; k++) {
        int x = v[k];
        int j = k - 1;
        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
    int distinct = 1;
    for (int k = 0; k < K; k++) {
        out[i * K + k] = v[k];
        if (k > 0 && v[k] != v[k - 1])
            distinct++;
    }
    out2[i] = distinct;
}
