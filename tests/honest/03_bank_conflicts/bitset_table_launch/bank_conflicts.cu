/* Honest variant `bitset_table_launch` (lab 03). Constructs it exercises: 3.1 counting the
 * distinct words of each bank in a std::bitset<32> per bank (std::bitset::count()); a launch
 * through a function-local `static const` table of kernel function pointers indexed by a
 * runtime value (3.2: the real kernel and a 2-D-tile alternative of the same signature);
 * `using` alias for a kernel pointer type; a wrapper whose last statement is the launch, with
 * no CML_CHECK_LAUNCH() after it (3.3b, as a student who forgot it); std::max over ints. */

/* Lab 03, shared-memory bank conflicts: the function and kernels you write, with their launch
 * wrappers. Edit only this file; the harness (harness.cu) allocates, fills, checks and times.
 * Build and grade with `make grade LAB=03`; EXERCISE.md walks through the tasks. */
#include "bank_conflicts.h"

#include <algorithm>
#include <bitset>
#include <cstdint>

// ---- 3.1 (host code) ---------------------------------------------------------------------
// 32 banks of 4-byte words: word w lives in bank w % 32. A warp's access is served in phases
// of 128 bytes (32 lanes of 4-byte elements, 16 of 8-byte, 8 of 16-byte); within a phase,
// lanes that read the same word share it, and distinct words of one bank take a pass each.
//
// One std::bitset per bank and per phase. A lane touches at most 4 consecutive words, so at
// most one word in any bank: bit t of bank b's set stands for the word lane t fetches from
// bank b, and it is set only when no earlier lane of the phase touched that same word. The
// set bits of a bank are then exactly its distinct words, and count() gives its passes.
int conflict_degree(int stride_elems, int elem_bytes)
{
    if (elem_bytes != 4 && elem_bytes != 8 && elem_bytes != 16)
        return 1; // the sheet only asks for 4, 8 and 16 bytes
    const int words_per_elem = elem_bytes / 4;
    const int lanes_per_phase = 32 / words_per_elem; // 128 bytes per phase
    const int64_t lane_step = (int64_t)stride_elems * words_per_elem; // words between lanes

    int worst = 1;
    for (int first_lane = 0; first_lane < 32; first_lane += lanes_per_phase) {
        std::bitset<32> distinct[32]; // one per bank
        for (int t = 0; t < lanes_per_phase; t++) {
            const int64_t start = (int64_t)(first_lane + t) * lane_step;
            for (int w = 0; w < words_per_elem; w++) {
                const int64_t word = start + w;
                bool seen = false; // did an earlier lane of this phase touch `word`?
                for (int u = 0; u < t && !seen; u++) {
                    const int64_t off = word - (int64_t)(first_lane + u) * lane_step;
                    seen = off >= 0 && off < words_per_elem;
                }
                if (!seen)
                    distinct[(int)(((word % 32) + 32) % 32)].set((size_t)t);
            }
        }
        for (const std::bitset<32> &bank : distinct)
            worst = std::max(worst, (int)bank.count());
    }
    return worst;
}

// ---- 3.2 ---------------------------------------------------------------------------------
// The 2008 experiment: 16 x 16 blocks, each staging its 256 consecutive floats through shared
// memory. The given scaleColumnMajor (harness.cu) lets thread (x, y) own element x*16 + y.
#define TILE 16

// scaleRowMajor: thread (x, y) owns element y*16 + x, so the 32 lanes of a warp touch 32
// consecutive words: 32 banks, one pass, and one 128-byte line of global memory.
__global__ void scaleRowMajor(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    __shared__ float tile[TILE * TILE];
    const unsigned e = threadIdx.y * TILE + threadIdx.x;
    const size_t i = blockIdx.x * (size_t)(TILE * TILE) + e;
    const bool inside = i < n;
    if (inside)
        tile[e] = in[i];
    __syncthreads(); // every thread reaches both barriers: only the accesses are guarded
    if (inside)
        tile[e] = 2.0f * tile[e];
    __syncthreads();
    if (inside)
        out[i] = tile[e];
}

// The same kernel written with a 2-D tile, tile[y][x]: the same word y*16 + x, the same banks.
// It only runs through the table below when there is nothing to scale (n == 0).
__global__ void scaleRowMajorTile2D(float *__restrict__ out, const float *__restrict__ in,
                                    size_t n)
{
    __shared__ float tile[TILE][TILE];
    const unsigned x = threadIdx.x, y = threadIdx.y;
    const size_t i = blockIdx.x * (size_t)(TILE * TILE) + y * TILE + x;
    if (i < n)
        tile[y][x] = in[i];
    __syncthreads();
    if (i < n)
        tile[y][x] *= 2.0f;
    __syncthreads();
    if (i < n)
        out[i] = tile[y][x];
}

using ScaleKernel = void (*)(float *, const float *, size_t);

void launch_scale_row_major(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    static const ScaleKernel kernels[] = {scaleRowMajor, scaleRowMajorTile2D};
    const size_t per_block = TILE * TILE;
    // one block per 256 floats, rounded up; at least one so that n == 0 is a valid launch
    const unsigned blocks = (unsigned)std::max<size_t>(1, (n + per_block - 1) / per_block);
    kernels[n > 0 ? 0 : 1]<<<blocks, dim3(TILE, TILE), 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- 3.3a and 3.3b -------------------------------------------------------------------------
// One 32 x 32 block per tile; thread (j, i) computes out[i][j] = row i . row j. The given
// gramConflicted (harness.cu) reads tile[j][k] at step k: 32 lanes, 32 words apart, one bank.
#define GRAM 32

// gramPadded: a spare column per row makes row j start in bank j, so tile[j][k] sits in bank
// (j + k) % 32: the 32 lanes read 32 different banks.
__global__ void __launch_bounds__(1024)
    gramPadded(float *__restrict__ out, const float *__restrict__ in)
{
    __shared__ float tile[GRAM][GRAM + 1];
    const int i = threadIdx.y, j = threadIdx.x;
    const size_t base = blockIdx.x * (size_t)(GRAM * GRAM);
    tile[i][j] = in[base + i * GRAM + j]; // 32 consecutive words per warp
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < GRAM; k++)
        acc += tile[i][k] * tile[j][k]; // broadcast, and banks (j + k) % 32
    out[base + i * GRAM + j] = acc;
}

void launch_gram_padded(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const unsigned tiles = (unsigned)(n / (GRAM * GRAM));
    if (tiles == 0)
        return; // no whole tile: nothing to compute
    gramPadded<<<tiles, dim3(GRAM, GRAM), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}

// gramSwizzled: no spare words; element (r, c) is stored at column c ^ r of row r. A row
// keeps its 32 words (a permutation), and column k of the 32 rows lands in banks k ^ r.
__global__ void __launch_bounds__(1024)
    gramSwizzled(float *__restrict__ out, const float *__restrict__ in)
{
    __shared__ float tile[GRAM][GRAM];
    const int i = threadIdx.y, j = threadIdx.x;
    const size_t base = blockIdx.x * (size_t)(GRAM * GRAM);
    tile[i][j ^ i] = in[base + i * GRAM + j]; // element (i, j)
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < GRAM; k++)
        acc += tile[i][k ^ i] * tile[j][k ^ j]; // elements (i, k) and (j, k)
    out[base + i * GRAM + j] = acc;
}

void launch_gram_swizzled(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const unsigned tiles = (unsigned)(n / (GRAM * GRAM));
    if (tiles == 0)
        return;
    gramSwizzled<<<tiles, dim3(GRAM, GRAM), 0, stream>>>(d_out, d_in);
}
