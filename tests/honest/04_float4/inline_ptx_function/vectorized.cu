// Lab 04, variant: inline PTX for the 128-bit copy, __ldcg/__stwt for the points, alignas,
// std::function launches, cudaLaunchKernel with an argument array, the occupancy API.
#include "vectorized.h"

#include <algorithm>
#include <functional>
#include <stdint.h>

// ---- 4.1 --------------------------------------------------------------------------------
__device__ __forceinline__ float4 load_nc_v4(const float4 *p)
{
    float4 v;
    asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p));
    return v;
}

__device__ __forceinline__ void store_v4(float4 *p, float4 v)
{
    asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(v.x), "f"(v.y),
                 "f"(v.z), "f"(v.w)
                 : "memory");
}

__global__ void copyVector4(float *__restrict__ out, const float *__restrict__ in, size_t n,
                            size_t head, size_t nvec)
{
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t step = (size_t)gridDim.x * blockDim.x;
    const float4 *src = reinterpret_cast<const float4 *>(in + head);
    float4 *dst = reinterpret_cast<float4 *>(out + head);
    for (size_t j = tid; j < nvec; j += step)
        store_v4(dst + j, load_nc_v4(src + j));
    for (size_t k = tid; k < head; k += step)
        out[k] = in[k];
    for (size_t k = head + 4 * nvec + tid; k < n; k += step)
        out[k] = in[k];
}

void launch_copy_vec4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const size_t mis_in = (uintptr_t)d_in / 4 % 4, mis_out = (uintptr_t)d_out / 4 % 4;
    size_t head = n, nvec = 0;
    if (mis_in == mis_out) {
        head = std::min<size_t>((4 - mis_in) & 3, n);
        nvec = (n - head) >> 2;
    }
    int min_grid = 0, block = 0;
    CML_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, copyVector4));
    block = std::max(block, 32);
    const size_t work = std::max<size_t>(std::max(nvec, head), 3);
    unsigned grid = (unsigned)std::min<size_t>((work + block - 1) / block, (size_t)min_grid * 8);
    grid = std::max(grid, 1u);
    void *args[] = {&d_out, (void *)&d_in, &n, &head, &nvec};
    CML_CHECK(cudaLaunchKernel(reinterpret_cast<const void *>(&copyVector4), dim3(grid),
                               dim3(block), args, 0, stream));
    CML_CHECK_LAUNCH();
}

// ---- 4.2a and 4.2b ------------------------------------------------------------------------
namespace {
using Launch = std::function<void(unsigned grid, unsigned block)>;

void run_1d(size_t n, const Launch &launch)
{
    constexpr unsigned kBlock = 256;
    const size_t blocks = std::clamp<size_t>((n + kBlock - 1) / kBlock, 1, 1u << 20);
    launch((unsigned)blocks, kBlock);
    CML_CHECK_LAUNCH();
}
} // namespace

__global__ void transformFloat3(float3 *__restrict__ out, const float3 *__restrict__ in,
                                size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float3 p = in[i];
        p.x = fmaf(2.0f, p.x, POINT_DX);
        p.y = fmaf(2.0f, p.y, POINT_DY);
        p.z = fmaf(2.0f, p.z, POINT_DZ);
        out[i] = p;
    }
}

void launch_transform_float3(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    auto *o = reinterpret_cast<float3 *>(d_out);
    auto *i = reinterpret_cast<const float3 *>(d_in);
    run_1d(n, [=](unsigned g, unsigned b) { transformFloat3<<<g, b, 0, stream>>>(o, i, n); });
}

struct alignas(16) Point4 {
    float x, y, z, w;
};
static_assert(alignof(Point4) == 16, "one 128-bit access per point");

__global__ void transformPoint4(Point4 *__restrict__ out, const Point4 *__restrict__ in,
                                size_t n)
{
    const float4 *src = reinterpret_cast<const float4 *>(in);
    float4 *dst = reinterpret_cast<float4 *>(out);
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float4 v = __ldcg(src + i);
        v.x = 2.0f * v.x + POINT_DX;
        v.y = 2.0f * v.y + POINT_DY;
        v.z = 2.0f * v.z + POINT_DZ;
        __stwt(dst + i, v);
    }
}

void launch_transform_point4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    auto *o = reinterpret_cast<Point4 *>(d_out);
    auto *i = reinterpret_cast<const Point4 *>(d_in);
    run_1d(n, [=](unsigned g, unsigned b) { transformPoint4<<<g, b, 0, stream>>>(o, i, n); });
}
