/* Lab 07, unified memory. Prefetches and advice are written as small tables of (range, where)
 * entries applied by one lambda each; the sum is the given 32 x 8 launch. */
#include "managed.h"

#include <initializer_list>

// one element per thread of a 32 x 8 block, both indices guarded, 64-bit linear index
__global__ void matrixAddManaged(float *C, const float *A, const float *B, int rows, int cols)
{
    const int c = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int r = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (r >= rows || c >= cols)
        return;
    const size_t at = (size_t)r * (size_t)cols + (size_t)c;
    C[at] = A[at] + B[at];
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

struct Range {
    const void *ptr;
    size_t bytes;
};

inline size_t matrix_bytes(int rows, int cols) { return (size_t)rows * (size_t)cols * sizeof(float); }

// prefetch every range of the list to `where`, in order, on `stream`
inline void prefetch_all(std::initializer_list<Range> ranges, cudaMemLocation where,
                         cudaStream_t stream)
{
    for (const Range &r : ranges)
        CML_CHECK(cml_mem_prefetch(r.ptr, r.bytes, where, stream));
}

} // namespace

// ---- 7.1 --------------------------------------------------------------------------------
float *um_alloc(size_t n)
{
    float *p = nullptr;
    if (cudaMallocManaged(&p, (n ? n : 1) * sizeof(float), cudaMemAttachGlobal) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

void um_add(float *C, const float *A, const float *B, int rows, int cols, cudaStream_t stream)
{
    // no prefetch, no copy: the kernel's first touch migrates the pages
    launch_matrix_add(C, A, B, rows, cols, stream);
}

// ---- 7.2 --------------------------------------------------------------------------------
void um_add_prefetched(float *C, const float *A, const float *B, int rows, int cols, int device,
                       cudaStream_t stream)
{
    const size_t bytes = matrix_bytes(rows, cols);
    prefetch_all({{A, bytes}, {B, bytes}, {C, bytes}}, cml_loc_device(device), stream);
    launch_matrix_add(C, A, B, rows, cols, stream);
    prefetch_all({{C, bytes}}, cml_loc_host(), stream);
}

// ---- 7.3 --------------------------------------------------------------------------------
void um_advise(float *C, const float *A, const float *B, size_t n, int device)
{
    (void)A, (void)B; // read through prefetches: no advice needed
    struct Advice {
        cudaMemoryAdvise what;
        cudaMemLocation where;
    };
    const Advice for_c[] = {
        {cudaMemAdviseSetPreferredLocation, cml_loc_host()}, // C lives on the host...
        {cudaMemAdviseSetAccessedBy, cml_loc_device(device)}, // ...and the GPU maps it
    };
    const size_t bytes = n * sizeof(float);
    for (const Advice &a : for_c)
        CML_CHECK(cml_mem_advise(C, bytes, a.what, a.where));
}

void um_add_advised(float *C, const float *A, const float *B, int rows, int cols, int device,
                    cudaStream_t stream)
{
    const size_t bytes = matrix_bytes(rows, cols);
    prefetch_all({{A, bytes}, {B, bytes}}, cml_loc_device(device), stream);
    // C is written in place in host memory over the link: no prefetch either way
    launch_matrix_add(C, A, B, rows, cols, stream);
}
