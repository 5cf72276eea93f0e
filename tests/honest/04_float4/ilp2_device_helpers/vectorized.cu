/* Lab 04: 16-byte vector access. Small __device__ helpers do the moves; each kernel gives a
 * thread two independent units of work (ILP 2) so that two loads are in flight before the
 * first store, and the block size comes from cudaOccupancyMaxPotentialBlockSize. */
#include "vectorized.h"

#include <stdint.h>

namespace {

/* Block size the occupancy calculator suggests for `kernel`, computed once per kernel. */
template <typename Kernel>
int block_size_for(Kernel kernel)
{
    int min_grid = 0, block = 0;
    CML_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, kernel, 0, 0));
    return block > 0 ? block : 256;
}

/* ceil(a / b) for sizes, at least 1: a grid always has a block. */
inline unsigned blocks_for(size_t units, size_t per_block)
{
    const size_t b = (units + per_block - 1) / per_block;
    return (unsigned)(b ? b : 1);
}

/* Floats from p to the next 16-byte boundary (0 to 3). */
inline size_t floats_to_boundary(const void *p)
{
    return (size_t)((16u - ((uintptr_t)p & 15u)) & 15u) / sizeof(float);
}

} // namespace

// ---- 4.1 --------------------------------------------------------------------------------

__device__ __forceinline__ void copy_one(float *out, const float *in, size_t i) { out[i] = in[i]; }

// copyVector4: thread t copies float4s t and t + T of the aligned middle (T = all threads),
// loads first; then the scalar head (`head` floats before the middle) and the tail.
__global__ void copyVector4(float *__restrict__ out, const float *__restrict__ in, size_t n,
                            size_t head, size_t nvec)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const float4 *__restrict__ v_in = reinterpret_cast<const float4 *>(in + head);
    float4 *__restrict__ v_out = reinterpret_cast<float4 *>(out + head);
    for (size_t i = t; i < nvec; i += 2 * T) {
        const bool second = i + T < nvec;
        const float4 a = v_in[i];
        float4 b;
        if (second)
            b = v_in[i + T];
        v_out[i] = a;
        if (second)
            v_out[i + T] = b;
    }
    if (t < head)
        copy_one(out, in, t);
    for (size_t i = head + 4 * nvec + t; i < n; i += T)
        copy_one(out, in, i);
}

void launch_copy_vec4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    static const int block = block_size_for(copyVector4);
    const size_t a = floats_to_boundary(d_in), b = floats_to_boundary(d_out);
    // a common head exists only when both pointers sit the same distance from a boundary
    const size_t head = a == b ? (a < n ? a : n) : n;
    const size_t nvec = (n - head) / 4;
    // enough threads for half the float4s (two each) and for the head, which is copied by
    // threads t < head without a loop (head <= 3 unless it is n: then all of it)
    size_t units = (nvec + 1) / 2;
    if (head > units)
        units = head;
    if (units < 3)
        units = 3;
    copyVector4<<<blocks_for(units, (size_t)block), block, 0, stream>>>(d_out, d_in, n, head,
                                                                        nvec);
    CML_CHECK_LAUNCH();
}

// ---- 4.2a and 4.2b ------------------------------------------------------------------------

__device__ __forceinline__ float3 moved(float3 p)
{
    return make_float3(2.0f * p.x + POINT_DX, 2.0f * p.y + POINT_DY, 2.0f * p.z + POINT_DZ);
}

// transformFloat3: two points per thread, T apart, both loaded before either is stored.
__global__ void transformFloat3(float3 *__restrict__ out, const float3 *__restrict__ in,
                                size_t n)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += 2 * T) {
        const bool second = i + T < n;
        const float3 a = in[i];
        float3 b;
        if (second)
            b = in[i + T];
        out[i] = moved(a);
        if (second)
            out[i + T] = moved(b);
    }
}

void launch_transform_float3(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    static const int block = block_size_for(transformFloat3);
    transformFloat3<<<blocks_for((n + 1) / 2, (size_t)block), block, 0, stream>>>(
        reinterpret_cast<float3 *>(d_out), reinterpret_cast<const float3 *>(d_in), n);
    CML_CHECK_LAUNCH();
}

// The padded point, aligned with the GNU attribute spelling (alignof(Point4) == 16).
struct __attribute__((aligned(16))) Point4 {
    float x, y, z, w;
};

__device__ __forceinline__ Point4 moved(Point4 p)
{
    return Point4{2.0f * p.x + POINT_DX, 2.0f * p.y + POINT_DY, 2.0f * p.z + POINT_DZ, p.w};
}

// transformPoint4: two whole points per thread, one 128-bit load and store each.
__global__ void transformPoint4(Point4 *__restrict__ out, const Point4 *__restrict__ in,
                                size_t n)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += 2 * T) {
        const bool second = i + T < n;
        const Point4 a = in[i];
        Point4 b;
        if (second)
            b = in[i + T];
        out[i] = moved(a);
        if (second)
            out[i + T] = moved(b);
    }
}

void launch_transform_point4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    static const int block = block_size_for(transformPoint4);
    transformPoint4<<<blocks_for((n + 1) / 2, (size_t)block), block, 0, stream>>>(
        reinterpret_cast<Point4 *>(d_out), reinterpret_cast<const Point4 *>(d_in), n);
    CML_CHECK_LAUNCH();
}
