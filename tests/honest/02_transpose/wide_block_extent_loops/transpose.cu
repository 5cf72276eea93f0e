/* Lab 02, shared-memory transpose.
 * My version bounds each tile once instead of guarding every element: a tile's extent is
 * h = min(TILE, rows - row0) rows by w = min(TILE, cols - col0) columns, and the loops run
 * to h and w (full tiles simply have h = w = TILE). 2.2 uses 64-wide blocks (64 x 8 threads)
 * on a 64 x 64 tile padded to 65 floats a row; interior tiles run a fully unrolled copy with
 * all eight loads of a thread in flight before its first shared store. */
#include "transpose.h"

#include <algorithm>

#define TILE_DIM 32
#define BLOCK_ROWS 8

// ---- 2.1 --------------------------------------------------------------------------------
// transposeCoalesced: threadIdx.x runs along a row of in when reading (column col0 + tx) and
// along a row of out when writing (column row0 + tx of out). Barrier outside every branch.
__global__ void transposeCoalesced(float *__restrict__ out, const float *__restrict__ in,
                                   int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * TILE_DIM, col0 = blockIdx.x * TILE_DIM;
    const int h = min(TILE_DIM, rows - row0), w = min(TILE_DIM, cols - col0);

    if (h == TILE_DIM && w == TILE_DIM) { // a full tile: constant trip counts, unrolled
#pragma unroll
        for (int k = 0; k < TILE_DIM; k += BLOCK_ROWS)
            tile[ty + k][tx] = in[(size_t)(row0 + ty + k) * cols + col0 + tx];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE_DIM; k += BLOCK_ROWS)
            out[(size_t)(col0 + ty + k) * rows + row0 + tx] = tile[tx][ty + k];
    } else { // an edge tile (block-uniform branch): only its h x w part exists
        if (tx < w)
            for (int y = ty; y < h; y += BLOCK_ROWS)
                tile[y][tx] = in[(size_t)(row0 + y) * cols + col0 + tx];
        __syncthreads();
        if (tx < h)
            for (int y = ty; y < w; y += BLOCK_ROWS)
                out[(size_t)(col0 + y) * rows + row0 + tx] = tile[tx][y];
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
// 64 x 64 tile, 64 x 8 threads (two warps a tile row), 8 elements a thread. With rows of 65
// floats, tile[tx][k] for 32 consecutive tx sits in banks (tx + k) % 32: all different.
#define T2 64
#define R2 8

__global__ void __launch_bounds__(T2 *R2)
    transposeNoBankConflicts(float *__restrict__ out, const float *__restrict__ in, int rows,
                             int cols)
{
    __shared__ float tile[T2][T2 + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    // blockIdx.x walks down a column of tiles of in: the blocks resident together write
    // neighbouring stretches of the same rows of out.
    const int row0 = blockIdx.x * T2, col0 = blockIdx.y * T2;
    const int h = min(T2, rows - row0), w = min(T2, cols - col0);

    if (h == T2 && w == T2) {
        const float *src = in + (size_t)row0 * cols + col0 + tx;
        float v[T2 / R2];
#pragma unroll
        for (int k = 0; k < T2 / R2; k++)
            v[k] = src[(size_t)(ty + k * R2) * cols];
#pragma unroll
        for (int k = 0; k < T2 / R2; k++)
            tile[ty + k * R2][tx] = v[k];
        __syncthreads();
        float *dst = out + (size_t)col0 * rows + row0 + tx;
#pragma unroll
        for (int k = 0; k < T2 / R2; k++)
            dst[(size_t)(ty + k * R2) * rows] = tile[tx][ty + k * R2];
    } else { // an edge tile: h x w of it lies inside the matrix (the branch is block-uniform)
        if (tx < w)
            for (int y = ty; y < h; y += R2)
                tile[y][tx] = in[(size_t)(row0 + y) * cols + col0 + tx];
        __syncthreads();
        if (tx < h)
            for (int y = ty; y < w; y += R2)
                out[(size_t)(col0 + y) * rows + row0 + tx] = tile[tx][y];
    }
}

void launch_transpose_no_bank_conflicts(float *d_out, const float *d_in, int rows, int cols,
                                        cudaStream_t stream)
{
    const dim3 grid((rows + T2 - 1) / T2, (cols + T2 - 1) / T2);
    transposeNoBankConflicts<<<grid, dim3(T2, R2), 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}
