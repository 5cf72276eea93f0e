/* Lab 04, 16-byte vector access: kernels in an anonymous namespace, the grid sized from the
 * device's properties, read once into a function-local static cudaDeviceProp. */
#include "vectorized.h"

#include <algorithm>
#include <cassert>
#include <stdint.h>

namespace {

// copyVector4: each round a thread moves two float4s (both loaded before either is stored),
// then the scalar head and tail.
__global__ void copyVector4(float *__restrict__ out, const float *__restrict__ in, size_t n,
                            size_t head, size_t nvec)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    const size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    auto src = reinterpret_cast<const float4 *>(in + head);
    auto dst = reinterpret_cast<float4 *>(out + head);
    size_t j = g;
#pragma unroll 1
    for (; j + T < nvec; j += 2 * T) {
        const float4 a = src[j];
        const float4 b = src[j + T];
        dst[j] = a;
        dst[j + T] = b;
    }
    if (j < nvec)
        dst[j] = src[j];
    for (size_t i = g; i < head; i += T)
        out[i] = in[i];
    for (size_t i = head + 4 * nvec + g; i < n; i += T)
        out[i] = in[i];
}

__global__ void transformFloat3(float3 *__restrict__ out, const float3 *__restrict__ in,
                                size_t n)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += T) {
        float3 p = in[i];
        p.x = 2.0f * p.x + POINT_DX;
        p.y = 2.0f * p.y + POINT_DY;
        p.z = 2.0f * p.z + POINT_DZ;
        out[i] = p;
    }
}

// the GPU's properties, asked once per process
const cudaDeviceProp &device_props()
{
    static const cudaDeviceProp prop = [] {
        int dev = 0;
        CML_CHECK(cudaGetDevice(&dev));
        cudaDeviceProp p{};
        CML_CHECK(cudaGetDeviceProperties(&p, dev));
        return p;
    }();
    return prop;
}

// grid_for: enough blocks of `threads` to fill every SM, fewer when there is little work.
unsigned grid_for(size_t work, unsigned threads)
{
    const cudaDeviceProp &p = device_props();
    assert(p.multiProcessorCount > 0);
    const size_t fill = (size_t)p.multiProcessorCount * (p.maxThreadsPerMultiProcessor / threads);
    return (unsigned)std::max<size_t>(1, std::min((work + threads - 1) / threads, fill));
}

} // namespace

void launch_copy_vec4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const uintptr_t skew_in = (uintptr_t)d_in / 4 % 4, skew_out = (uintptr_t)d_out / 4 % 4;
    const bool same = skew_in == skew_out;
    const size_t head = same ? std::min<size_t>((4 - skew_in) & 3, n) : n;
    const size_t nvec = same ? (n - head) / 4 : 0;
    copyVector4<<<grid_for(std::max(nvec / 2, head), 256), 256, 0, stream>>>(d_out, d_in, n, head,
                                                                         nvec);
    CML_CHECK_LAUNCH();
}

void launch_transform_float3(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    transformFloat3<<<grid_for(n, 256), 256, 0, stream>>>(reinterpret_cast<float3 *>(d_out),
                                                         reinterpret_cast<const float3 *>(d_in), n);
    CML_CHECK_LAUNCH();
}

struct __align__(16) Point4 {
    float x, y, z, w;
};

namespace {
__global__ void transformPoint4(Point4 *__restrict__ out, const Point4 *__restrict__ in,
                                size_t n)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += T) {
        const Point4 p = in[i];
        out[i] = {2.0f * p.x + POINT_DX, 2.0f * p.y + POINT_DY, 2.0f * p.z + POINT_DZ, p.w};
    }
}
} // namespace

void launch_transform_point4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    transformPoint4<<<grid_for(n, 256), 256, 0, stream>>>(reinterpret_cast<Point4 *>(d_out),
                                                         reinterpret_cast<const Point4 *>(d_in), n);
    CML_CHECK_LAUNCH();
}
