/* Lab 07, unified memory, 7.2 with B's prefetch on a second stream: the side stream waits for
 * `stream` (an event), prefetches B while `stream` prefetches A and C, and `stream` waits for
 * the side stream (another event) before the kernel. The side stream is made once, in a
 * function-local static built by a lambda, non-blocking so that it never waits on the legacy
 * stream. */
#include "managed.h"

#include <cstddef>

namespace {

__global__ void matrixAddManaged(float *C, const float *A, const float *B, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        C[(size_t)r * cols + c] = A[(size_t)r * cols + c] + B[(size_t)r * cols + c];
}

void launch_matrix_add(float *C, const float *A, const float *B, int rows, int cols,
                       cudaStream_t stream)
{
    const dim3 block(32, 8), grid((cols + 31) / 32, (rows + 7) / 8);
    matrixAddManaged<<<grid, block, 0, stream>>>(C, A, B, rows, cols);
    CML_CHECK_LAUNCH();
}

cudaStream_t side_stream()
{
    static cudaStream_t side = [] {
        cudaStream_t s = nullptr;
        CML_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        return s;
    }();
    return side;
}

} // namespace

// ---- 7.1 --------------------------------------------------------------------------------
float *um_alloc(size_t n)
{
    float *p = nullptr;
    return cudaMallocManaged(&p, n * sizeof(float)) == cudaSuccess ? p : nullptr;
}

void um_add(float *C, const float *A, const float *B, int rows, int cols, cudaStream_t stream)
{
    launch_matrix_add(C, A, B, rows, cols, stream);
}

// ---- 7.2 --------------------------------------------------------------------------------
void um_add_prefetched(float *C, const float *A, const float *B, int rows, int cols, int device,
                       cudaStream_t stream)
{
    const size_t bytes = (size_t)rows * cols * sizeof(float);
    cudaStream_t side = side_stream();
    cudaEvent_t fork = nullptr, join = nullptr;
    CML_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CML_CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    CML_CHECK(cudaEventRecord(fork, stream)); // the side stream starts after stream's work
    CML_CHECK(cudaStreamWaitEvent(side, fork, 0));
    CML_CHECK(cml_mem_prefetch(B, bytes, cml_loc_device(device), side));
    CML_CHECK(cudaEventRecord(join, side));
    CML_CHECK(cml_mem_prefetch(A, bytes, cml_loc_device(device), stream));
    CML_CHECK(cml_mem_prefetch(C, bytes, cml_loc_device(device), stream));
    CML_CHECK(cudaStreamWaitEvent(stream, join, 0)); // B is on the GPU before the kernel
    launch_matrix_add(C, A, B, rows, cols, stream);
    CML_CHECK(cml_mem_prefetch(C, bytes, cml_loc_host(), stream));
    CML_CHECK(cudaEventDestroy(fork)); // released once the stream has passed them
    CML_CHECK(cudaEventDestroy(join));
}

// ---- 7.3 --------------------------------------------------------------------------------
void um_advise(float *C, const float *A, const float *B, size_t n, int device)
{
    (void)A, (void)B;
    CML_CHECK(cml_mem_advise(C, n * sizeof(float), cudaMemAdviseSetPreferredLocation,
                             cml_loc_host()));
    CML_CHECK(cml_mem_advise(C, n * sizeof(float), cudaMemAdviseSetAccessedBy,
                             cml_loc_device(device)));
}

void um_add_advised(float *C, const float *A, const float *B, int rows, int cols, int device,
                    cudaStream_t stream)
{
    const size_t bytes = (size_t)rows * cols * sizeof(float);
    CML_CHECK(cml_mem_prefetch(A, bytes, cml_loc_device(device), stream));
    CML_CHECK(cml_mem_prefetch(B, bytes, cml_loc_device(device), stream));
    launch_matrix_add(C, A, B, rows, cols, stream);
}
