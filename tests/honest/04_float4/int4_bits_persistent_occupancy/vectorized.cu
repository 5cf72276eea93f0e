/* Lab 04, 16-byte vector access: kernels and launch wrappers.
 * 4.1 moves bits, not floats: the aligned middle as int4 through the read-only path, on a
 * persistent grid sized by the occupancy calculator; the wrapper plans head, vectors and tail
 * once and hands the plan to the kernel. 4.2 applies one device function to either layout. */
#include "vectorized.h"

#include <algorithm>
#include <cstdint>

namespace {

constexpr int kBlock = 256;

/* What the wrapper decides for a copy of n floats. */
struct CopyPlan {
    size_t n;    /* floats in all */
    size_t head; /* floats before the first 16-byte aligned float of both pointers (n: none) */
    size_t nvec; /* whole 16-byte vectors after the head */
};

CopyPlan plan_copy(const void *dst, const void *src, size_t n)
{
    const unsigned s = (unsigned)((std::uintptr_t)src >> 2) & 3u;
    const unsigned d = (unsigned)((std::uintptr_t)dst >> 2) & 3u;
    if (s != d) /* no shift makes both aligned: every float on its own */
        return CopyPlan{n, n, 0};
    const size_t head = std::min<size_t>(n, (4u - s) & 3u);
    return CopyPlan{n, head, (n - head) >> 2};
}

/* Blocks of kBlock threads that `kernel` keeps resident on the whole GPU, times `waves`. */
template <typename Kernel> unsigned resident(Kernel kernel, unsigned waves)
{
    static int per_sm = [&] {
        int b = 0;
        CML_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernel, kBlock, 0));
        return std::max(b, 1);
    }();
    return (unsigned)per_sm * (unsigned)cml_sm_count() * waves;
}

unsigned blocks_for(size_t work, unsigned most)
{
    const size_t want = (work + kBlock - 1) / kBlock;
    return (unsigned)std::max<size_t>(1, std::min<size_t>(want, most));
}

} // namespace

// ---- 4.1 --------------------------------------------------------------------------------
// copyVector4: 16 bytes per load and store (int4: the bits move untouched), grid-stride over
// the plan's vectors, then its head and at most 3 trailing floats.
__global__ void __launch_bounds__(kBlock)
    copyVector4(float *__restrict__ out, const float *__restrict__ in, CopyPlan plan)
{
    const size_t first = (size_t)blockIdx.x * kBlock + threadIdx.x;
    const size_t step = (size_t)gridDim.x * kBlock;
    const int4 *__restrict__ src = reinterpret_cast<const int4 *>(in + plan.head);
    int4 *__restrict__ dst = reinterpret_cast<int4 *>(out + plan.head);
    for (size_t v = first; v < plan.nvec; v += step)
        dst[v] = __ldg(src + v);
    for (size_t k = first; k < plan.head; k += step)
        out[k] = in[k];
    for (size_t k = plan.head + 4 * plan.nvec + first; k < plan.n; k += step)
        out[k] = in[k];
}

void launch_copy_vec4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const CopyPlan plan = plan_copy(d_out, d_in, n);
    const size_t work = std::max<size_t>({plan.nvec, plan.head, (size_t)3});
    copyVector4<<<blocks_for(work, resident(copyVector4, 4)), kBlock, 0, stream>>>(d_out, d_in,
                                                                                   plan);
    CML_CHECK_LAUNCH();
}

// ---- 4.2a and 4.2b ------------------------------------------------------------------------

/* A point's new coordinates: 2 * (x, y, z) + (DX, DY, DZ). */
__device__ __forceinline__ float3 kMove(float x, float y, float z)
{
    return float3{2.0f * x + POINT_DX, 2.0f * y + POINT_DY, 2.0f * z + POINT_DZ};
}

// transformFloat3: packed 12-byte points: three 4-byte loads and stores per point.
__global__ void __launch_bounds__(kBlock)
    transformFloat3(float3 *__restrict__ out, const float3 *__restrict__ in, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * kBlock + threadIdx.x; i < n;
         i += (size_t)gridDim.x * kBlock) {
        const float3 p = in[i];
        out[i] = kMove(p.x, p.y, p.z);
    }
}

void launch_transform_float3(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    transformFloat3<<<blocks_for(n, 1u << 20), kBlock, 0, stream>>>(
        reinterpret_cast<float3 *>(d_out), reinterpret_cast<const float3 *>(d_in), n);
    CML_CHECK_LAUNCH();
}

// The padded point, 16-byte aligned (GCC's spelling of the attribute): one 128-bit access each.
struct __attribute__((aligned(16))) Point4 {
    float x, y, z, w;
};

// transformPoint4: one 128-bit load and one 128-bit store per point; w's bits ride along.
__global__ void __launch_bounds__(kBlock)
    transformPoint4(Point4 *__restrict__ out, const Point4 *__restrict__ in, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * kBlock + threadIdx.x; i < n;
         i += (size_t)gridDim.x * kBlock) {
        const Point4 p = in[i];
        const float3 m = kMove(p.x, p.y, p.z);
        out[i] = Point4{m.x, m.y, m.z, p.w};
    }
}

void launch_transform_point4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    transformPoint4<<<blocks_for(n, 1u << 20), kBlock, 0, stream>>>(
        reinterpret_cast<Point4 *>(d_out), reinterpret_cast<const Point4 *>(d_in), n);
    CML_CHECK_LAUNCH();
}
