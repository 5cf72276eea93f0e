/* Lab 03, shared-memory bank conflicts.
 * My version: 3.1 collects the distinct words of each bank in a std::set per phase; 3.2 and
 * 3.3a size their shared memory at launch (extern __shared__), 3.3a with a pitch of 33 floats;
 * 3.3b permutes each row of a plain 32 x 32 tile by a rotation, (r, c) -> (r, (c + r) % 32),
 * the other conflict-free permutation the sheet names. Barriers through cooperative groups. */
#include "bank_conflicts.h"

#include <algorithm>
#include <array>
#include <cooperative_groups.h>
#include <set>

namespace cg = cooperative_groups;

// ---- 3.1 (host code) ---------------------------------------------------------------------
// A warp's access is served 128 bytes at a time: 32 lanes of 4-byte elements, 16 of 8-byte,
// 8 of 16-byte. Lane t's element covers words t*s*q ... t*s*q + q - 1 (q = elem_bytes / 4).
// In one phase, bank b must deliver every distinct word w with w % 32 == b, one per pass.
int conflict_degree(int stride_elems, int elem_bytes)
{
    const long long q = elem_bytes / 4;
    const int lanes_per_phase = (int)(32 / q);
    size_t worst = 1;
    for (int phase = 0; phase < 32 / lanes_per_phase; phase++) {
        std::array<std::set<long long>, 32> words_of_bank;
        for (int l = 0; l < lanes_per_phase; l++) {
            const long long t = (long long)phase * lanes_per_phase + l;
            for (long long w = 0; w < q; w++) {
                const long long word = t * stride_elems * q + w;
                words_of_bank[(size_t)(word % 32)].insert(word);
            }
        }
        for (const auto &bank : words_of_bank)
            worst = std::max(worst, bank.size());
    }
    return (int)worst;
}

// ---- 3.2 ---------------------------------------------------------------------------------
// scaleRowMajor: thread (x, y) owns element y*16 + x of its block's 256 floats: the 32 lanes
// of a warp (two rows of 16) own 32 consecutive words, 32 banks. Stage, double, write back.
__global__ void scaleRowMajor(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    extern __shared__ float stage[]; // 256 floats, sized at launch
    const cg::thread_block block = cg::this_thread_block();
    const unsigned own = threadIdx.y * 16 + threadIdx.x;
    const size_t i = (size_t)blockIdx.x * 256 + own;
    const bool live = i < n; // the last block may stick out: guard accesses, never barriers

    if (live)
        stage[own] = in[i];
    block.sync();
    if (live)
        stage[own] *= 2.0f;
    block.sync();
    if (live)
        out[i] = stage[own];
}

void launch_scale_row_major(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const unsigned blocks = (unsigned)((n + 255) / 256);
    scaleRowMajor<<<blocks, dim3(16, 16), 256 * sizeof(float), stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- 3.3a and 3.3b -------------------------------------------------------------------------
// One 32 x 32 block per tile: thread (j, i) = (threadIdx.x, threadIdx.y) computes
// out[i][j] = sum_k T[i][k] * T[j][k]. In a warp i is fixed (a broadcast) and j = lane.
constexpr int G = 32;
constexpr int PITCH = G + 1; // 3.3a: a spare word per row

// gramPadded: T[r][c] at r*33 + c: for fixed k, lane j reads word j*33 + k, bank (j + k) % 32.
__global__ void __launch_bounds__(1024) gramPadded(float *__restrict__ out,
                                                   const float *__restrict__ in)
{
    extern __shared__ float padded[]; // G x PITCH floats (4224 bytes), sized at launch
    const int i = threadIdx.y, j = threadIdx.x;
    const float *src = in + (size_t)blockIdx.x * (G * G);
    padded[i * PITCH + j] = src[i * G + j];
    cg::this_thread_block().sync();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < G; k++)
        acc += padded[i * PITCH + k] * padded[j * PITCH + k];
    out[(size_t)blockIdx.x * (G * G) + i * G + j] = acc;
}

void launch_gram_padded(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    gramPadded<<<(unsigned)(n / (G * G)), dim3(G, G), G * PITCH * sizeof(float), stream>>>(d_out,
                                                                                            d_in);
    CML_CHECK_LAUNCH();
}

// The rotation: row r is rotated by r. It is a permutation of each row (no spare words), and
// column k of rows j = 0..31 lands in words j*32 + (k + j) % 32: banks (k + j) % 32, all
// different. Stores (fixed r, consecutive c) are a rotated row: 32 banks as well.
__device__ __forceinline__ int rotated(int r, int c) { return r * G + ((c + r) & (G - 1)); }

// gramSwizzled: the same product through exactly one 32 x 32 tile (4096 bytes).
__global__ void __launch_bounds__(1024) gramSwizzled(float *__restrict__ out,
                                                     const float *__restrict__ in)
{
    __shared__ float tile[G * G];
    const int i = threadIdx.y, j = threadIdx.x;
    const float *src = in + (size_t)blockIdx.x * (G * G);
    tile[rotated(i, j)] = src[i * G + j];
    cg::this_thread_block().sync();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < G; k++)
        acc += tile[rotated(i, k)] * tile[rotated(j, k)];
    out[(size_t)blockIdx.x * (G * G) + i * G + j] = acc;
}

void launch_gram_swizzled(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    gramSwizzled<<<(unsigned)(n / (G * G)), dim3(G, G), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}
