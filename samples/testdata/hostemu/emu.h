// Host emulation shim: runs CUDA kernels with one std::thread per CUDA thread, one block at a time.
// Not CUDA: a test aid. Sequential blocks, std::barrier for __syncthreads, per-warp
// barriers for __shfl_down_sync, a mutex for atomicAdd, exact-float texture filtering.
// Used by run.sh to check the sample kernels against plain CPU references without a GPU.
#pragma once
#include <thread>
#include <barrier>
#include <vector>
#include <mutex>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <memory>
#define __global__
#define __device__
#define __constant__
#define __shared__ static
struct dim3 { unsigned x, y, z; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
struct uint3_ { unsigned x, y, z; };
inline thread_local uint3_ threadIdx;
inline uint3_ blockIdx;
inline dim3 blockDim, gridDim;
inline std::barrier<> *g_bar;
inline std::barrier<> *g_wbar[32];
inline float g_shfl[32][32];
inline thread_local int t_lin;
inline void __syncthreads() { g_bar->arrive_and_wait(); }
inline float __shfl_down_sync(unsigned, float v, int off) {
    int w = t_lin / 32, l = t_lin % 32;
    g_shfl[w][l] = v; g_wbar[w]->arrive_and_wait();
    float r = l + off < 32 ? g_shfl[w][l + off] : v; g_wbar[w]->arrive_and_wait();
    return r;
}
inline std::mutex g_atomic;
inline float atomicAdd(float *p, float v) { std::lock_guard<std::mutex> g(g_atomic); float o = *p; *p += v; return o; }
using std::min; using std::max;
struct float2 { float x, y; };
struct float3 { float x, y, z; };
struct float4 { float x, y, z, w; };
inline float3 make_float3(float a, float b, float c) { return {a, b, c}; }
inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
inline float __saturatef(float x) { return x < 0 ? 0 : x > 1 ? 1 : x; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
typedef unsigned long long cudaTextureObject_t;
struct Tex { int w, h, d; std::vector<float> f; std::vector<float4> f4; };
inline float fetch3(const Tex *t, int x, int y, int z) {
    x = std::clamp(x, 0, t->w - 1); y = std::clamp(y, 0, t->h - 1); z = std::clamp(z, 0, t->d - 1);
    return t->f[(z * t->h + y) * t->w + x];
}
template <class T> T tex3D(cudaTextureObject_t o, float x, float y, float z);
template <> inline float tex3D<float>(cudaTextureObject_t o, float x, float y, float z) {
    const Tex *t = (const Tex *)o;
    x = x * t->w - 0.5f; y = y * t->h - 0.5f; z = z * t->d - 0.5f;
    int i = (int)std::floor(x), j = (int)std::floor(y), k = (int)std::floor(z);
    float a = x - i, b = y - j, c = z - k;
    float r = 0;
    for (int dz = 0; dz < 2; dz++) for (int dy = 0; dy < 2; dy++) for (int dx = 0; dx < 2; dx++)
        r += (dx ? a : 1 - a) * (dy ? b : 1 - b) * (dz ? c : 1 - c) * fetch3(t, i + dx, j + dy, k + dz);
    return r;
}
template <class T> T tex1D(cudaTextureObject_t o, float x);
template <> inline float4 tex1D<float4>(cudaTextureObject_t o, float x) {
    const Tex *t = (const Tex *)o;
    x = x * t->w - 0.5f; int i = (int)std::floor(x); float a = x - i;
    auto g = [&](int k) { return t->f4[std::clamp(k, 0, t->w - 1)]; };
    float4 p = g(i), q = g(i + 1);
    return {p.x + a * (q.x - p.x), p.y + a * (q.y - p.y), p.z + a * (q.z - p.z), p.w + a * (q.w - p.w)};
}
template <class F, class... A> void launch(dim3 grid, dim3 block, F f, A... args) {
    gridDim = grid; blockDim = block;
    int nt = block.x * block.y * block.z;
    for (unsigned bz = 0; bz < grid.z; bz++) for (unsigned by = 0; by < grid.y; by++) for (unsigned bx = 0; bx < grid.x; bx++) {
        blockIdx = {bx, by, bz};
        std::barrier<> bar(nt); g_bar = &bar;
        std::vector<std::unique_ptr<std::barrier<>>> wb;
        for (int w = 0; w < (nt + 31) / 32; w++) { wb.emplace_back(new std::barrier<>(std::min(32, nt - 32 * w))); g_wbar[w] = wb.back().get(); }
        std::vector<std::thread> ts;
        for (int t = 0; t < nt; t++) ts.emplace_back([&, t] {
            threadIdx = {t % block.x, (t / block.x) % block.y, t / (block.x * block.y)}; t_lin = t;
            f(args...);
            g_bar->arrive_and_drop(); g_wbar[t / 32]->arrive_and_drop();
        });
        for (auto &th : ts) th.join();
    }
}
inline float frand(unsigned &s) { s = s * 1664525u + 1013904223u; return (s >> 8) / 16777216.0f; }
#define CHECK(c) do { if (!(c)) { printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); exit(1); } } while (0)
