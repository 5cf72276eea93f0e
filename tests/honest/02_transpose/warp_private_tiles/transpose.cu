/* Lab 02, shared-memory transpose. Variant: 2.1 is the textbook block-per-tile kernel; 2.2 gives
 * every warp a padded 32 x 33 tile of its own, so a warp moves a whole tile alone and needs
 * only __syncwarp(), never a block-wide barrier: each lane issues 32 independent loads (one per
 * row of the tile) before its first store, interior tiles skip every bounds check, and
 * consecutive warps walk down a column of tiles, so the warps that run together write
 * neighbouring stretches of the same rows of out. */
#include "transpose.h"

// in is rows x cols, row-major; out is cols x rows: out[c*rows + r] = in[r*cols + c].
#define TILE_DIM 32
#define BLOCK_ROWS 8

// ---- 2.1 --------------------------------------------------------------------------------
__global__ void transposeCoalesced(float *__restrict__ out, const float *__restrict__ in,
                                   int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int r0 = blockIdx.y * TILE_DIM, c0 = blockIdx.x * TILE_DIM;
    // read: thread (x, y) brings in[r0 + y + j][c0 + x]: a warp reads 32 consecutive floats
#pragma unroll
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        const int r = r0 + ty + j, c = c0 + tx;
        if (r < rows && c < cols)
            tile[ty + j][tx] = in[(size_t)r * cols + c];
    }
    __syncthreads();
    // write: out row c0 + y + j (a column of in) gets, at column r0 + x, tile[x][y + j]
#pragma unroll
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        const int c = c0 + ty + j, r = r0 + tx;
        if (c < cols && r < rows)
            out[(size_t)c * rows + r] = tile[tx][ty + j];
    }
}

void launch_transpose_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                cudaStream_t stream)
{
    const dim3 block(TILE_DIM, BLOCK_ROWS);
    const dim3 grid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM);
    transposeCoalesced<<<grid, block, 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// ---- 2.2 --------------------------------------------------------------------------------
constexpr int WARPS = 8; // warps per block, one tile each

// Tile t of the (tile_rows x tile_cols) grid of tiles, numbered down the columns:
// tile row t % tile_rows, tile column t / tile_rows.
template <bool CHECK>
__device__ __forceinline__ void warp_tile(float *__restrict__ out, const float *__restrict__ in,
                                          int rows, int cols, int r0, int c0,
                                          float (*tile)[TILE_DIM + 1], int lane)
{
    // load: step k brings row r0 + k of the tile, lane l its column c0 + l (128 bytes a warp)
#pragma unroll
    for (int k = 0; k < TILE_DIM; k++) {
        const int r = r0 + k, c = c0 + lane;
        if (!CHECK || (r < rows && c < cols))
            tile[k][lane] = in[(size_t)r * cols + c];
    }
    __syncwarp();
    // store: step k writes row c0 + k of out, lane l its column r0 + l, i.e. in[r0 + l][c0 + k]
    // = tile[l][k], word l*33 + k: bank (l + k) % 32, 32 different banks
#pragma unroll
    for (int k = 0; k < TILE_DIM; k++) {
        const int c = c0 + k, r = r0 + lane;
        if (!CHECK || (c < cols && r < rows))
            out[(size_t)c * rows + r] = tile[lane][k];
    }
}

__global__ void __launch_bounds__(TILE_DIM *WARPS)
    transposeNoBankConflicts(float *__restrict__ out, const float *__restrict__ in, int rows,
                             int cols)
{
    __shared__ float tiles[WARPS][TILE_DIM][TILE_DIM + 1]; // one padded tile per warp
    const int lane = threadIdx.x, warp = threadIdx.y;
    const int tile_rows = (rows + TILE_DIM - 1) / TILE_DIM;
    const int tile_cols = (cols + TILE_DIM - 1) / TILE_DIM;
    const long long t = (long long)blockIdx.x * WARPS + warp;
    if (t >= (long long)tile_rows * tile_cols)
        return; // the whole warp leaves together: no barrier of the block is ever skipped
    const int r0 = (int)(t % tile_rows) * TILE_DIM, c0 = (int)(t / tile_rows) * TILE_DIM;
    if (r0 + TILE_DIM <= rows && c0 + TILE_DIM <= cols)
        warp_tile<false>(out, in, rows, cols, r0, c0, tiles[warp], lane);
    else
        warp_tile<true>(out, in, rows, cols, r0, c0, tiles[warp], lane);
}

void launch_transpose_no_bank_conflicts(float *d_out, const float *d_in, int rows, int cols,
                                        cudaStream_t stream)
{
    const long long tiles = (long long)((rows + TILE_DIM - 1) / TILE_DIM) *
                            ((cols + TILE_DIM - 1) / TILE_DIM);
    const unsigned blocks = (unsigned)((tiles + WARPS - 1) / WARPS);
    transposeNoBankConflicts<<<blocks, dim3(TILE_DIM, WARPS), 0, stream>>>(d_out, d_in, rows,
                                                                           cols);
    CML_CHECK_LAUNCH();
}
