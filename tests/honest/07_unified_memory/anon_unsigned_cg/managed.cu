/* Lab 07, unified memory: helpers in an anonymous namespace, unsigned indices from cooperative
 * groups, and a hand-written cudaGetLastError() after the launch. 统一内存 🧠 */
#include "managed.h"

#include <cooperative_groups.h>

#include <algorithm>

namespace cg = cooperative_groups;

__global__ void matrixAddManaged(float *C, const float *A, const float *B, int rows, int cols)
{
    const dim3 t = cg::this_thread_block().thread_index();
    const dim3 b = cg::this_thread_block().group_index();
    const unsigned c = b.x * 32u + t.x, r = b.y * 8u + t.y;
    if (r < (unsigned)rows && c < (unsigned)cols) {
        const size_t i = (size_t)r * (unsigned)cols + c;
        C[i] = A[i] + B[i];
    }
}

void launch_matrix_add(float *C, const float *A, const float *B, int rows, int cols,
                       cudaStream_t stream)
{
    const dim3 block(32, 8), grid((cols + 31) / 32, (rows + 7) / 8);
    matrixAddManaged<<<grid, block, 0, stream>>>(C, A, B, rows, cols);
    const cudaError_t launched = cudaGetLastError();
    if (launched != cudaSuccess)
        CML_CHECK(launched);
    CML_CHECK_LAUNCH();
}

namespace {

// to: prefetch every pointer of `ptrs` to `where`, each `bytes` long.
template <size_t N>
void to(const void *const (&ptrs)[N], size_t bytes, cudaMemLocation where, cudaStream_t s)
{
    for (const void *p : ptrs)
        CML_CHECK(cml_mem_prefetch(p, bytes, where, s));
}

size_t matrix_bytes(int rows, int cols) { return (size_t)rows * (size_t)cols * sizeof(float); }

} // namespace

float *um_alloc(size_t n)
{
    float *p = nullptr;
    return cudaMallocManaged(&p, std::max<size_t>(n, 1) * sizeof(float)) == cudaSuccess ? p
                                                                                         : nullptr;
}

void um_add(float *C, const float *A, const float *B, int rows, int cols, cudaStream_t stream)
{
    launch_matrix_add(C, A, B, rows, cols, stream);
}

void um_add_prefetched(float *C, const float *A, const float *B, int rows, int cols, int device,
                       cudaStream_t stream)
{
    const size_t bytes = matrix_bytes(rows, cols);
    const void *const inputs_and_output[] = {A, B, C};
    to(inputs_and_output, bytes, cml_loc_device(device), stream);
    launch_matrix_add(C, A, B, rows, cols, stream);
    const void *const result[] = {C};
    to(result, bytes, cml_loc_host(), stream);
}

void um_advise(float *C, const float *A, const float *B, size_t n, int device)
{
    (void)A, (void)B;
    for (const auto &[advice, where] :
         {std::pair{cudaMemAdviseSetPreferredLocation, cml_loc_host()},
          std::pair{cudaMemAdviseSetAccessedBy, cml_loc_device(device)}})
        CML_CHECK(cml_mem_advise(C, n * sizeof(float), advice, where));
}

void um_add_advised(float *C, const float *A, const float *B, int rows, int cols, int device,
                    cudaStream_t stream)
{
    const void *const inputs[] = {A, B};
    to(inputs, matrix_bytes(rows, cols), cml_loc_device(device), stream);
    launch_matrix_add(C, A, B, rows, cols, stream);
}
