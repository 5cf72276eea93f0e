/* Lab 02, shared-memory transpose: my kernels and launch wrappers.
 * 2.1 brings each row of its tile into shared memory with one bulk asynchronous copy (the
 * Hopper copy engine behind cuda::memcpy_async with 16-byte aligned sizes), completed on a
 * cuda::barrier in shared memory; where rows of `in` are not 16-byte aligned (cols not a
 * multiple of 4) it loads the tile element by element. 2.2 walks a one-dimensional grid down the
 * columns of tiles, with a 64 x 65 padded tile in dynamic shared memory. */
#include "transpose.h"

#include <cuda/barrier>
#include <stdint.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

// ---- 2.1 --------------------------------------------------------------------------------
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

template <bool Bulk>
__global__ void transposeCoalesced(float *__restrict__ out, const float *__restrict__ in,
                                   int rows, int cols)
{
    __shared__ alignas(128) float tile[TILE_DIM][TILE_DIM];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier bar;
    const int r0 = blockIdx.y * TILE_DIM, c0 = blockIdx.x * TILE_DIM;
    const int x = threadIdx.x, y = threadIdx.y;
    if (Bulk) {
        const int tid = y * TILE_DIM + x;
        if (tid == 0) {
            init(&bar, blockDim.x * blockDim.y);
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); /* init seen by the copies */
        }
        __syncthreads();
        /* thread t < 32 of the block copies row t of the tile: (cols - c0) floats at most 32,
           a multiple of 4 floats (16 bytes) since cols is */
        const int width = min(TILE_DIM, cols - c0);
        if (tid < TILE_DIM && r0 + tid < rows)
            cuda::memcpy_async(&tile[tid][0], in + (size_t)(r0 + tid) * cols + c0,
                               cuda::aligned_size_t<16>((size_t)width * sizeof(float)), bar);
        bar.arrive_and_wait(); /* every thread arrived and every byte landed */
    } else {
#pragma unroll
        for (int k = 0; k < TILE_DIM; k += BLOCK_ROWS)
            if (r0 + y + k < rows && c0 + x < cols)
                tile[y + k][x] = in[(size_t)(r0 + y + k) * cols + c0 + x];
        __syncthreads();
    }
#pragma unroll
    for (int k = 0; k < TILE_DIM; k += BLOCK_ROWS) {
        const int orow = c0 + y + k, ocol = r0 + x;
        if (orow < cols && ocol < rows)
            out[(size_t)orow * rows + ocol] = tile[x][y + k];
    }
}

void launch_transpose_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                cudaStream_t stream)
{
    const dim3 grid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM);
    const dim3 block(TILE_DIM, BLOCK_ROWS);
    const bool aligned = cols % 4 == 0 && (reinterpret_cast<uintptr_t>(d_in) & 15) == 0;
    if (aligned)
        transposeCoalesced<true><<<grid, block, 0, stream>>>(d_out, d_in, rows, cols);
    else
        transposeCoalesced<false><<<grid, block, 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// ---- 2.2 --------------------------------------------------------------------------------
// 64 x 64 tiles moved by 32 x 16 threads, 8 loads in flight per thread before the first store.
// Block b of the one-dimensional grid takes tile row b % tile_rows, tile column b / tile_rows:
// consecutive blocks go down a column of tiles, so the blocks resident at once write the same
// stretch of rows of out. The tile's rows are 65 floats: tile[x][k] for 32 lanes x sits in
// banks (x + k) % 32.
constexpr int T2 = 64, P2 = T2 + 1, BX2 = 32, BY2 = 16;

template <bool Guard>
__device__ __forceinline__ void moveTile(float *__restrict__ out, const float *__restrict__ in,
                                         int rows, int cols, int r0, int c0, float *sm)
{
    const int x = threadIdx.x, y = threadIdx.y;
    float v[T2 / BY2][T2 / BX2];
#pragma unroll
    for (int a = 0; a < T2 / BY2; a++)
#pragma unroll
        for (int b = 0; b < T2 / BX2; b++) {
            const int r = r0 + y + a * BY2, c = c0 + x + b * BX2;
            v[a][b] = (!Guard || (r < rows && c < cols)) ? in[(size_t)r * cols + c] : 0.0f;
        }
#pragma unroll
    for (int a = 0; a < T2 / BY2; a++)
#pragma unroll
        for (int b = 0; b < T2 / BX2; b++)
            sm[(y + a * BY2) * P2 + x + b * BX2] = v[a][b];
    __syncthreads();
#pragma unroll
    for (int a = 0; a < T2 / BY2; a++)
#pragma unroll
        for (int b = 0; b < T2 / BX2; b++) {
            const int oc = c0 + y + a * BY2, orr = r0 + x + b * BX2;
            if (!Guard || (oc < cols && orr < rows))
                out[(size_t)oc * rows + orr] = sm[(x + b * BX2) * P2 + y + a * BY2];
        }
}

__global__ void __launch_bounds__(BX2 *BY2)
    transposeNoBankConflicts(float *__restrict__ out, const float *__restrict__ in, int rows,
                             int cols)
{
    extern __shared__ float sm[];
    const unsigned tile_rows = (rows + T2 - 1) / T2;
    const int r0 = (int)(blockIdx.x % tile_rows) * T2, c0 = (int)(blockIdx.x / tile_rows) * T2;
    if (r0 + T2 <= rows && c0 + T2 <= cols)
        moveTile<false>(out, in, rows, cols, r0, c0, sm);
    else
        moveTile<true>(out, in, rows, cols, r0, c0, sm);
}

void launch_transpose_no_bank_conflicts(float *d_out, const float *d_in, int rows, int cols,
                                        cudaStream_t stream)
{
    const unsigned tiles = (unsigned)((rows + T2 - 1) / T2) * (unsigned)((cols + T2 - 1) / T2);
    transposeNoBankConflicts<<<tiles, dim3(BX2, BY2), T2 * P2 * sizeof(float), stream>>>(
        d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}
