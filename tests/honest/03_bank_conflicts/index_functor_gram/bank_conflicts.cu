/* Lab 03, shared-memory bank conflicts. 3.1 keeps one std::set of words per bank; 3.2 stages
 * through a 2D tile[16][16]; 3.3a and 3.3b share one templated Gram body, parametrised by an
 * index functor (padded: r * 33 + c; swizzled: r * 32 + (c ^ r)). */
#include "bank_conflicts.h"

#include <algorithm>
#include <array>
#include <set>

// ---- 3.1 (host code) ---------------------------------------------------------------------
int conflict_degree(int stride_elems, int elem_bytes)
{
    const int wpe = elem_bytes / 4;  // words per element
    const int phase = 32 / wpe;      // lanes per 128-byte phase
    size_t degree = 1;
    for (int lane0 = 0; lane0 < 32; lane0 += phase) {
        std::array<std::set<long long>, 32> bank_words;
        for (int lane = lane0; lane < lane0 + phase; ++lane)
            for (int q = 0; q < wpe; ++q) {
                const long long word = (long long)lane * stride_elems * wpe + q;
                bank_words[(size_t)(word & 31)].insert(word);
            }
        for (const auto &words : bank_words)
            degree = std::max(degree, words.size());
    }
    return (int)degree;
}

// ---- 3.2 ---------------------------------------------------------------------------------
#define TILE 16

__global__ void scaleRowMajor(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    __shared__ float tile[TILE][TILE];
    const unsigned x = threadIdx.x, y = threadIdx.y;
    // element y*16 + x of the block: a warp (two rows of the block) owns 32 consecutive words
    const size_t i = (size_t)blockIdx.x * (TILE * TILE) + y * TILE + x;
    const bool in_range = i < n;
    if (in_range)
        tile[y][x] = in[i];
    __syncthreads();
    if (in_range)
        tile[y][x] *= 2.0f;
    __syncthreads();
    if (in_range)
        out[i] = tile[y][x];
}

void launch_scale_row_major(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const dim3 block(TILE, TILE);
    const unsigned grid = (unsigned)((n + TILE * TILE - 1) / (TILE * TILE));
    scaleRowMajor<<<grid, block, 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- 3.3a and 3.3b -------------------------------------------------------------------------
#define GRAM 32

struct PaddedIndex {
    static constexpr int kWords = GRAM * (GRAM + 1);
    __device__ __forceinline__ int operator()(int r, int c) const { return r * (GRAM + 1) + c; }
};
struct SwizzledIndex {
    static constexpr int kWords = GRAM * GRAM;
    __device__ __forceinline__ int operator()(int r, int c) const { return r * GRAM + (c ^ r); }
};

// The whole Gram tile product through `tile`, stored and read with the same index rule.
template <class Index>
__device__ __forceinline__ void gram_tile(float *__restrict__ out, const float *__restrict__ in,
                                          float *tile, Index at)
{
    const int i = threadIdx.y, j = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * (GRAM * GRAM);
    tile[at(i, j)] = in[base + i * GRAM + j];
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < GRAM; ++k)
        acc += tile[at(i, k)] * tile[at(j, k)];
    out[base + i * GRAM + j] = acc;
}

__global__ void __launch_bounds__(1024)
    gramPadded(float *__restrict__ out, const float *__restrict__ in)
{
    __shared__ float tile[PaddedIndex::kWords]; // 32 rows of 33 floats
    gram_tile(out, in, tile, PaddedIndex{});
}

__global__ void __launch_bounds__(1024)
    gramSwizzled(float *__restrict__ out, const float *__restrict__ in)
{
    __shared__ float tile[SwizzledIndex::kWords]; // exactly 32 x 32 floats
    gram_tile(out, in, tile, SwizzledIndex{});
}

template <typename Kernel>
static void launch_gram(Kernel kernel, float *d_out, const float *d_in, size_t n,
                        cudaStream_t stream)
{
    const size_t tiles = n / (GRAM * GRAM);
    if (tiles == 0)
        return;
    kernel<<<(unsigned)tiles, dim3(GRAM, GRAM), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}

void launch_gram_padded(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    launch_gram(gramPadded, d_out, d_in, n, stream);
}

void launch_gram_swizzled(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    launch_gram(gramSwizzled, d_out, d_in, n, stream);
}
