/* Lab 06, zero-copy, part 1: the kernel works on mapped pinned host memory where it lies.
 * We don't use cudaMemcpy here, nor any device buffer: every byte crosses the link once per
 * pass, read or written by the kernel itself. (Comments may say cudaMalloc; code may not.) */
#include "zerocopy.h"

#include <algorithm>
#include <stdint.h>

namespace zc {

constexpr unsigned kThreads = 256;

// saxpy4: the float4 part of a pass; out may be y (in place: each thread reads its own
// element of y before it writes the same element of out).
__device__ __forceinline__ void saxpy4(float4 *out, const float4 *x, const float4 *y,
                                       size_t n4, float a, size_t first, size_t stride)
{
    for (size_t j = first; j < n4; j += stride) {
        const float4 xv = x[j], yv = y[j];
        out[j] = make_float4(a * xv.x + yv.x, a * xv.y + yv.y, a * xv.z + yv.z, a * xv.w + yv.w);
    }
}

} // namespace zc

// saxpyMapped: float4 for the 16-byte aligned bulk (cudaHostAlloc memory is page-aligned),
// floats for the last n % 4; a plain float loop when some pointer is not 16-byte aligned.
__global__ void saxpyMapped(float *out, const float *x, const float *y, size_t n, float a)
{
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const bool aligned = (((uintptr_t)out | (uintptr_t)x | (uintptr_t)y) & 15) == 0;
    const size_t n4 = aligned ? n / 4 : 0;
    zc::saxpy4(reinterpret_cast<float4 *>(out), reinterpret_cast<const float4 *>(x),
               reinterpret_cast<const float4 *>(y), n4, a, first, stride);
    for (size_t i = 4 * n4 + first; i < n; i += stride)
        out[i] = a * x[i] + y[i];
}

float *zc_alloc_mapped(size_t n)
{
    void *p = NULL;
    if (cudaHostAlloc(&p, n * sizeof(float), cudaHostAllocMapped) != cudaSuccess)
        return NULL;
    return static_cast<float *>(p);
}

#if 0
// the version before the port: device buffers and copies (6.2 does this, in copies.cu)
float *d_x, *d_y;
cudaMalloc(&d_x, n * sizeof(float));
cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice);
cudaMemset(d_y, 0, n * sizeof(float));
#endif

void zc_saxpy(float *h_out, const float *h_x, const float *h_y, size_t n, int passes,
              cudaStream_t stream)
{
    float *d_out = NULL, *d_x = NULL, *d_y = NULL; // the GPU's addresses of the same bytes
    CML_CHECK(cudaHostGetDevicePointer((void **)&d_out, h_out, 0));
    CML_CHECK(cudaHostGetDevicePointer((void **)&d_x, (void *)h_x, 0));
    CML_CHECK(cudaHostGetDevicePointer((void **)&d_y, (void *)h_y, 0));
    const size_t work = std::max<size_t>((n + 3) / 4, 1);
    const unsigned blocks = (unsigned)std::min<size_t>((work + zc::kThreads - 1) / zc::kThreads,
                                                       (size_t)cml_sm_count() * 8);
    for (int p = 0; p < passes; p++) {
        saxpyMapped<<<blocks, zc::kThreads, 0, stream>>>(d_out, d_x, p == 0 ? d_y : d_out, n,
                                                         SAXPY_A);
        CML_CHECK_LAUNCH();
    }
}
