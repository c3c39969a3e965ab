// bigblock: per-block sum of squares with 1024-thread blocks and a shared-memory tree.
//
// Kernel bigblock: block of exactly 1024 threads, any 1D grid. Thread t of
// block b loads in[b*1024+t] (0 past n), squares it (32-bit wrap-around),
// and the block sums the squares with a shared-memory tree (strides 512 ... 1);
// thread 0 writes sums[b].
// Inputs
//   in    int32[n], read-only;  n.
// Outputs
//   sums  int32[gridDim.x].

extern "C" __global__ void __launch_bounds__(1024) bigblock(const int *in, int *sums, int n)
{
    __shared__ int s[1024];
    int t = threadIdx.x;
    int i = blockIdx.x * 1024 + t;
    int v = i < n ? in[i] : 0;
    s[t] = v * v;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0)
        sums[blockIdx.x] = s[0];
}
