/* Lab 02, shared-memory transpose: the kernels and their launch wrappers.
 * in is rows x cols, row-major; out is cols x rows: out[c*rows + r] = in[r*cols + c].
 *
 * Both kernels transpose the tile as it goes INTO shared memory rather than as it comes out:
 * a warp reads a row of in (coalesced) and stores it down a column of the tile; after the
 * barrier a warp reads a row of the tile and writes it along a row of out (coalesced). The
 * strided shared-memory access is the store instead of the load; where it lands in the banks
 * is the same question, with the same answers (32 ways in 2.1, none with a spare column). */
#include "transpose.h"

#define TILE_DIM 32
#define BLOCK_ROWS 8

// ---- 2.1 --------------------------------------------------------------------------------
// transposeCoalesced: tile[c][r] holds in(row0 + r, col0 + c). The stores of a warp go down
// a column of the tile (32 words 32 apart: one bank, conflicts allowed here); the loads of a
// warp read one row of it.
__global__ void transposeCoalesced(float *__restrict__ out, const float *__restrict__ in,
                                   int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    const int row0 = blockIdx.y * TILE_DIM, col0 = blockIdx.x * TILE_DIM;
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int j = ty; j < TILE_DIM; j += BLOCK_ROWS) {
        const int r = row0 + j, c = col0 + tx;
        if (r < rows && c < cols)
            tile[tx][j] = in[(size_t)r * cols + c];
    }
    __syncthreads();
    for (int j = ty; j < TILE_DIM; j += BLOCK_ROWS) {
        const int c = col0 + j, r = row0 + tx; /* row c of out, its floats row0 .. row0+31 */
        if (c < cols && r < rows)
            out[(size_t)c * rows + r] = tile[j][tx];
    }
}

void launch_transpose_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                cudaStream_t stream)
{
    const dim3 grid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM);
    transposeCoalesced<<<grid, dim3(TILE_DIM, BLOCK_ROWS), 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// ---- 2.2 --------------------------------------------------------------------------------
// 64 x 64 tiles, 32 x 16 threads, 8 floats per thread loaded before the barrier. tile[c][r]
// with rows of 65 floats: the column a warp stores into starts one bank further on each row,
// so its 32 words fall in 32 banks; the rows read back are conflict-free in any layout.
namespace t22 {
constexpr int kTile = 64, kBx = 32, kBy = 16, kPitch = kTile + 1;

template <bool Guarded>
__device__ __forceinline__ void move_tile(float *__restrict__ out, const float *__restrict__ in,
                                          int rows, int cols, int row0, int col0,
                                          float (&tile)[kTile][kPitch])
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    float v[kTile / kBy][kTile / kBx];
#pragma unroll
    for (int a = 0; a < kTile / kBy; a++)
#pragma unroll
        for (int b = 0; b < kTile / kBx; b++) {
            const int r = row0 + ty + a * kBy, c = col0 + tx + b * kBx;
            if (!Guarded || (r < rows && c < cols))
                v[a][b] = in[(size_t)r * cols + c];
        }
#pragma unroll
    for (int a = 0; a < kTile / kBy; a++)
#pragma unroll
        for (int b = 0; b < kTile / kBx; b++) {
            const int r = row0 + ty + a * kBy, c = col0 + tx + b * kBx;
            if (!Guarded || (r < rows && c < cols))
                tile[tx + b * kBx][ty + a * kBy] = v[a][b];
        }
    __syncthreads();
#pragma unroll
    for (int a = 0; a < kTile / kBy; a++)
#pragma unroll
        for (int b = 0; b < kTile / kBx; b++) {
            const int c = col0 + ty + a * kBy, r = row0 + tx + b * kBx;
            if (!Guarded || (c < cols && r < rows))
                out[(size_t)c * rows + r] = tile[ty + a * kBy][tx + b * kBx];
        }
}
} // namespace t22

// transposeNoBankConflicts: a 1-D grid; block b takes tile (b % row_tiles, b / row_tiles), so
// consecutive blocks walk down a column of tiles and the blocks resident together write long
// stretches of the same rows of out. Interior tiles skip every bounds check.
__global__ void __launch_bounds__(t22::kBx * t22::kBy)
    transposeNoBankConflicts(float *__restrict__ out, const float *__restrict__ in, int rows,
                             int cols)
{
    using namespace t22;
    __shared__ float tile[kTile][kPitch];
    const unsigned row_tiles = (rows + kTile - 1) / kTile;
    const int row0 = (int)(blockIdx.x % row_tiles) * kTile;
    const int col0 = (int)(blockIdx.x / row_tiles) * kTile;
    if (row0 + kTile <= rows && col0 + kTile <= cols)
        move_tile<false>(out, in, rows, cols, row0, col0, tile);
    else
        move_tile<true>(out, in, rows, cols, row0, col0, tile);
}

void launch_transpose_no_bank_conflicts(float *d_out, const float *d_in, int rows, int cols,
                                        cudaStream_t stream)
{
    using namespace t22;
    const unsigned tiles =
        (unsigned)((rows + kTile - 1) / kTile) * (unsigned)((cols + kTile - 1) / kTile);
    transposeNoBankConflicts<<<tiles, dim3(kBx, kBy), 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}
