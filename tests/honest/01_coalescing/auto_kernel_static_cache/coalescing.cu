/* Lab 01, global-memory coalescing: the kernels you write and their launch wrappers.
 * Variant: every launch goes through one C++17 helper, `Launcher<&kernel>`, whose kernel is a
 * `template <auto>` parameter and whose grid size is cached per kernel in a function-local
 * static of a class template (one cache per instantiation, computed on first use from the
 * occupancy API). Copies use the streaming cache hints (__ldcs / __stcs). */
#include "coalescing.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace lab01 {

// ---- small C++17 helpers (host side) ---------------------------------------------------------

constexpr unsigned ceil_div(size_t a, unsigned b) { return (unsigned)((a + b - 1) / b); }

// How many blocks of `threads` of Kernel the whole GPU holds at once. The value is cached in a
// static local of the class template: one cache per kernel, filled on first use only.
template <auto Kernel> struct Launcher {
    static_assert(std::is_pointer_v<decltype(Kernel)>, "Launcher takes a kernel's address");

    static unsigned resident_blocks(int threads)
    {
        static const unsigned cached = [threads] {
            int per_sm = 0;
            CML_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, threads, 0));
            return (unsigned)std::max(1, per_sm) * (unsigned)cml_sm_count();
        }();
        return cached;
    }

    template <class... Args>
    static void launch(dim3 grid, dim3 block, cudaStream_t stream, Args... args)
    {
        Kernel<<<grid, block, 0, stream>>>(args...);
        CML_CHECK_LAUNCH();
    }
};

inline constexpr int kCopyThreads = 256;
inline constexpr int kUnroll = 4; // independent loads in flight per thread and step

} // namespace lab01

using lab01::ceil_div;
using lab01::kCopyThreads;
using lab01::kUnroll;
using lab01::Launcher;

// ---- 1.1 --------------------------------------------------------------------------------
// copyCoalesced: thread g of T copies g, g+T, g+2T, ...; the loop body handles four of those
// (g + k*T, k < 4) before moving on by 4T, so each thread has four loads in flight. At every
// load, lane l of a warp touches float (warp_base + l): one 128-byte line per warp instruction.
__global__ void __launch_bounds__(kCopyThreads)
    copyCoalesced(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += kUnroll * T) {
        float v[kUnroll];
#pragma unroll
        for (int k = 0; k < kUnroll; k++) // i + k*T < n checked per element: tails of any size
            if (i + k * T < n)
                v[k] = __ldcs(in + i + k * T);
#pragma unroll
        for (int k = 0; k < kUnroll; k++)
            if (i + k * T < n)
                __stcs(out + i + k * T, v[k]);
    }
}

void launch_copy_coalesced(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    using L = Launcher<&copyCoalesced>;
    // never more blocks than the data needs (n = 1 gets one block), never more than resident
    const unsigned blocks =
        std::max(1u, std::min(ceil_div(n, kCopyThreads * kUnroll), L::resident_blocks(kCopyThreads)));
    L::launch(dim3(blocks), dim3(kCopyThreads), stream, d_out, d_in, n);
}

// ---- 1.2a and 1.2b ----------------------------------------------------------------------
// in is rows x cols, row-major; out is cols x rows: out[c*rows + r] = in[r*cols + c].
// Both kernels use 32 x 8 blocks; they share one element mover and differ only in which
// index threadIdx.x walks along.
template <bool AlongInRow>
__device__ __forceinline__ void move_one(float *__restrict__ out, const float *__restrict__ in,
                                         int rows, int cols)
{
    // AlongInRow:  x walks c (a row of in), y walks r; grid.x covers cols, grid.y covers rows.
    // otherwise:   x walks r (a row of out), y walks c; grid.x covers rows, grid.y covers cols.
    const int fast = blockIdx.x * blockDim.x + threadIdx.x;
    const int slow = blockIdx.y * blockDim.y + threadIdx.y;
    const int r = AlongInRow ? slow : fast;
    const int c = AlongInRow ? fast : slow;
    if (r < rows && c < cols)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

__global__ void transposeNaiveReadCoalesced(float *__restrict__ out,
                                            const float *__restrict__ in, int rows, int cols)
{
    move_one<true>(out, in, rows, cols);
}

void launch_transpose_naive_read_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                           cudaStream_t stream)
{
    const dim3 block(32, 8), grid(ceil_div((size_t)cols, 32), ceil_div((size_t)rows, 8));
    Launcher<&transposeNaiveReadCoalesced>::launch(grid, block, stream, d_out, d_in, rows, cols);
}

__global__ void transposeNaiveWriteCoalesced(float *__restrict__ out,
                                             const float *__restrict__ in, int rows, int cols)
{
    move_one<false>(out, in, rows, cols);
}

void launch_transpose_naive_write_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                            cudaStream_t stream)
{
    const dim3 block(32, 8), grid(ceil_div((size_t)rows, 32), ceil_div((size_t)cols, 8));
    Launcher<&transposeNaiveWriteCoalesced>::launch(grid, block, stream, d_out, d_in, rows, cols);
}

// ---- 1.3 --------------------------------------------------------------------------------
// copyOffsetStride: out[i] = in[offset + i*stride]. Every index is size_t: at stride 32 the
// input holds more than 2^31 floats (offset + (n-1)*stride < 2^60 by the harness's contract).
__global__ void __launch_bounds__(kCopyThreads)
    copyOffsetStride(float *__restrict__ out, const float *__restrict__ in, size_t n,
                     size_t offset, size_t stride)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += T)
        out[i] = __ldcs(in + (offset + i * stride));
}

void launch_copy_offset_stride(float *d_out, const float *d_in, size_t n, size_t offset,
                               size_t stride, cudaStream_t stream)
{
    using L = Launcher<&copyOffsetStride>;
    const unsigned blocks =
        std::max(1u, std::min(ceil_div(n, kCopyThreads), L::resident_blocks(kCopyThreads)));
    L::launch(dim3(blocks), dim3(kCopyThreads), stream, d_out, d_in, n, offset, stride);
}
