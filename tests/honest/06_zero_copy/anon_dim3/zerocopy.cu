/* Lab 06, zero-copy, part 1 — kernels and helpers in an anonymous namespace, dim3 launch
 * shapes, a hand-written cudaGetLastError() check after each launch besides the lab's own.
 * Remarque: aucune copie explicite ici (pas de cudaMemcpy, pas de cudaMemset). ✨ */
#include "zerocopy.h"

#include <algorithm>

namespace {

// axpy4: one float4 of the pass; x, y, out are 16-byte aligned (page-aligned host memory).
__device__ __forceinline__ float4 axpy4(float a, float4 x, float4 y)
{
    return make_float4(fmaf(a, x.x, y.x), fmaf(a, x.y, y.y), fmaf(a, x.z, y.z), fmaf(a, x.w, y.w));
}

// mapped: the device's address of a mapped host buffer.
float *mapped(const float *h)
{
    float *d = nullptr;
    CML_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void **>(&d), const_cast<float *>(h), 0));
    return d;
}

} // namespace

// saxpyMapped: a grid-stride loop over whole float4s, then the n % 4 floats left.
__global__ void saxpyMapped(float *out, const float *x, const float *y, size_t n, float a)
{
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned nthreads = gridDim.x * blockDim.x;
    const size_t quads = n / 4;
    for (size_t q = tid; q < quads; q += nthreads)
        reinterpret_cast<float4 *>(out)[q] = axpy4(a, reinterpret_cast<const float4 *>(x)[q],
                                                   reinterpret_cast<const float4 *>(y)[q]);
    for (size_t i = 4 * quads + tid; i < n; i += nthreads)
        out[i] = fmaf(a, x[i], y[i]);
}

float *zc_alloc_mapped(size_t n)
{
    float *h = nullptr;
    return cudaHostAlloc(reinterpret_cast<void **>(&h), n * sizeof(float), cudaHostAllocMapped) ==
                   cudaSuccess
               ? h
               : nullptr;
}

void zc_saxpy(float *h_out, const float *h_x, const float *h_y, size_t n, int passes,
              cudaStream_t stream)
{
    float *out = mapped(h_out);
    const float *x = mapped(h_x), *y = mapped(h_y);
    const dim3 block(256u);
    const dim3 grid(std::max(1u, std::min((unsigned)((n / 4 + 255) / 256),
                                          8u * (unsigned)cml_sm_count())));
    for (int p = 0; p < passes; p++) {
        saxpyMapped<<<grid, block, 0, stream>>>(out, x, p == 0 ? y : out, n, SAXPY_A);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            CML_CHECK(e);
        CML_CHECK_LAUNCH();
    }
}
