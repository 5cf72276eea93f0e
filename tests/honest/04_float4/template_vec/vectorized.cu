/* Lab 04, 16-byte vector access: the copy is a template over the vector type (float4 here),
 * launched through a template helper; the point kernels are templates over the point type. */
#include "vectorized.h"

#include <algorithm>
#include <stdint.h>

// ---- 4.1 --------------------------------------------------------------------------------
// copyVector4<V>: the nvec whole V's of the aligned middle, then the scalar head and tail.
template <typename V>
__global__ void copyVector4(float *__restrict__ out, const float *__restrict__ in, size_t n,
                            size_t head, size_t nvec)
{
    constexpr size_t W = sizeof(V) / sizeof(float);
    const size_t T = (size_t)gridDim.x * blockDim.x;
    const size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const V *__restrict__ src = reinterpret_cast<const V *>(in + head);
    V *__restrict__ dst = reinterpret_cast<V *>(out + head);
    for (size_t j = g; j < nvec; j += T)
        dst[j] = src[j];
    for (size_t i = g; i < head; i += T) // the head: none, or all of n when no head aligns both
        out[i] = in[i];
    for (size_t i = head + W * nvec + g; i < n; i += T) // the tail: at most W - 1 floats
        out[i] = in[i];
}

// floats_past: how many floats p lies past a 16-byte boundary.
inline size_t floats_past(const void *p) { return (uintptr_t)p / sizeof(float) % 4; }

template <typename V, int THREADS>
void launch_vector_copy(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    static_assert(sizeof(V) == 16, "a 16-byte vector");
    const size_t a_in = floats_past(d_in), a_out = floats_past(d_out);
    size_t head, nvec;
    if (a_in == a_out) {
        head = std::min<size_t>((4 - a_in) % 4, n);
        nvec = (n - head) / 4;
    } else { // no head aligns both: all floats one by one
        head = n;
        nvec = 0;
    }
    const size_t work = std::max<size_t>(std::max(nvec, head), 1);
    const size_t blocks = std::min<size_t>((work + THREADS - 1) / THREADS,
                                           (size_t)cml_sm_count() * 16);
    copyVector4<V><<<(unsigned)blocks, THREADS, 0, stream>>>(d_out, d_in, n, head, nvec);
    CML_CHECK_LAUNCH();
}

void launch_copy_vec4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    launch_vector_copy<float4, 256>(d_out, d_in, n, stream);
}

// ---- 4.2a and 4.2b ------------------------------------------------------------------------
struct __align__(16) Point4 {
    float x, y, z, w;
};

template <typename P> __device__ __forceinline__ P moved(P p);
template <> __device__ __forceinline__ float3 moved(float3 p)
{
    return make_float3(2.0f * p.x + POINT_DX, 2.0f * p.y + POINT_DY, 2.0f * p.z + POINT_DZ);
}
template <> __device__ __forceinline__ Point4 moved(Point4 p)
{
    return Point4{2.0f * p.x + POINT_DX, 2.0f * p.y + POINT_DY, 2.0f * p.z + POINT_DZ, p.w};
}

// transformFloat3 and transformPoint4: one point per step of a grid-stride loop, read once,
// written once; moved<P> holds the arithmetic for both point types.
__global__ void transformFloat3(float3 *__restrict__ out, const float3 *__restrict__ in,
                                size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = moved(in[i]);
}

__global__ void transformPoint4(Point4 *__restrict__ out, const Point4 *__restrict__ in,
                                size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = moved(in[i]);
}

template <typename P, typename Kernel>
void launch_points(Kernel kernel, float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const size_t blocks = std::min<size_t>((n + 255) / 256, (size_t)cml_sm_count() * 16);
    kernel<<<(unsigned)std::max<size_t>(blocks, 1), 256, 0, stream>>>(
        reinterpret_cast<P *>(d_out), reinterpret_cast<const P *>(d_in), n);
    CML_CHECK_LAUNCH();
}

void launch_transform_float3(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    launch_points<float3>(transformFloat3, d_out, d_in, n, stream);
}

void launch_transform_point4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    launch_points<Point4>(transformPoint4, d_out, d_in, n, stream);
}
