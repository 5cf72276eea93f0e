/* Lab 04, 16-byte vector access. 4.1's middle moves as ulonglong2 (two 64-bit lanes, still one
 * 128-bit access); grids cover the work (a grid-stride loop that usually runs once), capped at
 * the 1D grid limit; indices through cooperative groups. */
#include "vectorized.h"

#include <algorithm>
#include <cooperative_groups.h>
#include <stdint.h>

namespace cg = cooperative_groups;

namespace v4 {

constexpr unsigned kBlock = 256;
constexpr size_t kMaxBlocks = 1u << 20; // grid-stride beyond this

inline unsigned covering(size_t items)
{
    return (unsigned)std::min(std::max<size_t>((items + kBlock - 1) / kBlock, 1), kMaxBlocks);
}

__device__ __forceinline__ size_t rank()
{
    const cg::thread_block b = cg::this_thread_block();
    return (size_t)b.group_index().x * b.dim_threads().x + b.thread_rank();
}
__device__ __forceinline__ size_t span() { return (size_t)gridDim.x * blockDim.x; }

} // namespace v4

// ---- 4.1 --------------------------------------------------------------------------------
__global__ void copyVector4(float *__restrict__ out, const float *__restrict__ in, size_t n,
                            size_t head, size_t nvec)
{
    const size_t g = v4::rank(), T = v4::span();
    const ulonglong2 *__restrict__ src = reinterpret_cast<const ulonglong2 *>(in + head);
    ulonglong2 *__restrict__ dst = reinterpret_cast<ulonglong2 *>(out + head);
    for (size_t k = g; k < nvec; k += T)
        dst[k] = __ldg(src + k);

    for (size_t i = g; i < head; i += T) // the peeled head (all of n when no head aligns both)
        out[i] = __ldg(in + i);
    const size_t done = head + 4 * nvec;  // at most 3 floats are left after the middle
    if (g < n - done)
        out[done + g] = __ldg(in + done + g);
}

void launch_copy_vec4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const unsigned mis_in = (unsigned)(reinterpret_cast<uintptr_t>(d_in) >> 2) & 3u;
    const unsigned mis_out = (unsigned)(reinterpret_cast<uintptr_t>(d_out) >> 2) & 3u;
    size_t head, nvec;
    if (mis_in == mis_out) {
        head = std::min<size_t>((4u - mis_in) & 3u, n); // clamp: n may be shorter than the head
        nvec = (n - head) / 4;
    } else {
        head = n; // no common alignment: every float on its own
        nvec = 0;
    }
    const unsigned grid = v4::covering(std::max<size_t>(std::max(nvec, head), 4));
    copyVector4<<<grid, v4::kBlock, 0, stream>>>(d_out, d_in, n, head, nvec);
    CML_CHECK_LAUNCH();
}

// ---- 4.2a and 4.2b ------------------------------------------------------------------------
__global__ void transformFloat3(float3 *__restrict__ out, const float3 *__restrict__ in,
                                size_t n)
{
    const size_t T = v4::span();
    for (size_t i = v4::rank(); i < n; i += T) {
        const float *p = &in[i].x;
        const float x = __ldg(p), y = __ldg(p + 1), z = __ldg(p + 2);
        out[i] = make_float3(fmaf(2.0f, x, POINT_DX), fmaf(2.0f, y, POINT_DY),
                             fmaf(2.0f, z, POINT_DZ));
    }
}

void launch_transform_float3(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    transformFloat3<<<v4::covering(n), v4::kBlock, 0, stream>>>(
        reinterpret_cast<float3 *>(d_out), reinterpret_cast<const float3 *>(d_in), n);
    CML_CHECK_LAUNCH();
}

struct __align__(16) Point4 {
    float x, y, z, w;
};

__global__ void transformPoint4(Point4 *__restrict__ out, const Point4 *__restrict__ in,
                                size_t n)
{
    const size_t T = v4::span();
    for (size_t i = v4::rank(); i < n; i += T) {
        // one 128-bit read-only load of the whole point, one 128-bit store
        const float4 p = __ldg(reinterpret_cast<const float4 *>(in + i));
        Point4 q;
        q.x = fmaf(2.0f, p.x, POINT_DX);
        q.y = fmaf(2.0f, p.y, POINT_DY);
        q.z = fmaf(2.0f, p.z, POINT_DZ);
        q.w = p.w;
        out[i] = q;
    }
}

void launch_transform_point4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    transformPoint4<<<v4::covering(n), v4::kBlock, 0, stream>>>(
        reinterpret_cast<Point4 *>(d_out), reinterpret_cast<const Point4 *>(d_in), n);
    CML_CHECK_LAUNCH();
}
