/* Lab 06, zero-copy, part 1. The host decides how many float4s the kernel may move (all
 * three buffers 16-byte aligned); each lane keeps two float4 requests per buffer in flight per
 * step of the grid-stride loop, straight from and to the mapped pages. */
#include "zerocopy.h"

#include <algorithm>
#include <stdint.h>

namespace {
constexpr unsigned kThreads = 256;

__device__ __forceinline__ float4 axpy4(float a, float4 x, float4 y)
{
    return make_float4(a * x.x + y.x, a * x.y + y.y, a * x.z + y.z, a * x.w + y.w);
}
} // namespace

// ---- 6.1 --------------------------------------------------------------------------------
// nvec: float4s done vectorised (0 when a pointer is not 16-byte aligned); floats [4*nvec, n)
// one by one. A lane takes float4 v and v + T per step (two independent 16-byte requests, and
// every warp instruction still covers 512 contiguous bytes). out may be y: no __restrict__.
__global__ void saxpyMapped(float *out, const float *x, const float *y, size_t n, float a,
                            size_t nvec)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    const size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    const float4 *y4 = reinterpret_cast<const float4 *>(y);
    float4 *o4 = reinterpret_cast<float4 *>(out);
    for (size_t v = g; v < nvec; v += 2 * T) {
        const size_t w = v + T;
        const bool second = w < nvec;
        const float4 xa = x4[v], ya = y4[v];
        float4 xb = xa, yb = ya;
        if (second) {
            xb = x4[w];
            yb = y4[w];
        }
        o4[v] = axpy4(a, xa, ya);
        if (second)
            o4[w] = axpy4(a, xb, yb);
    }
    for (size_t i = 4 * nvec + g; i < n; i += T)
        out[i] = a * x[i] + y[i];
}

float *zc_alloc_mapped(size_t n)
{
    float *p = NULL;
    const cudaError_t e =
        cudaHostAlloc(reinterpret_cast<void **>(&p), (n > 0 ? n : 1) * sizeof(float),
                      cudaHostAllocMapped | cudaHostAllocPortable);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

void zc_saxpy(float *h_out, const float *h_x, const float *h_y, size_t n, int passes,
              cudaStream_t stream)
{
    float *out = nullptr, *x = nullptr, *y = nullptr;
    CML_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void **>(&out), h_out, 0));
    CML_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void **>(&x), const_cast<float *>(h_x), 0));
    CML_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void **>(&y), const_cast<float *>(h_y), 0));

    // cudaHostAlloc memory is page-aligned, but check rather than assume
    const bool aligned = ((reinterpret_cast<uintptr_t>(out) | reinterpret_cast<uintptr_t>(x) |
                           reinterpret_cast<uintptr_t>(y)) & 15u) == 0;
    const size_t nvec = aligned ? n / 4 : 0;
    const size_t items = std::max<size_t>((nvec + 1) / 2, 1);
    const unsigned blocks = (unsigned)std::min<size_t>((items + kThreads - 1) / kThreads,
                                                       (size_t)cml_sm_count() * 8);
    for (int pass = 1; pass <= passes; ++pass) {
        saxpyMapped<<<blocks, kThreads, 0, stream>>>(out, x, pass == 1 ? y : out, n, SAXPY_A,
                                                     nvec);
        CML_CHECK_LAUNCH();
    }
}
