/* Lab 02 tuning variants (used by `--bench` only): the conflict-free transpose and the
 * tile-shaped copy in several tile and thread shapes, with and without an unchecked path for
 * interior tiles, so one bench run on a GPU shows which shape the reference should teach. One of
 * them is the reference 2.2, so this file lives with the solution and is staged beside the
 * reference build only (spec `reference_files`): a student's file cannot include it. */
#ifndef VARIANTS_CUH
#define VARIANTS_CUH

#include "cml_lab.h"
#include "tile_copy.cuh"

// moveTileT: one TILE x TILE tile, BX x BY threads, each moving (TILE/BX) x (TILE/BY) floats.
// TRANSPOSE reads the tile through shared memory (padded by one column); otherwise a plain copy.
// CHECK guards every element; without it the tile must lie wholly inside the matrix.
template <int TILE, int BX, int BY, bool TRANSPOSE, bool CHECK>
__device__ __forceinline__ void moveTileT(float *__restrict__ out, const float *__restrict__ in,
                                          int rows, int cols, int row0, int col0,
                                          float (*tile)[TILE + 1])
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    if constexpr (!TRANSPOSE) {
        copyTileT<TILE, BX, BY, CHECK>(out, in, rows, cols, row0, col0);
        return;
    } else {
#pragma unroll
        for (int j = 0; j < TILE; j += BY)
#pragma unroll
            for (int i = 0; i < TILE; i += BX) {
                const int r = row0 + ty + j, c = col0 + tx + i;
                if (!CHECK || (r < rows && c < cols))
                    tile[ty + j][tx + i] = in[(size_t)r * cols + c];
            }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < TILE; j += BY)
#pragma unroll
            for (int i = 0; i < TILE; i += BX) {
                const int c = col0 + ty + j, r = row0 + tx + i; /* out row c, column r */
                if (!CHECK || (r < rows && c < cols))
                    out[(size_t)c * rows + r] = tile[tx + i][ty + j];
            }
    }
}

// tileVariant: interior tiles take the unchecked path when FAST, edge tiles the checked one.
// BAND sets the order in which tiles are handed to blocks: 1 = along rows of tiles (the usual
// 2D grid), B > 1 = bands of B tile-rows walked column by column, so that blocks launched
// together share output rows; a huge B walks whole columns of tiles.
template <int TILE, int BX, int BY, bool TRANSPOSE, bool FAST, int BAND>
__global__ void __launch_bounds__(BX *BY)
    tileVariant(float *__restrict__ out, const float *__restrict__ in, int rows, int cols)
{
    __shared__ float tile[TRANSPOSE ? TILE : 1][TILE + 1];
    const unsigned col_tiles = (cols + TILE - 1) / TILE, row_tiles = (rows + TILE - 1) / TILE;
    const unsigned b = min((unsigned)BAND, row_tiles); /* b * col_tiles <= gridDim.x: no overflow */
    const unsigned band = blockIdx.x / (b * col_tiles), first = band * b;
    const unsigned height = min(b, row_tiles - first);
    const unsigned within = blockIdx.x - band * b * col_tiles;
    const int row0 = (first + within % height) * TILE, col0 = within / height * TILE;
    if (FAST && row0 + TILE <= rows && col0 + TILE <= cols)
        moveTileT<TILE, BX, BY, TRANSPOSE, false>(out, in, rows, cols, row0, col0, tile);
    else
        moveTileT<TILE, BX, BY, TRANSPOSE, true>(out, in, rows, cols, row0, col0, tile);
}

