/* Lab 02, shared-memory transpose: 2.1's tile loaded by cuda::memcpy_async and completed on a
 * cuda::barrier (asynchronous copies into shared memory, an mbarrier for the wait: issue 44,
 * where synccheck ended such a run and the grader took it for a dodge); 2.2 as coop_groups_ns. */
#include "transpose.h"

#include <cooperative_groups.h>
#include <cuda/barrier>

#define TILE_DIM 32
#define BLOCK_ROWS 8

namespace cg = cooperative_groups;

namespace lab02 {

constexpr int kWide = 64, kThreadsX = 32, kThreadsY = 16;

// transposeCoalesced: each thread copies its floats of the tile with cuda::memcpy_async,
// completed on a block-scope cuda::barrier (an mbarrier in shared memory) in place of
// __syncthreads(); then a row of out per warp, read down a column of the tile.
__global__ void transposeCoalesced(float *__restrict__ out, const float *__restrict__ in,
                                   int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    __shared__ cuda::barrier<cuda::thread_scope_block> loaded;
    cg::thread_block block = cg::this_thread_block();
    if (block.thread_rank() == 0)
        init(&loaded, block.size());
    block.sync(); // the barrier is initialised before anyone arrives on it
    const int x = threadIdx.x;
    const int c_in = blockIdx.x * TILE_DIM + x;
    for (int y = threadIdx.y; y < TILE_DIM; y += BLOCK_ROWS) {
        const int r_in = blockIdx.y * TILE_DIM + y;
        if (r_in < rows && c_in < cols)
            cuda::memcpy_async(&tile[y][x], &in[(size_t)r_in * cols + c_in], sizeof(float),
                               loaded);
    }
    loaded.arrive_and_wait(); // every copy of the block has landed
    const int r_out = blockIdx.y * TILE_DIM + x; // in's row becomes out's column
    for (int y = threadIdx.y; y < TILE_DIM; y += BLOCK_ROWS) {
        const int c_out = blockIdx.x * TILE_DIM + y; // in's column becomes out's row
        if (c_out < cols && r_out < rows)
            out[(size_t)c_out * rows + r_out] = tile[x][y];
    }
}

// transposeNoBankConflicts: 64 x (64+1) tile; every thread loads its 8 floats before storing
// any; grid x runs down a column of tiles (row tiles), grid y across (column tiles).
__global__ void __launch_bounds__(kThreadsX *kThreadsY)
    transposeNoBankConflicts(float *__restrict__ out, const float *__restrict__ in, int rows,
                             int cols)
{
    __shared__ float tile[kWide][kWide + 1];
    cg::thread_block block = cg::this_thread_block();
    const int r0 = blockIdx.x * kWide, c0 = blockIdx.y * kWide;
    const int tx = threadIdx.x, ty = threadIdx.y;
    constexpr int NY = kWide / kThreadsY, NX = kWide / kThreadsX;
    float v[NY * NX];
    if (r0 + kWide <= rows && c0 + kWide <= cols) { // interior: no guards at all
#pragma unroll
        for (int k = 0; k < NY * NX; k++)
            v[k] = in[(size_t)(r0 + ty + (k / NX) * kThreadsY) * cols + c0 + tx +
                      (k % NX) * kThreadsX];
#pragma unroll
        for (int k = 0; k < NY * NX; k++)
            tile[ty + (k / NX) * kThreadsY][tx + (k % NX) * kThreadsX] = v[k];
        block.sync();
#pragma unroll
        for (int k = 0; k < NY * NX; k++) {
            const int a = ty + (k / NX) * kThreadsY, b = tx + (k % NX) * kThreadsX;
            out[(size_t)(c0 + a) * rows + r0 + b] = tile[b][a];
        }
    } else {
#pragma unroll
        for (int k = 0; k < NY * NX; k++) {
            const int a = ty + (k / NX) * kThreadsY, b = tx + (k % NX) * kThreadsX;
            if (r0 + a < rows && c0 + b < cols)
                tile[a][b] = in[(size_t)(r0 + a) * cols + c0 + b];
        }
        block.sync();
#pragma unroll
        for (int k = 0; k < NY * NX; k++) {
            const int a = ty + (k / NX) * kThreadsY, b = tx + (k % NX) * kThreadsX;
            if (c0 + a < cols && r0 + b < rows)
                out[(size_t)(c0 + a) * rows + r0 + b] = tile[b][a];
        }
    }
}

} // namespace lab02

void launch_transpose_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                cudaStream_t stream)
{
    dim3 grid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM);
    lab02::transposeCoalesced<<<grid, dim3(TILE_DIM, BLOCK_ROWS), 0, stream>>>(d_out, d_in, rows,
                                                                              cols);
    CML_CHECK_LAUNCH();
}

void launch_transpose_no_bank_conflicts(float *d_out, const float *d_in, int rows, int cols,
                                        cudaStream_t stream)
{
    using namespace lab02;
    dim3 grid((rows + kWide - 1) / kWide, (cols + kWide - 1) / kWide);
    transposeNoBankConflicts<<<grid, dim3(kThreadsX, kThreadsY), 0, stream>>>(d_out, d_in, rows,
                                                                             cols);
    CML_CHECK_LAUNCH();
}
