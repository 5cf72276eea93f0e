/* Lab 01, global-memory coalescing: launches through the runtime's launch API, no <<<>>>. */
#include "coalescing.h"

#include <algorithm>
#include <cstdint>
#include <utility>

// ---- small vocabulary ----------------------------------------------------------------------
constexpr std::size_t operator""_Ki(unsigned long long v) noexcept { return v * 1'024; }

inline constexpr int kTileX = 32;
inline constexpr int kTileY = 8;
inline constexpr std::size_t kMaxResidentPerSM = 2_Ki; // threads an SM can hold

template <class T> inline constexpr bool is_index_v = std::is_integral_v<T> && sizeof(T) >= 4;

typedef void (*copy_kernel_t)(float *__restrict__, const float *__restrict__, size_t);
using transpose_kernel_t = void (*)(float *__restrict__, const float *__restrict__, int, int);
using gather_kernel_t = void (*)(float *__restrict__, const float *__restrict__, size_t, size_t,
                                 size_t);

template <class I> [[nodiscard]] __host__ __device__ constexpr I ceil_div(I a, I b) noexcept
{
    static_assert(is_index_v<I>, "an index type");
    return (a + b - 1) / b;
}

// ---- 1.1 --------------------------------------------------------------------------------
__global__ void copyCoalesced(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x; g < n; g += T)
        out[g] = in[g];
}

struct LaunchShape {
    int grid;
    int block;
};

// Occupancy-derived shape for a grid-stride kernel: a full wave at most, fewer when n is small.
template <class Kernel> [[nodiscard]] static LaunchShape grid_stride_shape(Kernel k, size_t n)
{
    static const auto cached = [k] {
        int min_grid = 0, block = 0;
        CML_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, k, 0, 0));
        cudaFuncAttributes attr{};
        CML_CHECK(cudaFuncGetAttributes(&attr, k));
        block = std::min(block, attr.maxThreadsPerBlock);
        return LaunchShape{min_grid, block};
    }();
    const auto [wave, block] = cached;
    const size_t needed = ceil_div<size_t>(n, (size_t)block);
    return {(int)std::max<size_t>(1, std::min<size_t>(needed, (size_t)wave)), block};
}

void launch_copy_coalesced(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const auto [grid, block] = grid_stride_shape(copyCoalesced, n);
    void *args[] = {&d_out, &d_in, &n};
    const copy_kernel_t k = copyCoalesced;
    CML_CHECK(cudaLaunchKernel((const void *)k, dim3(grid), dim3(block), args, 0, stream));
    CML_CHECK_LAUNCH();
}

// ---- 1.2a and 1.2b ----------------------------------------------------------------------
__global__ void transposeNaiveReadCoalesced(float *__restrict__ out,
                                            const float *__restrict__ in, int rows, int cols)
{
    const int c = blockIdx.x * kTileX + threadIdx.x; // along a row of in
    const int r = blockIdx.y * kTileY + threadIdx.y;
    if (r < rows && c < cols)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

__global__ void transposeNaiveWriteCoalesced(float *__restrict__ out,
                                             const float *__restrict__ in, int rows, int cols)
{
    const int r = blockIdx.x * kTileX + threadIdx.x; // along a row of out
    const int c = blockIdx.y * kTileY + threadIdx.y;
    if (r < rows && c < cols)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

static void launch_transpose(transpose_kernel_t k, int along_x, int along_y, float *d_out,
                             const float *d_in, int rows, int cols, cudaStream_t stream)
{
    const dim3 block(kTileX, kTileY);
    const dim3 grid(ceil_div(along_x, kTileX), ceil_div(along_y, kTileY));
    void *args[] = {&d_out, &d_in, &rows, &cols};
    CML_CHECK(cudaLaunchKernel(k, grid, block, args, 0, stream));
}

void launch_transpose_naive_read_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                           cudaStream_t stream)
{
    launch_transpose(transposeNaiveReadCoalesced, cols, rows, d_out, d_in, rows, cols, stream);
    CML_CHECK_LAUNCH();
}

void launch_transpose_naive_write_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                            cudaStream_t stream)
{
    launch_transpose(transposeNaiveWriteCoalesced, rows, cols, d_out, d_in, rows, cols, stream);
    CML_CHECK_LAUNCH();
}

// ---- 1.3 --------------------------------------------------------------------------------
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
    static const int sms = [] {
        int dev = 0, count = 0;
        CML_CHECK(cudaGetDevice(&dev));
        CML_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, dev));
        return count;
    }();
    constexpr int block = 256;
    const size_t wave = (size_t)sms * (kMaxResidentPerSM / block);
    const unsigned grid = (unsigned)std::max<size_t>(1, std::min(ceil_div<size_t>(n, block), wave));
    void *args[] = {&d_out, &d_in, &n, &offset, &stride};
    const gather_kernel_t k = &copyOffsetStride;
    CML_CHECK(cudaLaunchKernel(reinterpret_cast<const void *>(k), dim3(grid), dim3(block), args,
                               0, stream));
    CML_CHECK_LAUNCH();
}