template <int TILE, int BX, int BY, bool TRANSPOSE, bool FAST, int BAND = 1>
void launchTileVariant(float *d_out, const float *d_in, int rows, int cols, cudaStream_t stream)
{
    static_assert(TILE % BX == 0 && TILE % BY == 0 && BX % 32 == 0, "tile and block must nest");
    const size_t tiles = (size_t)((cols + TILE - 1) / TILE) * ((rows + TILE - 1) / TILE);
    tileVariant<TILE, BX, BY, TRANSPOSE, FAST, BAND>
        <<<(unsigned)tiles, dim3(BX, BY), 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// transposeVec4: 64 x 64 tiles, 16 x 16 threads, blockIdx.x walking down columns of tiles;
// interior tiles read and write 16-byte float4s (4 loads in flight per thread, a quarter of the
// memory instructions). Needs rows and cols divisible by 4, else the launcher falls back to the
// scalar 64/32x16 tile with the same walk.
static __global__ void __launch_bounds__(256)
    transposeVec4(float *__restrict__ out, const float *__restrict__ in, int rows, int cols)
{
    __shared__ float tile[64][65];
    const int tx = threadIdx.x, ty = threadIdx.y; /* 16 x 16 */
    const int row0 = blockIdx.x * 64, col0 = blockIdx.y * 64;
    if (row0 + 64 > rows || col0 + 64 > cols) {
        for (int j = ty; j < 64; j += 16)
            for (int i = tx; i < 64; i += 16)
                if (row0 + j < rows && col0 + i < cols)
                    tile[j][i] = in[(size_t)(row0 + j) * cols + col0 + i];
        __syncthreads();
        for (int j = ty; j < 64; j += 16)
            for (int i = tx; i < 64; i += 16)
                if (col0 + j < cols && row0 + i < rows)
                    out[(size_t)(col0 + j) * rows + row0 + i] = tile[i][j];
        return;
    }
    float4 v[4];
#pragma unroll
    for (int j = 0; j < 4; j++)
        v[j] = reinterpret_cast<const float4 *>(in + (size_t)(row0 + ty + 16 * j) * cols +
                                                col0)[tx];
#pragma unroll
    for (int j = 0; j < 4; j++) {
        float *t = &tile[ty + 16 * j][4 * tx];
        t[0] = v[j].x, t[1] = v[j].y, t[2] = v[j].z, t[3] = v[j].w;
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const int c = ty + 16 * j; /* tile column = out row col0 + c */
        const float4 o = make_float4(tile[4 * tx][c], tile[4 * tx + 1][c], tile[4 * tx + 2][c],
                                     tile[4 * tx + 3][c]);
        reinterpret_cast<float4 *>(out + (size_t)(col0 + c) * rows + row0)[tx] = o;
    }
}

inline void launchTransposeVec4(float *d_out, const float *d_in, int rows, int cols,
                                cudaStream_t stream)
{
    if (rows % 4 != 0 || cols % 4 != 0) { /* rows would not start on 16-byte boundaries */
        launchTileVariant<64, 32, 16, true, true, 1 << 20>(d_out, d_in, rows, cols, stream);
        return;
    }
    const dim3 grid((rows + 63) / 64, (cols + 63) / 64);
    transposeVec4<<<grid, dim3(16, 16), 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// skewedTileT: sector-aligned stores (docs/02_transpose.md, section 5). Output row c's segment is
// shifted back by m = (c*rows) mod 8 floats so that it starts on a 32-byte sector; the tile holds
// 8 extra input rows (r0-8 .. r0+63) to absorb the shift. CHECK guards every element.
template <int BY, bool CHECK>
__device__ __forceinline__ void skewedTileT(float *__restrict__ out, const float *__restrict__ in,
                                            int rows, int cols, int r0, int col0,
                                            float (*tile)[65])
{
    const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
    for (int j = 0; j < 72; j += BY)
#pragma unroll
        for (int i = 0; i < 64; i += 32) {
            const int jj = j + ty, r = r0 - 8 + jj, c = col0 + tx + i;
            if (jj < 72 && (!CHECK || (r >= 0 && r < rows && c < cols)))
                tile[jj][tx + i] = in[(size_t)r * cols + c];
        }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 64; j += BY)
#pragma unroll
        for (int i = 0; i < 64; i += 32) {
            const int c = col0 + ty + j, m = (int)(((size_t)c * rows) & 7);
            const int r = r0 - m + tx + i; /* this lane's column of out row c */
            if (!CHECK || (c < cols && r >= 0 && r < rows))
                out[(size_t)c * rows + r] = tile[r - r0 + 8][ty + j];
        }
}

// transposeSkewed: 64 x 64 tiles of out, 32 x BY threads, stores aligned to sectors; COLS walks
// blockIdx.x down columns of tiles. Interior tiles (not the first tile-row) skip the checks.
template <int BY, bool COLS>
__global__ void __launch_bounds__(32 * BY)
    transposeSkewed(float *__restrict__ out, const float *__restrict__ in, int rows, int cols)
{
    __shared__ float tile[72][65];
    const int rb = COLS ? blockIdx.x : blockIdx.y, cb = COLS ? blockIdx.y : blockIdx.x;
    const int r0 = rb * 64, col0 = cb * 64;
    if (rb > 0 && r0 + 64 <= rows && col0 + 64 <= cols)
        skewedTileT<BY, false>(out, in, rows, cols, r0, col0, tile);
    else
        skewedTileT<BY, true>(out, in, rows, cols, r0, col0, tile);
}

template <int BY, bool COLS>
void launchTransposeSkewed(float *d_out, const float *d_in, int rows, int cols,
                           cudaStream_t stream)
{
    const unsigned row_tiles = (rows + 7 + 63) / 64, col_tiles = (cols + 63) / 64;
    const dim3 grid(COLS ? row_tiles : col_tiles, COLS ? col_tiles : row_tiles);
    transposeSkewed<BY, COLS><<<grid, dim3(32, BY), 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

#endif /* VARIANTS_CUH */
