/* Lab 06, zero-copy, part 1: the GPU reads and writes pinned host memory where it lies.
 * Variant: the small helpers both files need (the grid size, the saxpy step) are written as
 * ordinary C++ `inline` functions, identically in zerocopy.cu and copies.cu, as a header
 * would have put them (the lab builds only these two files, so no header of my own): one
 * definition by the ODR, a weak symbol in each object. Kernels take a template parameter for
 * the access width; the launch picks float4 when all three pointers allow it. */
#include "zerocopy.h"

#include <algorithm>
#include <cstdint>

// ---- shared helpers (the same text in copies.cu) ----------------------------------------
inline unsigned lab06_blocks(size_t items, unsigned threads, unsigned per_sm)
{
    const size_t want = (items + threads - 1) / threads;
    return (unsigned)std::max<size_t>(1, std::min<size_t>(want, (size_t)cml_sm_count() * per_sm));
}

__host__ __device__ inline float lab06_step(float a, float x, float y) { return a * x + y; }

inline bool lab06_aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

// ---- 6.1 --------------------------------------------------------------------------------

template <int W> struct Vec;
template <> struct Vec<1> { using type = float; };
template <> struct Vec<4> { using type = float4; };

__device__ __forceinline__ float apply(float a, float x, float y) { return lab06_step(a, x, y); }
__device__ __forceinline__ float4 apply(float a, float4 x, float4 y)
{
    return make_float4(lab06_step(a, x.x, y.x), lab06_step(a, x.y, y.y), lab06_step(a, x.z, y.z),
                       lab06_step(a, x.w, y.w));
}

// saxpyVec<W>: elements [0, n) in groups of W; W = 4 needs 16-byte aligned pointers (checked by
// the launch). out may be y: each group is read, then written, by one thread.
template <int W>
__global__ void saxpyVec(float *out, const float *x, const float *y, size_t n, float a)
{
    using V = typename Vec<W>::type;
    const size_t T = (size_t)gridDim.x * blockDim.x, g = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t groups = n / W;
    for (size_t j = g; j < groups; j += T)
        reinterpret_cast<V *>(out)[j] =
            apply(a, reinterpret_cast<const V *>(x)[j], reinterpret_cast<const V *>(y)[j]);
    for (size_t i = groups * W + g; i < n; i += T) // fewer than W floats left (W = 4)
        out[i] = lab06_step(a, x[i], y[i]);
}

// saxpyMapped: the task's kernel, the scalar form (used when a pointer is not 16-byte aligned).
__global__ void saxpyMapped(float *out, const float *x, const float *y, size_t n, float a)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += T)
        out[i] = lab06_step(a, x[i], y[i]);
}

float *zc_alloc_mapped(size_t n)
{
    float *p = nullptr;
    // the C++ overload of cudaHostAlloc (a template in cuda_runtime.h) takes a typed pointer
    if (cudaHostAlloc(&p, n * sizeof(float), cudaHostAllocMapped | cudaHostAllocPortable) !=
        cudaSuccess) {
        (void)cudaGetLastError();
        return nullptr;
    }
    return p;
}

void zc_saxpy(float *h_out, const float *h_x, const float *h_y, size_t n, int passes,
              cudaStream_t stream)
{
    float *out = nullptr;
    const float *x = nullptr, *y = nullptr;
    CML_CHECK(cudaHostGetDevicePointer((void **)&out, h_out, 0));
    CML_CHECK(cudaHostGetDevicePointer((void **)&x, (void *)h_x, 0));
    CML_CHECK(cudaHostGetDevicePointer((void **)&y, (void *)h_y, 0));
    const bool vec = lab06_aligned16(out) && lab06_aligned16(x) && lab06_aligned16(y);
    const unsigned threads = 256, blocks = lab06_blocks(vec ? n / 4 : n, threads, 8);
    for (int p = 0; p < passes; p++) {
        const float *in_y = p == 0 ? y : out; // later passes add to the running result
        if (vec)
            saxpyVec<4><<<blocks, threads, 0, stream>>>(out, x, in_y, n, SAXPY_A);
        else
            saxpyMapped<<<blocks, threads, 0, stream>>>(out, x, in_y, n, SAXPY_A);
        CML_CHECK_LAUNCH();
    }
}
