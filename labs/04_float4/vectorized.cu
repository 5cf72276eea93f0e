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
    // TODO(4.1): with a grid-stride loop, copy float4 j = 0..nvec-1 of the middle, which starts
    //   at in + head and out + head; then floats [0, head) and [head + 4*nvec, n) one by one.
    //   HINT: which float4 does in + head point at, and why may you cast it to float4 at all?
}

void launch_copy_vec4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    // TODO(4.1): find how many floats each pointer is past a 16-byte boundary, choose head (the
    //   floats to peel so that in + head and out + head are both 16-byte aligned) and nvec,
    //   launch copyVector4 on `stream`, then CML_CHECK_LAUNCH().
    //   HINT: d_in is 1 float past a boundary and d_out 2: which head aligns both?
    CML_TODO("4.1", "write copyVector4 and launch it in launch_copy_vec4");
    (void)d_out, (void)d_in, (void)n, (void)stream; // stub: delete
}

// ---- 4.2a and 4.2b ------------------------------------------------------------------------
// The same move of n points, packed in 12 bytes (float3) or padded to 16 (Point4).

// transformFloat3: float3 is 12 bytes with 4-byte alignment, so each point takes three 32-bit
// loads and three 32-bit stores.
__global__ void transformFloat3(float3 *__restrict__ out, const float3 *__restrict__ in,
                                size_t n)
{
    // TODO(4.2a): with a grid-stride loop, out[i] = 2*in[i] + (POINT_DX, POINT_DY, POINT_DZ),
    //   component by component (make_float3 builds a float3).


}

void launch_transform_float3(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    // TODO(4.2a): launch transformFloat3 on the float buffers seen as float3 arrays, then
    //   CML_CHECK_LAUNCH().
    CML_TODO("4.2a", "write transformFloat3 and launch it");
    (void)d_out, (void)d_in, (void)n, (void)stream; // stub: delete

}

// A point padded to 16 bytes. TODO(4.2b): give it 16-byte alignment (__align__), so that
// the compiler may move a whole point with one instruction. HINT: what is alignof(Point4) now?
struct Point4 {
    float x, y, z, w;
};

// transformPoint4: the padded point is one 128-bit load and one 128-bit store; w rides along.
__global__ void transformPoint4(Point4 *__restrict__ out, const Point4 *__restrict__ in,
                                size_t n)
{
    // TODO(4.2b): as 4.2a, on Point4: read the point once, write it once, w unchanged.



}

void launch_transform_point4(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    // TODO(4.2b): launch transformPoint4 on the buffers seen as Point4 arrays, then
    //   CML_CHECK_LAUNCH().
    CML_TODO("4.2b", "write transformPoint4 and launch it");
    (void)d_out, (void)d_in, (void)n, (void)stream; // stub: delete

}
