/* Lab 04, 16-byte vector access and alignment.
 * My version of 4.1 describes the copy as a plan the wrapper computes (head, nvec) and gives
 * the kernel two index spaces: the float4 body, read through the read-only path (__ldg), and
 * one "edge" index space that numbers the head floats first and the tail floats after them,
 * so one grid-stride loop handles both ends. 4.2 uses alignas(16) and a device helper that
 * moves one coordinate with a single fused multiply-add (2*v is exact, so it rounds once,
 * as 2*v + d does). */
#include "vectorized.h"

#include <algorithm>
#include <stdint.h>

// ---- 4.1 --------------------------------------------------------------------------------
struct CopyPlan {
    size_t head; // floats copied one by one before the aligned body (or all n: mixed case)
    size_t nvec; // float4s in the body, starting at head
    size_t n;
    __host__ __device__ size_t tail_begin() const { return head + 4 * nvec; }
    __host__ __device__ size_t edges() const { return head + (n - tail_begin()); }
    // edge e: the head floats 0 .. head-1, then the tail floats tail_begin() .. n-1
    __host__ __device__ size_t edge_index(size_t e) const
    {
        return e < head ? e : tail_begin() + (e - head);
    }
};

static CopyPlan make_plan(const float *out, const float *in, size_t n)
{
    const unsigned in_mis = (unsigned)((uintptr_t)in / sizeof(float) % 4);
    const unsigned out_mis = (unsigned)((uintptr_t)out / sizeof(float) % 4);
    CopyPlan p;
    p.n = n;
    if (in_mis != out_mis) { // no head aligns both: the documented scalar fallback
        p.head = n;
        p.nvec = 0;
    } else {
        p.head = std::min<size_t>((4 - in_mis) % 4, n); // clamp: n may be shorter than the head
        p.nvec = (n - p.head) / 4;
    }
    return p;
}

// copyVector4: the aligned body as float4 (one 128-bit load and store per step), then the at
// most 3 + 3 edge floats (or all n in the mixed case) as floats.
__global__ void copyVector4(float *__restrict__ out, const float *__restrict__ in, CopyPlan plan)
{
    const size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t T = (size_t)gridDim.x * blockDim.x;
    const float4 *__restrict__ src = reinterpret_cast<const float4 *>(in + plan.head);
    float4 *__restrict__ dst = reinterpret_cast<float4 *>(out + plan.head);
    for (size_t v = g; v < plan.nvec; v += T)
        dst[v] = __ldg(src + v);
    const size_t edges = plan.edges();
    for (size_t e = g; e < edges; e += T) {
        const size_t i = plan.edge_index(e);
        out[i] = __ldg(in + i);
    }
}

void launch_copy_vec4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const CopyPlan plan = make_plan(d_out, d_in, n);
    const size_t work = std::max<size_t>(std::max<size_t>(plan.nvec, plan.edges()), 1);
    constexpr int threads = 256;
    const size_t blocks = std::min<size_t>((work + threads - 1) / threads, (size_t)1 << 20);
    copyVector4<<<(unsigned)blocks, threads, 0, stream>>>(d_out, d_in, plan);
    CML_CHECK_LAUNCH();
}

// ---- 4.2a and 4.2b ------------------------------------------------------------------------
// one coordinate moved: 2*v + d, with 2*v exact
__device__ __forceinline__ float moved(float v, float d) { return fmaf(2.0f, v, d); }

static unsigned point_blocks(size_t n, int threads)
{
    return (unsigned)std::min<size_t>((n + threads - 1) / threads, (size_t)1 << 20);
}

// transformFloat3: a float3 is 12 bytes with 4-byte alignment: three 32-bit loads and three
// 32-bit stores per point, whatever we write.
__global__ void transformFloat3(float3 *__restrict__ out, const float3 *__restrict__ in,
                                size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const float3 p = in[i];
        out[i] = float3{moved(p.x, POINT_DX), moved(p.y, POINT_DY), moved(p.z, POINT_DZ)};
    }
}

void launch_transform_float3(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    transformFloat3<<<point_blocks(n, 256), 256, 0, stream>>>(
        reinterpret_cast<float3 *>(d_out), reinterpret_cast<const float3 *>(d_in), n);
    CML_CHECK_LAUNCH();
}

// Point4: 16 bytes, declared 16-byte aligned, so a point is one 128-bit load and one store.
struct alignas(16) Point4 {
    float x, y, z, w;
};
static_assert(sizeof(Point4) == 16 && alignof(Point4) == 16, "Point4 must be one 16-byte word");

// transformPoint4: w is carried through untouched (no arithmetic on it: NaN payloads and -0
// survive), x, y and z are moved.
__global__ void transformPoint4(Point4 *__restrict__ out, const Point4 *__restrict__ in,
                                size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        Point4 p = in[i];
        p.x = moved(p.x, POINT_DX);
        p.y = moved(p.y, POINT_DY);
        p.z = moved(p.z, POINT_DZ);
        out[i] = p;
    }
}

void launch_transform_point4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    transformPoint4<<<point_blocks(n, 256), 256, 0, stream>>>(
        reinterpret_cast<Point4 *>(d_out), reinterpret_cast<const Point4 *>(d_in), n);
    CML_CHECK_LAUNCH();
}
