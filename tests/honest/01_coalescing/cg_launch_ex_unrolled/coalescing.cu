/* Lab 01, global-memory coalescing. Cooperative-groups indexing, launches through
 * cudaLaunchKernelEx, a 4-deep unrolled grid-stride copy. */
#include "coalescing.h"

#include <algorithm>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

namespace {

constexpr unsigned kCopyThreads = 256;
constexpr unsigned kUnroll = 4;

// One cudaLaunchConfig_t built the same way for every wrapper.
inline cudaLaunchConfig_t make_config(dim3 grid, dim3 block, cudaStream_t stream)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = 0;
    cfg.stream = stream;
    cfg.attrs = nullptr;
    cfg.numAttrs = 0;
    return cfg;
}

int sm_count()
{
    static const int sms = [] {
        int dev = 0, v = 0;
        CML_CHECK(cudaGetDevice(&dev));
        CML_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev));
        return v;
    }();
    return sms;
}

// first global index of this thread and the number of threads in the grid, both 64-bit
__device__ __forceinline__ size_t global_rank(const cg::thread_block &b)
{
    return (size_t)b.group_index().x * b.dim_threads().x + b.thread_index().x;
}
__device__ __forceinline__ size_t grid_threads(const cg::thread_block &b)
{
    return (size_t)gridDim.x * b.dim_threads().x;
}

} // namespace

// ---- 1.1 --------------------------------------------------------------------------------
__global__ void copyCoalesced(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    const cg::thread_block block = cg::this_thread_block();
    const size_t T = grid_threads(block);
    size_t i = global_rank(block);
    // main part: kUnroll independent loads (g, g+T, g+2T, g+3T) before the stores
    for (; i + (kUnroll - 1) * T < n; i += kUnroll * T) {
        float v[kUnroll];
#pragma unroll
        for (unsigned k = 0; k < kUnroll; ++k)
            v[k] = in[i + k * T];
#pragma unroll
        for (unsigned k = 0; k < kUnroll; ++k)
            out[i + k * T] = v[k];
    }
    // what is left: fewer than kUnroll steps of the same walk
    for (; i < n; i += T)
        out[i] = in[i];
}

void launch_copy_coalesced(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    if (n == 0)
        return;
    const size_t want = (n + kCopyThreads * kUnroll - 1) / (kCopyThreads * kUnroll);
    const size_t cap = (size_t)sm_count() * 32;
    const unsigned blocks = (unsigned)std::max<size_t>(1, std::min(want, cap));
    cudaLaunchConfig_t cfg = make_config(dim3(blocks), dim3(kCopyThreads), stream);
    CML_CHECK(cudaLaunchKernelEx(&cfg, copyCoalesced, d_out, d_in, n));
    CML_CHECK_LAUNCH();
}

// ---- 1.2a and 1.2b ----------------------------------------------------------------------
// One helper moves one element; the two kernels only choose which matrix index x walks.
__device__ __forceinline__ void move_one(float *__restrict__ out, const float *__restrict__ in,
                                         int r, int c, int rows, int cols)
{
    if (r < rows && c < cols)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

__global__ void transposeNaiveReadCoalesced(float *__restrict__ out,
                                            const float *__restrict__ in, int rows, int cols)
{
    const cg::thread_block b = cg::this_thread_block();
    const int c = (int)(b.group_index().x * b.dim_threads().x + b.thread_index().x);
    const int r = (int)(b.group_index().y * b.dim_threads().y + b.thread_index().y);
    move_one(out, in, r, c, rows, cols);
}

void launch_transpose_naive_read_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                           cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((unsigned)((cols + 31) / 32), (unsigned)((rows + 7) / 8));
    cudaLaunchConfig_t cfg = make_config(grid, block, stream);
    CML_CHECK(cudaLaunchKernelEx(&cfg, transposeNaiveReadCoalesced, d_out, d_in, rows, cols));
    CML_CHECK_LAUNCH();
}

__global__ void transposeNaiveWriteCoalesced(float *__restrict__ out,
                                             const float *__restrict__ in, int rows, int cols)
{
    const cg::thread_block b = cg::this_thread_block();
    const int r = (int)(b.group_index().x * b.dim_threads().x + b.thread_index().x);
    const int c = (int)(b.group_index().y * b.dim_threads().y + b.thread_index().y);
    move_one(out, in, r, c, rows, cols);
}

void launch_transpose_naive_write_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                            cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((unsigned)((rows + 31) / 32), (unsigned)((cols + 7) / 8));
    cudaLaunchConfig_t cfg = make_config(grid, block, stream);
    CML_CHECK(cudaLaunchKernelEx(&cfg, transposeNaiveWriteCoalesced, d_out, d_in, rows, cols));
    CML_CHECK_LAUNCH();
}

// ---- 1.3 --------------------------------------------------------------------------------
__global__ void copyOffsetStride(float *__restrict__ out, const float *__restrict__ in,
                                 size_t n, size_t offset, size_t stride)
{
    const cg::thread_block block = cg::this_thread_block();
    const size_t T = grid_threads(block);
    for (size_t i = global_rank(block); i < n; i += T)
        out[i] = in[offset + i * stride];
}

void launch_copy_offset_stride(float *d_out, const float *d_in, size_t n, size_t offset,
                               size_t stride, cudaStream_t stream)
{
    if (n == 0)
        return;
    const size_t want = (n + kCopyThreads - 1) / kCopyThreads;
    const unsigned blocks =
        (unsigned)std::max<size_t>(1, std::min<size_t>(want, (size_t)sm_count() * 32));
    cudaLaunchConfig_t cfg = make_config(dim3(blocks), dim3(kCopyThreads), stream);
    CML_CHECK(cudaLaunchKernelEx(&cfg, copyOffsetStride, d_out, d_in, n, offset, stride));
    CML_CHECK_LAUNCH();
}
