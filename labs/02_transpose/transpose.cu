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
}

void launch_transpose_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                cudaStream_t stream)
{
    // TODO(2.1): one block of TILE_DIM x BLOCK_ROWS threads per tile, then CML_CHECK_LAUNCH().
    CML_TODO("2.1", "write transposeCoalesced and launch it");
    (void)d_out, (void)d_in, (void)rows, (void)cols, (void)stream; // stub: delete
}

// ---- 2.2 --------------------------------------------------------------------------------
// transposeNoBankConflicts: one spare column makes the 32 floats a warp reads down a column
// of the tile fall in 32 different banks; interior tiles skip the bounds checks.
__global__ void transposeNoBankConflicts(float *__restrict__ out, const float *__restrict__ in,
                                         int rows, int cols)
{
    // TODO(2.2): transpose as in 2.1, through a tile whose columns are free of bank conflicts.
    //   Then make it fast (section 5): more loads in flight per thread, no bounds checks on
    //   interior tiles, and blocks that run together writing neighbouring stretches of out.
    //   HINT: a warp reads tile[threadIdx.x][k]: in which bank does each of those floats sit?
}

void launch_transpose_no_bank_conflicts(float *d_out, const float *d_in, int rows, int cols,
                                        cudaStream_t stream)
{
    // TODO(2.2): launch transposeNoBankConflicts, one block per tile, then CML_CHECK_LAUNCH().
    CML_TODO("2.2", "write transposeNoBankConflicts and launch it");
    (void)d_out, (void)d_in, (void)rows, (void)cols, (void)stream; // stub: delete
}
