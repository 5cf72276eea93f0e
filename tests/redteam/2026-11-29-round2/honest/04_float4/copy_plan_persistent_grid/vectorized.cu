/* Lab 04, 16-byte vector access. The host computes a CopyPlan (head, nvec; the tail follows) once; the
 * kernels run on a one-wave grid sized by the occupancy API; the point move is a lambda. */
#include "vectorized.h"

#include <algorithm>
#include <stdint.h>

namespace {

constexpr int kThreads = 256;

struct CopyPlan {
    size_t head; // floats copied one by one before the aligned middle
    size_t nvec; // whole float4s in the middle
};

// floats past the last 16-byte boundary
inline unsigned misalign(const void *p) { return (unsigned)(((uintptr_t)p / sizeof(float)) % 4); }

CopyPlan plan_copy(const float *out, const float *in, size_t n)
{
    const unsigned a_in = misalign(in), a_out = misalign(out);
    if (a_in != a_out)
        return CopyPlan{n, 0}; // no head aligns both: everything as floats
    const size_t head = std::min<size_t>((4 - a_in) % 4, n);
    return CopyPlan{head, (n - head) / 4};
}

// a grid that fills the GPU once (resident blocks per SM x SMs), never more than the work
template <typename Kernel>
unsigned one_wave(Kernel k, size_t items)
{
    // one answer per kernel type, asked once (each kernel here has its own signature)
    static const size_t wave = [k] {
        int per_sm = 0;
        CML_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, kThreads, 0));
        return (size_t)std::max(per_sm, 1) * (size_t)cml_sm_count();
    }();
    const size_t need = (items + kThreads - 1) / kThreads;
    return (unsigned)std::max<size_t>(1, std::min(wave, need));
}

} // namespace

// Grid-stride walk over [0, count) that keeps U independent loads in flight per thread:
// element g, g + T, ..., g + (U-1)T are loaded before any of them is stored.
template <int U, typename Load, typename Store>
__device__ __forceinline__ void walk(size_t count, Load load, Store store)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    using V = decltype(load(i));
    for (; i + (U - 1) * T < count; i += U * T) {
        V v[U];
#pragma unroll
        for (int u = 0; u < U; ++u)
            v[u] = load(i + u * T);
#pragma unroll
        for (int u = 0; u < U; ++u)
            store(i + u * T, v[u]);
    }
    for (; i < count; i += T)
        store(i, load(i));
}

// ---- 4.1 --------------------------------------------------------------------------------
__global__ void copyVector4(float *__restrict__ out, const float *__restrict__ in, size_t n,
                            size_t head, size_t nvec)
{
    const size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t T = (size_t)gridDim.x * blockDim.x;

    // aligned middle: in + head and out + head are 16-byte aligned (the plan made sure)
    const float4 *__restrict__ src = reinterpret_cast<const float4 *>(in + head);
    float4 *__restrict__ dst = reinterpret_cast<float4 *>(out + head);
    walk<2>(nvec, [=](size_t v) { return src[v]; }, [=](size_t v, float4 x) { dst[v] = x; });

    // head: up to 3 floats, or all n when the two pointers cannot both be aligned
    for (size_t i = g; i < head; i += T)
        out[i] = in[i];

    // tail: at most 3 floats after the middle
    const size_t tail_start = head + 4 * nvec;
    for (size_t i = tail_start + g; i < n; i += T)
        out[i] = in[i];
}

void launch_copy_vec4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    if (n == 0)
        return;
    const CopyPlan p = plan_copy(d_out, d_in, n);
    const unsigned grid = one_wave(copyVector4, std::max(p.nvec, p.head));
    copyVector4<<<grid, kThreads, 0, stream>>>(d_out, d_in, n, p.head, p.nvec);
    CML_CHECK_LAUNCH();
}

// ---- 4.2a and 4.2b ------------------------------------------------------------------------
// the move of one coordinate, written once as a lambda in each kernel
#define POINT_MOVE_LAMBDA auto kMove = [](float v, float d) { return 2.0f * v + d; }

__global__ void transformFloat3(float3 *__restrict__ out, const float3 *__restrict__ in,
                                size_t n)
{
    POINT_MOVE_LAMBDA;
    walk<2>(n, [=](size_t i) { return in[i]; }, [=](size_t i, float3 p) {
        out[i] = make_float3(kMove(p.x, POINT_DX), kMove(p.y, POINT_DY), kMove(p.z, POINT_DZ));
    });
}

void launch_transform_float3(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    if (n == 0)
        return;
    const unsigned grid = one_wave(transformFloat3, n);
    transformFloat3<<<grid, kThreads, 0, stream>>>(reinterpret_cast<float3 *>(d_out),
                                                   reinterpret_cast<const float3 *>(d_in), n);
    CML_CHECK_LAUNCH();
}

struct __align__(16) Point4 {
    float x, y, z, w;
};
static_assert(sizeof(Point4) == 16 && alignof(Point4) == 16, "Point4 must be one 16-byte word");

__global__ void transformPoint4(Point4 *__restrict__ out, const Point4 *__restrict__ in,
                                size_t n)
{
    POINT_MOVE_LAMBDA;
    // one 128-bit load and one 128-bit store per point
    walk<2>(n, [=](size_t i) { return in[i]; }, [=](size_t i, Point4 p) {
        out[i] = Point4{kMove(p.x, POINT_DX), kMove(p.y, POINT_DY), kMove(p.z, POINT_DZ), p.w};
    });
}

void launch_transform_point4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    if (n == 0)
        return;
    const unsigned grid = one_wave(transformPoint4, n);
    transformPoint4<<<grid, kThreads, 0, stream>>>(reinterpret_cast<Point4 *>(d_out),
                                                   reinterpret_cast<const Point4 *>(d_in), n);
    CML_CHECK_LAUNCH();
}
