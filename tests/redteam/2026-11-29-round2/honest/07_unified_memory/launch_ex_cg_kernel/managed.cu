/* Lab 07, unified memory. The kernel indexes through cooperative groups; the three tasks launch
 * it with cudaLaunchKernelEx (the stream in the launch config) from one helper that also does
 * the prefetches asked of it. */
#include "managed.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void matrixAddManaged(float *C, const float *A, const float *B, int rows, int cols)
{
    const cg::thread_block tb = cg::this_thread_block();
    const unsigned c = tb.group_index().x * tb.dim_threads().x + tb.thread_index().x;
    const unsigned r = tb.group_index().y * tb.dim_threads().y + tb.thread_index().y;
    if (r < (unsigned)rows && c < (unsigned)cols) {
        const size_t e = (size_t)r * (unsigned)cols + c;
        C[e] = A[e] + B[e];
    }
}

// Given: launches matrixAddManaged over the whole matrix on `stream`.
void launch_matrix_add(float *C, const float *A, const float *B, int rows, int cols,
                              cudaStream_t stream)
{
    const dim3 block(32, 8), grid((cols + 31) / 32, (rows + 7) / 8);
    matrixAddManaged<<<grid, block, 0, stream>>>(C, A, B, rows, cols);
    CML_CHECK_LAUNCH();
}

namespace {

enum Prefetch : unsigned { kNone = 0, kInputsToGpu = 1, kOutputToGpu = 2, kOutputBack = 4 };

// optional prefetches before, the 32 x 8 launch on `stream`, optional prefetch of C after
void add_on_stream(float *C, const float *A, const float *B, int rows, int cols, int device,
                   unsigned what, cudaStream_t stream)
{
    const size_t bytes = (size_t)rows * (size_t)cols * sizeof(float);
    const cudaMemLocation gpu = cml_loc_device(device);
    if (what & kInputsToGpu) {
        CML_CHECK(cml_mem_prefetch(A, bytes, gpu, stream));
        CML_CHECK(cml_mem_prefetch(B, bytes, gpu, stream));
    }
    if (what & kOutputToGpu)
        CML_CHECK(cml_mem_prefetch(C, bytes, gpu, stream));

    cudaLaunchConfig_t cfg = {};
    cfg.blockDim = dim3(32, 8);
    cfg.gridDim = dim3((unsigned)((cols + 31) / 32), (unsigned)((rows + 7) / 8));
    cfg.stream = stream;
    CML_CHECK(cudaLaunchKernelEx(&cfg, matrixAddManaged, C, A, B, rows, cols));
    CML_CHECK_LAUNCH();

    if (what & kOutputBack)
        CML_CHECK(cml_mem_prefetch(C, bytes, cml_loc_host(), stream));
}

} // namespace

// ---- 7.1 --------------------------------------------------------------------------------
float *um_alloc(size_t n)
{
    void *p = nullptr;
    const size_t bytes = (n == 0 ? 1 : n) * sizeof(float);
    return cudaMallocManaged(&p, bytes) == cudaSuccess ? static_cast<float *>(p)
                                                       : ((void)cudaGetLastError(), nullptr);
}

void um_add(float *C, const float *A, const float *B, int rows, int cols, cudaStream_t stream)
{
    add_on_stream(C, A, B, rows, cols, 0, kNone, stream); // device unused: nothing prefetched
}

// ---- 7.2 --------------------------------------------------------------------------------
void um_add_prefetched(float *C, const float *A, const float *B, int rows, int cols, int device,
                       cudaStream_t stream)
{
    add_on_stream(C, A, B, rows, cols, device, kInputsToGpu | kOutputToGpu | kOutputBack, stream);
}

// ---- 7.3 --------------------------------------------------------------------------------
void um_advise(float *C, const float *A, const float *B, size_t n, int device)
{
    (void)A, (void)B;
    const size_t bytes = n * sizeof(float);
    CML_CHECK(cml_mem_advise(C, bytes, cudaMemAdviseSetPreferredLocation, cml_loc_host()));
    CML_CHECK(cml_mem_advise(C, bytes, cudaMemAdviseSetAccessedBy, cml_loc_device(device)));
}

void um_add_advised(float *C, const float *A, const float *B, int rows, int cols, int device,
                    cudaStream_t stream)
{
    // A and B move to the GPU in bulk; C stays on the host and is written there over the link
    add_on_stream(C, A, B, rows, cols, device, kInputsToGpu, stream);
}
