/* Lab 03, shared-memory bank conflicts: 3.2 staged by asynchronous copies (cp.async, through
 * <cuda_pipeline.h>'s __pipeline_memcpy_async), which write shared memory without a st.shared
 * (issue 44: such staging lost the technique point); the rest as gcd_dynamic_shared. */
#include "bank_conflicts.h"

#include <cuda_pipeline.h>
#include <numeric>

// ---- 3.1 (host code) ---------------------------------------------------------------------
// A phase holds 128 / elem_bytes lanes; lane t starts at word t*s*(b/4), and the lanes that
// share a bank in one phase are those whose start words differ by a multiple of 32: the
// degree is gcd(s, lanes per phase), and stride 0 is a broadcast (1).
constexpr int lanes_per_phase(int elem_bytes) { return 128 / elem_bytes; }
static_assert(lanes_per_phase(4) == 32 && lanes_per_phase(16) == 8, "phases of 128 bytes");

int conflict_degree(int stride_elems, int elem_bytes)
{
    if (stride_elems == 0)
        return 1;
    return std::gcd(stride_elems, lanes_per_phase(elem_bytes));
}

// ---- 3.2 ---------------------------------------------------------------------------------
constexpr unsigned SIDE = 16; // 16 x 16 blocks, 256 floats each

// scaleRowMajor: stage with cp.async (each thread's float copied global -> shared by the
// copy unit, no register and no st.shared in between), wait for the copies and the block,
// then double on the way back out: the 256 floats still pass through the dynamic buffer.
__global__ void scaleRowMajor(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    extern __shared__ float staged[];
    const unsigned mine = threadIdx.y * SIDE + threadIdx.x; // row-major: lane k -> word k
    const size_t g = (size_t)blockIdx.x * SIDE * SIDE + mine;
    const bool live = g < n;
    if (live)
        __pipeline_memcpy_async(&staged[mine], &in[g], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0); // this thread's copies are in shared memory
    __syncthreads();          // and everyone else's
    if (live)
        out[g] = 2.0f * staged[mine];
}

void launch_scale_row_major(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const unsigned per_block = SIDE * SIDE;
    const unsigned blocks = (unsigned)((n + per_block - 1) / per_block);
    scaleRowMajor<<<blocks, dim3(SIDE, SIDE), per_block * sizeof(float), stream>>>(d_out, d_in,
                                                                                  n);
    CML_CHECK_LAUNCH();
}

// ---- 3.3a and 3.3b -------------------------------------------------------------------------
#define GRAM 32
#define PITCH (GRAM + 1)

// gramPadded: the tile in dynamic shared memory with a pitch of 33 floats.
__global__ void __launch_bounds__(1024)
    gramPadded(float *__restrict__ out, const float *__restrict__ in)
{
    extern __shared__ float tile[]; // GRAM rows of PITCH floats
    const int i = threadIdx.y, j = threadIdx.x;
    const float *src = in + (size_t)blockIdx.x * GRAM * GRAM;
    tile[i * PITCH + j] = src[i * GRAM + j];
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < GRAM; k++)
        acc += tile[i * PITCH + k] * tile[j * PITCH + k];
    out[(size_t)blockIdx.x * GRAM * GRAM + i * GRAM + j] = acc;
}

void launch_gram_padded(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const size_t smem = GRAM * PITCH * sizeof(float);
    gramPadded<<<(unsigned)(n / 1024), dim3(GRAM, GRAM), smem, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}

// gramSwizzled: a plain 32 x 32 tile (static: 4096 bytes), permuted within each row.
__global__ void __launch_bounds__(1024)
    gramSwizzled(float *__restrict__ out, const float *__restrict__ in)
{
    __shared__ float tile[GRAM][GRAM];
    const unsigned i = threadIdx.y, j = threadIdx.x;
    const float *src = in + (size_t)blockIdx.x * GRAM * GRAM;
    tile[i][j ^ i] = src[i * GRAM + j];
    __syncthreads();
    float acc = 0.0f;
#pragma unroll 8
    for (unsigned k = 0; k < GRAM; k++)
        acc += tile[i][k ^ i] * tile[j][k ^ j];
    out[(size_t)blockIdx.x * GRAM * GRAM + i * GRAM + j] = acc;
}

void launch_gram_swizzled(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    gramSwizzled<<<(unsigned)(n / 1024), dim3(GRAM, GRAM), 0, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}
