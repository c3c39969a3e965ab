// shflchain: pointer chasing with warp shuffles between the loads.
//
// Kernel shflchain: 1D blocks that are a multiple of 32, grid ceil(n/block)
// with n a multiple of 32. Each lane starts at p = i; for s = 0..steps-1 it
// loads v = next[p] (a dependent global load), computes the warp's xor-sum of
// v with __shfl_xor_sync (offsets 16, 8, 4, 2, 1), and moves to
// p = (v + x) mod n, where x is the warp sum; acc accumulates v.
// Inputs
//   next  int32[n] with values in [0, n), read-only.
//   n, steps.
// Outputs
//   out   int32[n]: acc + p after the last step (32-bit wrap-around).

extern "C" __global__ void shflchain(const int *next, int *out, int n, int steps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int p = i < n ? i : 0;
    int acc = 0;
    for (int s = 0; s < steps; s++) {
        int v = next[p];
        int x = v;
        for (int o = 16; o > 0; o >>= 1)
            x ^= __shfl_xor_sync(0xffffffffu, x, o);
        acc += v;
        p = (int)(((unsigned)v + (unsigned)x) % (unsigned)n);
    }
    if (i < n)
        out[i] = acc + p;
}
