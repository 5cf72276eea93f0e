/* Lab 07, unified memory: one matrix sum, three ways to get its data to the GPU and back.
 * My version writes each recipe as a short plan of "moves" (a range and where it should go)
 * that one helper enqueues on the stream, and asks the device once per call whether it can
 * migrate managed pages at all (cudaDevAttrConcurrentManagedAccess): where it cannot, a
 * prefetch is refused, and the faults alone still give the right answer. On the course's
 * GPUs the attribute is 1 and every prefetch is made. */
#include "managed.h"

#include <initializer_list>

// matrixAddManaged: C = A + B, one element per thread of a 32 x 8 block, threadIdx.x along a
// row (a warp touches 32 neighbouring floats of each matrix); both indices guarded, so every
// element of C is stored by exactly one thread.
__global__ void matrixAddManaged(float *C, const float *A, const float *B, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (c >= cols || r >= rows)
        return;
    const size_t at = (size_t)r * (size_t)cols + (size_t)c;
    C[at] = __fadd_rn(A[at], B[at]); // a plain IEEE add (no contraction could apply anyway)
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

struct Move {
    const void *range;
    cudaMemLocation to;
};

// true when the GPU can take managed pages while the host may touch them (prefetch works)
bool gpu_migrates(int device)
{
    int yes = 0;
    CML_CHECK(cudaDeviceGetAttribute(&yes, cudaDevAttrConcurrentManagedAccess, device));
    return yes != 0;
}

// enqueue each move, in order, on `stream` (each range `bytes` long)
void enqueue(std::initializer_list<Move> plan, size_t bytes, cudaStream_t stream)
{
    for (const Move &m : plan)
        CML_CHECK(cml_mem_prefetch(m.range, bytes, m.to, stream));
}

size_t matrix_bytes(int rows, int cols) { return (size_t)rows * (size_t)cols * sizeof(float); }

} // namespace

// ---- 7.1 --------------------------------------------------------------------------------
float *um_alloc(size_t n)
{
    float *p = nullptr;
    if (cudaMallocManaged((void **)&p, n * sizeof(float)) != cudaSuccess)
        return nullptr; // "NULL when it cannot be had"
    return p;
}

void um_add(float *C, const float *A, const float *B, int rows, int cols, cudaStream_t stream)
{
    // no copies and no moves: the kernel's first touches fault the pages over
    launch_matrix_add(C, A, B, rows, cols, stream);
}

// ---- 7.2 --------------------------------------------------------------------------------
// All three ranges to the GPU before the kernel (C too: it is written, and its pages were last
// touched by the host), C back to the host after it. One stream orders it all.
void um_add_prefetched(float *C, const float *A, const float *B, int rows, int cols, int device,
                       cudaStream_t stream)
{
    const size_t bytes = matrix_bytes(rows, cols);
    const bool migrate = gpu_migrates(device);
    const cudaMemLocation gpu = cml_loc_device(device), host = cml_loc_host();
    if (migrate)
        enqueue({{A, gpu}, {B, gpu}, {C, gpu}}, bytes, stream);
    launch_matrix_add(C, A, B, rows, cols, stream);
    if (migrate)
        enqueue({{C, host}}, bytes, stream);
}

// ---- 7.3 --------------------------------------------------------------------------------
// C lives on the host (the host reads it after every run) and is mapped for the GPU, which
// writes it in place over the link: no page of C ever moves. A and B still go to the GPU.
void um_advise(float *C, const float *A, const float *B, size_t n, int device)
{
    (void)A, (void)B; // the prefetch recipe needs no advice for the inputs
    const size_t bytes = n * sizeof(float);
    CML_CHECK(cml_mem_advise(C, bytes, cudaMemAdviseSetPreferredLocation, cml_loc_host()));
    CML_CHECK(cml_mem_advise(C, bytes, cudaMemAdviseSetAccessedBy, cml_loc_device(device)));
}

void um_add_advised(float *C, const float *A, const float *B, int rows, int cols, int device,
                    cudaStream_t stream)
{
    const size_t bytes = matrix_bytes(rows, cols);
    const cudaMemLocation gpu = cml_loc_device(device);
    if (gpu_migrates(device))
        enqueue({{A, gpu}, {B, gpu}}, bytes, stream); // never C: the advice keeps it home
    launch_matrix_add(C, A, B, rows, cols, stream);
}
