// refcheck: runs one sample kernel (host loop included) on the hostemu CUDA emulation
// (../hostemu/emu.h) with inputs read from files, and writes its outputs to files, so
// that samples/ref's Go tests can compare the CUDA sources with the Go references.
//
// Usage: refcheck <kernel> <dir> [scalar args...]
// Buffers are raw little-endian files <dir>/<name>.bin (float32, int32 or uint8);
// outputs are written as <dir>/out_<name>.bin. See refcheck_test.go in samples/ref
// for the argument lists. Not CUDA: a test aid only.
#include "../hostemu/emu.h"
#include <cstring>
#include <string>

// Optional CUDA-hardware-like texture filtering for volrender: the fractional
// filter weight is quantized to 8 fractional bits (9-bit fixed point), as the CUDA
// programming guide describes for cudaFilterModeLinear. 0: exact (emu.h's
// filtering), 1: round to nearest 1/256, 2: truncate to 1/256.
static int g_quant = 0;
static float qw(float a) {
    if (g_quant == 1) return std::nearbyint(a * 256.0f) / 256.0f;
    if (g_quant == 2) return std::floor(a * 256.0f) / 256.0f;
    return a;
}
template <class T> T tex3Dq(cudaTextureObject_t o, float x, float y, float z);
template <> float tex3Dq<float>(cudaTextureObject_t o, float x, float y, float z) {
    if (g_quant == 0) return tex3D<float>(o, x, y, z);
    const Tex *t = (const Tex *)o;
    x = x * t->w - 0.5f; y = y * t->h - 0.5f; z = z * t->d - 0.5f;
    int i = (int)std::floor(x), j = (int)std::floor(y), k = (int)std::floor(z);
    float a = qw(x - i), b = qw(y - j), c = qw(z - k);
    float r = 0;
    for (int dz = 0; dz < 2; dz++) for (int dy = 0; dy < 2; dy++) for (int dx = 0; dx < 2; dx++)
        r += (dx ? a : 1 - a) * (dy ? b : 1 - b) * (dz ? c : 1 - c) * fetch3(t, i + dx, j + dy, k + dz);
    return r;
}
template <class T> T tex1Dq(cudaTextureObject_t o, float x);
template <> float4 tex1Dq<float4>(cudaTextureObject_t o, float x) {
    if (g_quant == 0) return tex1D<float4>(o, x);
    const Tex *t = (const Tex *)o;
    x = x * t->w - 0.5f; int i = (int)std::floor(x); float a = qw(x - i);
    auto g = [&](int k) { return t->f4[std::clamp(k, 0, t->w - 1)]; };
    float4 p = g(i), q = g(i + 1);
    return {p.x + a * (q.x - p.x), p.y + a * (q.y - p.y), p.z + a * (q.z - p.z), p.w + a * (q.w - p.w)};
}

#include "../../vecadd/vecadd.cu"
#include "../../matmul/matmul.cu"
#include "../../reduce/reduce.cu"
#include "../../nn/nn.cu"
#include "../../bfs/bfs.cu"
#include "../../hotspot/hotspot.cu"
#undef BLOCK
#undef HALO_W
#include "../../pathfinder/pathfinder.cu"
#undef BLOCK
#include "../../lud/lud.cu"
#undef BLOCK
#include "../../gaussian/gaussian.cu"
#define tex3D tex3Dq
#define tex1D tex1Dq
#include "../../volrender/volrender.cu"
#undef tex3D
#undef tex1D

static std::string g_dir;

template <class T> static std::vector<T> rd(const char *name) {
    std::string p = g_dir + "/" + name + ".bin";
    FILE *f = fopen(p.c_str(), "rb");
    if (!f) { fprintf(stderr, "cannot open %s\n", p.c_str()); exit(2); }
    std::vector<T> v;
    T x;
    while (fread(&x, sizeof x, 1, f) == 1) v.push_back(x);
    fclose(f);
    return v;
}

template <class T> static void wr(const char *name, const std::vector<T> &v) {
    std::string p = g_dir + "/out_" + name + ".bin";
    FILE *f = fopen(p.c_str(), "wb");
    if (!f || fwrite(v.data(), sizeof(T), v.size(), f) != v.size()) { fprintf(stderr, "cannot write %s\n", p.c_str()); exit(2); }
    fclose(f);
}

