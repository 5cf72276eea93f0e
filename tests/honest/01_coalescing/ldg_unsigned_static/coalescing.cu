/* Lab 01, global-memory coalescing: read-only loads through __ldg, unsigned thread indices,
 * a grid sized once per process from the SM count (a function-local static), and a hand-written
 * cudaGetLastError() beside CML_CHECK_LAUNCH while I was debugging the launches. */
#include "coalescing.h"

#include <algorithm>
#include <cassert>

// load: the read-only path; every kernel here only reads `in`.
__device__ __forceinline__ float load(const float *p) { return __ldg(p); }

// blocks_for: enough 256-thread blocks to give every SM 16 of them, fewer for small n.
int blocks_for(size_t n)
{
    static const int sms = cml_sm_count(); // asked once; the GPU does not change under us
    assert(sms > 0);
    const size_t need = (n + 255) / 256;
    return (int)std::max<size_t>(1, std::min<size_t>(need, (size_t)sms * 16));
}

// copyCoalesced: grid-stride loop, two floats per round (g and g + T) loaded before storing.
__global__ void copyCoalesced(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; g + T < n; g += 2 * T) {
        const float a = load(in + g), b = load(in + g + T);
        out[g] = a;
        out[g + T] = b;
    }
    if (g < n)
        out[g] = load(in + g);
}

void launch_copy_coalesced(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    copyCoalesced<<<blocks_for(n), 256, 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// transposeNaiveReadCoalesced: unsigned indices (rows and cols are below 2^31 and positive).
__global__ void transposeNaiveReadCoalesced(float *__restrict__ out,
                                            const float *__restrict__ in, int rows, int cols)
{
    const unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < (unsigned)rows && c < (unsigned)cols)
        out[(size_t)c * rows + r] = load(in + (size_t)r * cols + c);
}

void launch_transpose_naive_read_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                           cudaStream_t stream)
{
    const dim3 block(32u, 8u);
    const dim3 grid((unsigned)(cols + 31) / 32u, (unsigned)(rows + 7) / 8u);
    transposeNaiveReadCoalesced<<<grid, block, 0, stream>>>(d_out, d_in, rows, cols);
    const cudaError_t err = cudaGetLastError(); // by hand, as in the CUDA samples
    if (err != cudaSuccess)
        CML_CHECK(err);
    CML_CHECK_LAUNCH();
}

// transposeNaiveWriteCoalesced: lane k writes out[c*rows + r0 + k]: one line per warp.
__global__ void transposeNaiveWriteCoalesced(float *__restrict__ out,
                                             const float *__restrict__ in, int rows, int cols)
{
    const unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < (unsigned)rows && c < (unsigned)cols)
        out[(size_t)c * rows + r] = load(in + (size_t)r * cols + c);
}

void launch_transpose_naive_write_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                            cudaStream_t stream)
{
    const dim3 block(32u, 8u);
    const dim3 grid((unsigned)(rows + 31) / 32u, (unsigned)(cols + 7) / 8u);
    transposeNaiveWriteCoalesced<<<grid, block, 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK(cudaGetLastError());
    CML_CHECK_LAUNCH();
}

// copyOffsetStride: the product i*stride is formed in size_t before it meets offset.
__global__ void copyOffsetStride(float *__restrict__ out, const float *__restrict__ in,
                                 size_t n, size_t offset, size_t stride)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += T)
        out[i] = load(in + offset + i * stride);
}

void launch_copy_offset_stride(float *d_out, const float *d_in, size_t n, size_t offset,
                               size_t stride, cudaStream_t stream)
{
    copyOffsetStride<<<blocks_for(n), 256, 0, stream>>>(d_out, d_in, n, offset, stride);
    CML_CHECK_LAUNCH();
}
