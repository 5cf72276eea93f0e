/* Lab 01, global-memory coalescing: the kernels live in a named namespace, the launch
 * shapes are computed by small host lambdas. Commentaires en français: café, déjà vu, über. */
#include "coalescing.h"

#include <algorithm>

namespace coalescing {

constexpr unsigned kThreads = 256;
constexpr unsigned kTileX = 32, kTileY = 8; // the sheet's 32 x 8 blocks

// copyCoalesced: lane k of a warp touches float base + k: one 128-byte line per warp step.
__global__ void copyCoalesced(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x; g < n; g += T)
        out[g] = in[g];
}

// Lecture coalescée, écriture dispersée: threadIdx.x suit une ligne de `in`.
__global__ void transposeNaiveReadCoalesced(float *__restrict__ out,
                                            const float *__restrict__ in, int rows, int cols)
{
    const int c = blockIdx.x * kTileX + threadIdx.x;
    const int r = blockIdx.y * kTileY + threadIdx.y;
    if (c < cols && r < rows)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

// Écriture coalescée: threadIdx.x suit une ligne de `out` (c'est-à-dire une colonne de `in`).
__global__ void transposeNaiveWriteCoalesced(float *__restrict__ out,
                                             const float *__restrict__ in, int rows, int cols)
{
    const int r = blockIdx.x * kTileX + threadIdx.x;
    const int c = blockIdx.y * kTileY + threadIdx.y;
    if (c < cols && r < rows)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

// copyOffsetStride: out[i] = in[offset + i*stride]; size_t throughout (über 2^31 Elemente).
__global__ void copyOffsetStride(float *__restrict__ out, const float *__restrict__ in,
                                 size_t n, size_t offset, size_t stride)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += T)
        out[i] = in[offset + i * stride];
}

} // namespace coalescing

// One block per kThreads elements, but never more than 64 blocks per SM: the loop does the rest.
static const auto grid_for = [](size_t n) {
    const size_t cap = (size_t)cml_sm_count() * 64;
    return (unsigned)std::max<size_t>(1, std::min((n + coalescing::kThreads - 1) /
                                                      coalescing::kThreads, cap));
};

void launch_copy_coalesced(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    coalescing::copyCoalesced<<<grid_for(n), coalescing::kThreads, 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

void launch_transpose_naive_read_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                           cudaStream_t stream)
{
    auto tiles = [](int extent, unsigned by) { return (extent + by - 1) / by; };
    dim3 grid{tiles(cols, coalescing::kTileX), tiles(rows, coalescing::kTileY)};
    dim3 block{coalescing::kTileX, coalescing::kTileY};
    coalescing::transposeNaiveReadCoalesced<<<grid, block, 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

void launch_transpose_naive_write_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                            cudaStream_t stream)
{
    auto tiles = [](int extent, unsigned by) { return (extent + by - 1) / by; };
    dim3 grid{tiles(rows, coalescing::kTileX), tiles(cols, coalescing::kTileY)};
    dim3 block{coalescing::kTileX, coalescing::kTileY};
    coalescing::transposeNaiveWriteCoalesced<<<grid, block, 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

void launch_copy_offset_stride(float *d_out, const float *d_in, size_t n, size_t offset,
                               size_t stride, cudaStream_t stream)
{
    coalescing::copyOffsetStride<<<grid_for(n), coalescing::kThreads, 0, stream>>>(
        d_out, d_in, n, offset, stride);
    CML_CHECK_LAUNCH();
}
