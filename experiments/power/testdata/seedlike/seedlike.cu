// Seed-like workloads for the power-gating experiment (seed 000 §4): small
// kernels with the character of the seed's ISPASS-2009 benchmarks that the
// samples do not cover. Written for ptxtrace; each has a Go reference in
// experiments/power/seedlike_test.go. Regenerate the PTX with
//   nvcc -ccbin clang-14 -arch=sm_52 -ptx -o seedlike.sm_52.ptx seedlike.cu

// cp: Coulomb potential on a 2D slice of a 3D grid (CP, cuenergy):
// compute-bound, every thread loops over all atoms (x, y, z, q) with a
// reciprocal square root; no branches besides the loop.
extern "C" __global__ void cp(const float4 *atoms, int natoms, float spacing, float z, float *energy, int nx)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    float px = x * spacing, py = y * spacing;
    float e = 0.0f;
    for (int i = 0; i < natoms; i++) {
        float4 a = atoms[i];
        float dx = px - a.x, dy = py - a.y, dz = z - a.z;
        e += a.w * rsqrtf(dx * dx + dy * dy + dz * dz);
    }
    energy[y * nx + x] = e;
}

// lps: one Jacobi sweep of the 3D Laplace equation (LPS): each thread owns
// a column (x, y) and walks z; boundary points copy through.
extern "C" __global__ void lps(const float *u, float *v, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny)
        return;
    int plane = nx * ny;
    bool edge = x == 0 || y == 0 || x == nx - 1 || y == ny - 1;
    for (int k = 0; k < nz; k++) {
        int i = k * plane + y * nx + x;
        if (edge || k == 0 || k == nz - 1) {
            v[i] = u[i];
        } else {
            v[i] = (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] + u[i - plane] + u[i + plane]) * (1.0f / 6.0f);
        }
    }
}

#define LIB_N 24
// lib: LIBOR market model Monte Carlo (LIB): each thread simulates one
// path of LIB_N forward rates over nmat steps from its normal draws, with
// the rates in a per-thread (local-memory) array, and prices a portfolio
// of swaptions on it. Few CTAs.
extern "C" __global__ void lib(const float *z, const float *lambda, float *value, int npath, int nmat, float delta)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npath)
        return;
    float L[LIB_N];
    for (int i = 0; i < LIB_N; i++)
        L[i] = 0.05f;
    for (int n = 0; n < nmat; n++) {
        float sqez = sqrtf(delta) * z[n * npath + p];
        float v = 0.0f;
        for (int i = n + 1; i < LIB_N; i++) {
            float lam = lambda[i - n - 1];
            float con1 = delta * lam;
            v += con1 * L[i] / (1.0f + delta * L[i]);
            float vrat = __expf(con1 * v + lam * (sqez - 0.5f * con1));
            L[i] = L[i] * vrat;
        }
    }
    float b = 1.0f, s = 0.0f, swapval = 0.0f;
    for (int n = nmat; n < LIB_N; n++) {
        b = b / (1.0f + delta * L[n]);
        s = s + delta * b;
        swapval += b * (L[n] - 0.05f) * delta;
    }
    value[p] = fmaxf(swapval, 0.0f) + 0.01f * s;
}

// mum: branchy string matching (MUM-like): each thread aligns one query of
// qlen bases against a window of the reference starting at its seed
// position and reports the longest exact match (length, offset). The
// inner loop's trip count depends on the data: warps diverge.
extern "C" __global__ void mum(const unsigned char *ref, int reflen, const unsigned char *queries, int qlen,
                               const int *seeds, int nq, int window, int *best)
{
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= nq)
        return;
    const unsigned char *s = queries + q * qlen;
    int start = seeds[q];
    int bestLen = 0, bestOff = -1;
    for (int o = 0; o < window && start + o < reflen; o++) {
        int r = start + o;
        if (ref[r] != s[0])
            continue;
        int l = 1;
        while (l < qlen && r + l < reflen && ref[r + l] == s[l])
            l++;
        if (l > bestLen) {
            bestLen = l;
            bestOff = o;
        }
    }
    best[2 * q] = bestLen;
    best[2 * q + 1] = bestOff;
}

// wp: a column-physics kernel (WP-like, weather prediction microphysics):
// few CTAs of many threads, each thread a long chain of arithmetic on its
// own column with no shared data, so it needs every SM's issue slots.
extern "C" __global__ void wp(const float *t, const float *q, float *out, int n, int levels)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float tk = t[i], qk = q[i], acc = 0.0f;
    for (int k = 0; k < levels; k++) {
        float es = 6.112f * __expf(17.67f * (tk - 273.15f) / (tk - 29.65f));
        float qs = 0.622f * es / (1000.0f - es);
        float d = (qk - qs) * 0.5f;
        qk = qk - d;
        tk = tk + 2.5f * d;
        acc = acc * 0.99f + qk * tk * 1e-3f;
    }
    out[i] = acc;
}
