/* Lab 02, shared-memory transpose: 2.2 through an XOR-swizzled 64 x 64 tile instead of a
 * padding column (the sheet allows either): element (r, c) of the tile sits at column
 * c ^ (r % 32), so a warp reading down a column meets 32 different banks. */
#include "transpose.h"

#define TILE_DIM 32
#define BLOCK_ROWS 8

// ---- 2.1 --------------------------------------------------------------------------------
__global__ void transposeCoalesced(float *__restrict__ out, const float *__restrict__ in,
                                   int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    int c = blockIdx.x * TILE_DIM + threadIdx.x;
    int r = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (c < cols && r + j < rows)
            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(r + j) * cols + c];
    __syncthreads(); // every thread reaches it: the guards are inside the loops
    // swap roles: x now runs along a row of out, i.e. along r of in
    c = blockIdx.x * TILE_DIM + threadIdx.y;
    r = blockIdx.y * TILE_DIM + threadIdx.x;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (c + j < cols && r < rows)
            out[(size_t)(c + j) * rows + r] = tile[threadIdx.x][threadIdx.y + j];
}

void launch_transpose_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                cudaStream_t stream)
{
    auto tiles = [](int n) { return (unsigned)((n + TILE_DIM - 1) / TILE_DIM); };
    transposeCoalesced<<<dim3(tiles(cols), tiles(rows)), dim3(TILE_DIM, BLOCK_ROWS), 0,
                         stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// ---- 2.2 --------------------------------------------------------------------------------
constexpr int BIG = 64;       // tile edge
constexpr int BX = 32, BY = 16; // 512 threads, 8 elements each
constexpr int SEG_X = BIG / BX, SEG_Y = BIG / BY;

// swz: where column c of tile row r is stored (a permutation of each row's 64 words).
__device__ __forceinline__ int swz(int r, int c) { return c ^ (r & 31); }

__global__ void __launch_bounds__(BX *BY)
    transposeNoBankConflicts(float *__restrict__ out, const float *__restrict__ in, int rows,
                             int cols)
{
    __shared__ float tile[BIG][BIG];
    // blockIdx.x runs down a column of tiles: the blocks in flight write neighbouring rows
    const int row0 = blockIdx.x * BIG, col0 = blockIdx.y * BIG;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const bool interior = row0 + BIG <= rows && col0 + BIG <= cols;
    float v[SEG_Y][SEG_X];
    if (interior) {
#pragma unroll
        for (int j = 0; j < SEG_Y; j++)
#pragma unroll
            for (int i = 0; i < SEG_X; i++)
                v[j][i] = in[(size_t)(row0 + ty + j * BY) * cols + col0 + tx + i * BX];
    } else {
#pragma unroll
        for (int j = 0; j < SEG_Y; j++)
#pragma unroll
            for (int i = 0; i < SEG_X; i++) {
                const int r = row0 + ty + j * BY, c = col0 + tx + i * BX;
                v[j][i] = (r < rows && c < cols) ? in[(size_t)r * cols + c] : 0.0f;
            }
    }
#pragma unroll
    for (int j = 0; j < SEG_Y; j++)
#pragma unroll
        for (int i = 0; i < SEG_X; i++) {
            const int tr = ty + j * BY, tc = tx + i * BX;
            tile[tr][swz(tr, tc)] = v[j][i];
        }
    __syncthreads();
    // out row oc = col0 + ty + j*BY holds in's column; its floats run along in's rows
#pragma unroll
    for (int j = 0; j < SEG_Y; j++)
#pragma unroll
        for (int i = 0; i < SEG_X; i++) {
            const int tr = tx + i * BX, tc = ty + j * BY; // tile element (tr, tc) = in(row0+tr, col0+tc)
            const int oc = col0 + tc, orow = row0 + tr;
            if (interior || (oc < cols && orow < rows))
                out[(size_t)oc * rows + orow] = tile[tr][swz(tr, tc)];
        }
}

void launch_transpose_no_bank_conflicts(float *d_out, const float *d_in, int rows, int cols,
                                        cudaStream_t stream)
{
    const dim3 grid((rows + BIG - 1) / BIG, (cols + BIG - 1) / BIG);
    transposeNoBankConflicts<<<grid, dim3(BX, BY), 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}
