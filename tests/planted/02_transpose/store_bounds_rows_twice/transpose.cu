/* Lab 02, shared-memory transpose: the kernels you write and their launch wrappers.
 * Edit only this file; the harness (harness.cu) allocates, fills, checks and times.
 * Build and grade with `make grade LAB=02`; EXERCISE.md walks through the tasks. */
#include "transpose.h"

// in is rows x cols, row-major; out is cols x rows: out[c*rows + r] = in[r*cols + c].
// A block moves one TILE_DIM x TILE_DIM tile with TILE_DIM x BLOCK_ROWS threads, so each
// thread handles TILE_DIM / BLOCK_ROWS elements of the tile.
#define TILE_DIM 32
#define BLOCK_ROWS 8

// ---- 2.1 --------------------------------------------------------------------------------
// transposeCoalesced: a block reads a tile row by row (coalesced), parks it in shared memory,
// then writes it out transposed, again row by row: only shared memory sees the strided access.
__global__ void transposeCoalesced(float *__restrict__ out, const float *__restrict__ in,
                                   int rows, int cols)
{
    // TODO(2.1): stage one tile through __shared__ float tile[TILE_DIM][TILE_DIM]:
    //   read it with threadIdx.x along a row of in, __syncthreads(), then write it with
    //   threadIdx.x along a row of out. Guard every element: edge tiles stick out of the matrix.
    //   HINT: after the barrier, which tile element does thread (x, y) send to out, and where?
    __shared__ float tile[TILE_DIM][TILE_DIM];
    int c = blockIdx.x * TILE_DIM + threadIdx.x;
    int r = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (r + j < rows && c < cols)
            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(r + j) * cols + c];
    __syncthreads();
    c = blockIdx.x * TILE_DIM + threadIdx.y; /* the tile's columns become rows of out */
    r = blockIdx.y * TILE_DIM + threadIdx.x;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (c + j < rows && r < rows) // planted bug: rows where cols belongs
            out[(size_t)(c + j) * rows + r] = tile[threadIdx.x][threadIdx.y + j];
}

void launch_transpose_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                cudaStream_t stream)
{
    // TODO(2.1): one block of TILE_DIM x BLOCK_ROWS threads per tile, then CML_CHECK_LAUNCH().
    const dim3 grid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM);
    transposeCoalesced<<<grid, dim3(TILE_DIM, BLOCK_ROWS), 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// ---- 2.2 --------------------------------------------------------------------------------
// The reference moves 64 x 64 tiles with 32 x 16 threads: each thread has 8 loads in flight
// before its first store, which a GPU with several TB/s of DRAM bandwidth needs to stay busy.
#define TILE2_DIM 64
#define BLOCK2_ROWS 16

// transposeTile: moves the tile at (row0, col0) through shared memory; with CHECK every
// element is guarded (edge tiles), without it the tile must lie inside the matrix.
template <bool CHECK>
__device__ __forceinline__ void transposeTile(float *__restrict__ out,
                                              const float *__restrict__ in, int rows, int cols,
                                              int row0, int col0, float (*tile)[TILE2_DIM + 1])
{
    const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE2_DIM; j += BLOCK2_ROWS)
#pragma unroll
        for (int i = 0; i < TILE2_DIM; i += 32)
            if (!CHECK || (row0 + ty + j < rows && col0 + tx + i < cols))
                tile[ty + j][tx + i] = in[(size_t)(row0 + ty + j) * cols + col0 + tx + i];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < TILE2_DIM; j += BLOCK2_ROWS)
#pragma unroll
        for (int i = 0; i < TILE2_DIM; i += 32)
            if (!CHECK || (col0 + ty + j < cols && row0 + tx + i < rows))
                out[(size_t)(col0 + ty + j) * rows + row0 + tx + i] = tile[tx + i][ty + j];
}

// transposeNoBankConflicts: one spare column makes the 32 floats a warp reads down a column
// of the tile fall in 32 different banks; interior tiles skip the bounds checks.
__global__ void transposeNoBankConflicts(float *__restrict__ out, const float *__restrict__ in,
                                         int rows, int cols)
{
    // TODO(2.2): transpose as in 2.1, through a tile whose columns are free of bank conflicts.
    //   Then make it fast (section 5): more loads in flight per thread, no bounds checks on
    //   interior tiles, and blocks that run together writing neighbouring stretches of out.
    //   HINT: a warp reads tile[threadIdx.x][k]: in which bank does each of those floats sit?
    __shared__ float tile[TILE2_DIM][TILE2_DIM + 1];
    /* blockIdx.x walks DOWN a column of tiles: blocks that run together write whole rows of
       out, one contiguous stretch (at 8191 x 8193, 0.64 -> 0.76 of copy bandwidth, H200) */
    const int row0 = blockIdx.x * TILE2_DIM, col0 = blockIdx.y * TILE2_DIM;
    if (row0 + TILE2_DIM <= rows && col0 + TILE2_DIM <= cols)
        transposeTile<false>(out, in, rows, cols, row0, col0, tile);
    else
        transposeTile<true>(out, in, rows, cols, row0, col0, tile);
}

void launch_transpose_no_bank_conflicts(float *d_out, const float *d_in, int rows, int cols,
                                        cudaStream_t stream)
{
    // TODO(2.2): launch transposeNoBankConflicts, one block per tile, then CML_CHECK_LAUNCH().
    const dim3 grid((rows + TILE2_DIM - 1) / TILE2_DIM, (cols + TILE2_DIM - 1) / TILE2_DIM);
    transposeNoBankConflicts<<<grid, dim3(32, BLOCK2_ROWS), 0, stream>>>(d_out, d_in, rows,
                                                                         cols);
    CML_CHECK_LAUNCH();
}
