// dynrev: reverse each block's chunk through dynamic shared memory.
//
// Kernel dynrev: any 1D block B, grid ceil(n/B), dynamic shared memory
// B*4 bytes (extern __shared__). Thread t of block b stores in[b*B+t] (or 0
// past n) into s[t], and after a barrier reads s[B-1-t] (a load after other
// threads' shared stores) into out[b*B+t] when that index is below n.
// Inputs
//   in   int32[n], read-only.
//   n    element count.
// Outputs
//   out  int32[n]: out[b*B+t] = chunk b reversed (zeros stand in past n).

extern "C" __global__ void dynrev(const int *in, int *out, int n)
{
    extern __shared__ int s[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0;
    __syncthreads();
    int v = s[blockDim.x - 1 - t];
    if (i < n)
        out[i] = v;
}
