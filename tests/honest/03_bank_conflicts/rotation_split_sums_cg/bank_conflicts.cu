/* Lab 03, shared-memory bank conflicts: the function and kernels, with their launch wrappers. */
#include "bank_conflicts.h"

#include <algorithm>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// ---- 3.1 (host code) ---------------------------------------------------------------------
// Word w sits in bank w % 32. An access of elem_bytes-byte elements is served in phases of
// 128 bytes: 32 / (elem_bytes / 4) lanes each. In one phase, list every word the lanes touch,
// drop the repeats (a word read by several lanes is delivered once), and count the distinct
// words of each bank: the fullest bank is the number of passes that phase needs.
int conflict_degree(int stride_elems, int elem_bytes)
{
    const long long words_per_elem = elem_bytes / 4;
    const int lanes_per_phase = (int)(32 / words_per_elem);
    int passes = 1;
    for (int lane0 = 0; lane0 < 32; lane0 += lanes_per_phase) {
        long long words[32];
        int n = 0;
        for (int t = lane0; t < lane0 + lanes_per_phase; t++)
            for (long long x = 0; x < words_per_elem; x++)
                words[n++] = (long long)t * stride_elems * words_per_elem + x;
        std::sort(words, words + n);
        n = (int)(std::unique(words, words + n) - words);
        int per_bank[32] = {0};
        for (int k = 0; k < n; k++)
            passes = std::max(passes, ++per_bank[words[k] % 32]);
    }
    return passes;
}

// ---- 3.2 ---------------------------------------------------------------------------------
// scaleRowMajor: the thread's rank in its 16 x 16 block (threadIdx.y * 16 + threadIdx.x) is
// the element it owns, so a warp's 32 lanes own 32 consecutive words: 32 banks, one pass.
// Stage, double (x + x is 2x exactly, for every finite float), write back.
__global__ void scaleRowMajor(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    __shared__ float tile[256];
    const cg::thread_block block = cg::this_thread_block();
    const unsigned e = block.thread_rank();
    const size_t i = (size_t)blockIdx.x * 256 + e;
    const bool mine = i < n;
    if (mine)
        tile[e] = in[i];
    block.sync();
    if (mine)
        tile[e] = tile[e] + tile[e];
    block.sync();
    if (mine)
        out[i] = tile[e];
}

void launch_scale_row_major(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const size_t blocks = (n + 255) / 256;
    scaleRowMajor<<<(unsigned)blocks, dim3(16, 16), 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- 3.3a and 3.3b -------------------------------------------------------------------------
// Thread (j, i) computes out[i][j] = row i . row j of its 32 x 32 tile. The inputs are k/64
// with |k| <= 512: every product is a multiple of 2^-12 below 2^6 in magnitude, every partial
// sum of 32 of them a multiple of 2^-12 below 2^23, so every sum is exact in float whatever
// its order. The dot products are therefore split over independent accumulators (more adds in
// flight) and give the same bits as one running sum. Accumulators start at +0, as the running
// sum does, so an all-zero dot product is +0 either way.

// gramPadded: the tile lives in dynamic shared memory as 32 rows of 33 floats (4224 bytes,
// sized at launch): row j starts in bank j, so tile[j][k] of the 32 lanes fall in 32 banks.
constexpr int kGram = 32, kPitch = kGram + 1;

__global__ void __launch_bounds__(1024) gramPadded(float *__restrict__ out,
                                                   const float *__restrict__ in)
{
    extern __shared__ float smem[];
    float(*tile)[kPitch] = reinterpret_cast<float(*)[kPitch]>(smem);
    const int i = threadIdx.y, j = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * (kGram * kGram);
    tile[i][j] = in[base + i * kGram + j];
    __syncthreads();
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int k = 0; k < kGram; k += 4)
#pragma unroll
        for (int u = 0; u < 4; u++)
            acc[u] += tile[i][k + u] * tile[j][k + u];
    out[base + i * kGram + j] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

void launch_gram_padded(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const size_t smem = sizeof(float) * kGram * kPitch;
    gramPadded<<<(unsigned)(n / (kGram * kGram)), dim3(kGram, kGram), smem, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}

// gramSwizzled: no spare word; element (r, c) sits at tile[r][(c + r) % 32], a rotation of
// row r by r places. At step k the 32 lanes read (j, k) at word 32j + (k + j) % 32: bank
// (k + j) % 32, all different. Stores and loads use the same rule.
__device__ __forceinline__ int rot(int r, int c) { return (c + r) & (kGram - 1); }

__global__ void __launch_bounds__(1024) gramSwizzled(float *__restrict__ out,
                                                     const float *__restrict__ in)
{
    __shared__ float tile[kGram][kGram];
    const int i = threadIdx.y, j = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * (kGram * kGram);
    tile[i][rot(i, j)] = in[base + i * kGram + j];
    __syncthreads();
    float even = 0.0f, odd = 0.0f;
#pragma unroll
    for (int k = 0; k < kGram; k += 2) {
        even += tile[i][rot(i, k)] * tile[j][rot(j, k)];
        odd += tile[i][rot(i, k + 1)] * tile[j][rot(j, k + 1)];
    }
    out[base + i * kGram + j] = even + odd;
}

void launch_gram_swizzled(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    gramSwizzled<<<(unsigned)(n / (kGram * kGram)), dim3(kGram, kGram), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}
