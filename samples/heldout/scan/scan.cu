// scan: inclusive prefix sum of 4096-element tiles in 16 KB of shared memory.
//
// Kernel scan: block of exactly 1024 threads, any 1D grid; block b scans
// in[b*4096 .. b*4096+4095] (0 past n). Each thread loads 4 consecutive
// elements into the 16 KB shared tile, scans them sequentially, a
// Hillis-Steele scan over the 1024 thread totals (double-buffered in a
// second shared array) gives each thread its offset, and the thread writes
// its 4 inclusive sums. The tile's total goes to totals[b].
// Inputs
//   in     int32[n], read-only;  n.
// Outputs
//   out    int32[n]: per-tile inclusive prefix sums (32-bit wrap-around).
//   totals int32[gridDim.x].

#define T 1024
#define E 4

extern "C" __global__ void __launch_bounds__(1024) scan(const int *in, int *out, int *totals, int n)
{
    __shared__ int tile[T * E];
    __shared__ int part[2][T];
    int t = threadIdx.x;
    int base = blockIdx.x * T * E;
    for (int k = 0; k < E; k++) {
        int i = base + k * T + t;
        tile[k * T + t] = i < n ? in[i] : 0;
    }
    __syncthreads();
    int sum = 0;
    for (int k = 0; k < E; k++) {
        sum += tile[t * E + k];
        tile[t * E + k] = sum;
    }
    part[0][t] = sum;
    __syncthreads();
    int cur = 0;
    for (int off = 1; off < T; off <<= 1) {
        int v = part[cur][t];
        if (t >= off)
            v += part[cur][t - off];
        part[cur ^ 1][t] = v;
        cur ^= 1;
        __syncthreads();
    }
    int prefix = t > 0 ? part[cur][t - 1] : 0;
    for (int k = 0; k < E; k++) {
        int i = base + t * E + k;
        if (i < n)
            out[i] = tile[t * E + k] + prefix;
    }
    if (t == T - 1)
        totals[blockIdx.x] = part[cur][t];
}
