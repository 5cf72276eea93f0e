/* Lab 06, zero-copy, part 1: mapped pinned memory, a float4 kernel, and a grid size computed
 * once (function-local static) by a lambda from the occupancy calculator. No fopen, no
 * printf debugging, no cudaMemcpy: the kernel touches host memory directly. */
#include "zerocopy.h"

#include <algorithm>
#include <cassert>
#include <stdint.h>

constexpr int ZC_THREADS = 256;

// saxpyMapped: 16 bytes per lane per step while whole float4s remain, then the n % 4 tail.
// The harness's buffers come from cudaHostAlloc (page-aligned), so the float4 casts are safe.
__global__ void __launch_bounds__(ZC_THREADS)
    saxpyMapped(float *out, const float *x, const float *y, size_t n, float a)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    const size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t n4 = n >> 2;
    auto *o4 = reinterpret_cast<float4 *>(out);
    auto *x4 = reinterpret_cast<const float4 *>(x);
    auto *y4 = reinterpret_cast<const float4 *>(y);
    for (size_t j = g; j < n4; j += T) {
        const float4 u = x4[j], v = y4[j];
        o4[j] = float4{a * u.x + v.x, a * u.y + v.y, a * u.z + v.z, a * u.w + v.w};
    }
    if (g < (n & 3))
        out[4 * n4 + g] = a * x[4 * n4 + g] + y[4 * n4 + g];
}

float *zc_alloc_mapped(size_t n)
{
    float *h = nullptr;
    if (cudaHostAlloc(reinterpret_cast<void **>(&h), n * sizeof(float), cudaHostAllocMapped) !=
        cudaSuccess) {
        (void)cudaGetLastError(); // leave no sticky error behind for the harness's next check
        return nullptr;
    }
    assert(((uintptr_t)h & 15) == 0);
    return h;
}

void zc_saxpy(float *h_out, const float *h_x, const float *h_y, size_t n, int passes,
              cudaStream_t stream)
{
    static const int resident_blocks = [] {
        int per_sm = 0;
        CML_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, saxpyMapped, ZC_THREADS,
                                                                0));
        return std::max(per_sm, 1) * cml_sm_count();
    }();
    auto device_view = [](const float *h) {
        void *d = nullptr;
        CML_CHECK(cudaHostGetDevicePointer(&d, const_cast<float *>(h), 0));
        return static_cast<float *>(d);
    };
    float *out = device_view(h_out);
    const float *x = device_view(h_x), *y = device_view(h_y);
    const size_t want = (n / 4 + ZC_THREADS - 1) / ZC_THREADS;
    const unsigned blocks = (unsigned)std::clamp<size_t>(want, 1, (size_t)resident_blocks);
    for (int pass = 0; pass < passes; pass++) {
        saxpyMapped<<<blocks, ZC_THREADS, 0, stream>>>(out, x, pass ? out : y, n, SAXPY_A);
        CML_CHECK_LAUNCH();
    }
}
