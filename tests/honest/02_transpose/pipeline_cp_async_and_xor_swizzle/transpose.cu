/* Lab 02, shared-memory transpose: my kernels and launch wrappers.
 * 2.1 fills its tile with asynchronous copies (cp.async through the pipeline primitives) and
 * waits for them before the barrier; 2.2 keeps a 64 x 64 tile without a spare column, its
 * columns spread over the banks by an XOR swizzle. */
#include "transpose.h"

#include <cuda_pipeline.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

// ---- 2.1 --------------------------------------------------------------------------------
// transposeCoalesced: thread (x, y) copies in[r0 + y + 8k][c0 + x] into tile[y + 8k][x]
// (cp.async: global -> shared without a register), waits for its copies, the block meets at
// the barrier, and then thread (x, y) writes tile[x][y + 8k] to out[c0 + y + 8k][r0 + x].
__global__ void transposeCoalesced(float *__restrict__ out, const float *__restrict__ in,
                                   int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    const int r0 = blockIdx.y * TILE_DIM, c0 = blockIdx.x * TILE_DIM;
    const int x = threadIdx.x, y = threadIdx.y;
#pragma unroll
    for (int k = 0; k < TILE_DIM; k += BLOCK_ROWS) {
        const int r = r0 + y + k, c = c0 + x;
        if (r < rows && c < cols)
            __pipeline_memcpy_async(&tile[y + k][x], in + (size_t)r * cols + c, sizeof(float));
    }
    __pipeline_commit();
    __pipeline_wait_prior(0); /* this thread's copies have landed */
    __syncthreads();          /* and everyone else's */
#pragma unroll
    for (int k = 0; k < TILE_DIM; k += BLOCK_ROWS) {
        const int orow = c0 + y + k, ocol = r0 + x; /* out is cols x rows */
        if (orow < cols && ocol < rows)
            out[(size_t)orow * rows + ocol] = tile[x][y + k];
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
// 64 x 64 tiles, 32 x 16 threads, 8 floats in flight per thread. Element (r, c) of the tile
// sits at tile[r][c ^ (r & 31)]: a row keeps its 64 words (XOR with r & 31 never leaves a
// 32-word half), a warp storing 32 consecutive c of one row hits 32 banks, and a warp reading
// one column c for 32 consecutive r hits banks c ^ r: 32 different ones too. No spare words.
namespace swz {

constexpr int T = 64, BX = 32, BY = 16;

__device__ __forceinline__ int at(int r, int c) { return r * T + (c ^ (r & 31)); }

template <bool Edge>
__device__ __forceinline__ void move_tile(float *__restrict__ out, const float *__restrict__ in,
                                          int rows, int cols, int r0, int c0, float *tile)
{
    const int x = threadIdx.x, y = threadIdx.y;
    float v[T / BY][T / BX];
#pragma unroll
    for (int a = 0; a < T / BY; a++)
#pragma unroll
        for (int b = 0; b < T / BX; b++) {
            const int r = r0 + y + a * BY, c = c0 + x + b * BX;
            float val = 0.0f; /* edge tiles: what lies outside the matrix is never written */
            if (!Edge || (r < rows && c < cols))
                val = in[(size_t)r * cols + c];
            v[a][b] = val;
        }
#pragma unroll
    for (int a = 0; a < T / BY; a++)
#pragma unroll
        for (int b = 0; b < T / BX; b++)
            tile[at(y + a * BY, x + b * BX)] = v[a][b];
    __syncthreads();
#pragma unroll
    for (int a = 0; a < T / BY; a++)
#pragma unroll
        for (int b = 0; b < T / BX; b++) {
            const int oc = c0 + y + a * BY; /* a row of out: column oc of in */
            const int orr = r0 + x + b * BX;
            if (!Edge || (oc < cols && orr < rows))
                out[(size_t)oc * rows + orr] = tile[at(x + b * BX, y + a * BY)];
        }
}

} // namespace swz

__global__ void __launch_bounds__(swz::BX *swz::BY)
    transposeNoBankConflicts(float *__restrict__ out, const float *__restrict__ in, int rows,
                             int cols)
{
    __shared__ float tile[swz::T * swz::T];
    /* blockIdx.x runs down a column of tiles: blocks resident together cover the same rows of
       out, contiguous stretches of it */
    const int r0 = blockIdx.x * swz::T, c0 = blockIdx.y * swz::T;
    if (r0 + swz::T <= rows && c0 + swz::T <= cols)
        swz::move_tile<false>(out, in, rows, cols, r0, c0, tile);
    else
        swz::move_tile<true>(out, in, rows, cols, r0, c0, tile);
}

void launch_transpose_no_bank_conflicts(float *d_out, const float *d_in, int rows, int cols,
                                        cudaStream_t stream)
{
    const dim3 grid((rows + swz::T - 1) / swz::T, (cols + swz::T - 1) / swz::T);
    transposeNoBankConflicts<<<grid, dim3(swz::BX, swz::BY), 0, stream>>>(d_out, d_in, rows,
                                                                          cols);
    CML_CHECK_LAUNCH();
}