static unsigned cdiv(int a, int b) { return (unsigned)((a + b - 1) / b); }

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: refcheck kernel dir args...\n"); return 2; }
    std::string k = argv[1];
    g_dir = argv[2];
    auto I = [&](int i) { if (i + 3 >= argc) { fprintf(stderr, "missing argument %d\n", i); exit(2); } return atoi(argv[i + 3]); };
    auto F = [&](int i) { if (i + 3 >= argc) { fprintf(stderr, "missing argument %d\n", i); exit(2); } return (float)atof(argv[i + 3]); };
    if (k == "vecadd") { // n
        int n = I(0); auto a = rd<float>("a"), b = rd<float>("b"); std::vector<float> c(n);
        launch(dim3(cdiv(n, 256)), dim3(256), vecadd, (const float *)a.data(), (const float *)b.data(), c.data(), n);
        wr("c", c);
    } else if (k == "matmul") { // M N K
        int M = I(0), N = I(1), K = I(2); auto A = rd<float>("A"), B = rd<float>("B"); std::vector<float> C(M * N);
        launch(dim3(cdiv(N, 16), cdiv(M, 16)), dim3(16, 16), matmul, (const float *)A.data(), (const float *)B.data(), C.data(), M, N, K);
        wr("C", C);
    } else if (k == "reduce") { // n grid block final_block
        int n = I(0), G = I(1); auto in = rd<float>("in"); std::vector<float> partials(G), out(1);
        launch(dim3(G), dim3(I(2)), reduce_partial, (const float *)in.data(), partials.data(), n);
        launch(dim3(1), dim3(I(3)), reduce_final, (const float *)partials.data(), out.data(), G);
        wr("partials", partials); wr("out", out);
    } else if (k == "nn") { // n lat lng
        int n = I(0); auto loc = rd<float2>("locations"); std::vector<float> d(n);
        launch(dim3(cdiv(n, 256)), dim3(256), nn_distance, (const float2 *)loc.data(), d.data(), n, F(1), F(2));
        wr("distances", d);
    } else if (k == "pathfinder") { // rows cols
        int R = I(0), C = I(1); auto W = rd<int>("wall");
        std::vector<int> prev(W.begin(), W.begin() + C), dst(C);
        for (int r = 1; r < R; r++) {
            launch(dim3(cdiv(C, 256)), dim3(256), pathfinder_step, (const int *)&W[r * C], (const int *)prev.data(), dst.data(), C);
            std::swap(prev, dst);
        }
        wr("result", prev);
    } else if (k == "bfs") { // n src
        int n = I(0), src = I(1); auto ro = rd<int>("row_offsets"), ci = rd<int>("col_indices");
        std::vector<int> fr(n), nx(n), vis(n), cost(n, -1);
        fr[src] = vis[src] = 1; cost[src] = 0;
        int changed, iters = 0;
        do {
            changed = 0;
            launch(dim3(cdiv(n, 128)), dim3(128), bfs_expand, (const int *)ro.data(), (const int *)ci.data(), fr.data(), nx.data(), (const int *)vis.data(), cost.data(), n);
            launch(dim3(cdiv(n, 128)), dim3(128), bfs_update, fr.data(), nx.data(), vis.data(), &changed, n);
            iters++;
        } while (changed);
        wr("cost", cost); wr("visited", vis); wr("frontier", fr); wr("next", nx);
        wr("iters", std::vector<int>{iters});
    } else if (k == "hotspot") { // rows cols steps cx cy cz sdc amb
        int R = I(0), C = I(1), steps = I(2); auto P = rd<float>("power"), T = rd<float>("temp");
        std::vector<float> O(R * C);
        for (int s = 0; s < steps; s++) {
            launch(dim3(cdiv(C, 16), cdiv(R, 16)), dim3(16, 16), hotspot_step, (const float *)P.data(), (const float *)T.data(), O.data(), R, C, F(3), F(4), F(5), F(6), F(7));
            std::swap(T, O);
        }
        wr("temp", T);
    } else if (k == "lud") { // n
        int n = I(0); auto a = rd<float>("a");
        for (int off = 0; off < n - 16; off += 16) {
            launch(dim3(1), dim3(16), lud_diagonal, a.data(), n, off);
            launch(dim3((n - off) / 16 - 1), dim3(32), lud_perimeter, a.data(), n, off);
            launch(dim3((n - off) / 16 - 1, (n - off) / 16 - 1), dim3(16, 16), lud_internal, a.data(), n, off);
        }
        launch(dim3(1), dim3(16), lud_diagonal, a.data(), n, n - 16);
        wr("a", a);
    } else if (k == "gaussian") { // n
        int n = I(0); auto a = rd<float>("a"), b = rd<float>("b"); std::vector<float> m(n * n, 0.0f);
        for (int t = 0; t < n - 1; t++) {
            launch(dim3(cdiv(n - 1 - t, 8)), dim3(8), gaussian_fan1, m.data(), (const float *)a.data(), n, t);
            launch(dim3(cdiv(n - 1 - t, 4), cdiv(n - t, 4)), dim3(4, 4), gaussian_fan2, (const float *)m.data(), a.data(), b.data(), n, t);
        }
        wr("a", a); wr("b", b); wr("m", m);
    } else if (k == "volrender") { // W H density brightness offset scale quant volN bx by
        int W = I(0), H = I(1), N = I(7); g_quant = I(6);
        auto raw = rd<uint8_t>("volume"); auto tf = rd<float4>("transfer"); auto mat = rd<float>("view");
        if ((int)raw.size() != N * N * N || mat.size() != 12) { fprintf(stderr, "bad volume/view size\n"); return 2; }
        Tex vol{N, N, N}; vol.f.resize(raw.size());
        for (size_t i = 0; i < raw.size(); i++) vol.f[i] = raw[i] / 255.0f;
        Tex tft{(int)tf.size(), 1, 1}; tft.f4 = tf;
        memcpy(c_invViewMatrix, mat.data(), sizeof c_invViewMatrix);
        std::vector<uint32_t> img(W * H, 0xdeadbeef);
        int bx = I(8), by = I(9);
        launch(dim3(cdiv(W, bx), cdiv(H, by)), dim3(bx, by), d_render, img.data(), (uint32_t)W, (uint32_t)H, F(2), F(3), F(4), F(5), (cudaTextureObject_t)&vol, (cudaTextureObject_t)&tft);
        wr("image", img);
    } else { fprintf(stderr, "unknown kernel %s\n", k.c_str()); return 2; }
    return 0;
}
