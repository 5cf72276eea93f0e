/* Lab 01, global-memory coalescing.
 * Written around one small device-side range type: `for (size_t i : grid_stride(n))` walks the
 * indexes g, g + T, g + 2T, ... of the calling thread (T threads in the grid). The transposes
 * are 2-D grid-stride loops over 32 x 8 blocks, so any grid (even a capped one) covers any
 * matrix. */
#include "coalescing.h"

#include <algorithm>

// A range of the indexes one thread owns in a grid-stride loop, usable in a range-for.
struct GridStrideRange {
    struct iterator {
        size_t i, step;
        __device__ size_t operator*() const { return i; }
        __device__ iterator &operator++()
        {
            i += step;
            return *this;
        }
        // "not at the end" means "still below n": the end iterator carries n
        __device__ bool operator!=(const iterator &end) const { return i < end.i; }
    };
    size_t first, step, n;
    __device__ iterator begin() const { return {first, step}; }
    __device__ iterator end() const { return {n, step}; }
};

__device__ __forceinline__ GridStrideRange grid_stride(size_t n)
{
    return {(size_t)blockIdx.x * blockDim.x + threadIdx.x, (size_t)gridDim.x * blockDim.x, n};
}

static unsigned blocks_for(size_t n, int threads, size_t cap)
{
    return (unsigned)std::max<size_t>(1, std::min<size_t>((n + threads - 1) / threads, cap));
}

// ---- 1.1 --------------------------------------------------------------------------------
// copyCoalesced: lane l of a warp handles g + l at each step: 32 neighbouring floats, one
// 128-byte line for the load and one for the store.
__global__ void copyCoalesced(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    for (size_t i : grid_stride(n))
        out[i] = in[i];
}

void launch_copy_coalesced(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    constexpr int threads = 512;
    // up to 2^21 blocks of 512: beyond 2^30 floats the loop goes round more than once
    copyCoalesced<<<blocks_for(n, threads, (size_t)1 << 21), threads, 0, stream>>>(d_out, d_in,
                                                                                   n);
    CML_CHECK_LAUNCH();
}

// ---- 1.2a and 1.2b ----------------------------------------------------------------------
// 2-D grid-stride loops: x steps by gridDim.x * 32, y by gridDim.y * 8. The grid is capped
// (gridDim.y may not exceed 65535), the loops cover what it does not.
#define TX 32
#define TY 8
#define GRID_CAP_Y 65535u

// transposeNaiveReadCoalesced: x runs along a row of in (its column index c).
__global__ void transposeNaiveReadCoalesced(float *__restrict__ out,
                                            const float *__restrict__ in, int rows, int cols)
{
    for (int r = blockIdx.y * TY + threadIdx.y; r < rows; r += gridDim.y * TY)
        for (int c = blockIdx.x * TX + threadIdx.x; c < cols; c += gridDim.x * TX)
            out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

void launch_transpose_naive_read_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                           cudaStream_t stream)
{
    const dim3 grid((cols + TX - 1) / TX, std::min((rows + TY - 1) / TY, (int)GRID_CAP_Y));
    transposeNaiveReadCoalesced<<<grid, dim3(TX, TY), 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// transposeNaiveWriteCoalesced: x runs along a row of out (its column index, which is r).
__global__ void transposeNaiveWriteCoalesced(float *__restrict__ out,
                                             const float *__restrict__ in, int rows, int cols)
{
    for (int c = blockIdx.y * TY + threadIdx.y; c < cols; c += gridDim.y * TY)
        for (int r = blockIdx.x * TX + threadIdx.x; r < rows; r += gridDim.x * TX)
            out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

void launch_transpose_naive_write_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                            cudaStream_t stream)
{
    const dim3 grid((rows + TX - 1) / TX, std::min((cols + TY - 1) / TY, (int)GRID_CAP_Y));
    transposeNaiveWriteCoalesced<<<grid, dim3(TX, TY), 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// ---- 1.3 --------------------------------------------------------------------------------
// copyOffsetStride: the same range-for; the source index is computed in size_t from i, so
// offsets past 2^31 and inputs past 2^32 floats read the right float.
__global__ void copyOffsetStride(float *__restrict__ out, const float *__restrict__ in,
                                 size_t n, size_t offset, size_t stride)
{
    for (size_t i : grid_stride(n))
        out[i] = in[offset + i * stride];
}

void launch_copy_offset_stride(float *d_out, const float *d_in, size_t n, size_t offset,
                               size_t stride, cudaStream_t stream)
{
    constexpr int threads = 512;
    copyOffsetStride<<<blocks_for(n, threads, (size_t)1 << 21), threads, 0, stream>>>(
        d_out, d_in, n, offset, stride);
    CML_CHECK_LAUNCH();
}
