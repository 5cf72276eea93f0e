/* Lab 04, 16-byte vector access. Variant: when in and out are misaligned by different amounts,
 * instead of the accepted all-scalar fallback this file uses the faster one that section 3 of the
 * note describes: out is aligned by its head, in is read as aligned float4s, and each output
 * float4 is rebuilt in registers from two neighbouring input vectors (a funnel shift by d
 * floats). Input vectors that stick out of in[0..n) are read float by float, inside the buffer
 * only. Point4 gets its alignment from standard C++ `alignas(16)`. */
#include "vectorized.h"

#include <algorithm>
#include <stdint.h>

// ---- 4.1 --------------------------------------------------------------------------------

// copyVector4: out[head + 4j .. +3] = in[head + 4j .. +3] as float4 for j < nvec (both 16-byte
// aligned there), then the head [0, head) and the tail [head + 4*nvec, n) as floats.
__global__ void copyVector4(float *__restrict__ out, const float *__restrict__ in, size_t n,
                            size_t head, size_t nvec)
{
    const size_t T = (size_t)gridDim.x * blockDim.x, g = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const float4 *in4 = reinterpret_cast<const float4 *>(in + head);
    float4 *out4 = reinterpret_cast<float4 *>(out + head);
    for (size_t j = g; j < nvec; j += T)
        out4[j] = in4[j];
    for (size_t i = g; i < head; i += T)
        out[i] = in[i];
    for (size_t i = head + 4 * nvec + g; i < n; i += T)
        out[i] = in[i];
}

// Input vector v of the shifted view: floats in[base + 4v .. base + 4v + 3], base = head - d
// (may be negative: the first vector can start before in[0]). Whole and inside in[0..n): one
// aligned float4 load; otherwise float by float, only the floats inside in[0..n) (the others are
// never used: the output floats come from inside the buffer).
__device__ __forceinline__ float4 shifted_vector(const float *__restrict__ in, long long n,
                                                 long long base, long long v)
{
    const long long first = base + 4 * v;
    if (first >= 0 && first + 3 < n)
        return *reinterpret_cast<const float4 *>(in + first); // in + first is 16-byte aligned
    float f[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int k = 0; k < 4; k++)
        if (first + k >= 0 && first + k < n)
            f[k] = in[first + k];
    return make_float4(f[0], f[1], f[2], f[3]);
}

// copyVector4Shifted: out + head is 16-byte aligned, in + head is d floats (1..3) past a
// boundary. Output vector j = floats head + 4j .. +3 = shifted floats 4j + d .. 4j + d + 3:
// the last 4 - d of input vector j, then the first d of vector j + 1.
__global__ void copyVector4Shifted(float *__restrict__ out, const float *__restrict__ in, size_t n,
                                   size_t head, size_t nvec, int d)
{
    const size_t T = (size_t)gridDim.x * blockDim.x, g = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const long long base = (long long)head - d;
    float4 *out4 = reinterpret_cast<float4 *>(out + head);
    for (size_t j = g; j < nvec; j += T) {
        const float4 a = shifted_vector(in, (long long)n, base, (long long)j);
        const float4 b = shifted_vector(in, (long long)n, base, (long long)j + 1);
        float4 r;
        if (d == 1)
            r = make_float4(a.y, a.z, a.w, b.x);
        else if (d == 2)
            r = make_float4(a.z, a.w, b.x, b.y);
        else
            r = make_float4(a.w, b.x, b.y, b.z);
        out4[j] = r;
    }
    for (size_t i = g; i < head; i += T)
        out[i] = in[i];
    for (size_t i = head + 4 * nvec + g; i < n; i += T)
        out[i] = in[i];
}

void launch_copy_vec4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const size_t in_mis = (uintptr_t)d_in / 4 % 4, out_mis = (uintptr_t)d_out / 4 % 4;
    // head aligns out; it aligns in too exactly when the two are misaligned alike
    const size_t head = std::min<size_t>((4 - out_mis) % 4, n);
    const size_t nvec = (n - head) / 4;
    const int d = (int)((in_mis + head) % 4); // how far in + head is past a boundary
    const unsigned threads = 256;
    const unsigned blocks = (unsigned)std::max<size_t>(
        1, std::min<size_t>((nvec + threads - 1) / threads, (size_t)cml_sm_count() * 16));
    if (d == 0)
        copyVector4<<<blocks, threads, 0, stream>>>(d_out, d_in, n, head, nvec);
    else
        copyVector4Shifted<<<blocks, threads, 0, stream>>>(d_out, d_in, n, head, nvec, d);
    CML_CHECK_LAUNCH();
}

// ---- 4.2a and 4.2b ------------------------------------------------------------------------

__global__ void transformFloat3(float3 *__restrict__ out, const float3 *__restrict__ in,
                                size_t n)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += T) {
        const float3 p = in[i];
        out[i] = make_float3(2.0f * p.x + POINT_DX, 2.0f * p.y + POINT_DY, 2.0f * p.z + POINT_DZ);
    }
}

void launch_transform_float3(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const unsigned threads = 256;
    const unsigned blocks = (unsigned)std::max<size_t>(
        1, std::min<size_t>((n + threads - 1) / threads, (size_t)cml_sm_count() * 16));
    transformFloat3<<<blocks, threads, 0, stream>>>(reinterpret_cast<float3 *>(d_out),
                                                    reinterpret_cast<const float3 *>(d_in), n);
    CML_CHECK_LAUNCH();
}

// A point padded to 16 bytes, aligned to 16 with the standard specifier (same effect as
// __align__(16)): one 128-bit load and one 128-bit store per point.
struct alignas(16) Point4 {
    float x, y, z, w;
};
static_assert(sizeof(Point4) == 16 && alignof(Point4) == 16, "Point4 must be one 16-byte vector");

__global__ void transformPoint4(Point4 *__restrict__ out, const Point4 *__restrict__ in,
                                size_t n)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += T) {
        const Point4 p = in[i];
        out[i] = Point4{2.0f * p.x + POINT_DX, 2.0f * p.y + POINT_DY, 2.0f * p.z + POINT_DZ, p.w};
    }
}

void launch_transform_point4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const unsigned threads = 256;
    const unsigned blocks = (unsigned)std::max<size_t>(
        1, std::min<size_t>((n + threads - 1) / threads, (size_t)cml_sm_count() * 16));
    transformPoint4<<<blocks, threads, 0, stream>>>(reinterpret_cast<Point4 *>(d_out),
                                                    reinterpret_cast<const Point4 *>(d_in), n);
    CML_CHECK_LAUNCH();
}
