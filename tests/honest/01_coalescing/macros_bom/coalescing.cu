/* Lab 01, global-memory coalescing: macros for the block shapes, old attempts kept under #if 0.
 * printf debugging removed; #include <stdio.h> is not needed any more (no fopen, no printf). */
#include "coalescing.h"

#include <algorithm>

#define THREADS 256
#define TILE_X 32
#define TILE_Y 8
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
#define GLOBAL_TID() ((size_t)blockIdx.x * blockDim.x + threadIdx.x)
#define GRID_THREADS() ((size_t)gridDim.x * blockDim.x)

// ---- 1.1 --------------------------------------------------------------------------------
// copyCoalesced: grid-stride loop, four rounds unrolled so each thread has 4 loads in flight.
__global__ void copyCoalesced(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    const size_t T = GRID_THREADS();
    size_t g = GLOBAL_TID();
    while (g + 3 * T < n) {
        const float a = in[g], b = in[g + T], c = in[g + 2 * T], d = in[g + 3 * T];
        out[g] = a, out[g + T] = b, out[g + 2 * T] = c, out[g + 3 * T] = d;
        g += 4 * T;
    }
    while (g < n) {
        out[g] = in[g];
        g += T;
    }
}

#if 0
// my first try, one stretch per thread like copyChunked: 5x slower, do not use
__global__ void copyMine(float *out, const float *in, size_t n)
{
    size_t t = GLOBAL_TID() * 32;
    for (size_t k = t; k < t + 32 && k < n; k++)
        out[k] = in[k];
    printf("thread %d done\n", threadIdx.x);
}
#endif

void launch_copy_coalesced(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const size_t blocks = std::min<size_t>(CEIL_DIV(n, (size_t)THREADS * 4),
                                           (size_t)cml_sm_count() * 32);
    copyCoalesced<<<(unsigned)std::max<size_t>(blocks, 1), THREADS, 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- 1.2a and 1.2b ----------------------------------------------------------------------
#define TRANSPOSE_BODY(R, C)                                                                 \
    do {                                                                                     \
        if ((R) < rows && (C) < cols)                                                        \
            out[(size_t)(C) * rows + (R)] = in[(size_t)(R) * cols + (C)];                     \
    } while (0)

__global__ void transposeNaiveReadCoalesced(float *__restrict__ out,
                                            const float *__restrict__ in, int rows, int cols)
{
    const int c = blockIdx.x * TILE_X + threadIdx.x, r = blockIdx.y * TILE_Y + threadIdx.y;
    TRANSPOSE_BODY(r, c);
}

void launch_transpose_naive_read_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                           cudaStream_t stream)
{
    transposeNaiveReadCoalesced<<<dim3(CEIL_DIV(cols, TILE_X), CEIL_DIV(rows, TILE_Y)),
                                  dim3(TILE_X, TILE_Y), 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

__global__ void transposeNaiveWriteCoalesced(float *__restrict__ out,
                                             const float *__restrict__ in, int rows, int cols)
{
    const int r = blockIdx.x * TILE_X + threadIdx.x, c = blockIdx.y * TILE_Y + threadIdx.y;
    TRANSPOSE_BODY(r, c);
}

void launch_transpose_naive_write_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                            cudaStream_t stream)
{
    transposeNaiveWriteCoalesced<<<dim3(CEIL_DIV(rows, TILE_X), CEIL_DIV(cols, TILE_Y)),
                                   dim3(TILE_X, TILE_Y), 0, stream>>>(d_out, d_in, rows, cols);
    CML_CHECK_LAUNCH();
}

// ---- 1.3 --------------------------------------------------------------------------------
__global__ void copyOffsetStride(float *__restrict__ out, const float *__restrict__ in,
                                 size_t n, size_t offset, size_t stride)
{
    for (size_t i = GLOBAL_TID(); i < n; i += GRID_THREADS())
        out[i] = in[offset + i * stride];
}

void launch_copy_offset_stride(float *d_out, const float *d_in, size_t n, size_t offset,
                               size_t stride, cudaStream_t stream)
{
    const size_t blocks = std::min<size_t>(CEIL_DIV(n, (size_t)THREADS), 65535);
    copyOffsetStride<<<(unsigned)std::max<size_t>(blocks, 1), THREADS, 0, stream>>>(
        d_out, d_in, n, offset, stride);
    CML_CHECK_LAUNCH();
}
