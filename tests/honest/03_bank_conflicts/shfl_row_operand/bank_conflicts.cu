/* Lab 03, shared-memory bank conflicts. Variant: in 3.3a and 3.3b each warp (one row i of the
 * output) keeps its own row of the tile in registers, one float per lane, and hands T[i][k]
 * to every lane with a warp shuffle; only the other operand, T[j][k], is read from the padded
 * (3.3a) or XOR-swizzled (3.3b) shared tile. 3.1 counts (bank, word) pairs with sort + unique;
 * 3.2 names the three steps with references into the tile. */
#include "bank_conflicts.h"

#include <algorithm>
#include <utility>
#include <vector>

// ---- 3.1 (host code) ---------------------------------------------------------------------
int conflict_degree(int stride_elems, int elem_bytes)
{
    const long long w = elem_bytes / 4;      // words per element
    const int phase = (int)(32 / w);          // lanes served together (128 bytes)
    int degree = 1;
    for (int first = 0; first < 32; first += phase) {
        std::vector<std::pair<int, long long>> bw; // (bank, word) of every word the phase asks
        for (int t = first; t < first + phase; t++)
            for (long long k = 0; k < w; k++) {
                const long long word = (long long)t * stride_elems * w + k;
                bw.emplace_back((int)(word % 32), word);
            }
        std::sort(bw.begin(), bw.end());
        bw.erase(std::unique(bw.begin(), bw.end()), bw.end()); // broadcast: one word, once
        for (size_t a = 0; a < bw.size();) {                    // runs of one bank
            size_t b = a;
            while (b < bw.size() && bw[b].first == bw[a].first)
                b++;
            degree = std::max(degree, (int)(b - a));
            a = b;
        }
    }
    return degree;
}

// ---- 3.2 ---------------------------------------------------------------------------------
#define TILE 16

__global__ void scaleRowMajor(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    __shared__ float tile[TILE][TILE];
    const unsigned x = threadIdx.x, y = threadIdx.y;
    const size_t i = (size_t)blockIdx.x * (TILE * TILE) + y * TILE + x; // row-major ownership
    float &mine = tile[y][x];                                            // word y*16 + x
    if (i < n)
        mine = in[i];
    __syncthreads();
    if (i < n)
        mine = 2.0f * mine;
    __syncthreads();
    if (i < n)
        out[i] = mine;
}

void launch_scale_row_major(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const unsigned blocks = (unsigned)((n + TILE * TILE - 1) / (TILE * TILE));
    scaleRowMajor<<<blocks, dim3(TILE, TILE), 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- 3.3a and 3.3b -------------------------------------------------------------------------
#define GRAM 32
constexpr unsigned FULL = 0xffffffffu;

// Thread (j, i): lane j of warp i. It loads T[i][j] (coalesced), keeps it in `mine`, and stores
// it into the tile; after the barrier, at step k, T[i][k] comes from lane k of the same warp
// (__shfl_sync) and T[j][k] from the tile. The sums are of small integers: exact in any order.
__global__ void __launch_bounds__(1024)
    gramPadded(float *__restrict__ out, const float *__restrict__ in)
{
    __shared__ float tile[GRAM][GRAM + 1]; // T[j][k] in bank (j + k) % 32
    const int j = threadIdx.x, i = threadIdx.y;
    const size_t at = (size_t)blockIdx.x * (GRAM * GRAM) + i * GRAM + j;
    const float mine = in[at];
    tile[i][j] = mine;
    __syncthreads();
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < GRAM; k++)
        sum += __shfl_sync(FULL, mine, k) * tile[j][k];
    out[at] = sum;
}

void launch_gram_padded(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    gramPadded<<<(unsigned)(n / (GRAM * GRAM)), dim3(GRAM, GRAM), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}

__global__ void __launch_bounds__(1024)
    gramSwizzled(float *__restrict__ out, const float *__restrict__ in)
{
    __shared__ float tile[GRAM][GRAM]; // (r, c) at tile[r][c ^ r]: 4096 bytes, no spare word
    const int j = threadIdx.x, i = threadIdx.y;
    const size_t at = (size_t)blockIdx.x * (GRAM * GRAM) + i * GRAM + j;
    const float mine = in[at];
    tile[i][j ^ i] = mine;
    __syncthreads();
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < GRAM; k++) // lane j reads row j, column k ^ j: bank k ^ j, all distinct
        sum += __shfl_sync(FULL, mine, k) * tile[j][k ^ j];
    out[at] = sum;
}

void launch_gram_swizzled(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    gramSwizzled<<<(unsigned)(n / (GRAM * GRAM)), dim3(GRAM, GRAM), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}
