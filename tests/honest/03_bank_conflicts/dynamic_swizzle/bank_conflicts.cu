/* Lab 03, shared-memory bank conflicts: 3.1 by the closed form of section 3 (checked against
 * the word counting on paper for the table's strides), 3.2 and 3.3a through dynamic shared
 * memory (extern __shared__), sized at launch, and 3.3b through a flat dynamic tile. */
#include "bank_conflicts.h"

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

// scaleRowMajor: stage, double, write back; the 256 floats live in the dynamic buffer.
__global__ void scaleRowMajor(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    extern __shared__ float staged[];
    const unsigned mine = threadIdx.y * SIDE + threadIdx.x; // row-major: lane k -> word k
    const size_t g = (size_t)blockIdx.x * SIDE * SIDE + mine;
    const bool live = g < n;
    if (live)
        staged[mine] = in[g];
    __syncthreads();
    if (live)
        staged[mine] *= 2.0f;
    __syncthreads();
    if (live)
        out[g] = staged[mine];
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

// gramSwizzled: a flat 32 x 32 tile sized at launch (extern __shared__, 4096 bytes), element
// (r, c) at r * GRAM + (c ^ r), so a row keeps its 32 words and column k spreads over the banks.
__device__ __forceinline__ unsigned swizzled(unsigned r, unsigned c)
{
    return r * GRAM + (c ^ r);
}

__global__ void __launch_bounds__(1024)
    gramSwizzled(float *__restrict__ out, const float *__restrict__ in)
{
    extern __shared__ float tile[];
    const unsigned i = threadIdx.y, j = threadIdx.x;
    const float *src = in + (size_t)blockIdx.x * GRAM * GRAM;
    tile[swizzled(i, j)] = src[i * GRAM + j];
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (unsigned k = 0; k < GRAM; k++)
        acc += tile[swizzled(i, k)] * tile[swizzled(j, k)];
    out[(size_t)blockIdx.x * GRAM * GRAM + i * GRAM + j] = acc;
}

void launch_gram_swizzled(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const size_t tile_bytes = GRAM * GRAM * sizeof(float);
    gramSwizzled<<<(unsigned)(n / 1024), dim3(GRAM, GRAM), tile_bytes, stream>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}
