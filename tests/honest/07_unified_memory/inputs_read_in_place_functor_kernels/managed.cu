/* Lab 07, unified memory. 7.1 ports the explicit-copy sum to managed memory (faults move the
 * pages), 7.2 prefetches, 7.3 advises. In 7.3 all three matrices stay in host memory and the GPU
 * maps them: A and B are read over the link once, while C is written over it, both directions of
 * the link at once (docs/07 section 4, "Advice only, in place"), with no prefetch at all. */
#include "managed.h"

// The element operation, shared by both kernels.
struct Add {
    __device__ float operator()(float a, float b) const { return a + b; }
};

// matrixAddManaged (7.1, 7.2): one element per thread of a 32 x 8 block, both indices guarded;
// threadIdx.x runs along a row, so a warp reads 128 contiguous bytes.
template <class Op>
__global__ void matrixAddManaged(float *C, const float *A, const float *B, int rows, int cols,
                                 Op op)
{
    const unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= (unsigned)rows || col >= (unsigned)cols)
        return;
    const size_t at = (size_t)row * (unsigned)cols + col;
    C[at] = op(A[at], B[at]);
}

// matrixAddInPlace (7.3): the matrix as one flat array of n floats (rows are contiguous),
// float4 over a grid-stride loop to keep many requests in flight on the link, then the last
// n % 4 floats. cudaMallocManaged memory is 256-byte aligned, so the float4 view is aligned.
template <class Op>
__global__ void matrixAddInPlace(float *C, const float *A, const float *B, size_t n, Op op)
{
    const size_t first = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t step = (size_t)gridDim.x * blockDim.x, n4 = n >> 2;
    for (size_t v = first; v < n4; v += step) {
        const float4 a = reinterpret_cast<const float4 *>(A)[v];
        const float4 b = reinterpret_cast<const float4 *>(B)[v];
        reinterpret_cast<float4 *>(C)[v] =
            make_float4(op(a.x, b.x), op(a.y, b.y), op(a.z, b.z), op(a.w, b.w));
    }
    if (first < (n & 3))
        C[(n4 << 2) + first] = op(A[(n4 << 2) + first], B[(n4 << 2) + first]);
}

static void add_2d(float *C, const float *A, const float *B, int rows, int cols, cudaStream_t s)
{
    const dim3 block(32, 8);
    const dim3 grid((unsigned)(cols + 31) / 32, (unsigned)(rows + 7) / 8);
    matrixAddManaged<<<grid, block, 0, s>>>(C, A, B, rows, cols, Add{});
    CML_CHECK_LAUNCH();
}

// ---- 7.1 --------------------------------------------------------------------------------

float *um_alloc(size_t n)
{
    void *p = nullptr;
    return cudaMallocManaged(&p, n * sizeof(float)) == cudaSuccess ? (float *)p : nullptr;
}

void um_add(float *C, const float *A, const float *B, int rows, int cols, cudaStream_t stream)
{
    add_2d(C, A, B, rows, cols, stream);
}

// ---- 7.2 --------------------------------------------------------------------------------

void um_add_prefetched(float *C, const float *A, const float *B, int rows, int cols, int device,
                       cudaStream_t stream)
{
    const size_t bytes = sizeof(float) * (size_t)rows * (size_t)cols;
    const cudaMemLocation gpu = cml_loc_device(device);
    auto prefetch = [&](const float *p, cudaMemLocation where) {
        CML_CHECK(cml_mem_prefetch(p, bytes, where, stream));
    };
    prefetch(A, gpu);
    prefetch(B, gpu);
    prefetch(C, gpu); // C's pages were last touched by the host: bring them before the stores
    add_2d(C, A, B, rows, cols, stream);
    prefetch(C, cml_loc_host());
}

// ---- 7.3 --------------------------------------------------------------------------------

void um_advise(float *C, const float *A, const float *B, size_t n, int device)
{
    const size_t bytes = n * sizeof(float);
    // C as the sheet asks; A and B the same way, so the kernel reads them where the host wrote
    // them (the sheet: "your 7.3 may also read A and B in place")
    for (const float *p : {(const float *)C, A, B}) {
        CML_CHECK(cml_mem_advise(p, bytes, cudaMemAdviseSetPreferredLocation, cml_loc_host()));
        CML_CHECK(cml_mem_advise(p, bytes, cudaMemAdviseSetAccessedBy, cml_loc_device(device)));
    }
}

void um_add_advised(float *C, const float *A, const float *B, int rows, int cols, int device,
                    cudaStream_t stream)
{
    (void)device; // nothing to prefetch: every matrix is mapped where it lies
    const size_t n = (size_t)rows * (size_t)cols;
    static const int blocks = cml_sm_count() * 8;
    const size_t want = (n / 4 + 255) / 256 + 1;
    matrixAddInPlace<<<(unsigned)(want < (size_t)blocks ? want : (size_t)blocks), 256, 0,
                       stream>>>(C, A, B, n, Add{});
    CML_CHECK_LAUNCH();
}
