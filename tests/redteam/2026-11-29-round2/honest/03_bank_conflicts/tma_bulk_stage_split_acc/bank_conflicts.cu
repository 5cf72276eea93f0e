/* Lab 03, shared-memory bank conflicts. 3.2 stages each full block's 1 KB with one bulk
 * asynchronous copy (TMA, cp.async.bulk completed on an mbarrier), the partial last block with
 * plain loads; 3.3 sums the 32 products in four independent accumulators. */
#include "bank_conflicts.h"

#include <algorithm>
#include <cstdint>
#include <vector>

// ---- 3.1 (host code) ---------------------------------------------------------------------
int conflict_degree(int stride_elems, int elem_bytes)
{
    const int wpe = elem_bytes / 4;
    const int lanes = 32 / wpe;
    int degree = 1;
    std::vector<long long> words;
    for (int p = 0; p < 32 / lanes; ++p) {
        words.clear();
        for (int t = p * lanes; t < (p + 1) * lanes; ++t)
            for (int q = 0; q < wpe; ++q)
                words.push_back((long long)t * stride_elems * wpe + q);
        std::sort(words.begin(), words.end());
        words.erase(std::unique(words.begin(), words.end()), words.end()); // broadcast
        int per_bank[32] = {};
        for (long long w : words)
            degree = std::max(degree, ++per_bank[w % 32]);
    }
    return degree;
}

// ---- 3.2 ---------------------------------------------------------------------------------
#define TILE 16

namespace tma {

__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void barrier_init(uint64_t *bar, uint32_t arrivals)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(arrivals)
                 : "memory");
    // make the initialised barrier visible to the async proxy that will complete it
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// one thread: expect `bytes` on the barrier, then start the bulk copy global -> shared
__device__ __forceinline__ void bulk_load(void *dst, const void *src, uint32_t bytes,
                                          uint64_t *bar)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
                 "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
                 "%2, [%3];" ::"r"(smem_addr(dst)),
                 "l"(src), "r"(bytes), "r"(smem_addr(bar))
                 : "memory");
}

// every thread: wait until phase `parity` of the barrier has completed
__device__ __forceinline__ void barrier_wait(uint64_t *bar, uint32_t parity)
{
    uint32_t done = 0;
    do {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(smem_addr(bar)), "r"(parity)
                     : "memory");
    } while (!done);
}

} // namespace tma

__global__ void scaleRowMajor(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    __shared__ alignas(128) float tile[TILE * TILE];
    __shared__ alignas(8) uint64_t bar;
    const unsigned e = threadIdx.y * TILE + threadIdx.x; // row-major: a warp = 32 consecutive words
    const size_t base = (size_t)blockIdx.x * (TILE * TILE);
    const size_t count = std::min<size_t>(n - base, TILE * TILE);
    const float *src = in + base;
    // block-uniform: a whole, 16-byte aligned block of 1 KB goes by one bulk copy
    const bool bulk = count == TILE * TILE && (reinterpret_cast<uintptr_t>(src) & 15) == 0;

    if (bulk) {
        if (e == 0)
            tma::barrier_init(&bar, 1);
        __syncthreads();
        if (e == 0)
            tma::bulk_load(tile, src, (uint32_t)sizeof(tile), &bar);
        tma::barrier_wait(&bar, 0);
    } else if (e < count) {
        tile[e] = src[e];
    }
    __syncthreads();
    if (e < count)
        tile[e] = 2.0f * tile[e];
    __syncthreads();
    if (e < count)
        out[base + e] = tile[e];
}

void launch_scale_row_major(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const unsigned blocks = (unsigned)((n + TILE * TILE - 1) / (TILE * TILE));
    scaleRowMajor<<<blocks, dim3(TILE, TILE), 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- 3.3a and 3.3b -------------------------------------------------------------------------
#define GRAM 32

// Inputs are multiples of 1/64 in [-8, 8): every partial sum is exact in float, so the four
// accumulators give the same bits as one.
#define GRAM_DOT(ROW_I, ROW_J)                                                                 \
    float s0 = 0.f, s1 = 0.f, s2 = 0.f, s3 = 0.f;                                              \
    _Pragma("unroll") for (int k = 0; k < GRAM; k += 4)                                        \
    {                                                                                          \
        s0 += ROW_I(k) * ROW_J(k);                                                             \
        s1 += ROW_I(k + 1) * ROW_J(k + 1);                                                     \
        s2 += ROW_I(k + 2) * ROW_J(k + 2);                                                     \
        s3 += ROW_I(k + 3) * ROW_J(k + 3);                                                     \
    }                                                                                          \
    const float acc = (s0 + s1) + (s2 + s3);

__global__ void __launch_bounds__(1024)
    gramPadded(float *__restrict__ out, const float *__restrict__ in)
{
    __shared__ float tile[GRAM][GRAM + 1];
    const int i = threadIdx.y, j = threadIdx.x;
    const float *t = in + (size_t)blockIdx.x * (GRAM * GRAM);
    tile[i][j] = t[i * GRAM + j];
    __syncthreads();
#define PAD_I(k) tile[i][k]
#define PAD_J(k) tile[j][k]
    GRAM_DOT(PAD_I, PAD_J)
#undef PAD_I
#undef PAD_J
    out[(size_t)blockIdx.x * (GRAM * GRAM) + i * GRAM + j] = acc;
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
    const int i = threadIdx.y, j = threadIdx.x;
    const float *t = in + (size_t)blockIdx.x * (GRAM * GRAM);
    tile[i][j ^ i] = t[i * GRAM + j];
    __syncthreads();
#define SWZ_I(k) tile[i][(k) ^ i]
#define SWZ_J(k) tile[j][(k) ^ j]
    GRAM_DOT(SWZ_I, SWZ_J)
#undef SWZ_I
#undef SWZ_J
    out[(size_t)blockIdx.x * (GRAM * GRAM) + i * GRAM + j] = acc;
}

void launch_gram_swizzled(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    gramSwizzled<<<(unsigned)(n / (GRAM * GRAM)), dim3(GRAM, GRAM), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}
