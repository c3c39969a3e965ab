// Asynchronous-copy test kernels for the probe accuracy test (TestAsyncProbes).
// Build: nvcc -ccbin clang-14 -arch=sm_80 -ptx cpasync.cu -o cpasync.sm_80.ptx
#include <cuda_pipeline.h>

// cpasync_sum: each thread copies one float per tile from global to its
// own shared word with cp.async (4 bytes), waits for it and adds it up.
extern "C" __global__ void cpasync_sum(const float* __restrict__ in, float* out, int tiles)
{
    __shared__ float buf[256];
    float acc = 0;
    const float* p = in + (size_t)blockIdx.x * tiles * blockDim.x + threadIdx.x;
    for (int t = 0; t < tiles; t++) {
        __pipeline_memcpy_async(&buf[threadIdx.x], p + (size_t)t * blockDim.x, sizeof(float));
        __pipeline_commit();
        __pipeline_wait_prior(0);
        acc += buf[threadIdx.x];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// cpasync_tile: 16-byte copies (cp.async.cg) of a 64-float4 tile per
// block, then a barrier and a transposed read of the tile.
extern "C" __global__ void cpasync_tile(const float4* __restrict__ in, float4* out)
{
    __shared__ float4 tile[64];
    int i = blockIdx.x * 64 + threadIdx.x;
    __pipeline_memcpy_async(&tile[threadIdx.x], &in[i], sizeof(float4));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    float4 v = tile[63 - threadIdx.x];
    out[i] = make_float4(v.w, v.z, v.y, v.x);
}
