// devfunc: a gather through non-inlined device functions.
//
// Kernel devfunc: any 1D block, grid ceil(n/block). For element i,
// out[i] = mix(fetch(in, idx[i], n), fetch(in, i, n), i) where the two
// __noinline__ device functions are
//   fetch(p, j, n) = p[clamp(j, 0, n-1)]  (a global load inside a .func)
//   mix(a, b, i)   = (a * 3 + b) ^ i       (32-bit wrap-around arithmetic)
// The kernel then loads in[i] again after the calls (a load after a call).
// Inputs
//   in   int32[n], idx int32[n] (any values; clamped), read-only.
//   n    element count.
// Outputs
//   out  int32[n]: mix(...) + in[i].

__device__ __noinline__ int fetch(const int *p, int j, int n)
{
    j = j < 0 ? 0 : (j >= n ? n - 1 : j);
    return p[j];
}

__device__ __noinline__ int mix(int a, int b, int i)
{
    return (a * 3 + b) ^ i;
}

extern "C" __global__ void devfunc(const int *in, const int *idx, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int j = idx[i];
    int m = mix(fetch(in, j, n), fetch(in, i, n), i);
    out[i] = m + in[i];
}
