/* Lab 06, zero-copy, part 1: the GPU reads and writes pinned host memory where it lies.
 * Variant: a float4 grid-stride kernel (scalar fallback when a pointer is not 16-byte aligned,
 * scalar tail for the last n % 4 floats), launched once per pass on `stream`. */
#include "zerocopy.h"

#include <algorithm>
#include <cstdint>

// ---- 6.1 --------------------------------------------------------------------------------

// saxpyMapped: out = a*x + y on mapped host memory. out may be y (the later passes): each
// element (or float4) is read and then written by the same thread, so aliasing is harmless.
__global__ void saxpyMapped(float *out, const float *x, const float *y, size_t n, float a)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    const size_t g = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const bool vec = (((uintptr_t)out | (uintptr_t)x | (uintptr_t)y) & 15) == 0;
    size_t done = 0; // floats [0, done) are handled by the vector loop
    if (vec) {
        const size_t nv = n / 4;
        const float4 *x4 = reinterpret_cast<const float4 *>(x);
        const float4 *y4 = reinterpret_cast<const float4 *>(y);
        float4 *o4 = reinterpret_cast<float4 *>(out);
        for (size_t j = g; j < nv; j += T) {
            const float4 xv = x4[j], yv = y4[j];
            o4[j] = make_float4(a * xv.x + yv.x, a * xv.y + yv.y, a * xv.z + yv.z,
                                a * xv.w + yv.w);
        }
        done = nv * 4;
    }
    for (size_t i = done + g; i < n; i += T) // the tail (vec), or everything (not vec)
        out[i] = a * x[i] + y[i];
}

float *zc_alloc_mapped(size_t n)
{
    void *p = NULL;
    if (cudaHostAlloc(&p, n * sizeof(float), cudaHostAllocMapped) != cudaSuccess) {
        (void)cudaGetLastError(); // the contract: NULL when it cannot be had
        return NULL;
    }
    return static_cast<float *>(p);
}

void zc_saxpy(float *h_out, const float *h_x, const float *h_y, size_t n, int passes,
              cudaStream_t stream)
{
    float *d_out = NULL, *d_x = NULL, *d_y = NULL;
    CML_CHECK(cudaHostGetDevicePointer((void **)&d_out, h_out, 0));
    CML_CHECK(cudaHostGetDevicePointer((void **)&d_x, (void *)h_x, 0));
    CML_CHECK(cudaHostGetDevicePointer((void **)&d_y, (void *)h_y, 0));
    const unsigned threads = 256;
    const size_t want = (n / 4 + threads - 1) / threads;
    const unsigned blocks =
        (unsigned)std::max<size_t>(1, std::min<size_t>(want, (size_t)cml_sm_count() * 8));
    for (int p = 0; p < passes; p++) {
        // pass 1 reads y, every later pass the running result in out
        saxpyMapped<<<blocks, threads, 0, stream>>>(d_out, d_x, p == 0 ? d_y : d_out, n,
                                                     SAXPY_A);
        CML_CHECK_LAUNCH();
    }
}
