/* Lab 01, global-memory coalescing: the kernels you write and their launch wrappers.
 * Edit only this file; the harness (harness.cu) allocates, fills, checks and times.
 * Build and grade with `make grade LAB=01`; EXERCISE.md walks through the tasks. */
#include "coalescing.h"

#include <algorithm>

// ---- 1.1 --------------------------------------------------------------------------------
// The "before" kernel is copyChunked in harness.cu: thread t copies its own stretch
// [t*CHUNK, (t+1)*CHUNK), so at every step the 32 lanes of a warp are CHUNK floats apart.

// copyCoalesced: neighbouring threads copy neighbouring floats, so each warp step reads and
// writes one contiguous 128-byte line; the grid-stride loop lets any grid cover any n.
__global__ void copyCoalesced(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    // TODO(1.1): copy in[0..n) to out[0..n) with a grid-stride loop: thread g of the grid
    //   handles g, g + T, g + 2T, ... where T is the number of threads in the whole grid.
    //   HINT: at one step of your loop, which float does lane 0 touch, and lane 1?
}

void launch_copy_coalesced(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    // TODO(1.1): launch copyCoalesced on `stream`, then CML_CHECK_LAUNCH().
    //   HINT: with a grid-stride loop, must the grid cover all n elements?
    CML_TODO("1.1", "write copyCoalesced and launch it in launch_copy_coalesced");
    (void)d_out, (void)d_in, (void)n, (void)stream; // stub: delete
}

// ---- 1.2a and 1.2b ----------------------------------------------------------------------
// in is rows x cols, row-major; out is cols x rows: out[c*rows + r] = in[r*cols + c].
// Both kernels use 32 x 8 blocks; they differ only in which index threadIdx.x walks along.

// transposeNaiveReadCoalesced: threadIdx.x walks along a row of in, so reads coalesce; the
// writes of one warp land `rows` floats apart, each in a sector of its own.
__global__ void transposeNaiveReadCoalesced(float *__restrict__ out,
                                            const float *__restrict__ in, int rows, int cols)
{
    // TODO(1.2a): one element per thread; neighbouring threads read neighbouring floats of in.
    //   Guard both indices: the grid rounds rows and cols up to whole blocks.
}

void launch_transpose_naive_read_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                           cudaStream_t stream)
{
    // TODO(1.2a): launch transposeNaiveReadCoalesced with 32 x 8 blocks, then CML_CHECK_LAUNCH().
    //   HINT: which of rows and cols does gridDim.x have to cover?
    CML_TODO("1.2a", "write transposeNaiveReadCoalesced and launch it");
    (void)d_out, (void)d_in, (void)rows, (void)cols, (void)stream; // stub: delete
}

// transposeNaiveWriteCoalesced: threadIdx.x walks along a row of out, so writes coalesce; the
// reads of one warp are `cols` floats apart.
__global__ void transposeNaiveWriteCoalesced(float *__restrict__ out,
                                             const float *__restrict__ in, int rows, int cols)
{
    // TODO(1.2b): one element per thread; neighbouring threads write neighbouring floats of out.
    //   Guard both indices, as in 1.2a.
}

void launch_transpose_naive_write_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                            cudaStream_t stream)
{
    // TODO(1.2b): launch transposeNaiveWriteCoalesced with 32 x 8 blocks, then CML_CHECK_LAUNCH().
    CML_TODO("1.2b", "write transposeNaiveWriteCoalesced and launch it");
    (void)d_out, (void)d_in, (void)rows, (void)cols, (void)stream; // stub: delete
}

// ---- 1.3 --------------------------------------------------------------------------------
// copyOffsetStride: one kernel for both experiments of section 5: with stride 1 it reads a
// shifted but contiguous range, with stride s a warp's reads spread over 32*s floats.
__global__ void copyOffsetStride(float *__restrict__ out, const float *__restrict__ in,
                                 size_t n, size_t offset, size_t stride)
{
    // TODO(1.3): out[i] = in[offset + i*stride] for every i < n, with a grid-stride loop.
    //   Keep every index in size_t: graded inputs hold more than 2^32 floats.
}

void launch_copy_offset_stride(float *d_out, const float *d_in, size_t n, size_t offset,
                               size_t stride, cudaStream_t stream)
{
    // TODO(1.3): launch copyOffsetStride on `stream`, then CML_CHECK_LAUNCH().
    CML_TODO("1.3", "write copyOffsetStride and launch it");
    (void)d_out, (void)d_in, (void)n, (void)offset, (void)stride, (void)stream; // stub: delete
}
