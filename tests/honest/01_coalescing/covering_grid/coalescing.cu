/* Lab 01, global-memory coalescing: a grid that covers n (the grid-stride loop then runs once
 * per thread for sizes that fit), indices from cooperative groups. 中文注释: 合并访问 🚀 */
#include "coalescing.h"

#include <cooperative_groups.h>

#include <algorithm>

namespace cg = cooperative_groups;

constexpr unsigned THREADS = 512;
constexpr unsigned MAX_BLOCKS = 1u << 20; // beyond this the loop takes over

// ceil_div: a constexpr helper, used on the host for grid sizes.
constexpr size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }
static_assert(ceil_div(4097, 512) == 9, "ceil_div rounds up");

// copyCoalesced: thread g of the grid copies g, g + T, ...; T = every thread of the grid.
__global__ void copyCoalesced(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    const cg::thread_block block = cg::this_thread_block();
    const size_t T = (size_t)gridDim.x * block.size();
    for (size_t g = (size_t)block.group_index().x * block.size() + block.thread_rank(); g < n;
         g += T)
        out[g] = in[g];
}

void launch_copy_coalesced(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const auto blocks = (unsigned)std::clamp<size_t>(ceil_div(n, THREADS), 1, MAX_BLOCKS);
    copyCoalesced<<<blocks, THREADS, 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// transposeNaiveReadCoalesced: 🧵 x runs along a row of in (cols), y down its rows.
__global__ void transposeNaiveReadCoalesced(float *__restrict__ out,
                                            const float *__restrict__ in, int rows, int cols)
{
    const dim3 t = cg::this_thread_block().thread_index();
    const size_t c = (size_t)blockIdx.x * blockDim.x + t.x;
    const size_t r = (size_t)blockIdx.y * blockDim.y + t.y;
    if (r < (size_t)rows && c < (size_t)cols)
        out[c * rows + r] = in[r * cols + c];
}

void launch_transpose_naive_read_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                           cudaStream_t stream)
{
    const dim3 block{32, 8};
    const dim3 grid{(unsigned)ceil_div(cols, block.x), (unsigned)ceil_div(rows, block.y)};
    transposeNaiveReadCoalesced<<<grid, block, 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// transposeNaiveWriteCoalesced: x runs along a row of out (rows of in), y along cols.
__global__ void transposeNaiveWriteCoalesced(float *__restrict__ out,
                                             const float *__restrict__ in, int rows, int cols)
{
    const size_t r = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t c = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    if (r < (size_t)rows && c < (size_t)cols)
        out[c * rows + r] = in[r * cols + c];
}

void launch_transpose_naive_write_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                            cudaStream_t stream)
{
    const dim3 block{32, 8};
    const dim3 grid{(unsigned)ceil_div(rows, block.x), (unsigned)ceil_div(cols, block.y)};
    transposeNaiveWriteCoalesced<<<grid, block, 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// copyOffsetStride ✅ size_t everywhere: offset + i*stride passes 2^31 at stride 32.
__global__ void copyOffsetStride(float *__restrict__ out, const float *__restrict__ in,
                                 size_t n, size_t offset, size_t stride)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += T)
        out[i] = in[offset + i * stride];
}

void launch_copy_offset_stride(float *d_out, const float *d_in, size_t n, size_t offset,
                               size_t stride, cudaStream_t stream)
{
    const auto blocks = (unsigned)std::clamp<size_t>(ceil_div(n, THREADS), 1, MAX_BLOCKS);
    copyOffsetStride<<<blocks, THREADS, 0, stream>>>(d_out, d_in, n, offset, stride);
    CML_CHECK_LAUNCH();
}
