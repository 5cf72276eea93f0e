/* Lab 06, zero-copy, part 1: the GPU reads and writes pinned host memory where it lies.
 * 6.1: mapped pinned buffers, and one kernel launch per pass that loads and stores them over the
 * link. Each lane keeps two 16-byte loads of x and two of y in flight before it stores, so the
 * link sees many outstanding requests; the grid is what the occupancy calculator says fits. */
#include "zerocopy.h"

#include <algorithm>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float4 saxpy4(float a, float4 x, float4 y)
{
    return make_float4(fmaf(a, x.x, y.x), fmaf(a, x.y, y.y), fmaf(a, x.z, y.z), fmaf(a, x.w, y.w));
}

// The grid that fills the GPU with this kernel at kThreads a block: computed once.
template <class Kernel> unsigned resident_blocks(Kernel kernel)
{
    static unsigned blocks = 0;
    if (!blocks) {
        int per_sm = 0, dev = 0, sms = 0;
        CML_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0));
        CML_CHECK(cudaGetDevice(&dev));
        CML_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        blocks = (unsigned)(per_sm > 0 ? per_sm : 1) * (unsigned)sms;
    }
    return blocks;
}

} // namespace

// saxpyMapped: out = a*x + y on mapped host memory, a grid-stride loop of float4 pairs, then the
// last n % 4 floats. out may be y (the later passes). a = 2: a*x is exact, so fmaf rounds once
// like a*x + y does.
__global__ void saxpyMapped(float *out, const float *x, const float *y, size_t n, float a)
{
    const cg::thread_block block = cg::this_thread_block();
    const size_t lane = (size_t)block.group_index().x * block.size() + block.thread_rank();
    const size_t lanes = (size_t)gridDim.x * block.size();
    const size_t n4 = n / 4;
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    const float4 *y4 = reinterpret_cast<const float4 *>(y);
    float4 *o4 = reinterpret_cast<float4 *>(out);
    size_t i = lane;
    for (; i + lanes < n4; i += 2 * lanes) { // two vectors a lane: both loads issued first
        const float4 xa = x4[i], xb = x4[i + lanes];
        const float4 ya = y4[i], yb = y4[i + lanes];
        o4[i] = saxpy4(a, xa, ya);
        o4[i + lanes] = saxpy4(a, xb, yb);
    }
    if (i < n4)
        o4[i] = saxpy4(a, x4[i], y4[i]);
    if (lane < n % 4) { // the tail, one float for each of the first n % 4 lanes
        const size_t t = 4 * n4 + lane;
        out[t] = fmaf(a, x[t], y[t]);
    }
}

float *zc_alloc_mapped(size_t n)
{
    void *p = nullptr;
    // pinned, mapped into the GPU's address space (and usable from any context)
    if (cudaHostAlloc(&p, n * sizeof(float), cudaHostAllocMapped | cudaHostAllocPortable) !=
        cudaSuccess) {
        (void)cudaGetLastError();
        return nullptr;
    }
    return static_cast<float *>(p);
}

void zc_saxpy(float *h_out, const float *h_x, const float *h_y, size_t n, int passes,
              cudaStream_t stream)
{
    auto device_view = [](const float *h) {
        void *d = nullptr;
        CML_CHECK(cudaHostGetDevicePointer(&d, const_cast<float *>(h), 0));
        return static_cast<float *>(d);
    };
    float *out = device_view(h_out);
    const float *x = device_view(h_x), *y = device_view(h_y);
    const size_t want = (n / 4 + 2 * kThreads - 1) / (2 * kThreads) + 1;
    const unsigned blocks = (unsigned)std::min<size_t>(want, resident_blocks(saxpyMapped));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(kThreads);
    cfg.stream = stream;
    for (int p = 0; p < passes; ++p) {
        // pass 1 reads y, every later pass the running result in out
        CML_CHECK(cudaLaunchKernelEx(&cfg, saxpyMapped, out, x, p ? (const float *)out : y, n,
                                     SAXPY_A));
        CML_CHECK_LAUNCH();
    }
}
