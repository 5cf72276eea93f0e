/* Lab 02 baseline (pristine): the tile-shaped copy, the ceiling a transpose can hope for. Each
 * block moves one TILE x TILE tile with BX x BY threads, exactly as a tiled transpose moves its
 * tile, but straight to the same place: no shared memory, every access coalesced. The bench's
 * "copy2D" rows; the reference's tuning variants (beside the reference only) reuse copyTileT. */
#ifndef TILE_COPY_CUH
#define TILE_COPY_CUH

#include "cml_lab.h"

// copyTileT: one tile, each thread (TILE/BX) x (TILE/BY) floats. CHECK guards every element;
// without it the tile must lie wholly inside the matrix.
template <int TILE, int BX, int BY, bool CHECK>
__device__ __forceinline__ void copyTileT(float *__restrict__ out, const float *__restrict__ in,
                                          int rows, int cols, int row0, int col0)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += BY)
#pragma unroll
        for (int i = 0; i < TILE; i += BX) {
            const int r = row0 + ty + j, c = col0 + tx + i;
            if (!CHECK || (r < rows && c < cols))
                out[(size_t)r * cols + c] = in[(size_t)r * cols + c];
        }
}

// tileCopy: block b copies tile (b / col_tiles, b % col_tiles); interior tiles take the
// unchecked path when FAST.
template <int TILE, int BX, int BY, bool FAST>
__global__ void __launch_bounds__(BX *BY)
    tileCopy(float *__restrict__ out, const float *__restrict__ in, int rows, int cols)
{
    const unsigned col_tiles = (cols + TILE - 1) / TILE;
    const int row0 = blockIdx.x / col_tiles * TILE, col0 = blockIdx.x % col_tiles * TILE;
    if (FAST && row0 + TILE <= rows && col0 + TILE <= cols)
        copyTileT<TILE, BX, BY, false>(out, in, rows, cols, row0, col0);
    else
        copyTileT<TILE, BX, BY, true>(out, in, rows, cols, row0, col0);
}

template <int TILE, int BX, int BY, bool FAST>
void launchTileCopy(float *d_out, const float *d_in, int rows, int cols, cudaStream_t stream)
{
    static_assert(TILE % BX == 0 && TILE % BY == 0 && BX % 32 == 0, "tile and block must nest");
    const size_t tiles = (size_t)((cols + TILE - 1) / TILE) * ((rows + TILE - 1) / TILE);
    tileCopy<TILE, BX, BY, FAST><<<(unsigned)tiles, dim3(BX, BY), 0, stream>>>(d_out, d_in, rows,
                                                                              cols);
    CML_CHECK_LAUNCH();
}

#endif /* TILE_COPY_CUH */
