/* Lab 02, shared-memory transpose.
 * My version: each thread first loads all its elements of the tile into registers, then
 * parks them in shared memory, so its global loads are all in flight together. 2.2 removes
 * the bank conflicts with a rotation instead of padding: element (r, c) of the 64 x 64 tile
 * sits at column (c + r) mod 64 of row r, so a column of the tile is spread over all banks
 * while the tile keeps exactly 64 x 64 floats. Blocks are numbered on a 1-D grid, walking
 * down a column of tiles, so the blocks that run together write whole rows of out. */
#include "transpose.h"

#define TILE_DIM 32
#define BLOCK_ROWS 8

// ---- 2.1 --------------------------------------------------------------------------------
// transposeCoalesced: a 32 x 32 tile with 32 x 8 threads, four elements a thread. Reads run
// along rows of in (threadIdx.x -> column of in), writes along rows of out (threadIdx.x ->
// column of out, i.e. row of in); only shared memory sees the column access.
__global__ void transposeCoalesced(float *__restrict__ out, const float *__restrict__ in,
                                   int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    constexpr int PER = TILE_DIM / BLOCK_ROWS;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * TILE_DIM, col0 = blockIdx.x * TILE_DIM;

    float v[PER];
    bool inside[PER];
#pragma unroll
    for (int k = 0; k < PER; k++) {
        const int r = row0 + ty + k * BLOCK_ROWS, c = col0 + tx;
        inside[k] = r < rows && c < cols;
        if (inside[k])
            v[k] = in[(size_t)r * cols + c];
    }
#pragma unroll
    for (int k = 0; k < PER; k++)
        if (inside[k])
            tile[ty + k * BLOCK_ROWS][tx] = v[k];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < PER; k++) {
        const int c = col0 + ty + k * BLOCK_ROWS, r = row0 + tx; // out row c, out column r
        if (c < cols && r < rows)
            out[(size_t)c * rows + r] = tile[tx][ty + k * BLOCK_ROWS];
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
// 64 x 64 tiles, 32 x 16 threads: 8 elements a thread, all 8 loads issued before any store.
constexpr int T2 = 64;
constexpr int BX2 = 32, BY2 = 16;
constexpr int NX = T2 / BX2, NY = T2 / BY2; // 2 x 4 elements a thread

// the rotation: row r of the tile is rotated left by r. For a fixed column c the 32 lanes of a
// warp (rows r0 .. r0+31) read columns c+r0 .. c+r0+31 mod 64: 32 consecutive words mod 32,
// 32 different banks. A row (fixed r, 32 consecutive c) is 32 consecutive words as well.
__device__ __forceinline__ int rot(int r, int c) { return (c + r) & (T2 - 1); }

template <bool EDGE>
__device__ __forceinline__ void moveTile(float *__restrict__ out, const float *__restrict__ in,
                                         int rows, int cols, int row0, int col0,
                                         float (&tile)[T2][T2])
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    float v[NY][NX];
    bool inside[NY][NX];
#pragma unroll
    for (int j = 0; j < NY; j++)
#pragma unroll
        for (int i = 0; i < NX; i++) {
            const int r = row0 + ty + j * BY2, c = col0 + tx + i * BX2;
            inside[j][i] = !EDGE || (r < rows && c < cols);
            if (inside[j][i])
                v[j][i] = in[(size_t)r * cols + c];
        }
#pragma unroll
    for (int j = 0; j < NY; j++)
#pragma unroll
        for (int i = 0; i < NX; i++) {
            const int tr = ty + j * BY2, tc = tx + i * BX2;
            if (inside[j][i])
                tile[tr][rot(tr, tc)] = v[j][i];
        }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < NY; j++)
#pragma unroll
        for (int i = 0; i < NX; i++) {
            // out row col0 + tc2 holds column tc2 of the tile; lane tx takes tile row tr2
            const int tc2 = ty + j * BY2, tr2 = tx + i * BX2;
            const int orow = col0 + tc2, ocol = row0 + tr2;
            if (!EDGE || (orow < cols && ocol < rows))
                out[(size_t)orow * rows + ocol] = tile[tr2][rot(tr2, tc2)];
        }
}

// transposeNoBankConflicts: block b is tile (b % row_tiles, b / row_tiles): consecutive blocks
// walk down a column of tiles of in, i.e. along a row of tiles of out. Interior tiles take
// the unguarded path.
__global__ void __launch_bounds__(BX2 *BY2)
    transposeNoBankConflicts(float *__restrict__ out, const float *__restrict__ in, int rows,
                             int cols)
{
    __shared__ float tile[T2][T2];
    const unsigned row_tiles = (rows + T2 - 1) / T2;
    const int row0 = (int)(blockIdx.x % row_tiles) * T2;
    const int col0 = (int)(blockIdx.x / row_tiles) * T2;
    if (row0 + T2 <= rows && col0 + T2 <= cols)
        moveTile<false>(out, in, rows, cols, row0, col0, tile);
    else
        moveTile<true>(out, in, rows, cols, row0, col0, tile);
}

void launch_transpose_no_bank_conflicts(float *d_out, const float *d_in, int rows, int cols,
                                        cudaStream_t stream)
{
    const size_t tiles = (size_t)((rows + T2 - 1) / T2) * ((cols + T2 - 1) / T2);
    transposeNoBankConflicts<<<(unsigned)tiles, dim3(BX2, BY2), 0, stream>>>(d_out, d_in, rows,
                                                                             cols);
    CML_CHECK_LAUNCH();
}
