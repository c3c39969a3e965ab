// reduce: sum of n floats into one float (warp shuffles + shared memory + one atomic per block).
//
// Kernel reduce_sum:
//   Launch: 1D blocks whose size is a multiple of 32 and at most 1024 (256 is
//   typical), any 1D grid; each thread first sums a grid-stride slice of the input.
//   Static shared memory: 32 floats (one partial per warp).
// Inputs
//   in     float[n], read-only.
//   n      number of elements.
// Output
//   out    pointer to one float that must be zeroed before the launch; each block
//          adds its partial sum with a single atomicAdd.
// Determinism: within a block the order of additions is fixed, but the order in
// which blocks' partials reach *out depends on block completion order, so the
// float result may differ in the last bits between runs or machines. Reference
// checks must compare with a relative tolerance (e.g. 1e-5 * sum of |in[i]|).
// With a single block the result is fully deterministic.

#define FULL_MASK 0xffffffffu

__device__ static float warpSum(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float warpPartial[32];

    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    int nwarps = blockDim.x >> 5;

    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += in[i];

    v = warpSum(v);
    if (lane == 0)
        warpPartial[warp] = v;
    __syncthreads();

    if (warp == 0) {
        v = lane < nwarps ? warpPartial[lane] : 0.0f;
        v = warpSum(v);
        if (lane == 0)
            atomicAdd(out, v);
    }
}
