/* Lab 04, 16-byte vector access. Variant: 4.1 moves its 16-byte middle as ulonglong2 (two
 * 64-bit integers: pure bit moves, ld/st .v2.u64) with the streaming cache hints __ldcs and
 * __stcs, two vectors per thread and step; 4.2a stages a block's 256 float3 points (3 KB) through
 * shared memory with float4 loads and stores, so even the packed layout moves 16 bytes per
 * instruction, with a float-by-float path for the last partial block; 4.2b reads each point
 * with one __ldg of a float4. */
#include "vectorized.h"

#include <algorithm>
#include <stdint.h>

namespace {
constexpr unsigned kThreads = 256;

unsigned blocks_for(size_t work)
{
    return (unsigned)std::max<size_t>(
        1, std::min<size_t>((work + kThreads - 1) / kThreads, (size_t)cml_sm_count() * 16));
}
} // namespace

// ---- 4.1 --------------------------------------------------------------------------------

// copyVector4: vectors j and j + T of the aligned middle per step (two 128-bit loads in flight
// per thread), then the head [0, head) and the tail [head + 4*nvec, n) float by float.
__global__ void __launch_bounds__(kThreads)
    copyVector4(float *__restrict__ out, const float *__restrict__ in, size_t n, size_t head,
                size_t nvec)
{
    const size_t T = (size_t)gridDim.x * blockDim.x, g = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const ulonglong2 *src = reinterpret_cast<const ulonglong2 *>(in + head);
    ulonglong2 *dst = reinterpret_cast<ulonglong2 *>(out + head);
    size_t j = g;
    for (; j + T < nvec; j += 2 * T) {
        const ulonglong2 a = __ldcs(src + j), b = __ldcs(src + j + T);
        __stcs(dst + j, a);
        __stcs(dst + j + T, b);
    }
    if (j < nvec) // the one vector left for this thread when its last step had no partner
        __stcs(dst + j, __ldcs(src + j));
    for (size_t i = g; i < head; i += T)
        out[i] = in[i];
    for (size_t i = head + 4 * nvec + g; i < n; i += T)
        out[i] = in[i];
}

void launch_copy_vec4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const size_t in_mis = (uintptr_t)d_in / 4 % 4, out_mis = (uintptr_t)d_out / 4 % 4;
    // both pointers are aligned by the same head only when they are misaligned alike;
    // otherwise the accepted fallback: everything as floats (head = n, nvec = 0)
    const size_t head = in_mis == out_mis ? std::min<size_t>((4 - in_mis) % 4, n) : n;
    const size_t nvec = (n - head) / 4;
    copyVector4<<<blocks_for((nvec + 1) / 2 + (nvec == 0 ? head : 0)), kThreads, 0, stream>>>(
        d_out, d_in, n, head, nvec);
    CML_CHECK_LAUNCH();
}

// ---- 4.2a and 4.2b ------------------------------------------------------------------------

__device__ __forceinline__ float3 moved(float3 p)
{
    return make_float3(2.0f * p.x + POINT_DX, 2.0f * p.y + POINT_DY, 2.0f * p.z + POINT_DZ);
}

// transformFloat3: chunk c holds points [256c, 256c + 256): 768 floats = 192 float4s, and starts
// at byte 3072c of a 16-byte aligned buffer, so a whole chunk moves as float4s: load into
// shared memory, move each point there (thread t owns words 3t .. 3t + 2: stride 3, no bank
// conflict), store back as float4s. The last, partial chunk moves point by point.
__global__ void __launch_bounds__(kThreads)
    transformFloat3(float3 *__restrict__ out, const float3 *__restrict__ in, size_t n)
{
    __shared__ float4 stage[kThreads * 3 / 4];
    float *s = reinterpret_cast<float *>(stage);
    const size_t whole = n / kThreads; // full chunks
    const unsigned t = threadIdx.x;
    for (size_t c = blockIdx.x; c < whole; c += gridDim.x) { // same trip count for the block
        const float4 *src = reinterpret_cast<const float4 *>(in + c * kThreads);
        float4 *dst = reinterpret_cast<float4 *>(out + c * kThreads);
        if (t < kThreads * 3 / 4)
            stage[t] = src[t];
        __syncthreads();
        const float3 p = moved(make_float3(s[3 * t], s[3 * t + 1], s[3 * t + 2]));
        s[3 * t] = p.x, s[3 * t + 1] = p.y, s[3 * t + 2] = p.z;
        __syncthreads();
        if (t < kThreads * 3 / 4)
            dst[t] = stage[t];
        __syncthreads(); // the next chunk's loads overwrite the stage
    }
    // the partial chunk, by block 0 (fewer than 256 points)
    if (blockIdx.x == 0 && whole * kThreads + t < n)
        out[whole * kThreads + t] = moved(in[whole * kThreads + t]);
}

void launch_transform_float3(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const size_t chunks = n / kThreads + 1;
    const unsigned blocks =
        (unsigned)std::min<size_t>(chunks, (size_t)cml_sm_count() * 8);
    transformFloat3<<<blocks, kThreads, 0, stream>>>(reinterpret_cast<float3 *>(d_out),
                                                     reinterpret_cast<const float3 *>(d_in), n);
    CML_CHECK_LAUNCH();
}

struct __align__(16) Point4 {
    float x, y, z, w;
};

// transformPoint4: one 128-bit load (__ldg of the point as a float4) and one 128-bit store.
__global__ void __launch_bounds__(kThreads)
    transformPoint4(Point4 *__restrict__ out, const Point4 *__restrict__ in, size_t n)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += T) {
        const float4 p = __ldg(reinterpret_cast<const float4 *>(in + i));
        out[i] = Point4{2.0f * p.x + POINT_DX, 2.0f * p.y + POINT_DY, 2.0f * p.z + POINT_DZ, p.w};
    }
}

void launch_transform_point4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    transformPoint4<<<blocks_for(n), kThreads, 0, stream>>>(reinterpret_cast<Point4 *>(d_out),
                                                            reinterpret_cast<const Point4 *>(d_in),
                                                            n);
    CML_CHECK_LAUNCH();
}
