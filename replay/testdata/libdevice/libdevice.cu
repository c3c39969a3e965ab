// libdevice: calls of libdevice functions that replay evaluates itself
// (replay/libdevice.go). Compiled with clang 14 -nocudalib, so every call
// stays an undefined .extern .func __nv_*. Thread i reads element i of
// each input and writes 16 results per output array.
//
// libdevice.clang14-sm_52.ptx:
//   clang-14 --cuda-device-only -nocudalib -S -O1 --cuda-gpu-arch=sm_52 \
//     --cuda-path=/usr/lib/cuda -Wno-unknown-cuda-version libdevice.cu -o libdevice.clang14-sm_52.ptx

extern "C" __global__ void ld_int(const int *a, const int *b, const int *c,
                                  const long long *la, const long long *lb, int *oi, long long *ol, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i], y = b[i], z = c[i];
    long long p = la[i], q = lb[i];
    int *o = oi + 16 * i;
    o[0] = __popc(x);
    o[1] = __clz(x);
    o[2] = __ffs(x);
    o[3] = __brev(x);
    o[4] = __byte_perm(x, y, z);
    o[5] = __mul24(x, y);
    o[6] = __umul24(x, y);
    o[7] = __mulhi(x, y);
    o[8] = __umulhi(x, y);
    o[9] = __sad(x, y, z);
    o[10] = __usad(x, y, z);
    o[11] = min(x, y);
    o[12] = max(x, y);
    o[13] = min((unsigned)x, (unsigned)y);
    o[14] = abs(x);
    o[15] = __popcll(p) + 100 * __clzll(p) + 10000 * __ffsll(p);
    long long *r = ol + 8 * i;
    r[0] = __brevll(p);
    r[1] = llmin(p, q);
    r[2] = llmax(p, q);
    r[3] = __mul64hi(p, q);
    r[4] = __umul64hi(p, q);
    r[5] = llabs(p);
    r[6] = max((unsigned long long)p, (unsigned long long)q);
    r[7] = min((unsigned long long)p, (unsigned long long)q);
}

extern "C" __global__ void ld_float(const float *a, const float *b, const float *c,
                                    const double *da, const double *db, const double *dc, float *of, double *od, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i], y = b[i], z = c[i];
    float *o = of + 16 * i;
    o[0] = floorf(x);
    o[1] = ceilf(x);
    o[2] = truncf(x);
    o[3] = roundf(x);
    o[4] = fminf(x, y);
    o[5] = fmaxf(x, y);
    o[6] = fabsf(x);
    o[7] = fmaf(x, y, z);
    o[8] = __fsqrt_rn(x);
    o[9] = __fadd_rz(x, y);
    o[10] = __fdiv_rn(x, y);
    o[11] = copysignf(x, y);
    o[12] = __fmul_ru(x, y);
    o[13] = __fmaf_rd(x, y, z);
    o[14] = __frcp_rz(y);
    o[15] = __saturatef(x);
    double u = da[i], v = db[i], w = dc[i];
    double *d = od + 8 * i;
    d[0] = floor(u);
    d[1] = ceil(u);
    d[2] = round(u);
    d[3] = fmin(u, v);
    d[4] = fabs(u);
    d[5] = fma(u, v, w);
    d[6] = sqrt(u);
    d[7] = __dadd_rd(u, v);
}
