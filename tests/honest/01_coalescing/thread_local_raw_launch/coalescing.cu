/* Lab 01, global-memory coalescing. Variant: the SM count and the per-kernel occupancy are kept
 * in `thread_local` caches (each host thread asks the runtime once), and every kernel is
 * launched through the C runtime API, cudaLaunchKernel, with its arguments packed by a variadic
 * helper (std::array of void*, built with a C++17 fold over a std::tuple and std::apply). */
#include "coalescing.h"

#include <algorithm>
#include <array>
#include <tuple>

namespace {

unsigned resident_blocks(const void *kernel, int threads)
{
    thread_local int per_sm = -1;          // one kernel asks here: the copies share 256 threads
    thread_local const void *asked_for = nullptr;
    if (per_sm < 0 || asked_for != kernel) {
        CML_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
        per_sm = std::max(per_sm, 1);
        asked_for = kernel;
    }
    thread_local const int sms = cml_sm_count();
    return (unsigned)(per_sm * sms);
}

// launch(kernel, grid, block, stream, args...): cudaLaunchKernel wants the address of each
// argument; the tuple keeps the values alive, std::apply hands their addresses to an array.
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream, Args... args)
{
    std::tuple<Params...> values(args...);
    std::array<void *, sizeof...(Params)> ptrs =
        std::apply([](auto &...v) { return std::array<void *, sizeof...(Params)>{(void *)&v...}; },
                   values);
    CML_CHECK(cudaLaunchKernel((const void *)kernel, grid, block, ptrs.data(), 0, stream));
    CML_CHECK_LAUNCH();
}

constexpr int kThreads = 256;

unsigned grid_for(const void *kernel, size_t n)
{
    const size_t want = (n + kThreads - 1) / kThreads;
    return (unsigned)std::max<size_t>(1, std::min<size_t>(want, resident_blocks(kernel, kThreads)));
}

} // namespace

// ---- 1.1 --------------------------------------------------------------------------------
// Thread g of T copies g, g + T, g + 2T, ...: at each step lane l touches float base + l.
__global__ void copyCoalesced(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += T)
        out[i] = __ldg(in + i);
}

void launch_copy_coalesced(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    launch(copyCoalesced, dim3(grid_for((const void *)copyCoalesced, n)), dim3(kThreads), stream,
           d_out, d_in, n);
}

// ---- 1.2a and 1.2b ----------------------------------------------------------------------
__global__ void transposeNaiveReadCoalesced(float *__restrict__ out,
                                            const float *__restrict__ in, int rows, int cols)
{
    const unsigned c = blockIdx.x * blockDim.x + threadIdx.x; // along a row of in
    const unsigned r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < (unsigned)rows && c < (unsigned)cols)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

void launch_transpose_naive_read_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                           cudaStream_t stream)
{
    const dim3 block(32, 8), grid((cols + 31) / 32, (rows + 7) / 8);
    launch(transposeNaiveReadCoalesced, grid, block, stream, d_out, d_in, rows, cols);
}

__global__ void transposeNaiveWriteCoalesced(float *__restrict__ out,
                                             const float *__restrict__ in, int rows, int cols)
{
    const unsigned r = blockIdx.x * blockDim.x + threadIdx.x; // along a row of out
    const unsigned c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < (unsigned)rows && c < (unsigned)cols)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

void launch_transpose_naive_write_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                            cudaStream_t stream)
{
    const dim3 block(32, 8), grid((rows + 31) / 32, (cols + 7) / 8);
    launch(transposeNaiveWriteCoalesced, grid, block, stream, d_out, d_in, rows, cols);
}

// ---- 1.3 --------------------------------------------------------------------------------
__global__ void copyOffsetStride(float *__restrict__ out, const float *__restrict__ in,
                                 size_t n, size_t offset, size_t stride)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += T)
        out[i] = in[offset + i * stride]; // size_t throughout: the input passes 2^31 floats
}

void launch_copy_offset_stride(float *d_out, const float *d_in, size_t n, size_t offset,
                               size_t stride, cudaStream_t stream)
{
    launch(copyOffsetStride, dim3(grid_for((const void *)copyOffsetStride, n)), dim3(kThreads),
           stream, d_out, d_in, n, offset, stride);
}
