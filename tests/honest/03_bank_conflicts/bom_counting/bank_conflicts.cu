/* Lab 03, shared-memory bank conflicts: 3.1 counts the distinct words per bank of every phase,
 * exactly as section 3 of the note describes; the kernels stage through static shared tiles. */
#include "bank_conflicts.h"

// ---- 3.1 (host code) ---------------------------------------------------------------------
int conflict_degree(int stride_elems, int elem_bytes)
{
    const int words = elem_bytes / 4;       // words per element
    const int lanes = 32 / words;           // lanes per 128-byte phase
    int worst = 1;
    for (int first = 0; first < 32; first += lanes) {
        long seen[32][32]; // seen[bank][k]: the distinct words bank delivers in this phase
        int count[32] = {0};
        for (int t = first; t < first + lanes; t++)
            for (int k = 0; k < words; k++) {
                const long w = (long)t * stride_elems * words + k;
                const int bank = (int)(w % 32);
                bool dup = false;
                for (int s = 0; s < count[bank] && !dup; s++)
                    dup = seen[bank][s] == w;
                if (!dup)
                    seen[bank][count[bank]++] = w;
            }
        for (int b = 0; b < 32; b++)
            worst = count[b] > worst ? count[b] : worst;
    }
    return worst;
}

// ---- 3.2 ---------------------------------------------------------------------------------
#define TILE 16

// scaleRowMajor: thread (x, y) owns element y*16 + x: a warp's lanes hit 32 banks.
__global__ void scaleRowMajor(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    __shared__ float tile[TILE * TILE];
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
    const size_t blocks = (n + TILE * TILE - 1) / (TILE * TILE);
    scaleRowMajor<<<(unsigned)blocks, dim3(TILE, TILE), 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- 3.3a and 3.3b -------------------------------------------------------------------------
#define GRAM 32

// gramPadded: rows of 33 floats; tile[j][k] sits in bank (j + k) % 32.
__global__ void __launch_bounds__(1024)
    gramPadded(float *__restrict__ out, const float *__restrict__ in)
{
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
    gramPadded<<<(unsigned)(n / (GRAM * GRAM)), dim3(GRAM, GRAM), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}

// gramSwizzled: element (r, c) at tile[r][c ^ r]; column k of rows j lands in banks k ^ j.
__global__ void __launch_bounds__(1024)
    gramSwizzled(float *__restrict__ out, const float *__restrict__ in)
{
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
    gramSwizzled<<<(unsigned)(n / (GRAM * GRAM)), dim3(GRAM, GRAM), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}
