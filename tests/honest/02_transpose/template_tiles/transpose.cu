/* Lab 02, shared-memory transpose: the tiled kernels as templates over the tile and block
 * shape, with one template launch helper for both tasks. */
#include "transpose.h"

#define TILE_DIM 32
#define BLOCK_ROWS 8

// ---- 2.1 --------------------------------------------------------------------------------
// transposeCoalesced: the textbook tile; a warp reading a column of `tile` hits one bank.
__global__ void transposeCoalesced(float *__restrict__ out, const float *__restrict__ in,
                                   int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    const int col0 = blockIdx.x * TILE_DIM, row0 = blockIdx.y * TILE_DIM;
    const int c = col0 + threadIdx.x;
#pragma unroll
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        const int r = row0 + threadIdx.y + j;
        if (r < rows && c < cols)
            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)r * cols + c];
    }
    __syncthreads();
    const int r = row0 + threadIdx.x; // out's column index: a row of in
#pragma unroll
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        const int oc = col0 + threadIdx.y + j; // out's row index: a column of in
        if (oc < cols && r < rows)
            out[(size_t)oc * rows + r] = tile[threadIdx.x][threadIdx.y + j];
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
// moveTile: one TILE x TILE tile in through `tile` (one padding column) and out transposed.
// CHECK guards every element; interior tiles instantiate it without.
template <int TILE, int BX, int BY, bool CHECK>
__device__ __forceinline__ void moveTile(float (*tile)[TILE + 1], float *__restrict__ out,
                                         const float *__restrict__ in, int rows, int cols,
                                         int row0, int col0)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
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
            const int oc = col0 + ty + j, orow = row0 + tx + i; // out[oc][orow]
            if (!CHECK || (oc < cols && orow < rows))
                out[(size_t)oc * rows + orow] = tile[tx + i][ty + j];
        }
}

// transposeNoBankConflicts: block b takes tile (b % row_tiles, b / row_tiles), so
// consecutive blocks go down a column of tiles and together write whole rows of out.
template <int TILE, int BX, int BY>
__global__ void __launch_bounds__(BX *BY)
    transposeNoBankConflicts(float *__restrict__ out, const float *__restrict__ in, int rows,
                             int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    const unsigned row_tiles = (rows + TILE - 1) / TILE;
    const int row0 = (blockIdx.x % row_tiles) * TILE, col0 = (blockIdx.x / row_tiles) * TILE;
    if (row0 + TILE <= rows && col0 + TILE <= cols)
        moveTile<TILE, BX, BY, false>(tile, out, in, rows, cols, row0, col0);
    else
        moveTile<TILE, BX, BY, true>(tile, out, in, rows, cols, row0, col0);
}

// launch_tiles: one block per tile, a 1D grid; Kernel is any tiled kernel of this shape.
template <int TILE, int BX, int BY, typename Kernel>
void launch_tiles(Kernel kernel, float *d_out, const float *d_in, int rows, int cols,
                  cudaStream_t stream)
{
    static_assert(TILE % BX == 0 && TILE % BY == 0, "the block must tile the tile");
    const size_t tiles = (size_t)((rows + TILE - 1) / TILE) * ((cols + TILE - 1) / TILE);
    kernel<<<(unsigned)tiles, dim3(BX, BY), 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

void launch_transpose_no_bank_conflicts(float *d_out, const float *d_in, int rows, int cols,
                                        cudaStream_t stream)
{
    launch_tiles<64, 32, 16>(transposeNoBankConflicts<64, 32, 16>, d_out, d_in, rows, cols,
                             stream);
}
