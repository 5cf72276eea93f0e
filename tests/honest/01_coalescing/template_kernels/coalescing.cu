/* Lab 01, global-memory coalescing: my answers, written with templates so that one kernel body
 * serves both naive transposes and one launch helper serves every task. */
#include "coalescing.h"

#include <algorithm>

namespace {
constexpr int BLOCK_X = 32; // a warp along x
constexpr int BLOCK_Y = 8;
constexpr int COPY_THREADS = 256;
constexpr int UNROLL = 4; // loads in flight per thread before its first store
static_assert(BLOCK_X == 32, "threadIdx.x must span one warp for the coalescing to show");
} // namespace

// ---- 1.1 --------------------------------------------------------------------------------
// copyCoalesced: thread g copies g, g+T, g+2T, ...; UNROLL of those per round, loads first.
template <typename T, int U>
__global__ void copyCoalesced(T *__restrict__ out, const T *__restrict__ in, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i + (U - 1) * stride < n; i += U * stride) {
        T v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            v[u] = in[i + u * stride];
#pragma unroll
        for (int u = 0; u < U; u++)
            out[i + u * stride] = v[u];
    }
    for (; i < n; i += stride) // the last partial round
        out[i] = in[i];
}

// Template launch helper: a 1D grid for n elements, capped so that the grid-stride loop runs.
template <int THREADS, typename Kernel, typename... Args>
void launch_1d(Kernel kernel, size_t n, size_t per_thread, cudaStream_t stream, Args... args)
{
    const size_t want = (n + THREADS * per_thread - 1) / (THREADS * per_thread);
    const size_t cap = (size_t)cml_sm_count() * 32;
    const unsigned blocks = (unsigned)std::max<size_t>(1, std::min(want, cap));
    kernel<<<blocks, THREADS, 0, stream>>>(args...);
    CML_CHECK_LAUNCH();
}

void launch_copy_coalesced(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    launch_1d<COPY_THREADS>(copyCoalesced<float, UNROLL>, n, UNROLL, stream, d_out, d_in, n);
}

// ---- 1.2a and 1.2b ----------------------------------------------------------------------
// transposeNaive<true> is transposeNaiveReadCoalesced, transposeNaive<false> is
// transposeNaiveWriteCoalesced: READ_ALONG_X picks whether threadIdx.x walks a row of in
// (reads coalesce) or a row of out (writes coalesce).
template <bool READ_ALONG_X>
__global__ void __launch_bounds__(BLOCK_X *BLOCK_Y)
    transposeNaive(float *__restrict__ out, const float *__restrict__ in, int rows, int cols)
{
    const int fast = blockIdx.x * blockDim.x + threadIdx.x;
    const int slow = blockIdx.y * blockDim.y + threadIdx.y;
    const int r = READ_ALONG_X ? slow : fast;
    const int c = READ_ALONG_X ? fast : slow;
    if (r < rows && c < cols)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

// launch_naive: x covers the extent threadIdx.x walks along (cols when reading along x).
template <bool READ_ALONG_X>
void launch_naive(float *d_out, const float *d_in, int rows, int cols, cudaStream_t stream)
{
    const int along_x = READ_ALONG_X ? cols : rows, along_y = READ_ALONG_X ? rows : cols;
    const dim3 block(BLOCK_X, BLOCK_Y);
    const dim3 grid((along_x + BLOCK_X - 1) / BLOCK_X, (along_y + BLOCK_Y - 1) / BLOCK_Y);
    transposeNaive<READ_ALONG_X><<<grid, block, 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

void launch_transpose_naive_read_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                           cudaStream_t stream)
{
    launch_naive<true>(d_out, d_in, rows, cols, stream);
}

void launch_transpose_naive_write_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                            cudaStream_t stream)
{
    launch_naive<false>(d_out, d_in, rows, cols, stream);
}

// ---- 1.3 --------------------------------------------------------------------------------
// copyOffsetStride: every index in size_t, the input may hold more than 2^31 floats.
template <typename Index>
__global__ void copyOffsetStride(float *__restrict__ out, const float *__restrict__ in,
                                 Index n, Index offset, Index stride)
{
    const Index step = (Index)gridDim.x * blockDim.x;
    for (Index i = blockIdx.x * (Index)blockDim.x + threadIdx.x; i < n; i += step)
        out[i] = in[offset + i * stride];
}

void launch_copy_offset_stride(float *d_out, const float *d_in, size_t n, size_t offset,
                               size_t stride, cudaStream_t stream)
{
    launch_1d<COPY_THREADS>(copyOffsetStride<size_t>, n, 1, stream, d_out, d_in, n, offset, stride);
}
