/* Lab 07, unified memory: one matrix sum, three ways to get its data to the GPU and back.
 * Edit only this file; the harness allocates (except in 7.1), writes A and B on the host,
 * checks C on the host and times everything end to end. The "before" program, with explicit
 * copies, is run_explicit in harness.cu. */
#include "managed.h"

#include <cooperative_groups.h>
#include <initializer_list>

namespace cg = cooperative_groups;

// matrixAddManaged: C = A + B, one element per thread of a 32 x 8 block (x along a row, so a
// warp's 32 lanes touch 128 contiguous bytes); both indices guarded.
__global__ void matrixAddManaged(float *C, const float *A, const float *B, int rows, int cols)
{
    const cg::thread_block block = cg::this_thread_block();
    const dim3 tile = block.group_index(), lane = block.thread_index(), shape = block.group_dim();
    const int col = (int)(tile.x * shape.x + lane.x);
    const int row = (int)(tile.y * shape.y + lane.y);
    if (row >= rows || col >= cols)
        return;
    const size_t at = (size_t)row * (size_t)cols + (size_t)col;
    C[at] = A[at] + B[at];
}

// The launch every task shares, through the extensible launch API: 32 x 8 threads per block and
// enough blocks to cover rows x cols, on `stream`.
void launch_matrix_add(float *C, const float *A, const float *B, int rows, int cols,
                       cudaStream_t stream)
{
    cudaLaunchConfig_t cfg = {};
    cfg.blockDim = dim3(32, 8);
    cfg.gridDim = dim3((unsigned)(cols + 31) / 32, (unsigned)(rows + 7) / 8);
    cfg.stream = stream;
    CML_CHECK(cudaLaunchKernelEx(&cfg, matrixAddManaged, C, A, B, rows, cols));
    CML_CHECK_LAUNCH();
}

// ---- 7.1 --------------------------------------------------------------------------------
// The port: one pointer both processors use; the copies leave the code and the pages move
// when they are first touched.

float *um_alloc(size_t n)
{
    float *p = nullptr;
    CML_CHECK(cudaMallocManaged(&p, n * sizeof(float), cudaMemAttachGlobal));
    return p;
}

void um_add(float *C, const float *A, const float *B, int rows, int cols, cudaStream_t stream)
{
    launch_matrix_add(C, A, B, rows, cols, stream);
}

// ---- 7.2 --------------------------------------------------------------------------------
// Prefetches move whole ranges in large transfers, in stream order with the kernel.

namespace {

size_t matrix_bytes(int rows, int cols) { return (size_t)rows * (size_t)cols * sizeof(float); }

// Each range of `ranges` to `where`, on `stream`, in the order given.
void prefetch_all(std::initializer_list<const float *> ranges, size_t bytes, cudaMemLocation where,
                  cudaStream_t stream)
{
    for (const float *p : ranges)
        CML_CHECK(cml_mem_prefetch(p, bytes, where, stream));
}

} // namespace

void um_add_prefetched(float *C, const float *A, const float *B, int rows, int cols, int device,
                       cudaStream_t stream)
{
    const size_t bytes = matrix_bytes(rows, cols);
    const cudaMemLocation gpu = {cudaMemLocationTypeDevice, device};
    const cudaMemLocation host = {cudaMemLocationTypeHost, 0};
    prefetch_all({A, B, C}, bytes, gpu, stream); // C too: its pages were last on the host
    launch_matrix_add(C, A, B, rows, cols, stream);
    prefetch_all({C}, bytes, host, stream); // the host reads C next
}

// ---- 7.3 --------------------------------------------------------------------------------
// C lives on the host and the GPU maps it: the kernel's stores cross the link once, in place,
// and no page of C ever moves. A and B are still prefetched.

void um_advise(float *C, const float *A, const float *B, size_t n, int device)
{
    (void)A, (void)B;
    const struct {
        cudaMemoryAdvise advice;
        cudaMemLocation where;
    } plan[] = {
        {cudaMemAdviseSetPreferredLocation, {cudaMemLocationTypeHost, 0}},
        {cudaMemAdviseSetAccessedBy, {cudaMemLocationTypeDevice, device}},
    };
    for (const auto &step : plan)
        CML_CHECK(cml_mem_advise(C, n * sizeof(float), step.advice, step.where));
}

void um_add_advised(float *C, const float *A, const float *B, int rows, int cols, int device,
                    cudaStream_t stream)
{
    const cudaMemLocation gpu = {cudaMemLocationTypeDevice, device};
    prefetch_all({A, B}, matrix_bytes(rows, cols), gpu, stream);
    launch_matrix_add(C, A, B, rows, cols, stream);
}
