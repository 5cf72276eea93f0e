/* Lab 02, shared-memory transpose. Variant: 2.1 numbers its tiles on a 1-D grid (one block of
 * 32 x 8 threads per tile, as the sheet asks); 2.2 is a persistent kernel: 32 x 8 threads,
 * two padded tiles in flight per step, a grid of exactly as many blocks as the GPU holds at once
 * (occupancy API), and every block walks its share of the tiles down the columns of the tile
 * grid, two tiles per step, with a block barrier before the stores and another before the next
 * step's loads. */
#include "transpose.h"

#include <algorithm>

#define TILE_DIM 32
#define BLOCK_ROWS 8

// ---- 2.1 --------------------------------------------------------------------------------
// Block b moves tile (b % tile_rows, b / tile_rows): tile row fastest.
__global__ void transposeCoalesced(float *__restrict__ out, const float *__restrict__ in,
                                   int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    const int tile_rows = (rows + TILE_DIM - 1) / TILE_DIM;
    const int r0 = (int)(blockIdx.x % (unsigned)tile_rows) * TILE_DIM;
    const int c0 = (int)(blockIdx.x / (unsigned)tile_rows) * TILE_DIM;
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int j = ty; j < TILE_DIM; j += BLOCK_ROWS)
        if (r0 + j < rows && c0 + tx < cols)
            tile[j][tx] = in[(size_t)(r0 + j) * cols + c0 + tx];
    __syncthreads();
    for (int j = ty; j < TILE_DIM; j += BLOCK_ROWS) // out row c0 + j, column r0 + tx
        if (c0 + j < cols && r0 + tx < rows)
            out[(size_t)(c0 + j) * rows + r0 + tx] = tile[tx][j];
}

void launch_transpose_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                cudaStream_t stream)
{
    const unsigned tiles = (unsigned)((rows + TILE_DIM - 1) / TILE_DIM) *
                           (unsigned)((cols + TILE_DIM - 1) / TILE_DIM);
    transposeCoalesced<<<tiles, dim3(TILE_DIM, BLOCK_ROWS), 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// ---- 2.2 --------------------------------------------------------------------------------
// A block of 32 x 8 threads moves two tiles per step of its loop (tiles 2p and 2p + 1, two
// neighbours down a column of the tile grid), so each thread has 8 loads in flight before its
// first store; the grid is what the GPU holds at once and every block walks pairs p, p + G, ...
constexpr int THREADS = TILE_DIM * BLOCK_ROWS;
constexpr int PER_STEP = 2; // tiles per step of a block's loop

__global__ void __launch_bounds__(THREADS)
    transposeNoBankConflicts(float *__restrict__ out, const float *__restrict__ in, int rows,
                             int cols)
{
    __shared__ float tile[PER_STEP][TILE_DIM][TILE_DIM + 1]; // column reads: bank (x + k) % 32
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tile_rows = (rows + TILE_DIM - 1) / TILE_DIM;
    const long long tiles = (long long)tile_rows * ((cols + TILE_DIM - 1) / TILE_DIM);
    const long long pairs = (tiles + PER_STEP - 1) / PER_STEP;
    // the loop bound is the same for every thread of the block: every barrier is reached by all
    for (long long p = blockIdx.x; p < pairs; p += gridDim.x) {
#pragma unroll
        for (int q = 0; q < PER_STEP; q++) {
            const long long t = p * PER_STEP + q; // may be == tiles (odd count): all guarded
            const int r0 = (int)(t % tile_rows) * TILE_DIM, c0 = (int)(t / tile_rows) * TILE_DIM;
            const bool interior = t < tiles && r0 + TILE_DIM <= rows && c0 + TILE_DIM <= cols;
#pragma unroll
            for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
                const int r = r0 + ty + j, c = c0 + tx;
                if (interior || (t < tiles && r < rows && c < cols))
                    tile[q][ty + j][tx] = in[(size_t)r * cols + c];
            }
        }
        __syncthreads();
#pragma unroll
        for (int q = 0; q < PER_STEP; q++) {
            const long long t = p * PER_STEP + q;
            const int r0 = (int)(t % tile_rows) * TILE_DIM, c0 = (int)(t / tile_rows) * TILE_DIM;
            const bool interior = t < tiles && r0 + TILE_DIM <= rows && c0 + TILE_DIM <= cols;
#pragma unroll
            for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) { // out row c0 + ty + j, column r0 + tx
                const int orow = c0 + ty + j, ocol = r0 + tx;
                if (interior || (t < tiles && orow < cols && ocol < rows))
                    out[(size_t)orow * rows + ocol] = tile[q][tx][ty + j];
            }
        }
        __syncthreads(); // the next step's loads overwrite what this step's stores read
    }
}

void launch_transpose_no_bank_conflicts(float *d_out, const float *d_in, int rows, int cols,
                                        cudaStream_t stream)
{
    static const int per_sm = [] { // blocks one SM holds, asked once
        int b = 0;
        CML_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, transposeNoBankConflicts,
                                                                THREADS, 0));
        return std::max(1, b);
    }();
    const long long tiles = (long long)((rows + TILE_DIM - 1) / TILE_DIM) *
                            ((cols + TILE_DIM - 1) / TILE_DIM);
    const long long pairs = (tiles + PER_STEP - 1) / PER_STEP;
    const unsigned blocks = (unsigned)std::min<long long>(pairs, (long long)per_sm * cml_sm_count());
    transposeNoBankConflicts<<<blocks, dim3(TILE_DIM, BLOCK_ROWS), 0, stream>>>(d_out, d_in,
                                                                                rows, cols);
    CML_CHECK_LAUNCH();
}
