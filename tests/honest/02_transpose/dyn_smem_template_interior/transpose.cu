/* Lab 02, shared-memory transpose. Dynamic shared memory for both tiles, one templated tile
 * mover whose <Interior> instance drops every bounds check, column-of-tiles block order. */
#include "transpose.h"

#define TILE_DIM 32
#define BLOCK_ROWS 8

namespace {

// 2.2's geometry: 64 x 64 tiles, 32 x 16 threads, 8 elements per thread (4 rows x 2 halves).
constexpr int kBig = 64;
constexpr int kBx = 32;
constexpr int kBy = 16;
constexpr int kPitch = kBig + 1; // one spare float per row: column reads hit 32 banks
constexpr int kRowsPer = kBig / kBy;   // 4
constexpr int kHalves = kBig / kBx;    // 2
constexpr size_t kBigSmem = sizeof(float) * kBig * kPitch;

constexpr size_t kSmallSmem = sizeof(float) * TILE_DIM * TILE_DIM;

template <typename T>
constexpr T ceil_div(T a, T b) { return (a + b - 1) / b; }

} // namespace

// ---- 2.1 --------------------------------------------------------------------------------
__global__ void transposeCoalesced(float *__restrict__ out, const float *__restrict__ in,
                                   int rows, int cols)
{
    extern __shared__ float smem[]; // TILE_DIM x TILE_DIM, row-major, no padding
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int r0 = blockIdx.y * TILE_DIM, c0 = blockIdx.x * TILE_DIM;

    for (int k = ty; k < TILE_DIM; k += BLOCK_ROWS) {
        const int r = r0 + k, c = c0 + tx;
        if (r < rows && c < cols)
            smem[k * TILE_DIM + tx] = in[(size_t)r * cols + c];
    }
    __syncthreads();
    for (int k = ty; k < TILE_DIM; k += BLOCK_ROWS) {
        const int orow = c0 + k, ocol = r0 + tx; // out is cols x rows
        if (orow < cols && ocol < rows)
            out[(size_t)orow * rows + ocol] = smem[tx * TILE_DIM + k];
    }
}

void launch_transpose_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                cudaStream_t stream)
{
    const dim3 block(TILE_DIM, BLOCK_ROWS);
    const dim3 grid((unsigned)ceil_div(cols, TILE_DIM), (unsigned)ceil_div(rows, TILE_DIM));
    transposeCoalesced<<<grid, block, kSmallSmem, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// ---- 2.2 --------------------------------------------------------------------------------
// Moves one 64 x 64 tile whose top-left element is in(r0, c0). Interior tiles (wholly inside
// the matrix) are compiled without a single comparison.
template <bool Interior>
__device__ __forceinline__ void move_tile(float *__restrict__ out, const float *__restrict__ in,
                                          int rows, int cols, int r0, int c0, float *tile)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    float v[kRowsPer][kHalves];

    // phase 1: all 8 loads in flight before any shared-memory store
#pragma unroll
    for (int k = 0; k < kRowsPer; ++k)
#pragma unroll
        for (int h = 0; h < kHalves; ++h) {
            const int r = r0 + ty + k * kBy, c = c0 + tx + h * kBx;
            v[k][h] = 0.0f;
            if (Interior || (r < rows && c < cols))
                v[k][h] = in[(size_t)r * cols + c];
        }
#pragma unroll
    for (int k = 0; k < kRowsPer; ++k)
#pragma unroll
        for (int h = 0; h < kHalves; ++h)
            tile[(ty + k * kBy) * kPitch + tx + h * kBx] = v[k][h];

    __syncthreads();

    // phase 2: row (c0 + j) of out is column j of the tile; lanes walk along it
#pragma unroll
    for (int k = 0; k < kRowsPer; ++k)
#pragma unroll
        for (int h = 0; h < kHalves; ++h) {
            const int j = ty + k * kBy, i = tx + h * kBx;
            const int orow = c0 + j, ocol = r0 + i;
            if (Interior || (orow < cols && ocol < rows))
                out[(size_t)orow * rows + ocol] = tile[i * kPitch + j];
        }
}

// blockIdx.x walks DOWN a column of tiles (along rows of in), so the blocks resident together
// write neighbouring pieces of the same rows of out.
__global__ void __launch_bounds__(kBx * kBy)
    transposeNoBankConflicts(float *__restrict__ out, const float *__restrict__ in, int rows,
                             int cols)
{
    extern __shared__ float tile[]; // kBig x kPitch
    const int r0 = blockIdx.x * kBig, c0 = blockIdx.y * kBig;
    if (r0 + kBig <= rows && c0 + kBig <= cols)
        move_tile<true>(out, in, rows, cols, r0, c0, tile);
    else
        move_tile<false>(out, in, rows, cols, r0, c0, tile);
}

void launch_transpose_no_bank_conflicts(float *d_out, const float *d_in, int rows, int cols,
                                        cudaStream_t stream)
{
    const dim3 block(kBx, kBy);
    const dim3 grid((unsigned)ceil_div(rows, kBig), (unsigned)ceil_div(cols, kBig));
    transposeNoBankConflicts<<<grid, block, kBigSmem, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}
