/* Lab 02, shared-memory transpose: both tiles in dynamic shared memory (extern __shared__),
 * the kernels in an anonymous namespace, the launch shape of 2.2 kept in a function-local
 * static struct. Note: __syncthreads() below is the only barrier each kernel needs. */
#include "transpose.h"

#include <algorithm>

#define TILE_DIM 32
#define BLOCK_ROWS 8

namespace {

// ---- 2.1 --------------------------------------------------------------------------------
// transposeCoalesced: tile[TILE_DIM][TILE_DIM] laid out by hand in the dynamic buffer.
__global__ void transposeCoalesced(float *__restrict__ out, const float *__restrict__ in,
                                   int rows, int cols)
{
    extern __shared__ float smem[];
    auto tile = [&](int y, int x) -> float & { return smem[y * TILE_DIM + x]; };
    const int bx = blockIdx.x * TILE_DIM, by = blockIdx.y * TILE_DIM;
    for (int y = threadIdx.y; y < TILE_DIM; y += BLOCK_ROWS) {
        const int r = by + y, c = bx + threadIdx.x;
        if (r < rows && c < cols)
            tile(y, threadIdx.x) = in[(size_t)r * cols + c];
    }
    __syncthreads();
    for (int y = threadIdx.y; y < TILE_DIM; y += BLOCK_ROWS) {
        const int orow = bx + y, ocol = by + threadIdx.x; // out is cols x rows
        if (orow < cols && ocol < rows)
            out[(size_t)orow * rows + ocol] = tile(threadIdx.x, y);
    }
}

// ---- 2.2 --------------------------------------------------------------------------------
struct TileShape {
    int tile, bx, by;
    int pitch() const { return tile + 1; } // one spare word per row
    size_t smem_bytes() const { return sizeof(float) * tile * pitch(); }
};

// transposeNoBankConflicts: pitch TILE+1 (row y starts in bank y % 32); interior tiles skip
// the guards; blockIdx.x counts down a column of tiles first.
template <int TILE, int BX, int BY>
__global__ void __launch_bounds__(BX *BY)
    transposeNoBankConflicts(float *__restrict__ out, const float *__restrict__ in, int rows,
                             int cols)
{
    extern __shared__ float smem[];
    constexpr int P = TILE + 1;
    const int row_tiles = (rows + TILE - 1) / TILE;
    const int row0 = (int)(blockIdx.x % row_tiles) * TILE;
    const int col0 = (int)(blockIdx.x / row_tiles) * TILE;
    const bool full = row0 + TILE <= rows && col0 + TILE <= cols;
    const int tx = threadIdx.x, ty = threadIdx.y;
    if (full) {
        float v[TILE / BY][TILE / BX];
#pragma unroll
        for (int j = 0; j < TILE / BY; j++)
#pragma unroll
            for (int i = 0; i < TILE / BX; i++)
                v[j][i] = in[(size_t)(row0 + ty + j * BY) * cols + (col0 + tx + i * BX)];
#pragma unroll
        for (int j = 0; j < TILE / BY; j++)
#pragma unroll
            for (int i = 0; i < TILE / BX; i++)
                smem[(ty + j * BY) * P + tx + i * BX] = v[j][i];
    } else {
        for (int y = ty; y < TILE; y += BY)
            for (int x = tx; x < TILE; x += BX)
                if (row0 + y < rows && col0 + x < cols)
                    smem[y * P + x] = in[(size_t)(row0 + y) * cols + col0 + x];
    }
    __syncthreads();
    if (full) {
#pragma unroll
        for (int j = 0; j < TILE / BY; j++)
#pragma unroll
            for (int i = 0; i < TILE / BX; i++)
                out[(size_t)(col0 + ty + j * BY) * rows + row0 + tx + i * BX] =
                    smem[(tx + i * BX) * P + ty + j * BY];
    } else {
        for (int y = ty; y < TILE; y += BY)
            for (int x = tx; x < TILE; x += BX)
                if (col0 + y < cols && row0 + x < rows)
                    out[(size_t)(col0 + y) * rows + row0 + x] = smem[x * P + y];
    }
}

} // namespace

void launch_transpose_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                cudaStream_t stream)
{
    const dim3 grid{(unsigned)(cols + TILE_DIM - 1) / TILE_DIM,
                    (unsigned)(rows + TILE_DIM - 1) / TILE_DIM};
    const size_t smem = sizeof(float) * TILE_DIM * TILE_DIM;
    transposeCoalesced<<<grid, dim3(TILE_DIM, BLOCK_ROWS), smem, stream>>>(d_out, d_in, rows,
                                                                          cols);
    CML_CHECK_LAUNCH();
}

void launch_transpose_no_bank_conflicts(float *d_out, const float *d_in, int rows, int cols,
                                        cudaStream_t stream)
{
    static const TileShape shape{64, 32, 16}; // 64 x 64 tiles, 8 floats per thread
    const size_t tiles = (size_t)((rows + shape.tile - 1) / shape.tile) *
                         (size_t)((cols + shape.tile - 1) / shape.tile);
    transposeNoBankConflicts<64, 32, 16>
        <<<(unsigned)std::max<size_t>(tiles, 1), dim3(shape.bx, shape.by), shape.smem_bytes(),
           stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}
