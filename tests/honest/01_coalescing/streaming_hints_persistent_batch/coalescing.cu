/* Lab 01, global-memory coalescing.
 * My version: the copies use the streaming cache hints (__ldcs / __stcs: data touched once,
 * evict first) and a grid sized from the SM count, each thread keeping four independent loads
 * in flight before it stores. The transposes use a 1-D grid of 32 x 8 blocks that each block
 * decodes into its tile coordinates. Every index that can pass 2^31 is a size_t. */
#include "coalescing.h"

#include <algorithm>

namespace {

constexpr int kCopyThreads = 256;  // threads per block for the copies
constexpr int kBatch = 4;          // loads each thread issues before it stores
constexpr int kBlocksPerSm = 8;    // 8 x 256 = 2048 threads: a full SM on Hopper

// A grid that fills the GPU once: more blocks only add scheduling, the loop does the rest.
unsigned persistent_blocks(size_t work_items)
{
    const size_t want = (work_items + kCopyThreads - 1) / kCopyThreads;
    const size_t full = (size_t)cml_sm_count() * kBlocksPerSm;
    return (unsigned)std::max<size_t>(1, std::min(want, full));
}

} // namespace

// ---- 1.1 --------------------------------------------------------------------------------
// copyCoalesced: thread g copies g, g + T, g + 2T, ... (T threads in the grid). At every step
// lane l of a warp touches the float right after lane l-1's: one 128-byte line per warp. The
// loop body handles kBatch steps at once (loads first, then stores) so that each thread has
// four requests in flight; the remainder loop finishes whatever the batches left.
__global__ void __launch_bounds__(kCopyThreads)
    copyCoalesced(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

    // whole batches: i + (kBatch-1)*T < n
    for (; i + (kBatch - 1) * T < n; i += kBatch * T) {
        float v[kBatch];
#pragma unroll
        for (int k = 0; k < kBatch; k++)
            v[k] = __ldcs(in + i + k * T);
#pragma unroll
        for (int k = 0; k < kBatch; k++)
            __stcs(out + i + k * T, v[k]);
    }
    // the last, partial batch
    for (; i < n; i += T)
        __stcs(out + i, __ldcs(in + i));
}

void launch_copy_coalesced(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    copyCoalesced<<<persistent_blocks(n), kCopyThreads, 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- 1.2a and 1.2b ----------------------------------------------------------------------
// out[c*rows + r] = in[r*cols + c]. Both kernels use 32 x 8 blocks on a 1-D grid: block b is
// tile (b % tiles_x, b / tiles_x), where tiles_x counts the tiles along the dimension that
// threadIdx.x walks.

// transposeNaiveReadCoalesced: threadIdx.x walks along a row of in (c), so a warp reads 32
// neighbouring floats and writes 32 floats `rows` apart.
__global__ void transposeNaiveReadCoalesced(float *__restrict__ out,
                                            const float *__restrict__ in, int rows, int cols)
{
    const unsigned tiles_x = (cols + 31) / 32;
    const int c = (int)(blockIdx.x % tiles_x) * 32 + threadIdx.x;
    const int r = (int)(blockIdx.x / tiles_x) * 8 + threadIdx.y;
    if (c < cols && r < rows)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

void launch_transpose_naive_read_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                           cudaStream_t stream)
{
    const size_t tiles = (size_t)((cols + 31) / 32) * ((rows + 7) / 8);
    transposeNaiveReadCoalesced<<<(unsigned)tiles, dim3(32, 8), 0, stream>>>(d_out, d_in, rows,
                                                                             cols);
    CML_CHECK_LAUNCH();
}

// transposeNaiveWriteCoalesced: threadIdx.x walks along a row of out (r), so a warp writes 32
// neighbouring floats and reads 32 floats `cols` apart.
__global__ void transposeNaiveWriteCoalesced(float *__restrict__ out,
                                             const float *__restrict__ in, int rows, int cols)
{
    const unsigned tiles_x = (rows + 31) / 32;
    const int r = (int)(blockIdx.x % tiles_x) * 32 + threadIdx.x;
    const int c = (int)(blockIdx.x / tiles_x) * 8 + threadIdx.y;
    if (r < rows && c < cols)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

void launch_transpose_naive_write_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                            cudaStream_t stream)
{
    const size_t tiles = (size_t)((rows + 31) / 32) * ((cols + 7) / 8);
    transposeNaiveWriteCoalesced<<<(unsigned)tiles, dim3(32, 8), 0, stream>>>(d_out, d_in, rows,
                                                                              cols);
    CML_CHECK_LAUNCH();
}

// ---- 1.3 --------------------------------------------------------------------------------
// copyOffsetStride: out[i] = in[offset + i*stride]. The source is walked with a pointer: each
// thread starts at in + offset + g*stride and steps T*stride floats; all the arithmetic is in
// size_t (the graded inputs go past 2^32 floats, and offset alone past 2^31).
__global__ void copyOffsetStride(float *__restrict__ out, const float *__restrict__ in,
                                 size_t n, size_t offset, size_t stride)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float *src = in + offset + i * stride;
    const size_t src_step = T * stride;
    for (; i < n; i += T, src += src_step)
        __stcs(out + i, __ldcs(src));
}

void launch_copy_offset_stride(float *d_out, const float *d_in, size_t n, size_t offset,
                               size_t stride, cudaStream_t stream)
{
    copyOffsetStride<<<persistent_blocks(n), kCopyThreads, 0, stream>>>(d_out, d_in, n, offset,
                                                                        stride);
    CML_CHECK_LAUNCH();
}
