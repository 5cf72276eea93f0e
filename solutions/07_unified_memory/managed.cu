/* Lab 07, unified memory: one matrix sum, three ways to get its data to the GPU and back.
 * Edit only this file; the harness allocates (except in 7.1), writes A and B on the host,
 * checks C on the host and times everything end to end. The "before" program, with explicit
 * copies, is run_explicit in harness.cu. */
#include "managed.h"

// matrixAddManaged: C = A + B, one element per thread of a 32 x 8 block; the row-major index
// keeps a warp's accesses contiguous. A managed pointer works here like any device pointer.
__global__ void matrixAddManaged(float *C, const float *A, const float *B, int rows, int cols)
{
    // TODO(7.1): C[r*cols + c] = A[...] + B[...] for the element of this thread, if it exists.
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

// ---- 7.1 --------------------------------------------------------------------------------
// The port: one allocation that both processors can address replaces each host + device pair,
// and the copies disappear from the code (not from the machine: pages move on first touch).

float *um_alloc(size_t n)
{
    // TODO(7.1): allocate n floats of managed memory and return them.
    void *p = NULL;
    CML_CHECK(cudaMallocManaged(&p, n * sizeof(float)));
    return (float *)p;
}

void um_add(float *C, const float *A, const float *B, int rows, int cols, cudaStream_t stream)
{
    // TODO(7.1): launch matrixAddManaged on the managed pointers (through launch_matrix_add).
    launch_matrix_add(C, A, B, rows, cols, stream);
}

// ---- 7.2 --------------------------------------------------------------------------------
// A prefetch moves a whole range in large transfers before anyone asks, instead of one fault
// at a time while the kernel waits.

void um_add_prefetched(float *C, const float *A, const float *B, int rows, int cols, int device,
                       cudaStream_t stream)
{
    // TODO(7.2): prefetch A and B to the GPU (cml_mem_prefetch with cml_loc_device(device)),
    //   launch the sum, then prefetch C to the host (cml_loc_host()), all on `stream`.
    //   HINT: where is C when the host reads it, and who pays for moving it there?
    const size_t bytes = (size_t)rows * cols * sizeof(float);
    CML_CHECK(cml_mem_prefetch(A, bytes, cml_loc_device(device), stream));
    CML_CHECK(cml_mem_prefetch(B, bytes, cml_loc_device(device), stream));
    launch_matrix_add(C, A, B, rows, cols, stream);
    CML_CHECK(cml_mem_prefetch(C, bytes, cml_loc_host(), stream));
}

// ---- 7.3 --------------------------------------------------------------------------------
// Advice says how a range will be used, so the driver can stop guessing: which side only
// reads it, where it should live, who will access it from afar.

void um_advise(float *C, const float *A, const float *B, size_t n, int device)
{
    // TODO(7.3): advise A and B (the GPU only reads them) and C (the host reads the result;
    //   the GPU only writes it, once). Use cml_mem_advise with cudaMemAdviseSet... values.
    //   HINT: must C's old contents travel to the GPU just to be overwritten there?
    const size_t bytes = n * sizeof(float);
    CML_CHECK(cml_mem_advise(A, bytes, cudaMemAdviseSetReadMostly, cml_loc_device(device)));
    CML_CHECK(cml_mem_advise(B, bytes, cudaMemAdviseSetReadMostly, cml_loc_device(device)));
    CML_CHECK(cml_mem_advise(C, bytes, cudaMemAdviseSetPreferredLocation, cml_loc_host()));
    CML_CHECK(cml_mem_advise(C, bytes, cudaMemAdviseSetAccessedBy, cml_loc_device(device)));
}
