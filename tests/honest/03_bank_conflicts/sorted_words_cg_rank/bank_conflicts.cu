/* Lab 03, shared-memory bank conflicts. 3.1 counts distinct words per bank with a sorted
 * vector; 3.2 uses the cooperative-groups thread rank; 3.3a's padded tile is dynamic shared
 * memory, 3.3b's swizzle is a constexpr helper on a static tile. */
#include "bank_conflicts.h"

#include <algorithm>
#include <cooperative_groups.h>
#include <utility>
#include <vector>

namespace cg = cooperative_groups;

// ---- 3.1 (host code) ---------------------------------------------------------------------
int conflict_degree(int stride_elems, int elem_bytes)
{
    const long long words_per_elem = elem_bytes / 4;       // 1, 2 or 4
    const int lanes_per_phase = (int)(32 / words_per_elem); // 32, 16 or 8
    int worst = 1;
    std::vector<std::pair<int, long long>> touched; // (bank, word)
    touched.reserve(32);
    for (int first = 0; first < 32; first += lanes_per_phase) {
        touched.clear();
        for (int t = first; t < first + lanes_per_phase; ++t) {
            const long long w0 = (long long)t * stride_elems * words_per_elem;
            for (long long q = 0; q < words_per_elem; ++q)
                touched.emplace_back((int)((w0 + q) % 32), w0 + q);
        }
        std::sort(touched.begin(), touched.end());
        touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
        // touched is grouped by bank: the longest run of one bank is this phase's passes
        size_t run_start = 0;
        for (size_t k = 1; k <= touched.size(); ++k) {
            if (k == touched.size() || touched[k].first != touched[run_start].first) {
                worst = std::max(worst, (int)(k - run_start));
                run_start = k;
            }
        }
    }
    return worst;
}

// ---- 3.2 ---------------------------------------------------------------------------------
#define TILE 16

__global__ void scaleRowMajor(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    __shared__ float tile[TILE * TILE];
    const cg::thread_block block = cg::this_thread_block();
    // thread_rank() = y * 16 + x: x fastest, so a warp owns 32 consecutive words
    const unsigned e = block.thread_rank();
    const size_t i = (size_t)block.group_index().x * (TILE * TILE) + e;
    const bool mine = i < n;

    if (mine)
        tile[e] = in[i];
    block.sync();
    if (mine)
        tile[e] = 2.0f * tile[e];
    block.sync();
    if (mine)
        out[i] = tile[e];
}

void launch_scale_row_major(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const size_t blocks = (n + TILE * TILE - 1) / (TILE * TILE);
    if (blocks == 0)
        return;
    scaleRowMajor<<<(unsigned)blocks, dim3(TILE, TILE), 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- 3.3a and 3.3b -------------------------------------------------------------------------
#define GRAM 32

namespace {
constexpr int kPadded = GRAM + 1;
constexpr size_t kPaddedBytes = sizeof(float) * GRAM * kPadded; // 4224
__host__ __device__ constexpr int swizzle(int r, int c) { return c ^ r; }
} // namespace

__global__ void __launch_bounds__(1024)
    gramPadded(float *__restrict__ out, const float *__restrict__ in)
{
    extern __shared__ float padded[]; // GRAM rows of GRAM + 1 floats
    const int i = threadIdx.y, j = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * (GRAM * GRAM);
    padded[i * kPadded + j] = in[base + i * GRAM + j];
    __syncthreads();
    const float *row_i = padded + i * kPadded; // the same word for the whole warp: broadcast
    const float *row_j = padded + j * kPadded; // bank (j + k) % 32: 32 different banks
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < GRAM; ++k)
        acc += row_i[k] * row_j[k];
    out[base + i * GRAM + j] = acc;
}

void launch_gram_padded(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const unsigned tiles = (unsigned)(n / (GRAM * GRAM));
    if (tiles == 0)
        return;
    gramPadded<<<tiles, dim3(GRAM, GRAM), kPaddedBytes, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}

__global__ void __launch_bounds__(1024)
    gramSwizzled(float *__restrict__ out, const float *__restrict__ in)
{
    __shared__ float tile[GRAM][GRAM];
    const int i = threadIdx.y, j = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * (GRAM * GRAM);
    tile[i][swizzle(i, j)] = in[base + i * GRAM + j];
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < GRAM; ++k)
        acc += tile[i][swizzle(i, k)] * tile[j][swizzle(j, k)];
    out[base + i * GRAM + j] = acc;
}

void launch_gram_swizzled(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const unsigned tiles = (unsigned)(n / (GRAM * GRAM));
    if (tiles == 0)
        return;
    gramSwizzled<<<tiles, dim3(GRAM, GRAM), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}
