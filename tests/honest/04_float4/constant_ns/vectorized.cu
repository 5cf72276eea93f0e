/* Lab 04, 16-byte vector access: kernels in namespace `vec`, the point offsets in __constant__
 * memory (initialised statically: nothing to copy there at run time). Commentaires: aligné, tête,
 * queue; Größe. */
#include "vectorized.h"

#include <algorithm>
#include <stdint.h>

namespace vec {

__constant__ float c_shift[3] = {POINT_DX, POINT_DY, POINT_DZ};

constexpr unsigned kThreads = 256;

// copyVector4: float4 middle with a grid-stride loop, then head and tail one float each.
__global__ void copyVector4(float *__restrict__ out, const float *__restrict__ in, size_t n,
                            size_t head, size_t nvec)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    const size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const float4 *in4 = reinterpret_cast<const float4 *>(in + head);
    float4 *out4 = reinterpret_cast<float4 *>(out + head);
    for (size_t j = g; j < nvec; j += T)
        out4[j] = __ldg(in4 + j);
    for (size_t i = g; i < head; i += T)
        out[i] = in[i];
    const size_t end_vec = head + 4 * nvec;
    if (g < n - end_vec) // n - end_vec is 0 to 3
        out[end_vec + g] = in[end_vec + g];
}

// transformFloat3: three scalar loads and stores per point (float3 is 4-byte aligned).
__global__ void transformFloat3(float3 *__restrict__ out, const float3 *__restrict__ in,
                                size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const float3 p = in[i];
        out[i] = {2.0f * p.x + c_shift[0], 2.0f * p.y + c_shift[1], 2.0f * p.z + c_shift[2]};
    }
}

} // namespace vec

// outside the namespace, as the header's wrappers are: a Point4 of this file only
struct __align__(16) Point4 {
    float x, y, z, w;
};

namespace vec {

// transformPoint4: one 128-bit load, one 128-bit store per point; w rides along.
__global__ void transformPoint4(Point4 *__restrict__ out, const Point4 *__restrict__ in,
                                size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const Point4 p = in[i];
        out[i] = Point4{2.0f * p.x + c_shift[0], 2.0f * p.y + c_shift[1],
                        2.0f * p.z + c_shift[2], p.w};
    }
}

} // namespace vec

int blocks_for(size_t work)
{
    const size_t most = (size_t)cml_sm_count() * 16;
    return (int)std::max<size_t>(1, std::min((work + vec::kThreads - 1) / vec::kThreads, most));
}

void launch_copy_vec4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const unsigned in_off = (unsigned)((uintptr_t)d_in / 4 % 4);
    const unsigned out_off = (unsigned)((uintptr_t)d_out / 4 % 4);
    size_t head = n, nvec = 0; // different misalignments: floats only
    if (in_off == out_off) {
        head = std::min<size_t>(in_off ? 4 - in_off : 0, n);
        nvec = (n - head) / 4;
    }
    vec::copyVector4<<<blocks_for(std::max(nvec, head)), vec::kThreads, 0, stream>>>(
        d_out, d_in, n, head, nvec);
    CML_CHECK_LAUNCH();
}

void launch_transform_float3(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    vec::transformFloat3<<<blocks_for(n), vec::kThreads, 0, stream>>>(
        (float3 *)d_out, (const float3 *)d_in, n);
    CML_CHECK_LAUNCH();
}

void launch_transform_point4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    vec::transformPoint4<<<blocks_for(n), vec::kThreads, 0, stream>>>(
        (Point4 *)d_out, (const Point4 *)d_in, n);
    CML_CHECK_LAUNCH();
}
