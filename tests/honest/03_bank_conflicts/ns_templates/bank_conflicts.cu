/* Lab 03, shared-memory bank conflicts: the kernels are templates over the tile edge, in a
 * named namespace; 3.1 keeps a set of rows per bank. */
#include <set>
#include "bank_conflicts.h"

#include <algorithm>
#include <cstdint>

namespace banks {

constexpr int kBanks = 32;
constexpr int kSide = 16;  // 3.2's block edge
constexpr int kGram = 32;  // 3.3's tile edge

// passes_of_phase: the most distinct words one bank delivers to lanes [first, first + lanes).
int passes_of_phase(int first, int lanes, int stride, int words)
{
    // word w of the phase is w = t*stride*words + k; its row of banks is w / 32. Distinct
    // words of one bank are distinct rows: a set of rows per bank (strides up to 2^22 make a
    // phase span up to 2^29 words, too many rows for a bitmap; the sheet's domain since issue 44)
    std::set<int64_t> rows[kBanks];
    int most = 0;
    for (int t = first; t < first + lanes; t++)
        for (int k = 0; k < words; k++) {
            const int64_t w = (int64_t)t * stride * words + k;
            const int bank = (int)(w % kBanks);
            if (rows[bank].insert(w / kBanks).second) // a word this bank has not delivered yet
                most = std::max(most, (int)rows[bank].size());
        }
    return most;
}

template <int SIDE>
__global__ void scaleRowMajor(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    __shared__ float tile[SIDE * SIDE];
    const int e = threadIdx.y * SIDE + threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (SIDE * SIDE) + e;
    if (i < n)
        tile[e] = in[i];
    __syncthreads();
    if (i < n)
        tile[e] = tile[e] * 2.0f;
    __syncthreads();
    if (i < n)
        out[i] = tile[e];
}

template <int G>
__global__ void __launch_bounds__(G *G) gramPadded(float *__restrict__ out,
                                                   const float *__restrict__ in)
{
    __shared__ float tile[G][G + 1];
    const int i = threadIdx.y, j = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * G * G;
    tile[i][j] = in[base + i * G + j];
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < G; k++)
        acc += tile[i][k] * tile[j][k];
    out[base + i * G + j] = acc;
}

template <int G>
__global__ void __launch_bounds__(G *G) gramSwizzled(float *__restrict__ out,
                                                     const float *__restrict__ in)
{
    static_assert((G & (G - 1)) == 0, "the XOR swizzle needs a power-of-two edge");
    __shared__ float tile[G][G];
    const int i = threadIdx.y, j = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * G * G;
    tile[i][j ^ i] = in[base + i * G + j];
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < G; k++)
        acc += tile[i][k ^ i] * tile[j][k ^ j];
    out[base + i * G + j] = acc;
}

} // namespace banks

int conflict_degree(int stride_elems, int elem_bytes)
{
    const int words = elem_bytes / 4, lanes = 32 / words;
    int degree = 1;
    for (int first = 0; first < 32; first += lanes)
        degree = std::max(degree, banks::passes_of_phase(first, lanes, stride_elems, words));
    return degree;
}

void launch_scale_row_major(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    constexpr int S = banks::kSide;
    banks::scaleRowMajor<S><<<(unsigned)((n + S * S - 1) / (S * S)), dim3(S, S), 0, stream>>>(
        d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

void launch_gram_padded(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    constexpr int G = banks::kGram;
    banks::gramPadded<G><<<(unsigned)(n / (G * G)), dim3(G, G), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}

void launch_gram_swizzled(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    constexpr int G = banks::kGram;
    banks::gramSwizzled<G><<<(unsigned)(n / (G * G)), dim3(G, G), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}
