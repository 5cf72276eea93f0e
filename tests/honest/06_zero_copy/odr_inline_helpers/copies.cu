/* Lab 06, zero-copy, part 2: the classic way (copy in, compute, copy out) and the choice.
 * Variant: the helpers shared with zerocopy.cu are written here again as `inline` functions,
 * with the same text (one definition by the ODR, as if both files included one header). */
#include "zerocopy.h"

#include <algorithm>
#include <cstdint>

// ---- shared helpers (the same text in zerocopy.cu) --------------------------------------
inline unsigned lab06_blocks(size_t items, unsigned threads, unsigned per_sm)
{
    const size_t want = (items + threads - 1) / threads;
    return (unsigned)std::max<size_t>(1, std::min<size_t>(want, (size_t)cml_sm_count() * per_sm));
}

__host__ __device__ inline float lab06_step(float a, float x, float y) { return a * x + y; }

inline bool lab06_aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

// ---- 6.2 --------------------------------------------------------------------------------

// saxpyDevice: out = a*x + y in device memory, grid-stride. out may be y (later passes).
__global__ void saxpyDevice(float *out, const float *x, const float *y, size_t n, float a)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += T)
        out[i] = lab06_step(a, x[i], y[i]);
}

void copy_saxpy(float *h_out, const float *h_x, const float *h_y, size_t n, int passes,
                float *d_x, float *d_y, cudaStream_t stream)
{
    const size_t bytes = n * sizeof(float);
    // cudaMemcpyDefault: with unified addressing the runtime reads the direction from the
    // pointers (pinned host -> device here, device -> pinned host at the end)
    CML_CHECK(cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyDefault, stream));
    CML_CHECK(cudaMemcpyAsync(d_y, h_y, bytes, cudaMemcpyDefault, stream));
    const unsigned threads = 256, blocks = lab06_blocks(n, threads, 16);
    for (int p = 0; p < passes; p++) {
        saxpyDevice<<<blocks, threads, 0, stream>>>(d_y, d_x, d_y, n, SAXPY_A);
        CML_CHECK_LAUNCH();
    }
    CML_CHECK(cudaMemcpyAsync(h_out, d_y, bytes, cudaMemcpyDefault, stream));
}

// ---- 6.3 --------------------------------------------------------------------------------
// Link crossings: zero-copy 3n floats per pass, copies 3n in all. One pass: zero-copy uses both
// directions of the link at once and wins; two or more: the copies win.

void best_saxpy(float *h_out, const float *h_x, const float *h_y, size_t n, int passes,
                float *d_x, float *d_y, cudaStream_t stream)
{
    constexpr int kZeroCopyUpTo = 1;
    if (passes <= kZeroCopyUpTo)
        zc_saxpy(h_out, h_x, h_y, n, passes, stream);
    else
        copy_saxpy(h_out, h_x, h_y, n, passes, d_x, d_y, stream);
}
