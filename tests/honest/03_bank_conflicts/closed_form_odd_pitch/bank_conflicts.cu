/* Lab 03, shared-memory bank conflicts: the function and kernels, with their launch wrappers. */
#include "bank_conflicts.h"

// ---- 3.1 (host code) ---------------------------------------------------------------------
// Closed form. An element is w = elem_bytes / 4 words; a phase serves 32 / w lanes, and lane t
// touches words t*s*w .. t*s*w + w - 1, in banks w*(t*s mod 32/w) + x. With s = 0 every lane
// reads the same w words: one pass. Otherwise the lanes' first words are all different, the
// w words of one lane sit in w neighbouring banks that no other residue shares, and the
// residues t*s mod m (m = 32/w, t = 0..m-1) take each of their values gcd(s, m) times: the
// fullest bank holds gcd(s, m) distinct words. Both phases of an 8- or 16-byte access are
// alike (lane t + m has the residue of lane t).
static int gcd_int(int a, int b)
{
    while (b) {
        const int r = a % b;
        a = b;
        b = r;
    }
    return a;
}

int conflict_degree(int stride_elems, int elem_bytes)
{
    const int lanes = 32 / (elem_bytes / 4); /* per phase: 32, 16 or 8 */
    return stride_elems == 0 ? 1 : gcd_int(stride_elems % lanes, lanes) ;
}

// ---- 3.2 ---------------------------------------------------------------------------------
// scaleRowMajor: thread (x, y) owns element y*16 + x of its block's 256 floats: the 32 lanes
// of a warp hold 32 consecutive words, one per bank.
__global__ void scaleRowMajor(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    __shared__ float stage[16][16]; /* [y][x]: element y*16 + x */
    const unsigned x = threadIdx.x, y = threadIdx.y;
    const size_t i = (size_t)blockIdx.x * 256 + y * 16 + x;
    const bool inside = i < n;
    if (inside)
        stage[y][x] = in[i];
    __syncthreads();
    if (inside)
        stage[y][x] = __fmul_rn(stage[y][x], 2.0f);
    __syncthreads();
    if (inside)
        out[i] = stage[y][x];
}

void launch_scale_row_major(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    scaleRowMajor<<<(unsigned)((n + 255) / 256), dim3(16, 16), 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- 3.3a and 3.3b -------------------------------------------------------------------------
// Thread (j, i) computes out[i][j] = sum over k of tile[i][k] * tile[j][k], one running sum
// from 0 in k order, as gramConflicted does.

// gramPadded: rows of 35 floats (3 spare words a row). tile[j][k] is word 35j + k, in bank
// (3j + k) % 32; 3 is odd, so j -> 3j is a permutation of the 32 banks: any odd pitch works
// as well as 33 does.
__global__ void __launch_bounds__(1024)
    gramPadded(float *__restrict__ out, const float *__restrict__ in)
{
    __shared__ float tile[32][35];
    const int i = threadIdx.y, j = threadIdx.x;
    const float *src = in + (size_t)blockIdx.x * 1024;
    tile[i][j] = src[i * 32 + j];
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < 32; k++)
        acc += tile[i][k] * tile[j][k];
    out[(size_t)blockIdx.x * 1024 + i * 32 + j] = acc;
}

void launch_gram_padded(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    gramPadded<<<(unsigned)(n / 1024), dim3(32, 32), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}

// gramSwizzled: one 32 x 32 tile in dynamic shared memory (4096 bytes at launch), element
// (r, c) at word 32r + (c ^ r). At step k the 32 lanes read (j, k) in banks k ^ j: all
// different. Every store and every load goes through the same swz().
__device__ __forceinline__ int swz(int r, int c) { return 32 * r + (c ^ r); }

__global__ void __launch_bounds__(1024)
    gramSwizzled(float *__restrict__ out, const float *__restrict__ in)
{
    extern __shared__ float tile[];
    const int i = threadIdx.y, j = threadIdx.x;
    const float *src = in + (size_t)blockIdx.x * 1024;
    tile[swz(i, j)] = src[i * 32 + j];
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < 32; k++)
        acc += tile[swz(i, k)] * tile[swz(j, k)];
    out[(size_t)blockIdx.x * 1024 + i * 32 + j] = acc;
}

void launch_gram_swizzled(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    gramSwizzled<<<(unsigned)(n / 1024), dim3(32, 32), 32 * 32 * sizeof(float), stream>>>(d_out,
                                                                                        d_in);
    CML_CHECK_LAUNCH();
}
