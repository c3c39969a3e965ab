// multispace: a 1D filter whose loop loads from global, shared, constant and read-only (__ldg) memory.
//
// Kernel multispace: 1D block of exactly 128 threads, grid ceil(n/128).
// The block stages w[blockIdx.x*128 + t] (global, 0 past n) in shared memory;
// then for k = 0..TAPS-1 each thread adds
//   coef[k] * (__ldg(&x[(i+k) mod n]) + s[(t+k) mod 128])
// to an integer accumulator (32-bit wrap-around), coef in __constant__ memory.
// Inputs
//   x, w  int32[n], read-only;  n.
//   coef  __constant__ int32[8].
// Outputs
//   y     int32[n].

#define TAPS 8
__constant__ int coef[TAPS];

extern "C" __global__ void multispace(const int *__restrict__ x, const int *w, int *y, int n)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    int i = blockIdx.x * 128 + t;
    s[t] = i < n ? w[i] : 0;
    __syncthreads();
    if (i >= n)
        return;
    int acc = 0;
    for (int k = 0; k < TAPS; k++) {
        int j = i + k;
        if (j >= n)
            j -= n;
        acc += coef[k] * (__ldg(&x[j]) + s[(t + k) & 127]);
    }
    y[i] = acc;
}
