/* Lab 07, unified memory, with CUDA 13's batched prefetch: A, B and C move to the GPU in one
 * call (one cudaMemLocation for the whole batch), C comes back with a plain prefetch. */
#include "managed.h"

#include <array>
#include <cstddef>

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

// N ranges of `bytes` each, all to one location, in one call.
template <size_t N>
static cudaError_t prefetch_batch(std::array<const void *, N> ptrs, size_t bytes,
                                  cudaMemLocation to, cudaStream_t stream)
{
    std::array<void *, N> dptrs{};
    std::array<size_t, N> sizes{};
    for (size_t i = 0; i < N; ++i) {
        dptrs[i] = const_cast<void *>(ptrs[i]);
        sizes[i] = bytes;
    }
    size_t first_of_location = 0; // one location, from operation 0 on
    return cudaMemPrefetchBatchAsync(dptrs.data(), sizes.data(), N, &to, &first_of_location, 1,
                                     0, stream);
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
    const size_t bytes = (size_t)rows * cols * sizeof(float);
    CML_CHECK(prefetch_batch<3>({A, B, C}, bytes, cml_loc_device(device), stream));
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
    CML_CHECK(prefetch_batch<2>({A, B}, bytes, cml_loc_device(device), stream));
    launch_matrix_add(C, A, B, rows, cols, stream);
}
