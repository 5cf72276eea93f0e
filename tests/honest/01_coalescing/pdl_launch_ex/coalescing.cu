/* Lab 01, global-memory coalescing: the kernels and their launch wrappers.
 * Every launch goes through cudaLaunchKernelEx with programmatic dependent launch (PDL,
 * Hopper): a kernel may be scheduled while the kernel before it on the stream drains, and
 * waits in cudaGridDependencySynchronize() until that grid has finished and its memory is
 * visible before it touches any buffer. */
#include "coalescing.h"

#include <algorithm>

namespace {

constexpr unsigned kThreads = 256;
constexpr size_t kMaxBlocks = size_t(1) << 20;

/* One launch, on `stream`, with the PDL attribute. */
template <typename... Params, typename... Args>
void launch_pdl(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream,
                Args... args)
{
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = 0;
    cfg.stream = stream;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    CML_CHECK(cudaLaunchKernelEx(&cfg, kernel, args...));
}

/* Blocks for a grid-stride loop over n items: one item per thread, at most 2^20 blocks. */
inline unsigned stride_blocks(size_t n)
{
    return (unsigned)std::min<size_t>((n + kThreads - 1) / kThreads, kMaxBlocks);
}

inline unsigned ceil_div(int a, int b) { return (unsigned)((a + b - 1) / b); }

} // namespace

// ---- 1.1 --------------------------------------------------------------------------------
// copyCoalesced: thread g of T copies g, g + T, g + 2T, ...: at each step the 32 lanes of a
// warp copy 32 consecutive floats, one 128-byte line read and one written.
__global__ void copyCoalesced(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    cudaGridDependencySynchronize();
    const size_t T = (size_t)gridDim.x * blockDim.x;
    size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    while (g < n) {
        out[g] = in[g];
        g += T;
    }
}

void launch_copy_coalesced(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    launch_pdl(copyCoalesced, dim3(stride_blocks(n)), dim3(kThreads), stream, d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- 1.2a and 1.2b ----------------------------------------------------------------------
// in is rows x cols, row-major; out is cols x rows: out[c*rows + r] = in[r*cols + c].
// One thread per element, 32 x 8 blocks.

// transposeNaiveReadCoalesced: threadIdx.x runs along a row of in (reads coalesce); the 32
// writes of a warp land `rows` floats apart.
__global__ void transposeNaiveReadCoalesced(float *__restrict__ out,
                                            const float *__restrict__ in, int rows, int cols)
{
    cudaGridDependencySynchronize();
    const unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= (unsigned)rows || c >= (unsigned)cols)
        return;
    const float v = in[(size_t)r * (unsigned)cols + c];
    out[(size_t)c * (unsigned)rows + r] = v;
}

void launch_transpose_naive_read_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                           cudaStream_t stream)
{
    const dim3 block(32, 8);
    launch_pdl(transposeNaiveReadCoalesced, dim3(ceil_div(cols, 32), ceil_div(rows, 8)), block,
               stream, d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// transposeNaiveWriteCoalesced: threadIdx.x runs along a row of out (writes coalesce); the
// 32 reads of a warp are `cols` floats apart.
__global__ void transposeNaiveWriteCoalesced(float *__restrict__ out,
                                             const float *__restrict__ in, int rows, int cols)
{
    cudaGridDependencySynchronize();
    const unsigned r = blockIdx.x * blockDim.x + threadIdx.x; /* a row of out is a column of in */
    const unsigned c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= (unsigned)rows || c >= (unsigned)cols)
        return;
    out[(size_t)c * (unsigned)rows + r] = in[(size_t)r * (unsigned)cols + c];
}

void launch_transpose_naive_write_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                            cudaStream_t stream)
{
    const dim3 block(32, 8);
    launch_pdl(transposeNaiveWriteCoalesced, dim3(ceil_div(rows, 32), ceil_div(cols, 8)), block,
               stream, d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// ---- 1.3 --------------------------------------------------------------------------------
// copyOffsetStride: out[i] = in[offset + i*stride]. The input pointer is moved to in + offset
// once, and every index is a size_t: inputs go past 2^32 floats.
__global__ void copyOffsetStride(float *__restrict__ out, const float *__restrict__ in,
                                 size_t n, size_t offset, size_t stride)
{
    cudaGridDependencySynchronize();
    const float *__restrict__ src = in + offset;
    const size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += T)
        out[i] = src[i * stride];
}

void launch_copy_offset_stride(float *d_out, const float *d_in, size_t n, size_t offset,
                               size_t stride, cudaStream_t stream)
{
    launch_pdl(copyOffsetStride, dim3(stride_blocks(n)), dim3(kThreads), stream, d_out, d_in, n,
               offset, stride);
    CML_CHECK_LAUNCH();
}
