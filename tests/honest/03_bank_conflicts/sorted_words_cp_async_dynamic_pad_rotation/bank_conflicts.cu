/* Lab 03, shared-memory bank conflicts: my function, kernels and launch wrappers.
 * 3.1 lists the distinct words of each phase and counts them per bank; 3.2 stages with
 * asynchronous copies (cp.async); 3.3a pads a dynamic tile; 3.3b rotates its rows. */
#include "bank_conflicts.h"

#include <algorithm>
#include <cuda_pipeline.h>
#include <stdint.h>

// ---- 3.1 (host code) ---------------------------------------------------------------------
// A phase is 128 bytes of the warp's request: 32 lanes of 4-byte elements, 16 of 8, 8 of 16.
// Collect the words the phase touches, drop repeats (lanes reading one word share it), and the
// degree is the largest number of distinct words that fall in one bank (word % 32).
int conflict_degree(int stride_elems, int elem_bytes)
{
    const int per_elem = elem_bytes / 4;       /* words per element: 1, 2 or 4 */
    const int lanes_per_phase = 32 / per_elem; /* 32, 16 or 8 */
    int worst = 1;
    for (int phase = 0; phase < per_elem; phase++) {
        int64_t words[32];
        int nw = 0;
        for (int l = 0; l < lanes_per_phase; l++) {
            const int64_t lane = phase * lanes_per_phase + l;
            const int64_t first = lane * (int64_t)stride_elems * per_elem;
            for (int w = 0; w < per_elem; w++)
                words[nw++] = first + w;
        }
        std::sort(words, words + nw);
        nw = (int)(std::unique(words, words + nw) - words);
        int per_bank[32] = {0};
        for (int k = 0; k < nw; k++)
            worst = std::max(worst, ++per_bank[words[k] & 31]);
    }
    return worst;
}

// ---- 3.2 ---------------------------------------------------------------------------------
// scaleRowMajor: 16 x 16 blocks, thread (x, y) owns element y*16 + x of the block's 256
// floats, so a warp's 32 lanes are 32 consecutive words: 32 banks. The element reaches the tile
// by cp.async (global -> shared, no register on the way), is doubled in place, and written back.
constexpr int SIDE = 16;

__global__ void scaleRowMajor(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    __shared__ float tile[SIDE * SIDE];
    const int e = threadIdx.y * SIDE + threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (SIDE * SIDE) + e;
    const bool mine = i < n;
    if (mine)
        __pipeline_memcpy_async(&tile[e], in + i, sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads(); /* every thread reaches both barriers; only the accesses are guarded */
    if (mine)
        tile[e] *= 2.0f;
    __syncthreads();
    if (mine)
        out[i] = tile[e];
}

void launch_scale_row_major(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const size_t blocks = (n + SIDE * SIDE - 1) / (SIDE * SIDE);
    scaleRowMajor<<<(unsigned)blocks, dim3(SIDE, SIDE), 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- 3.3a and 3.3b -------------------------------------------------------------------------
// One 32 x 32 block per tile; thread (j, i) computes out[i][j] = sum_k tile[i][k] * tile[j][k].
constexpr int G = 32;

// gramPadded: the tile lives in dynamic shared memory, rows of G + 1 floats (4224 bytes given
// at launch): element (r, c) at r*33 + c, so tile[j][k] for the 32 lanes j sits in banks
// (j + k) % 32, all different.
__global__ void __launch_bounds__(G *G) gramPadded(float *__restrict__ out,
                                                  const float *__restrict__ in)
{
    extern __shared__ float padded[];
    constexpr int P = G + 1;
    const int i = threadIdx.y, j = threadIdx.x;
    const float *src = in + (size_t)blockIdx.x * (G * G);
    padded[i * P + j] = src[i * G + j];
    __syncthreads();
    const float *row_i = padded + i * P, *row_j = padded + j * P;
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < G; k++)
        acc = fmaf(row_i[k], row_j[k], acc);
    out[(size_t)blockIdx.x * (G * G) + i * G + j] = acc;
}

void launch_gram_padded(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const size_t smem = G * (G + 1) * sizeof(float);
    gramPadded<<<(unsigned)(n / (G * G)), dim3(G, G), smem, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}

// gramSwizzled: tile[32][32], no spare word; element (r, c) at tile[r][(c + r) % 32], a rotation
// of each row by its index (the sheet's other conflict-free permutation): for a fixed k the 32
// lanes j read tile[j][(k + j) % 32], banks (k + j) % 32, all different; the store of row i by
// lanes j hits banks (j + i) % 32, all different too.
__device__ __forceinline__ int rot(int r, int c) { return (c + r) & (G - 1); }

__global__ void __launch_bounds__(G *G) gramSwizzled(float *__restrict__ out,
                                                    const float *__restrict__ in)
{
    __shared__ float tile[G][G];
    const int i = threadIdx.y, j = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * (G * G);
    tile[i][rot(i, j)] = in[base + i * G + j];
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < G; k++)
        acc = fmaf(tile[i][rot(i, k)], tile[j][rot(j, k)], acc);
    out[base + i * G + j] = acc;
}

void launch_gram_swizzled(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    gramSwizzled<<<(unsigned)(n / (G * G)), dim3(G, G), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}
