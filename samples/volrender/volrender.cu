// volrender: volume ray casting through a 3D texture with a 1D transfer function (RGBA8 image).
//
// Workload of seed 003 (Kanda et al.): texture-bound volume rendering whose
// performance depends on the view point and on the thread-block shape.
//
// Kernel d_render: one thread per output pixel.
//   Launch: block (bx, by) with bx*by = 128 in the paper's experiments
//           (1x128, 2x64, 4x32, 8x16, 16x8, 32x4, 64x2, 128x1; 16x16 also works),
//           grid (ceil(imageW/bx), ceil(imageH/by)). No shared memory.
//
// Inputs
//   c_invViewMatrix  __constant__ float[12]: the inverse view matrix, 3 rows x 4
//                    columns, row-major (rotation in columns 0..2, translation
//                    in column 3). It maps eye space to volume (object) space.
//   volume           cudaTextureObject_t over a 3D array of float densities
//                    (e.g. unsigned char data read with cudaReadModeNormalizedFloat,
//                    or a float array), normalizedCoords = 1,
//                    filterMode = cudaFilterModeLinear (trilinear),
//                    addressMode = clamp on all three axes.
//   transfer         cudaTextureObject_t over a 1D float4 array (RGBA transfer
//                    function), normalizedCoords = 1, cudaFilterModeLinear,
//                    addressMode = clamp.
//   imageW, imageH   output size in pixels.
//   density          multiplies each sample's opacity.
//   brightness       multiplies all four accumulated channels before packing.
//   transferOffset, transferScale
//                    the transfer function is looked up at
//                    (sample - transferOffset) * transferScale.
// Output
//   d_output         uint32 per pixel, row-major, imageW*imageH entries, RGBA8
//                    packed as r | g<<8 | b<<16 | a<<24 (channels clamped to [0,1]
//                    and scaled by 255, truncated).
//
// Geometry: the volume occupies the axis-aligned box [-1,1]^3 in object space
// (a box of half-extent 1 centred on the origin). The eye is the inverse view
// matrix applied to the origin; the ray for pixel (x, y) goes through
// (u, v, -2) in eye space with u = 2x/imageW - 1, v = 2y/imageH - 1.
// A sample at object position p reads the volume at p*0.5 + 0.5.
// Compositing is front to back with early ray termination once the
// accumulated opacity exceeds 0.95. At most MAX_STEPS = 500 samples are taken
// along each ray, STEP = 0.01 apart (in object-space units).
// Pixels whose ray misses the box are written as 0 (transparent black), so
// every pixel of d_output is defined by the inputs alone.

#include <stdint.h>

#define MAX_STEPS 500
#define STEP 0.01f
#define OPACITY_THRESHOLD 0.95f

__constant__ float c_invViewMatrix[12];

// Distances along the ray to the entry and exit of the box [-1,1]^3 (slab test).
// Returns false when the ray misses the box or the box is entirely behind the eye.
__device__ static bool hitUnitBox(float3 o, float3 d, float *tnearOut, float *tfarOut)
{
    float3 inv = make_float3(1.0f / d.x, 1.0f / d.y, 1.0f / d.z);
    float ax = (-1.0f - o.x) * inv.x, bx = (1.0f - o.x) * inv.x;
    float ay = (-1.0f - o.y) * inv.y, by = (1.0f - o.y) * inv.y;
    float az = (-1.0f - o.z) * inv.z, bz = (1.0f - o.z) * inv.z;
    float tnear = fmaxf(fmaxf(fminf(ax, bx), fminf(ay, by)), fminf(az, bz));
    float tfar = fminf(fminf(fmaxf(ax, bx), fmaxf(ay, by)), fmaxf(az, bz));
    *tnearOut = tnear;
    *tfarOut = tfar;
    return tfar > tnear && tfar > 0.0f;
}

// Rows of c_invViewMatrix applied to a point (w = 1) or a direction (w = 0).
__device__ static float3 xformPoint(float3 p)
{
    const float *m = c_invViewMatrix;
    return make_float3(m[0] * p.x + m[1] * p.y + m[2] * p.z + m[3],
                       m[4] * p.x + m[5] * p.y + m[6] * p.z + m[7],
                       m[8] * p.x + m[9] * p.y + m[10] * p.z + m[11]);
}

__device__ static float3 xformDir(float3 v)
{
    const float *m = c_invViewMatrix;
    return make_float3(m[0] * v.x + m[1] * v.y + m[2] * v.z,
                       m[4] * v.x + m[5] * v.y + m[6] * v.z,
                       m[8] * v.x + m[9] * v.y + m[10] * v.z);
}

__device__ static uint32_t packRGBA8(float4 c)
{
    uint32_t r = (uint32_t)(__saturatef(c.x) * 255.0f);
    uint32_t g = (uint32_t)(__saturatef(c.y) * 255.0f);
    uint32_t b = (uint32_t)(__saturatef(c.z) * 255.0f);
    uint32_t a = (uint32_t)(__saturatef(c.w) * 255.0f);
    return r | (g << 8) | (b << 16) | (a << 24);
}

extern "C" __global__ void d_render(uint32_t *d_output, uint32_t imageW, uint32_t imageH,
                                    float density, float brightness,
                                    float transferOffset, float transferScale,
                                    cudaTextureObject_t volume, cudaTextureObject_t transfer)
{
    uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= imageW || y >= imageH)
        return;

    float u = 2.0f * (float)x / (float)imageW - 1.0f;
    float v = 2.0f * (float)y / (float)imageH - 1.0f;

    float3 eye = xformPoint(make_float3(0.0f, 0.0f, 0.0f));
    float3 dir = xformDir(make_float3(u, v, -2.0f));
    float len = rsqrtf(dir.x * dir.x + dir.y * dir.y + dir.z * dir.z);
    dir = make_float3(dir.x * len, dir.y * len, dir.z * len);

    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float tnear, tfar;
    if (!hitUnitBox(eye, dir, &tnear, &tfar)) {
        d_output[y * imageW + x] = 0;
        return;
    }
    if (tnear < 0.0f)
        tnear = 0.0f; // the eye is inside the box

    float t = tnear;
    for (int i = 0; i < MAX_STEPS; i++) {
        float3 p = make_float3(eye.x + dir.x * t, eye.y + dir.y * t, eye.z + dir.z * t);
        float s = tex3D<float>(volume, p.x * 0.5f + 0.5f, p.y * 0.5f + 0.5f, p.z * 0.5f + 0.5f);
        float4 c = tex1D<float4>(transfer, (s - transferOffset) * transferScale);

        // Premultiply by this sample's opacity, then blend under what is in front.
        c.w *= density;
        float w = c.w * (1.0f - acc.w);
        acc.x += c.x * w;
        acc.y += c.y * w;
        acc.z += c.z * w;
        acc.w += w;

        if (acc.w > OPACITY_THRESHOLD)
            break;
        t += STEP;
        if (t > tfar)
            break;
    }

    acc.x *= brightness;
    acc.y *= brightness;
    acc.z *= brightness;
    acc.w *= brightness;
    d_output[y * imageW + x] = packRGBA8(acc);
}
