/* Lab 01, global-memory coalescing: my kernels and launch wrappers.
 * Launches go through cudaLaunchKernelEx with a config struct; 1.1 moves whole float4 vectors
 * when both pointers allow it, 1.2 shares one index helper between the two naive transposes. */
#include "coalescing.h"

#include <cstdint>

namespace {

constexpr unsigned kThreads = 256;

/* Blocks for a grid-stride loop over `work` items: enough to cover them, capped at 2^21 blocks
 * (2^29 threads: the loop goes round again past that) */
unsigned blocks_for(size_t work)
{
    size_t b = (work + kThreads - 1) / kThreads;
    const size_t cap = (size_t)1 << 21;
    if (b > cap)
        b = cap;
    return b ? (unsigned)b : 1u;
}

template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream,
            Args... args)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = 0;
    cfg.stream = stream;
    cfg.numAttrs = 0;
    CML_CHECK(cudaLaunchKernelEx(&cfg, kernel, args...));
}

} // namespace

// ---- 1.1 --------------------------------------------------------------------------------
// Thread g moves vectors g, g + T, g + 2T, ... (T threads in the grid): lane k of a warp reads
// bytes [16k, 16k + 16) of a 512-byte stretch, so a warp's request is 4 whole 128-byte lines.
// The last n % 4 floats (and every float when a pointer is not 16-byte aligned) go one by one,
// again with neighbouring threads on neighbouring floats.
__global__ void copyCoalesced(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    const size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const bool vec = ((reinterpret_cast<uintptr_t>(out) | reinterpret_cast<uintptr_t>(in)) & 15) == 0;
    size_t done = 0;
    if (vec) {
        const size_t nv = n / 4;
        const float4 *src = reinterpret_cast<const float4 *>(in);
        float4 *dst = reinterpret_cast<float4 *>(out);
        for (size_t v = g; v < nv; v += T)
            dst[v] = src[v];
        done = nv * 4;
    }
    for (size_t i = done + g; i < n; i += T)
        out[i] = in[i];
}

void launch_copy_coalesced(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    launch(copyCoalesced, dim3(blocks_for((n + 3) / 4)), dim3(kThreads), stream, d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- 1.2a and 1.2b ----------------------------------------------------------------------
// One thread per element, 32 x 8 blocks. `along` is the coordinate threadIdx.x runs along,
// `across` the one threadIdx.y (and blockIdx.y) runs along.
struct Element {
    int r, c;
};

template <bool ReadAlongRows>
__device__ __forceinline__ Element my_element()
{
    const int along = blockIdx.x * blockDim.x + threadIdx.x;
    const int across = blockIdx.y * blockDim.y + threadIdx.y;
    return ReadAlongRows ? Element{across, along} : Element{along, across};
}

// transposeNaiveReadCoalesced: threadIdx.x runs along a row of in (a column index c):
// 32 neighbouring floats read, 32 floats written `rows` apart.
__global__ void transposeNaiveReadCoalesced(float *__restrict__ out,
                                            const float *__restrict__ in, int rows, int cols)
{
    const Element e = my_element<true>();
    if (e.r < rows && e.c < cols)
        out[(size_t)e.c * rows + e.r] = in[(size_t)e.r * cols + e.c];
}

void launch_transpose_naive_read_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                           cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((unsigned)(cols + 31) / 32, (unsigned)(rows + 7) / 8);
    launch(transposeNaiveReadCoalesced, grid, block, stream, d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// transposeNaiveWriteCoalesced: threadIdx.x runs along a row of out (a row index r of in):
// 32 neighbouring floats written, 32 floats read `cols` apart.
__global__ void transposeNaiveWriteCoalesced(float *__restrict__ out,
                                             const float *__restrict__ in, int rows, int cols)
{
    const Element e = my_element<false>();
    if (e.r < rows && e.c < cols)
        out[(size_t)e.c * rows + e.r] = in[(size_t)e.r * cols + e.c];
}

void launch_transpose_naive_write_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                            cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((unsigned)(rows + 31) / 32, (unsigned)(cols + 7) / 8);
    launch(transposeNaiveWriteCoalesced, grid, block, stream, d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// ---- 1.3 --------------------------------------------------------------------------------
// out[i] = in[offset + i*stride], every index a size_t; the read goes through the read-only
// path (__ldg), the input being only read.
__global__ void copyOffsetStride(float *__restrict__ out, const float *__restrict__ in,
                                 size_t n, size_t offset, size_t stride)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    const float *src = in + offset;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += T)
        out[i] = __ldg(src + i * stride);
}

void launch_copy_offset_stride(float *d_out, const float *d_in, size_t n, size_t offset,
                               size_t stride, cudaStream_t stream)
{
    launch(copyOffsetStride, dim3(blocks_for(n)), dim3(kThreads), stream, d_out, d_in, n,
           offset, stride);
    CML_CHECK_LAUNCH();
}
