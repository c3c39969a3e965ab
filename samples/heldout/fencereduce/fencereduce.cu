// fencereduce: single-pass sum with __threadfence and a last-block ticket (loads after global stores and atomics).
//
// Kernel fencereduce: 1D block of exactly 256 threads, any 1D grid G. Each
// block sums a grid-stride slice per thread and then a shared-memory tree,
// thread 0 stores partials[b], executes __threadfence() and takes a ticket
// with atomicAdd(count, 1). The block that draws ticket G-1 is the last: its
// threads load all G partials (global loads after other blocks' stores and the
// atomic), sum them the same way and write *out, and reset *count to 0.
// Inputs
//   in       int32[n], read-only;  n.
//   count    uint32[1], zero before the launch (zero again after it).
// Outputs
//   partials int32[G];  out int32[1]: the sum of in (32-bit wrap-around).

#define B 256

__device__ static int blockSum(int v, int *s)
{
    int t = threadIdx.x;
    s[t] = v;
    __syncthreads();
    for (int stride = B / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    int r = s[0];
    __syncthreads();
    return r;
}

extern "C" __global__ void fencereduce(const int *in, int *partials, unsigned int *count, int *out, int n)
{
    __shared__ int s[B];
    __shared__ bool last;
    int v = 0;
    for (int i = blockIdx.x * B + threadIdx.x; i < n; i += B * gridDim.x)
        v += in[i];
    int sum = blockSum(v, s);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = sum;
        __threadfence();
        unsigned int ticket = atomicAdd(count, 1u);
        last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    v = 0;
    for (int i = threadIdx.x; i < gridDim.x; i += B)
        v += ((volatile int *)partials)[i];
    sum = blockSum(v, s);
    if (threadIdx.x == 0) {
        *out = sum;
        *count = 0;
    }
}
