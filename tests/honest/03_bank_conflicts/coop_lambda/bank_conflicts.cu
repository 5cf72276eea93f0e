/* Lab 03, shared-memory bank conflicts: barriers through cooperative groups, small lambdas
 * inside the kernels for the swizzled index, and 3.1 with a std::set per bank. 日本語/中文: 銀行衝突 🏦 */
#include "bank_conflicts.h"

#include <cooperative_groups.h>

#include <algorithm>
#include <set>

namespace cg = cooperative_groups;

// ---- 3.1 (host code) ---------------------------------------------------------------------
int conflict_degree(int stride_elems, int elem_bytes)
{
    const int per_elem = elem_bytes / 4;
    const int phase = 32 / per_elem; // lanes served together
    int degree = 1;
    for (int lane0 = 0; lane0 < 32; lane0 += phase) {
        std::set<long long> bank_words[32];
        for (int t = lane0; t < lane0 + phase; t++)
            for (int k = 0; k < per_elem; k++) {
                const long long w = (long long)t * stride_elems * per_elem + k;
                bank_words[w % 32].insert(w);
            }
        for (const auto &words : bank_words)
            degree = std::max(degree, (int)words.size());
    }
    return degree;
}

// ---- 3.2 ---------------------------------------------------------------------------------
#define TILE 16

__global__ void scaleRowMajor(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    __shared__ float tile[TILE][TILE];
    cg::thread_block block = cg::this_thread_block();
    const size_t i = (size_t)blockIdx.x * TILE * TILE + threadIdx.y * TILE + threadIdx.x;
    const bool mine = i < n; // the barriers below are outside every guard
    if (mine)
        tile[threadIdx.y][threadIdx.x] = in[i];
    block.sync();
    if (mine)
        tile[threadIdx.y][threadIdx.x] += tile[threadIdx.y][threadIdx.x];
    block.sync();
    if (mine)
        out[i] = tile[threadIdx.y][threadIdx.x];
}

void launch_scale_row_major(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const auto blocks = [](size_t count) { return (unsigned)((count + 255) / 256); };
    scaleRowMajor<<<blocks(n), dim3(TILE, TILE), 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- 3.3a and 3.3b -------------------------------------------------------------------------
#define GRAM 32

__global__ void __launch_bounds__(1024)
    gramPadded(float *__restrict__ out, const float *__restrict__ in)
{
    __shared__ float tile[GRAM][GRAM + 1];
    cg::thread_block block = cg::this_thread_block();
    const dim3 t = block.thread_index();
    const size_t base = (size_t)block.group_index().x * GRAM * GRAM;
    tile[t.y][t.x] = in[base + t.y * GRAM + t.x];
    block.sync();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < GRAM; k++)
        acc += tile[t.y][k] * tile[t.x][k];
    out[base + t.y * GRAM + t.x] = acc;
}

void launch_gram_padded(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    gramPadded<<<(unsigned)(n / (GRAM * GRAM)), dim3(GRAM, GRAM), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}

__global__ void __launch_bounds__(1024)
    gramSwizzled(float *__restrict__ out, const float *__restrict__ in)
{
    __shared__ float tile[GRAM][GRAM];
    cg::thread_block block = cg::this_thread_block();
    const int i = threadIdx.y, j = threadIdx.x;
    auto at = [&](int r, int c) -> float & { return tile[r][c ^ r]; }; // the one swizzle rule
    const size_t base = (size_t)blockIdx.x * GRAM * GRAM;
    at(i, j) = in[base + i * GRAM + j];
    block.sync();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < GRAM; k++)
        acc += at(i, k) * at(j, k);
    out[base + i * GRAM + j] = acc;
}

void launch_gram_swizzled(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    gramSwizzled<<<(unsigned)(n / (GRAM * GRAM)), dim3(GRAM, GRAM), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}
