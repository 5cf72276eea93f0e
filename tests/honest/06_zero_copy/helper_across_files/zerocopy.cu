/* Lab 06, zero-copy, part 1: a template kernel over the vector width; the grid size comes from
 * saxpy_grid, a small helper of copies.cu that both paths share (it makes no copy and allocates
 * nothing: it only does arithmetic on the SM count). */
#include "zerocopy.h"

#include <stdint.h>

unsigned saxpy_grid(size_t items); // copies.cu

// saxpyVec<W>: W floats per step; W = 4 needs 16-byte aligned pointers.
template <int W>
__global__ void saxpyVec(float *out, const float *x, const float *y, size_t n, float a)
{
    using V = float4;
    static_assert(W == 4, "float4 only");
    const size_t nv = n / W;
    const size_t T = (size_t)gridDim.x * blockDim.x;
    const size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t j = g; j < nv; j += T) {
        const V xv = reinterpret_cast<const V *>(x)[j], yv = reinterpret_cast<const V *>(y)[j];
        V r;
        r.x = a * xv.x + yv.x, r.y = a * xv.y + yv.y, r.z = a * xv.z + yv.z, r.w = a * xv.w + yv.w;
        reinterpret_cast<V *>(out)[j] = r;
    }
    for (size_t i = nv * W + g; i < n; i += T)
        out[i] = a * x[i] + y[i];
}

// saxpyMapped: the scalar pass, for pointers that are not 16-byte aligned.
__global__ void saxpyMapped(float *out, const float *x, const float *y, size_t n, float a)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = a * x[i] + y[i];
}

float *zc_alloc_mapped(size_t n)
{
    float *p = nullptr;
    const cudaError_t err = cudaHostAlloc((void **)&p, n * sizeof(float),
                                          cudaHostAllocMapped | cudaHostAllocPortable);
    return err == cudaSuccess ? p : nullptr;
}

void zc_saxpy(float *h_out, const float *h_x, const float *h_y, size_t n, int passes,
              cudaStream_t stream)
{
    void *out = nullptr, *x = nullptr, *y = nullptr;
    CML_CHECK(cudaHostGetDevicePointer(&out, h_out, 0));
    CML_CHECK(cudaHostGetDevicePointer(&x, const_cast<float *>(h_x), 0));
    CML_CHECK(cudaHostGetDevicePointer(&y, const_cast<float *>(h_y), 0));
    const bool vec = (((uintptr_t)out | (uintptr_t)x | (uintptr_t)y) & 15) == 0;
    for (int p = 0; p < passes; p++) {
        float *o = static_cast<float *>(out);
        const float *yy = p == 0 ? static_cast<const float *>(y) : o; // later passes: y is out
        if (vec)
            saxpyVec<4><<<saxpy_grid(n / 4 + 1), 256, 0, stream>>>(
                o, static_cast<const float *>(x), yy, n, SAXPY_A);
        else
            saxpyMapped<<<saxpy_grid(n), 256, 0, stream>>>(o, static_cast<const float *>(x), yy,
                                                           n, SAXPY_A);
        CML_CHECK_LAUNCH();
    }
}
