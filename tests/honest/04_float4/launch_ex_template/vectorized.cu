// Lab 04, variant: kernels in an anonymous namespace, a template copy kernel, launches through
// cudaLaunchKernelEx with a launch configuration, a function-local table of kernel pointers.
#include "vectorized.h"

#include <algorithm>
#include <stdint.h>

namespace {

template <typename Vec>
__global__ void copyVector4(float *__restrict__ out, const float *__restrict__ in, size_t n,
                            size_t head, size_t nvec)
{
    static_assert(sizeof(Vec) == 4 * sizeof(float), "one vector is four floats");
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t step = (size_t)gridDim.x * blockDim.x;
    const Vec *src = reinterpret_cast<const Vec *>(in + head);
    Vec *dst = reinterpret_cast<Vec *>(out + head);
#pragma unroll 2
    for (size_t j = tid; j < nvec; j += step)
        dst[j] = src[j];
    if (tid < head)
        for (size_t k = tid; k < head; k += step)
            out[k] = in[k];
    for (size_t k = head + 4 * nvec + tid; k < n; k += step)
        out[k] = in[k];
}

__global__ void transformFloat3(float3 *__restrict__ out, const float3 *__restrict__ in, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const float3 p = in[i];
        out[i] = {2.0f * p.x + POINT_DX, 2.0f * p.y + POINT_DY, 2.0f * p.z + POINT_DZ};
    }
}

struct __align__(16) Point4 {
    float x, y, z, w;
};

__global__ void transformPoint4(Point4 *__restrict__ out, const Point4 *__restrict__ in, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const Point4 p = in[i];
        out[i] = {2.0f * p.x + POINT_DX, 2.0f * p.y + POINT_DY, 2.0f * p.z + POINT_DZ, p.w};
    }
}

cudaLaunchConfig_t config_for(size_t work, cudaStream_t stream)
{
    cudaLaunchConfig_t cfg{};
    cfg.blockDim = dim3(256);
    cfg.gridDim = dim3((unsigned)std::clamp<size_t>((work + 255) / 256, 1, 1u << 20));
    cfg.dynamicSmemBytes = 0;
    cfg.stream = stream;
    cfg.attrs = nullptr;
    cfg.numAttrs = 0;
    return cfg;
}

} // namespace

void launch_copy_vec4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    using Kernel = void (*)(float *, const float *, size_t, size_t, size_t);
    static const Kernel kernels[] = {copyVector4<float4>, copyVector4<int4>};
    const uintptr_t a = (uintptr_t)d_in % 16 / 4, b = (uintptr_t)d_out % 16 / 4;
    const size_t head = a == b ? std::min<size_t>((4 - a) % 4, n) : n;
    const size_t nvec = (n - head) / 4;
    const cudaLaunchConfig_t cfg = config_for(std::max<size_t>(nvec, head), stream);
    CML_CHECK(cudaLaunchKernelEx(&cfg, kernels[0], d_out, d_in, n, head, nvec));
    CML_CHECK_LAUNCH();
}

void launch_transform_float3(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const cudaLaunchConfig_t cfg = config_for(n, stream);
    CML_CHECK(cudaLaunchKernelEx(&cfg, transformFloat3, reinterpret_cast<float3 *>(d_out),
                                 reinterpret_cast<const float3 *>(d_in), n));
    CML_CHECK_LAUNCH();
}

void launch_transform_point4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const cudaLaunchConfig_t cfg = config_for(n, stream);
    CML_CHECK(cudaLaunchKernelEx(&cfg, transformPoint4, reinterpret_cast<Point4 *>(d_out),
                                 reinterpret_cast<const Point4 *>(d_in), n));
    CML_CHECK_LAUNCH();
}
