/* Lab 02, shared-memory transpose. 2.2 through an XOR-swizzled 64 x 64 tile (no spare words),
 * a one-dimensional grid decoded column-major, cooperative-groups barriers. */
#include "transpose.h"

#include <cooperative_groups.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

namespace cg = cooperative_groups;

namespace tr {

struct Dims {
    int rows, cols;
    __device__ __forceinline__ bool inside(int r, int c) const { return r < rows && c < cols; }
    __device__ __forceinline__ size_t in_at(int r, int c) const { return (size_t)r * (size_t)cols + (size_t)c; }
    // element (r, c) of in goes to row c, column r of out
    __device__ __forceinline__ size_t out_at(int r, int c) const { return (size_t)c * (size_t)rows + (size_t)r; }
};

constexpr int S = 64;           // tile side in 2.2
constexpr int WX = 32, WY = 16; // threads per block in 2.2
constexpr int NK = S / WY, NH = S / WX;

// physical column of logical (r, c) in a 64-wide tile: the low 5 bits of c are XORed with
// the low 5 bits of r, so a column's 32 consecutive rows land in 32 different banks, and a
// row keeps its 64 words (a permutation that stays in its half).
__device__ __forceinline__ int swz(int r, int c) { return c ^ (r & 31); }

} // namespace tr

// ---- 2.1 --------------------------------------------------------------------------------
__global__ void transposeCoalesced(float *__restrict__ out, const float *__restrict__ in,
                                   int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    const cg::thread_block blk = cg::this_thread_block();
    const tr::Dims d{rows, cols};
    const int tx = (int)blk.thread_index().x, ty = (int)blk.thread_index().y;
    const int r0 = (int)blk.group_index().y * TILE_DIM, c0 = (int)blk.group_index().x * TILE_DIM;

#pragma unroll
    for (int k = 0; k < TILE_DIM; k += BLOCK_ROWS)
        if (d.inside(r0 + ty + k, c0 + tx))
            tile[ty + k][tx] = in[d.in_at(r0 + ty + k, c0 + tx)];
    blk.sync();
#pragma unroll
    for (int k = 0; k < TILE_DIM; k += BLOCK_ROWS)
        if (d.inside(r0 + tx, c0 + ty + k))
            out[d.out_at(r0 + tx, c0 + ty + k)] = tile[tx][ty + k];
}

void launch_transpose_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                cudaStream_t stream)
{
    const dim3 grid((unsigned)((cols + TILE_DIM - 1) / TILE_DIM),
                    (unsigned)((rows + TILE_DIM - 1) / TILE_DIM));
    transposeCoalesced<<<grid, dim3(TILE_DIM, BLOCK_ROWS), 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// ---- 2.2 --------------------------------------------------------------------------------
// A one-dimensional grid: block b takes tile row b % tile_rows of tile column b / tile_rows,
// so consecutive blocks walk down a column of tiles and write neighbouring stretches of the
// same rows of out.
__global__ void __launch_bounds__(tr::WX * tr::WY)
    transposeNoBankConflicts(float *__restrict__ out, const float *__restrict__ in, int rows,
                             int cols)
{
    __shared__ float tile[tr::S][tr::S];
    const cg::thread_block blk = cg::this_thread_block();
    const tr::Dims d{rows, cols};
    const int tile_rows = (rows + tr::S - 1) / tr::S;
    const int b = (int)blockIdx.x;
    const int r0 = (b % tile_rows) * tr::S, c0 = (b / tile_rows) * tr::S;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const bool interior = (r0 + tr::S <= rows) && (c0 + tr::S <= cols);

    float v[tr::NK * tr::NH];
    if (interior) {
#pragma unroll
        for (int k = 0; k < tr::NK; ++k)
#pragma unroll
            for (int h = 0; h < tr::NH; ++h)
                v[k * tr::NH + h] = __ldg(in + d.in_at(r0 + ty + k * tr::WY, c0 + tx + h * tr::WX));
    } else {
#pragma unroll
        for (int k = 0; k < tr::NK; ++k)
#pragma unroll
            for (int h = 0; h < tr::NH; ++h) {
                const int r = r0 + ty + k * tr::WY, c = c0 + tx + h * tr::WX;
                v[k * tr::NH + h] = d.inside(r, c) ? __ldg(in + d.in_at(r, c)) : 0.0f;
            }
    }
#pragma unroll
    for (int k = 0; k < tr::NK; ++k)
#pragma unroll
        for (int h = 0; h < tr::NH; ++h) {
            const int lr = ty + k * tr::WY, lc = tx + h * tr::WX;
            tile[lr][tr::swz(lr, lc)] = v[k * tr::NH + h];
        }
    blk.sync();

    // out row (c0 + j) is tile column j; lane i takes logical tile row i
#pragma unroll
    for (int k = 0; k < tr::NK; ++k)
#pragma unroll
        for (int h = 0; h < tr::NH; ++h) {
            const int j = ty + k * tr::WY, i = tx + h * tr::WX;
            const float x = tile[i][tr::swz(i, j)];
            if (interior || d.inside(r0 + i, c0 + j))
                out[d.out_at(r0 + i, c0 + j)] = x;
        }
}

void launch_transpose_no_bank_conflicts(float *d_out, const float *d_in, int rows, int cols,
                                        cudaStream_t stream)
{
    const unsigned tile_rows = (unsigned)((rows + tr::S - 1) / tr::S);
    const unsigned tile_cols = (unsigned)((cols + tr::S - 1) / tr::S);
    transposeNoBankConflicts<<<tile_rows * tile_cols, dim3(tr::WX, tr::WY), 0, stream>>>(
        d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}
