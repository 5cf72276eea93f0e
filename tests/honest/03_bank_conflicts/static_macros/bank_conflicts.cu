/* Lab 03, shared-memory bank conflicts: macros for the index rules, a function-local static
 * table of the phase shapes, and the old attempts under #if 0. There is no asm anywhere here,
 * and the __syncthreads() below are reached by every thread. */
#include "bank_conflicts.h"

#include <algorithm>
#include <cassert>
#include <cstring>

// ---- 3.1 (host code) ---------------------------------------------------------------------
struct PhaseShape {
    int elem_bytes, words_per_elem, lanes;
};

// shape_of: the phase shape of one element size (4, 8 or 16 bytes).
static const PhaseShape &shape_of(int elem_bytes)
{
    static const PhaseShape shapes[] = {{4, 1, 32}, {8, 2, 16}, {16, 4, 8}};
    for (const PhaseShape &s : shapes)
        if (s.elem_bytes == elem_bytes)
            return s;
    assert(!"elem_bytes must be 4, 8 or 16");
    return shapes[0];
}

int conflict_degree(int stride_elems, int elem_bytes)
{
    const PhaseShape &ph = shape_of(elem_bytes);
    int degree = 1;
    for (int lane0 = 0; lane0 < 32; lane0 += ph.lanes) {
        long words[32 * 4]; // every word the phase touches: at most 32 of them
        int nw = 0;
        for (int t = lane0; t < lane0 + ph.lanes; t++)
            for (int k = 0; k < ph.words_per_elem; k++)
                words[nw++] = (long)t * stride_elems * ph.words_per_elem + k;
        std::sort(words, words + nw);
        nw = (int)(std::unique(words, words + nw) - words); // a shared word counts once
        int per_bank[32];
        std::memset(per_bank, 0, sizeof per_bank);
        for (int q = 0; q < nw; q++)
            degree = std::max(degree, ++per_bank[words[q] % 32]);
    }
    return degree;
}

// ---- 3.2 ---------------------------------------------------------------------------------
#define TILE 16
#define OWNED(x, y) ((y) * TILE + (x)) /* row-major: lane k of a warp owns word k */

__global__ void scaleRowMajor(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    __shared__ float buf[TILE * TILE];
    const int e = OWNED(threadIdx.x, threadIdx.y);
    const size_t i = (size_t)blockIdx.x * TILE * TILE + e;
    if (i < n)
        buf[e] = __ldg(in + i);
    __syncthreads();
    if (i < n)
        buf[e] = 2.0f * buf[e];
    __syncthreads();
    if (i < n)
        out[i] = buf[e];
}

#if 0
// first version: the barrier inside the guard hung the last block at n = 1000
__global__ void scaleRowMajorOld(float *out, const float *in, size_t n)
{
    __shared__ float buf[TILE * TILE];
    size_t i = blockIdx.x * 256 + threadIdx.y * 16 + threadIdx.x;
    if (i < n) {
        buf[threadIdx.y * 16 + threadIdx.x] = in[i];
        __syncthreads();
        out[i] = 2 * buf[threadIdx.y * 16 + threadIdx.x];
    }
}
#endif

void launch_scale_row_major(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const unsigned blocks = (unsigned)((n + TILE * TILE - 1) / (TILE * TILE));
    scaleRowMajor<<<blocks, dim3(TILE, TILE), 0, stream>>>(d_out, d_in, n);
    CML_CHECK(cudaGetLastError()); // by hand, before the lab's own check
    CML_CHECK_LAUNCH();
}

// ---- 3.3a and 3.3b -------------------------------------------------------------------------
#define GRAM 32
#define PAD_AT(r, c) tile[(r)][(c)]
#define SWZ_AT(r, c) tile[(r)][(c) ^ (r)]

__global__ void __launch_bounds__(1024)
    gramPadded(float *__restrict__ out, const float *__restrict__ in)
{
    __shared__ float tile[GRAM][GRAM + 1];
    const int i = threadIdx.y, j = threadIdx.x;
    const size_t at = (size_t)blockIdx.x * (GRAM * GRAM) + i * GRAM + j;
    PAD_AT(i, j) = in[at];
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < GRAM; k++)
        acc += PAD_AT(i, k) * PAD_AT(j, k);
    out[at] = acc;
}

void launch_gram_padded(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    gramPadded<<<(unsigned)(n / 1024), dim3(GRAM, GRAM), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}

__global__ void __launch_bounds__(1024)
    gramSwizzled(float *__restrict__ out, const float *__restrict__ in)
{
    __shared__ float tile[GRAM][GRAM];
    const int i = threadIdx.y, j = threadIdx.x;
    const size_t at = (size_t)blockIdx.x * (GRAM * GRAM) + i * GRAM + j;
    SWZ_AT(i, j) = in[at];
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < GRAM; k++)
        acc += SWZ_AT(i, k) * SWZ_AT(j, k);
    out[at] = acc;
}

void launch_gram_swizzled(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    gramSwizzled<<<(unsigned)(n / 1024), dim3(GRAM, GRAM), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}
