// vecadd: element-wise vector addition c[i] = a[i] + b[i] over n floats.
//
// Kernel vecadd: one thread per element.
//   Launch: 1D blocks of any size (256 is typical), grid ceil(n / blockDim.x).
// Inputs
//   a, b   float[n], read-only.
//   n      number of elements; threads with index >= n do nothing.
// Output
//   c      float[n], c[i] = a[i] + b[i] (exact IEEE single-precision addition).

extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
