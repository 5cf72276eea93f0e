/* Lab 03, shared-memory bank conflicts: the function and kernels you write, with their launch
 * wrappers. Edit only this file; the harness (harness.cu) allocates, fills, checks and times.
 * Build and grade with `make grade LAB=03`; EXERCISE.md walks through the tasks. */
#include "bank_conflicts.h"

// ---- 3.1 (host code) ---------------------------------------------------------------------
// 32 banks of 4-byte words: word w lives in bank w % 32. A warp's access is served in phases
// of 128 bytes (32 lanes of 4-byte elements, 16 of 8-byte, 8 of 16-byte); within a phase,
// lanes that read the same word share it, and distinct words of one bank take a pass each.
int conflict_degree(int stride_elems, int elem_bytes)
{
    // TODO(3.1): return the worst phase's number of passes (1 = conflict-free): for each
    //   phase, count the DISTINCT words each bank must deliver, and take the largest count.
    //   Lane t touches words t*stride_elems*(elem_bytes/4) ... + elem_bytes/4 - 1.
    //   HINT: with 8-byte elements at stride 2, which lanes of one phase share bank 0?
    const int words = elem_bytes / 4, lanes = 32 / words; /* lanes per phase */
    int worst = 0;
    for (int first = 0; first < 32; first += lanes) {
        long long seen[32];
        int count = 0, per_bank[32] = {0};
        for (int t = first; t < first + lanes; t++)
            for (int w = 0; w < words; w++) {
                const long long word = (long long)t * stride_elems * words + w;
                int dup = 0;
                for (int i = 0; i < count; i++)
                    dup |= seen[i] == word;
                if (!dup && ++per_bank[word % 32] > worst)
                    worst = per_bank[word % 32];
                if (!dup)
                    seen[count++] = word;
            }
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
    // TODO(3.2): the same three steps as scaleColumnMajor (stage, double, write back), with
    //   the element each thread owns chosen so that a warp's 32 lanes hit 32 different banks.
    //   Keep every __syncthreads() reachable by every thread: guard the accesses, not the barriers.
    __shared__ float tile[TILE_DIM * TILE_DIM]; // planted bug: TILE_DIM is not declared
    const unsigned e = threadIdx.y * TILE + threadIdx.x;
    const size_t i = blockIdx.x * (size_t)(TILE * TILE) + e;
    if (i < n)
        tile[e] = in[i];
    __syncthreads();
    if (i < n)
        tile[e] = 2.0f * tile[e];
    __syncthreads();
    if (i < n)
        out[i] = tile[e];
}

void launch_scale_row_major(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    // TODO(3.2): one 16 x 16 block per 256 floats (round up), then CML_CHECK_LAUNCH().
    scaleRowMajor<<<(unsigned)((n + 255) / 256), dim3(TILE, TILE), 0, stream>>>(d_out, d_in, n);
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
    // TODO(3.3a): gramConflicted through a padded tile: load, __syncthreads(), 32 products.
    //   HINT: with rows of GRAM + 1 floats, in which bank does tile[j][k] sit?
    __shared__ float tile[GRAM][GRAM + 1];
    const int i = threadIdx.y, j = threadIdx.x;
    const size_t base = blockIdx.x * (size_t)(GRAM * GRAM);
    tile[i][j] = in[base + i * GRAM + j];
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < GRAM; k++)
        acc += tile[i][k] * tile[j][k];
    out[base + i * GRAM + j] = acc;
}

void launch_gram_padded(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    // TODO(3.3a): n / 1024 blocks of GRAM x GRAM threads, then CML_CHECK_LAUNCH().
    gramPadded<<<(unsigned)(n / 1024), dim3(GRAM, GRAM), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}

// gramSwizzled: no spare words; element (r, c) is stored at column c ^ r of row r. A row
// keeps its 32 words (a permutation), and column k of the 32 rows lands in banks k ^ r.
__global__ void __launch_bounds__(1024)
    gramSwizzled(float *__restrict__ out, const float *__restrict__ in)
{
    // TODO(3.3b): the same product through __shared__ float tile[GRAM][GRAM], element (r, c)
    //   stored at tile[r][c ^ r]: swizzle every store and every load the same way.
    //   HINT: for a fixed k, are the 32 values k ^ j, j = 0..31, all different?
    __shared__ float tile[GRAM][GRAM];
    const int i = threadIdx.y, j = threadIdx.x;
    const size_t base = blockIdx.x * (size_t)(GRAM * GRAM);
    tile[i][j ^ i] = in[base + i * GRAM + j];
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < GRAM; k++)
        acc += tile[i][k ^ i] * tile[j][k ^ j];
    out[base + i * GRAM + j] = acc;
}

void launch_gram_swizzled(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    // TODO(3.3b): n / 1024 blocks of GRAM x GRAM threads, then CML_CHECK_LAUNCH().
    gramSwizzled<<<(unsigned)(n / 1024), dim3(GRAM, GRAM), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}
