/* Lab 07, unified memory: C = A + B on managed memory, three ways to get the data there and
 * back. One kernel for all three tasks: 32 x 8 blocks, one element per thread and per row step,
 * both indices guarded; the rows loop over the grid's y extent, so any number of rows works
 * (a grid has at most 65535 blocks in y). Locations are built as cudaMemLocation values. */
#include "managed.h"

#include <algorithm>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

namespace {

constexpr unsigned kBlockX = 32, kBlockY = 8, kMaxGridY = 65535;

// Where a range goes: the GPU `device`, or the host (CUDA 13's cudaMemLocation).
inline cudaMemLocation on_gpu(int device) { return cudaMemLocation{cudaMemLocationTypeDevice, device}; }
inline cudaMemLocation on_host() { return cudaMemLocation{cudaMemLocationTypeHost, 0}; }

inline size_t bytes_of(int rows, int cols) { return (size_t)rows * (size_t)cols * sizeof(float); }

} // namespace

// matrixAddManaged: C = A + B, row-major; a warp spans 32 neighbouring columns of one row.
__global__ void matrixAddManaged(float *C, const float *A, const float *B, int rows, int cols)
{
    const cg::thread_block tb = cg::this_thread_block();
    const int c = (int)(tb.group_index().x * tb.group_dim().x + tb.thread_index().x);
    if (c >= cols)
        return;
    for (int r = (int)(tb.group_index().y * tb.group_dim().y + tb.thread_index().y); r < rows;
         r += (int)(gridDim.y * tb.group_dim().y)) {
        const size_t i = (size_t)r * cols + c;
        C[i] = A[i] + B[i];
    }
}

namespace {

void launch_add(float *C, const float *A, const float *B, int rows, int cols, cudaStream_t stream)
{
    cudaLaunchConfig_t cfg = {};
    cfg.blockDim = dim3(kBlockX, kBlockY);
    cfg.gridDim = dim3((cols + kBlockX - 1) / kBlockX,
                       std::min((rows + kBlockY - 1) / kBlockY, kMaxGridY));
    cfg.stream = stream;
    CML_CHECK(cudaLaunchKernelEx(&cfg, matrixAddManaged, C, A, B, rows, cols));
    CML_CHECK_LAUNCH();
}

} // namespace

// ---- 7.1: the port ----------------------------------------------------------------------

float *um_alloc(size_t n)
{
    float *p = nullptr;
    if (cudaMallocManaged(&p, n * sizeof(float), cudaMemAttachGlobal) != cudaSuccess) {
        (void)cudaGetLastError();
        return nullptr;
    }
    return p;
}

void um_add(float *C, const float *A, const float *B, int rows, int cols, cudaStream_t stream)
{
    launch_add(C, A, B, rows, cols, stream); // the pages come by fault
}

// ---- 7.2: prefetch ----------------------------------------------------------------------

void um_add_prefetched(float *C, const float *A, const float *B, int rows, int cols, int device,
                       cudaStream_t stream)
{
    const size_t bytes = bytes_of(rows, cols);
    // C first: its pages were last on the host, and the kernel would fault every one of them
    const void *to_gpu[] = {C, A, B};
    for (const void *p : to_gpu)
        CML_CHECK(cml_mem_prefetch(p, bytes, on_gpu(device), stream));
    launch_add(C, A, B, rows, cols, stream);
    CML_CHECK(cml_mem_prefetch(C, bytes, on_host(), stream)); // the host reads it next
}

// ---- 7.3: advice ------------------------------------------------------------------------

void um_advise(float *C, const float *A, const float *B, size_t n, int device)
{
    (void)A, (void)B; // prefetched on every run instead
    const size_t bytes = n * sizeof(float);
    const struct {
        cudaMemoryAdvise advice;
        cudaMemLocation where;
    } plan[] = {{cudaMemAdviseSetPreferredLocation, on_host()},
                {cudaMemAdviseSetAccessedBy, on_gpu(device)}};
    for (const auto &a : plan)
        CML_CHECK(cml_mem_advise(C, bytes, a.advice, a.where));
}

void um_add_advised(float *C, const float *A, const float *B, int rows, int cols, int device,
                    cudaStream_t stream)
{
    const size_t bytes = bytes_of(rows, cols);
    for (const float *p : {A, B})
        CML_CHECK(cml_mem_prefetch(p, bytes, on_gpu(device), stream));
    launch_add(C, A, B, rows, cols, stream); // C is written where it lies, on the host
}
