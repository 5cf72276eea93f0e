/* Lab 04, 16-byte vector access: a persistent-grid version. Every kernel is sized to what the
 * GPU holds at once (occupancy x SMs), walks its data grid-stride from a rank built with
 * cooperative groups' thread_block, and is launched with cudaLaunchKernelEx on the harness's
 * stream. */
#include "vectorized.h"

#include <cooperative_groups.h>
#include <stdint.h>

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 256;

/* This thread's rank in the whole launch and the number of threads in it, from the
 * cooperative-groups view of the block (no grid-wide sync, so a plain launch suffices). */
struct GridSpan {
    size_t rank, count;
};
__device__ __forceinline__ GridSpan grid_span()
{
    const cg::thread_block block = cg::this_thread_block();
    const size_t size = block.size();
    return {(size_t)block.group_index().x * size + block.thread_rank(), (size_t)gridDim.x * size};
}

/* Blocks for a persistent kernel: as many as are resident at once, but no more than the work
 * needs (at least one). */
template <typename Kernel>
unsigned persistent_blocks(Kernel kernel, size_t work_items)
{
    static int sms = 0;
    if (!sms) {
        int dev = 0;
        CML_CHECK(cudaGetDevice(&dev));
        CML_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    }
    int per_sm = 0;
    CML_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0));
    const size_t resident = (size_t)sms * (per_sm > 0 ? per_sm : 1);
    const size_t needed = (work_items + kThreads - 1) / kThreads;
    return (unsigned)(needed == 0 ? 1 : needed < resident ? needed : resident);
}

template <typename... Params, typename... Args>
void launch_on(cudaStream_t stream, unsigned blocks, void (*kernel)(Params...), Args... args)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = stream;
    CML_CHECK(cudaLaunchKernelEx(&cfg, kernel, args...));
}

} // namespace

// ---- 4.1 --------------------------------------------------------------------------------

// copyVector4: out[0..n) = in[0..n). `lead` floats are copied one by one first, so that
// in + lead and out + lead are 16-byte aligned; then `quads` float4s; then the rest (< 4
// floats, or everything when the two pointers cannot both be aligned: lead == n).
__global__ void copyVector4(float *__restrict__ out, const float *__restrict__ in, size_t n,
                            size_t lead, size_t quads)
{
    const GridSpan g = grid_span();
    const size_t rank = g.rank, threads = g.count;
    const float4 *__restrict__ src = reinterpret_cast<const float4 *>(in + lead);
    float4 *__restrict__ dst = reinterpret_cast<float4 *>(out + lead);
#pragma unroll 4
    for (size_t q = rank; q < quads; q += threads)
        dst[q] = src[q];
    // the scalar floats: [0, lead) and [lead + 4 * quads, n), at most 6 unless lead == n
    const size_t rest = lead + 4 * quads;
    for (size_t k = rank; k < lead + (n - rest); k += threads) {
        const size_t i = k < lead ? k : rest + (k - lead);
        out[i] = in[i];
    }
}

void launch_copy_vec4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    // floats past the last 16-byte boundary, for each pointer
    const unsigned in_off = (unsigned)(((uintptr_t)d_in >> 2) & 3u);
    const unsigned out_off = (unsigned)(((uintptr_t)d_out >> 2) & 3u);
    size_t lead = n; // no common alignment: all scalar (the sheet's fallback)
    if (in_off == out_off) {
        const size_t to_boundary = (4u - in_off) & 3u;
        lead = to_boundary < n ? to_boundary : n;
    }
    const size_t quads = (n - lead) >> 2;
    const size_t work = quads > (n - 4 * quads) ? quads : (n - 4 * quads);
    launch_on(stream, persistent_blocks(copyVector4, work), copyVector4, d_out, d_in, n, lead,
              quads);
    CML_CHECK_LAUNCH();
}

// ---- 4.2a and 4.2b ------------------------------------------------------------------------

// transformFloat3: 12-byte points, 4-byte aligned: three 32-bit loads and stores each.
__global__ void transformFloat3(float3 *__restrict__ out, const float3 *__restrict__ in,
                                size_t n)
{
    const GridSpan g = grid_span();
    for (size_t i = g.rank; i < n; i += g.count) {
        const float3 p = in[i];
        out[i] = make_float3(fmaf(2.0f, p.x, POINT_DX), fmaf(2.0f, p.y, POINT_DY),
                             fmaf(2.0f, p.z, POINT_DZ));
    }
}

void launch_transform_float3(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    launch_on(stream, persistent_blocks(transformFloat3, n), transformFloat3,
              reinterpret_cast<float3 *>(d_out), reinterpret_cast<const float3 *>(d_in), n);
    CML_CHECK_LAUNCH();
}

// The padded point, declared 16-byte aligned with the standard spelling.
struct alignas(16) Point4 {
    float x, y, z, w;
};
static_assert(sizeof(Point4) == 16 && alignof(Point4) == 16, "Point4 is one 128-bit word");

// transformPoint4: one 128-bit load and one 128-bit store per point; w is never touched.
__global__ void transformPoint4(Point4 *__restrict__ out, const Point4 *__restrict__ in,
                                size_t n)
{
    const GridSpan g = grid_span();
    for (size_t i = g.rank; i < n; i += g.count) {
        Point4 p = in[i];
        p.x = fmaf(2.0f, p.x, POINT_DX);
        p.y = fmaf(2.0f, p.y, POINT_DY);
        p.z = fmaf(2.0f, p.z, POINT_DZ);
        out[i] = p;
    }
}

void launch_transform_point4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    launch_on(stream, persistent_blocks(transformPoint4, n), transformPoint4,
              reinterpret_cast<Point4 *>(d_out), reinterpret_cast<const Point4 *>(d_in), n);
    CML_CHECK_LAUNCH();
}
