/* Lab 07, unified memory: constexpr block shape, a function-local static table of where each
 * matrix goes (a struct), a helper that counts bytes, asserts on the host. */
#include "managed.h"

#include <cassert>

#define TILE_X 32
#define TILE_Y 8
#define DIV_UP(a, b) (((a) + (b) - 1) / (b))

constexpr int kTileArea = TILE_X * TILE_Y;
static_assert(kTileArea == 256, "32 x 8 blocks");

__global__ void __launch_bounds__(kTileArea)
    matrixAddManaged(float *C, const float *A, const float *B, int rows, int cols)
{
    const int col = blockIdx.x * TILE_X + threadIdx.x;
    const int row = blockIdx.y * TILE_Y + threadIdx.y;
    if (row < rows && col < cols) {
        const size_t at = (size_t)row * cols + col;
        C[at] = A[at] + B[at];
    }
}

void launch_matrix_add(float *C, const float *A, const float *B, int rows, int cols,
                       cudaStream_t stream)
{
    const dim3 block(TILE_X, TILE_Y), grid(DIV_UP(cols, TILE_X), DIV_UP(rows, TILE_Y));
    matrixAddManaged<<<grid, block, 0, stream>>>(C, A, B, rows, cols);
    CML_CHECK_LAUNCH();
}

// bytes_of: one matrix's size.
size_t bytes_of(int rows, int cols)
{
    assert(rows > 0 && cols > 0);
    return sizeof(float) * (size_t)rows * (size_t)cols;
}

float *um_alloc(size_t n)
{
    float *p = nullptr;
    const cudaError_t err = cudaMallocManaged(&p, n * sizeof(float));
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return nullptr;
    }
    return p;
}

void um_add(float *C, const float *A, const float *B, int rows, int cols, cudaStream_t stream)
{
    launch_matrix_add(C, A, B, rows, cols, stream);
}

// The plan of 7.2: which matrices move, before the kernel and after it.
struct PrefetchPlan {
    bool a_to_gpu, b_to_gpu, c_to_gpu, c_to_host;
};

void um_add_prefetched(float *C, const float *A, const float *B, int rows, int cols, int device,
                       cudaStream_t stream)
{
    static const PrefetchPlan plan{true, true, true, true};
    const size_t bytes = bytes_of(rows, cols);
    const cudaMemLocation gpu{cudaMemLocationTypeDevice, device};
    if (plan.a_to_gpu)
        CML_CHECK(cml_mem_prefetch(A, bytes, gpu, stream));
    if (plan.b_to_gpu)
        CML_CHECK(cml_mem_prefetch(B, bytes, gpu, stream));
    if (plan.c_to_gpu)
        CML_CHECK(cml_mem_prefetch(C, bytes, gpu, stream));
    launch_matrix_add(C, A, B, rows, cols, stream);
    if (plan.c_to_host)
        CML_CHECK(cml_mem_prefetch(C, bytes, cml_loc_host(), stream));
}

void um_advise(float *C, const float *A, const float *B, size_t n, int device)
{
    (void)A;
    (void)B;
    assert(C != nullptr && n > 0);
    const cudaMemLocation host = cml_loc_host();
    const cudaMemLocation gpu{cudaMemLocationTypeDevice, device};
    CML_CHECK(cml_mem_advise(C, n * sizeof(float), cudaMemAdviseSetPreferredLocation, host));
    CML_CHECK(cml_mem_advise(C, n * sizeof(float), cudaMemAdviseSetAccessedBy, gpu));
}

void um_add_advised(float *C, const float *A, const float *B, int rows, int cols, int device,
                    cudaStream_t stream)
{
    static const PrefetchPlan plan{true, true, false, false}; // C: where the advice put it
    const size_t bytes = bytes_of(rows, cols);
    const cudaMemLocation gpu = cml_loc_device(device);
    if (plan.a_to_gpu)
        CML_CHECK(cml_mem_prefetch(A, bytes, gpu, stream));
    if (plan.b_to_gpu)
        CML_CHECK(cml_mem_prefetch(B, bytes, gpu, stream));
    launch_matrix_add(C, A, B, rows, cols, stream);
}
