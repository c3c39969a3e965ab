// histogram: 256-bin histogram of bytes with shared-memory atomics, then global atomics.
//
// Kernel histogram: any 1D block (256 typical), any 1D grid; each thread reads a
// grid-stride slice of data, adds one to its byte's bin in a block-private
// shared histogram (atomicAdd on shared memory), and after a barrier each
// thread reads bins back from shared memory (loads after shared atomics) and
// adds the non-zero ones to the global histogram (atomicAdd on global memory).
// Inputs
//   data  uint8[n], read-only.
//   n     number of bytes.
// Outputs
//   bins  uint32[256], must be zero before the launch: bins[v] = count of v in data.
// Determinism: integer additions commute, so the result does not depend on the
// order of the atomics.

extern "C" __global__ void histogram(const unsigned char *data, unsigned int *bins, int n)
{
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) {
        unsigned int c = local[b];
        if (c != 0)
            atomicAdd(&bins[b], c);
    }
}
