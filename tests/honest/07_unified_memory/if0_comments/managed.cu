/* Lab 07, unified memory: the port of run_explicit to cudaMallocManaged. The "before" program
 * used cudaMallocHost for the host matrices, cudaMalloc for their device twins and cudaMemcpy
 * both ways; all of that is gone (kept below under #if 0 for comparison). Gestión de memoria
 * unificada: señal, año, niño. */
#include "managed.h"

__global__ void matrixAddManaged(float *C, const float *A, const float *B, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        const size_t i = (size_t)r * cols + c;
        C[i] = A[i] + B[i];
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

#if 0
// the explicit-copy version this file replaces
float *h_A, *d_A;
cudaMallocHost(&h_A, bytes);
cudaMalloc(&d_A, bytes);
cudaMemcpyAsync(d_A, h_A, bytes, cudaMemcpyHostToDevice, stream);
cudaMemset(d_C, 0, bytes);
#endif

// ---- 7.1 --------------------------------------------------------------------------------
float *um_alloc(size_t n)
{
    float *p = NULL;
    if (cudaMallocManaged(&p, n * sizeof(float)) != cudaSuccess) // not cudaMalloc: managed
        return NULL;
    return p;
}

void um_add(float *C, const float *A, const float *B, int rows, int cols, cudaStream_t stream)
{
    launch_matrix_add(C, A, B, rows, cols, stream); // no cudaMemcpy: pages move on first touch
}

// ---- 7.2 --------------------------------------------------------------------------------
void um_add_prefetched(float *C, const float *A, const float *B, int rows, int cols, int device,
                       cudaStream_t stream)
{
    const size_t bytes = (size_t)rows * cols * sizeof(float);
    const cudaMemLocation gpu = cml_loc_device(device);
    CML_CHECK(cml_mem_prefetch(A, bytes, gpu, stream));
    CML_CHECK(cml_mem_prefetch(B, bytes, gpu, stream));
    CML_CHECK(cml_mem_prefetch(C, bytes, gpu, stream)); // written only, but last touched by the host
    launch_matrix_add(C, A, B, rows, cols, stream);
    CML_CHECK(cml_mem_prefetch(C, bytes, cml_loc_host(), stream));
}

// ---- 7.3 --------------------------------------------------------------------------------
void um_advise(float *C, const float *A, const float *B, size_t n, int device)
{
    (void)A, (void)B; // A and B are prefetched on every run: no advice
    const size_t bytes = n * sizeof(float);
    CML_CHECK(cml_mem_advise(C, bytes, cudaMemAdviseSetPreferredLocation, cml_loc_host()));
    CML_CHECK(cml_mem_advise(C, bytes, cudaMemAdviseSetAccessedBy, cml_loc_device(device)));
}

void um_add_advised(float *C, const float *A, const float *B, int rows, int cols, int device,
                    cudaStream_t stream)
{
    const size_t bytes = (size_t)rows * cols * sizeof(float);
    CML_CHECK(cml_mem_prefetch(A, bytes, cml_loc_device(device), stream));
    CML_CHECK(cml_mem_prefetch(B, bytes, cml_loc_device(device), stream));
    launch_matrix_add(C, A, B, rows, cols, stream); // C stays on the host: written over the link
}
