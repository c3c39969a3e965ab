// reduce: sum of n floats into one float in two passes (warp shuffles + shared memory, no atomics).
//
// Kernel reduce_partial: one partial sum per block.
//   Launch: 1D blocks whose size is a multiple of 32 and at most 1024 (256 is
//   typical), any 1D grid G; each thread first sums a grid-stride slice of the input.
//   Static shared memory: 32 floats (one partial per warp).
// Kernel reduce_final: the total of the G partials.
//   Launch: exactly one block, 1D, size a multiple of 32 and at most 1024; each
//   thread first sums a block-stride slice of the partials.
//   Static shared memory: 32 floats.
// Host: reduce_partial<<<G, B>>>(in, partials, n); reduce_final<<<1, B2>>>(partials, out, G);
// both launches on one stream, so the second sees every partial of the first.
// Inputs
//   in       float[n], read-only.
//   n        number of elements.
// Outputs
//   partials float[G] (scratch): partials[b] = sum of block b's threads' slices.
//   out      pointer to one float: the sum of partials[0..G). Needs no initialisation.
// Determinism: each block reduces in a fixed order (slice in index order, then
// shuffle offsets 16, 8, 4, 2, 1 within each warp, then the same over the warps'
// partials in warp 0), every block writes its own partial, and the final block
// adds the partials the same way. The order of float additions therefore depends
// only on n, G, B and B2, never on scheduling: the result is the same bits on every
// run. It differs from the exact sum by rounding only (compare with a relative
// tolerance, e.g. 1e-5 * sum of |in[i]|, as samples/ref does).

#define FULL_MASK 0xffffffffu

__device__ static float warpSum(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

// blockSum returns the sum of v over the block in thread 0 (other threads get
// partial values). warpPartial is the block's 32-float shared array.
__device__ static float blockSum(float v, float *warpPartial)
{
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    int nwarps = blockDim.x >> 5;

    v = warpSum(v);
    if (lane == 0)
        warpPartial[warp] = v;
    __syncthreads();

    if (warp == 0) {
        v = lane < nwarps ? warpPartial[lane] : 0.0f;
        v = warpSum(v);
    }
    return v;
}

extern "C" __global__ void reduce_partial(const float *in, float *partials, int n)
{
    __shared__ float warpPartial[32];

    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += in[i];

    v = blockSum(v, warpPartial);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = v;
}

extern "C" __global__ void reduce_final(const float *partials, float *out, int count)
{
    __shared__ float warpPartial[32];

    float v = 0.0f;
    for (int i = threadIdx.x; i < count; i += blockDim.x)
        v += partials[i];

    v = blockSum(v, warpPartial);
    if (threadIdx.x == 0)
        out[0] = v;
}
