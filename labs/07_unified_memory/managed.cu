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
    CML_TODO("7.1", "allocate managed memory in um_alloc, then write matrixAddManaged and um_add");
    (void)n; // stub: delete
    return NULL;
}

void um_add(float *C, const float *A, const float *B, int rows, int cols, cudaStream_t stream)
{
    // TODO(7.1): launch matrixAddManaged on the managed pointers (through launch_matrix_add).
    CML_TODO("7.1", "write matrixAddManaged and launch it from um_add");
    (void)C, (void)A, (void)B, (void)rows, (void)cols, (void)stream; // stub: delete
}

// ---- 7.2 --------------------------------------------------------------------------------
// A prefetch moves a whole range in large transfers before anyone asks, instead of one fault
// at a time while the kernel waits.

void um_add_prefetched(float *C, const float *A, const float *B, int rows, int cols, int device,
                       cudaStream_t stream)
{
    // TODO(7.2): prefetch A, B and C to the GPU (cml_mem_prefetch with cml_loc_device(device)),
    //   launch the sum, then prefetch C to the host (cml_loc_host()), all on `stream`.
    //   HINT: C was last touched by the host. What happens to its pages when the kernel writes
    //   them, if nobody moved them first?
    CML_TODO("7.2", "prefetch A, B and C to the GPU, launch, prefetch C to the host");
    (void)C, (void)A, (void)B, (void)rows, (void)cols, (void)device, (void)stream; // stub
}

// ---- 7.3 --------------------------------------------------------------------------------
// Advice says how a range will be used, so the driver can stop guessing: where it should live,
// and who will access it from afar. A page whose preferred location is the host stays there, and
// a GPU that was told it will access it maps it and reads or writes it over the link.

void um_advise(float *C, const float *A, const float *B, size_t n, int device)
{
    // TODO(7.3): advise C so that it lives on the host (the host reads it) and the GPU writes it
    //   there, over the link, without moving a page. Use cml_mem_advise with
    //   cudaMemAdviseSetPreferredLocation and cudaMemAdviseSetAccessedBy.
    //   HINT: A and B need no advice for the prefetch recipe; what would they need to be read in
    //   place, like zero-copy memory?
    CML_TODO("7.3", "advise C in um_advise, then write um_add_advised");
    (void)C, (void)A, (void)B, (void)n, (void)device; // stub: delete
}

void um_add_advised(float *C, const float *A, const float *B, int rows, int cols, int device,
                    cudaStream_t stream)
{
    // TODO(7.3): after um_advise: prefetch what the GPU reads, launch, and leave C where it is.
    //   HINT: which of 7.2's prefetches would now undo the advice, and which costs nothing?
    CML_TODO("7.3", "um_add_advised: prefetch A and B, launch; C stays where the advice put it");
    (void)C, (void)A, (void)B, (void)rows, (void)cols, (void)device, (void)stream; // stub
}
