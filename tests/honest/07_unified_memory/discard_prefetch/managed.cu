/* Lab 07, unified memory, with CUDA 13's discard: C's old contents are never read (the kernel
 * overwrites every element), so 7.2 moves it to the GPU with cudaMemDiscardAndPrefetchBatchAsync
 * (no copy of stale pages), A and B with a plain batch prefetch (docs/07, question 3.1). */
#include "managed.h"

#include <cstddef>

__global__ void matrixAddManaged(float *C, const float *A, const float *B, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        C[(size_t)r * cols + c] = A[(size_t)r * cols + c] + B[(size_t)r * cols + c];
}

static void launch_matrix_add(float *C, const float *A, const float *B, int rows, int cols,
                              cudaStream_t stream)
{
    const dim3 block(32, 8), grid((cols + 31) / 32, (rows + 7) / 8);
    matrixAddManaged<<<grid, block, 0, stream>>>(C, A, B, rows, cols);
    CML_CHECK_LAUNCH();
}

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
    size_t bytes = (size_t)rows * cols * sizeof(float), first = 0;
    cudaMemLocation gpu = cml_loc_device(device);
    void *inputs[2] = { const_cast<float *>(A), const_cast<float *>(B) };
    size_t sizes[2] = { bytes, bytes };
    CML_CHECK(cudaMemPrefetchBatchAsync(inputs, sizes, 2, &gpu, &first, 1, 0, stream));
    void *out[1] = { C };
    CML_CHECK(cudaMemDiscardAndPrefetchBatchAsync(out, &bytes, 1, &gpu, &first, 1, 0, stream));
    launch_matrix_add(C, A, B, rows, cols, stream);
    CML_CHECK(cml_mem_prefetch(C, bytes, cml_loc_host(), stream));
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
