/* Lab 06, zero-copy, part 1: the GPU reads and writes pinned host memory where it lies.
 * Edit only this file and copies.cu; the harness allocates nothing for you in 6.1, checks the
 * results, times everything end to end and checks that this path makes no copies. */
#include "zerocopy.h"

#include <algorithm>

// ---- 6.1 --------------------------------------------------------------------------------
// Every byte a kernel touches here crosses the host link (PCIe on an H100 or H200), so the
// kernel's job is to keep enough requests in flight to fill the link, and to touch each byte once.

// saxpyMapped: out = a*x + y on mapped host memory; float4 puts 16 bytes in each lane's request
// and a grid-stride loop keeps every SM busy. out may be y (the later passes).
__global__ void saxpyMapped(float *out, const float *x, const float *y, size_t n, float a)
{
    // TODO(6.1): out[i] = a * x[i] + y[i] for every i < n, with a grid-stride loop.
    //   HINT: cudaHostAlloc memory is page-aligned: could each lane move 16 bytes (float4)?
}

float *zc_alloc_mapped(size_t n)
{
    // TODO(6.1): allocate n floats of pinned host memory that the GPU can map, and return it.
    //   HINT: which flag of cudaHostAlloc asks for the mapping?
    CML_TODO("6.1", "allocate mapped pinned memory in zc_alloc_mapped, then write zc_saxpy");
    (void)n; // stub: delete
    return NULL;
}

void zc_saxpy(float *h_out, const float *h_x, const float *h_y, size_t n, int passes,
              cudaStream_t stream)
{
    // TODO(6.1): get the device's view of each host buffer (cudaHostGetDevicePointer), then
    //   launch saxpyMapped once per pass on `stream` (CML_CHECK_LAUNCH() after each launch).
    //   HINT: from the second pass on, which buffer is y? No cudaMalloc, no cudaMemcpy here.
    CML_TODO("6.1", "write saxpyMapped and launch it from zc_saxpy on mapped host memory");
    (void)h_out, (void)h_x, (void)h_y, (void)n, (void)passes, (void)stream; // stub: delete
}
