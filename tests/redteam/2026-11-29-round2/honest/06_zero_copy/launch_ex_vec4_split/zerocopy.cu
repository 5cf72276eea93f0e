/* Lab 06, zero-copy, part 1. The pass kernel moves float4s where all three buffers allow it
 * and finishes the n % 4 tail with floats; every pass is launched with cudaLaunchKernelEx. */
#include "zerocopy.h"

#include <algorithm>
#include <stdint.h>

// ---- 6.1 --------------------------------------------------------------------------------
// out may be y (later passes): no __restrict__ on those two.
__global__ void saxpyMapped(float *out, const float *x, const float *y, size_t n, float a)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    const size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const bool vec = (((uintptr_t)out | (uintptr_t)x | (uintptr_t)y) & 15) == 0;
    const size_t nv = vec ? n / 4 : 0; // float4s in the vector part
    if (vec) {
        const float4 *x4 = reinterpret_cast<const float4 *>(x);
        const float4 *y4 = reinterpret_cast<const float4 *>(y);
        float4 *o4 = reinterpret_cast<float4 *>(out);
        for (size_t v = g; v < nv; v += T) {
            const float4 xv = x4[v], yv = y4[v];
            o4[v] = make_float4(a * xv.x + yv.x, a * xv.y + yv.y, a * xv.z + yv.z,
                                a * xv.w + yv.w);
        }
    }
    // the floats after the vector part (all of them when a pointer is not 16-byte aligned)
    for (size_t i = 4 * nv + g; i < n; i += T)
        out[i] = a * x[i] + y[i];
}

float *zc_alloc_mapped(size_t n)
{
    void *p = nullptr;
    if (cudaHostAlloc(&p, std::max<size_t>(n, 1) * sizeof(float), cudaHostAllocMapped) !=
        cudaSuccess) {
        (void)cudaGetLastError(); // a failed allocation is not sticky: clear it and say NULL
        return NULL;
    }
    return static_cast<float *>(p);
}

namespace {
template <typename T>
T *device_view(T *host)
{
    void *d = nullptr;
    CML_CHECK(cudaHostGetDevicePointer(&d, const_cast<void *>(static_cast<const void *>(host)), 0));
    return static_cast<T *>(d);
}
} // namespace

void zc_saxpy(float *h_out, const float *h_x, const float *h_y, size_t n, int passes,
              cudaStream_t stream)
{
    float *d_out = device_view(h_out);
    const float *d_x = device_view(h_x);
    const float *d_y = device_view(h_y);

    const size_t work = (n + 3) / 4;
    cudaLaunchConfig_t cfg = {};
    cfg.blockDim = dim3(256);
    cfg.gridDim = dim3((unsigned)std::max<size_t>(
        1, std::min<size_t>((work + 255) / 256, (size_t)cml_sm_count() * 16)));
    cfg.stream = stream;
    for (int pass = 0; pass < passes; ++pass) {
        const float *y_in = pass == 0 ? d_y : d_out;
        CML_CHECK(cudaLaunchKernelEx(&cfg, saxpyMapped, d_out, d_x, y_in, n, SAXPY_A));
        CML_CHECK_LAUNCH();
    }
}
