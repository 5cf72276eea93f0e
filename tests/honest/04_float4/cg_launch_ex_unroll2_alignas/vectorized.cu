/* Lab 04, 16-byte vector access: kernels and launch wrappers.
 * Written with cooperative groups for the thread indexing, cudaLaunchKernelEx for the launches,
 * and C++17 alignas for the padded point. */
#include "vectorized.h"

#include <cooperative_groups.h>
#include <algorithm>
#include <cstdint>

namespace cg = cooperative_groups;

namespace {

constexpr unsigned kThreads = 256;
constexpr size_t kMaxBlocks = size_t(1) << 20;

/* Launches `kernel` on `stream` with `blocks` x kThreads threads through cudaLaunchKernelEx. */
template <typename... Params, typename... Args>
void launch_on(void (*kernel)(Params...), size_t blocks, cudaStream_t stream, Args... args)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(static_cast<unsigned>(std::max<size_t>(1, std::min(blocks, kMaxBlocks))));
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = stream;
    CML_CHECK(cudaLaunchKernelEx(&cfg, kernel, static_cast<Params>(args)...));
}

__host__ __device__ constexpr size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

} // namespace

// ---- 4.1 --------------------------------------------------------------------------------
// copyVector4: the aligned middle as float4, two per thread per step (both loads before both
// stores), then the at most 3 + 3 loose floats: the first `head` floats and the ones after the
// last whole float4, one thread each.
__global__ void copyVector4(float *__restrict__ out, const float *__restrict__ in, size_t n,
                            size_t head, size_t nvec)
{
    const cg::grid_group grid = cg::this_grid();
    const size_t rank = grid.thread_rank(), stride = grid.num_threads();
    const float4 *__restrict__ src = reinterpret_cast<const float4 *>(in + head);
    float4 *__restrict__ dst = reinterpret_cast<float4 *>(out + head);

    size_t i = rank;
    for (; i + stride < nvec; i += 2 * stride) {
        const float4 a = src[i];
        const float4 b = src[i + stride];
        dst[i] = a;
        dst[i + stride] = b;
    }
    if (i < nvec)
        dst[i] = src[i];

    /* the loose floats: [0, head) and [head + 4 * nvec, n); with mixed alignments head == n
     * and the whole copy is floats, spread over the grid */
    const size_t tail = head + 4 * nvec;
    for (size_t k = rank; k < head; k += stride)
        out[k] = in[k];
    for (size_t k = tail + rank; k < n; k += stride)
        out[k] = in[k];
}

void launch_copy_vec4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const auto floats_past = [](const void *p) {
        return static_cast<size_t>(reinterpret_cast<std::uintptr_t>(p) / sizeof(float) & 3u);
    };
    const size_t a = floats_past(d_in), b = floats_past(d_out);
    size_t head = n; /* different misalignments: no float4 fits both, copy floats */
    if (a == b)
        head = std::min(n, (4 - a) & 3u);
    const size_t nvec = (n - head) / 4;
    const size_t work = nvec ? ceil_div(nvec, 2) : std::max<size_t>(head, 3);
    launch_on(copyVector4, ceil_div(work, kThreads), stream, d_out, d_in, n, head, nvec);
}

// ---- 4.2a and 4.2b ------------------------------------------------------------------------

/* The move every point makes, whatever its layout. */
struct Move {
    __device__ float operator()(float v, int axis) const
    {
        constexpr float d[3] = {POINT_DX, POINT_DY, POINT_DZ};
        return 2.0f * v + d[axis];
    }
};

// transformFloat3: 12-byte points, 4-byte aligned: three 32-bit loads and stores each.
__global__ void transformFloat3(float3 *__restrict__ out, const float3 *__restrict__ in, size_t n)
{
    const cg::grid_group grid = cg::this_grid();
    const Move m;
    for (size_t i = grid.thread_rank(); i < n; i += grid.num_threads()) {
        const float3 p = in[i];
        out[i] = float3{m(p.x, 0), m(p.y, 1), m(p.z, 2)};
    }
}

void launch_transform_float3(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    launch_on(transformFloat3, ceil_div(n, kThreads), stream, reinterpret_cast<float3 *>(d_out),
              reinterpret_cast<const float3 *>(d_in), n);
}

// The padded point: alignas(16) lets the compiler move it with one 128-bit access.
struct alignas(16) Point4 {
    float x, y, z, w;
};
static_assert(sizeof(Point4) == 16 && alignof(Point4) == 16, "Point4 is one 16-byte vector");

// transformPoint4: one 128-bit load and one 128-bit store per point; w is carried untouched.
__global__ void transformPoint4(Point4 *__restrict__ out, const Point4 *__restrict__ in, size_t n)
{
    const cg::grid_group grid = cg::this_grid();
    const Move m;
    for (size_t i = grid.thread_rank(); i < n; i += grid.num_threads()) {
        Point4 p = in[i];
        p.x = m(p.x, 0);
        p.y = m(p.y, 1);
        p.z = m(p.z, 2);
        out[i] = p;
    }
}

void launch_transform_point4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    launch_on(transformPoint4, ceil_div(n, kThreads), stream, reinterpret_cast<Point4 *>(d_out),
              reinterpret_cast<const Point4 *>(d_in), n);
}
