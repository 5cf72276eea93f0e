/* Lab 04, 16-byte vector access: the kernels you write and their launch wrappers.
 * Edit only this file; the harness (harness.cu) allocates, fills, checks and times.
 * Build and grade with `make grade LAB=04`; EXERCISE.md walks through the tasks. */
#include "vectorized.h"

#include <algorithm>
#include <stdint.h>

// ---- 4.1 --------------------------------------------------------------------------------
// The "before" kernel is copyScalar in harness.cu: one float, one 4-byte load per thread.

// copyVector4: the 16-byte aligned middle moves as float4 (one 128-bit load and store per
// step); the unaligned head and the tail, fewer than 4 floats each, move as floats.
__global__ void copyVector4(float *__restrict__ out, const float *__restrict__ in, size_t n,
                            size_t head, size_t nvec)
{
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t step = (size_t)gridDim.x * blockDim.x, tail = head + 4 * nvec;
    const float4 *in4 = reinterpret_cast<const float4 *>(in + head);
    float4 *out4 = reinterpret_cast<float4 *>(out + head);
    for (size_t i = t; i < nvec; i += step)
        out4[i] = in4[i];
    for (size_t i = t; i < head; i += step)
        out[i] = in[i];
    for (size_t i = tail + t; i < tail; i += step) // planted bug: the tail is never copied
        out[i] = in[i];
}

void launch_copy_vec4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const size_t in_mis = ((uintptr_t)d_in / sizeof(float)) % 4;
    const size_t out_mis = ((uintptr_t)d_out / sizeof(float)) % 4;
    // same misalignment: peel floats until both are 16-byte aligned; else no float4 can serve both
    const size_t head = in_mis == out_mis ? std::min<size_t>((4 - in_mis) % 4, n) : n;
    const size_t nvec = (n - head) / 4, most = std::max<size_t>(nvec, std::max<size_t>(head, 3));
    const int threads = 256;
    const size_t blocks = std::min<size_t>((most + threads - 1) / threads, (size_t)1 << 20);
    copyVector4<<<(unsigned)blocks, threads, 0, stream>>>(d_out, d_in, n, head, nvec);
    CML_CHECK_LAUNCH();
}

// ---- 4.2a and 4.2b ------------------------------------------------------------------------
// The same move of n points, packed in 12 bytes (float3) or padded to 16 (Point4).

// transformFloat3: float3 is 12 bytes with 4-byte alignment, so each point takes three 32-bit
// loads and three 32-bit stores.
__global__ void transformFloat3(float3 *__restrict__ out, const float3 *__restrict__ in,
                                size_t n)
{
    const size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += step) {
        const float3 p = in[i];
        out[i] = make_float3(2.0f * p.x + POINT_DX, 2.0f * p.y + POINT_DY, 2.0f * p.z + POINT_DZ);
    }
}

void launch_transform_float3(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const int threads = 256;
    const size_t blocks = std::min<size_t>((n + threads - 1) / threads, (size_t)1 << 20);
    transformFloat3<<<(unsigned)blocks, threads, 0, stream>>>(
        reinterpret_cast<float3 *>(d_out), reinterpret_cast<const float3 *>(d_in), n);
    CML_CHECK_LAUNCH();
}

// A point padded to 16 bytes. The alignment is what lets the compiler move it in one piece.
struct __align__(16) Point4 {
    float x, y, z, w;
};

// transformPoint4: the padded point is one 128-bit load and one 128-bit store; w rides along.
__global__ void transformPoint4(Point4 *__restrict__ out, const Point4 *__restrict__ in,
                                size_t n)
{
    const size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += step) {
        const Point4 p = in[i];
        out[i] = Point4{2.0f * p.x + POINT_DX, 2.0f * p.y + POINT_DY, 2.0f * p.z + POINT_DZ, p.w};
    }
}

void launch_transform_point4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const int threads = 256;
    const size_t blocks = std::min<size_t>((n + threads - 1) / threads, (size_t)1 << 20);
    transformPoint4<<<(unsigned)blocks, threads, 0, stream>>>(
        reinterpret_cast<Point4 *>(d_out), reinterpret_cast<const Point4 *>(d_in), n);
    CML_CHECK_LAUNCH();
}
