/* Lab 03 harness (pristine): the tasks and their cases, the given "before" kernels (the 2008
 * column-major experiment and the conflicted tile product), a strided-read microbenchmark, and
 * the bench table with its ratios. Allocation, inputs, poisoning, checks, timing and the result
 * protocol live in common/ (the harness library); the student's code lives in bank_conflicts.cu. */
#include "bank_conflicts.h"

#include <stdio.h>
#include <vector>

enum { TILE = 16, GRAM = 32, MAX_STRIDES = 4096, STRIDE_REPS = 1024 };

// scaleColumnMajor: the 2008 experiment's slow kernel. Thread (x, y) owns element x*16 + y of
// its block's 256 floats, so the 32 lanes of a warp land on 4 banks, 8 words each.
__global__ void scaleColumnMajor(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    __shared__ float tile[TILE * TILE];
    const unsigned e = threadIdx.x * TILE + threadIdx.y;
    const size_t i = blockIdx.x * (size_t)(TILE * TILE) + e;
    if (i < n)
        tile[e] = in[i];
    __syncthreads();
    if (i < n)
        tile[e] = 2.0f * tile[e];
    __syncthreads();
    if (i < n)
        out[i] = tile[e];
}

// gramConflicted: the "before" of 3.3. Thread (j, i) computes row i . row j of its 32 x 32
// tile; at step k lane j reads tile[j][k], 32 floats apart: all in one bank, 32 passes.
__global__ void __launch_bounds__(1024)
    gramConflicted(float *__restrict__ out, const float *__restrict__ in)
{
    __shared__ float tile[GRAM][GRAM];
    const int i = threadIdx.y, j = threadIdx.x;
    const size_t base = blockIdx.x * (size_t)(GRAM * GRAM);
    tile[i][j] = in[base + i * GRAM + j];
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < GRAM; k++)
        acc += tile[i][k] * tile[j][k];
    out[base + i * GRAM + j] = acc;
}

// readStrided: lane t reads word t*stride + k of a shared array, k = 0..STRIDE_REPS-1, in four
// independent sums: a kernel whose time is its shared-memory passes (bench only).
__global__ void readStrided(float *__restrict__ out, int stride)
{
    __shared__ float words[2048]; /* 31 * 33 + STRIDE_REPS < 2048 */
    for (int w = threadIdx.x; w < 2048; w += blockDim.x)
        words[w] = (float)w;
    __syncthreads();
    const float *p = words + (threadIdx.x & 31) * stride;
    float acc[4] = {0, 0, 0, 0};
    for (int k = 0; k < STRIDE_REPS; k += 4)
#pragma unroll
        for (int u = 0; u < 4; u++)
            acc[u] += p[k + u];
    out[blockIdx.x * (size_t)blockDim.x + threadIdx.x] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

static void launch_scale_column_major(float *d_out, const float *d_in, size_t n, cudaStream_t s)
{
    scaleColumnMajor<<<(unsigned)((n + 255) / 256), dim3(TILE, TILE), 0, s>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

static void launch_gram_conflicted(float *d_out, const float *d_in, size_t n, cudaStream_t s)
{
    gramConflicted<<<(unsigned)(n / 1024), dim3(GRAM, GRAM), 0, s>>>(d_out, d_in);
    CML_CHECK_LAUNCH();
}

// ---- inputs and the right outputs (self-checks; the grader computes its own) ----

/* 3.3's inputs: k / 64 for k in [-512, 512) (cml_rand_fixed10): negative and non-integer, too
 * wide for an 8-bit product, with whole rows of zeros, negatives and -8, and every sum of 32
 * products is exact in any order (but for the sign of a zero: cml_rand.h). */
__host__ __device__ inline float small_int(uint64_t seed, uint64_t i)
{
    return cml_rand_fixed10(seed, 0, i);
}

__global__ void fillSmallInts(float *p, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = small_int(seed, i);
}

static void fill_small_ints(float *p, size_t n, uint64_t seed, uint64_t, cudaStream_t s)
{
    fillSmallInts<<<cml_sm_count() * 16, 256, 0, s>>>(p, n, seed);
    CML_CHECK_LAUNCH();
}

static float *small_int_input(size_t n) { return cml_input_with(n, fill_small_ints, 0); }

/* 3.2's inputs: every kind of finite float (cml_rand_f32_any: signed zeros, subnormals, the
 * top binade, any exponent), because its contract is out = 2 * in for any float. */
__global__ void fillAnyFloats(float *p, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = cml_rand_f32_any(seed, 0, i);
}

static void fill_any_floats(float *p, size_t n, uint64_t seed, uint64_t, cudaStream_t s)
{
    fillAnyFloats<<<cml_sm_count() * 16, 256, 0, s>>>(p, n, seed);
    CML_CHECK_LAUNCH();
}

static float expect_scale2(const cml_case *, uint64_t seed, uint64_t i)
{
    return 2.0f * cml_rand_f32_any(seed, 0, i);
}

/* One tile's product, computed once and kept while the table checks its 1024 outputs. */
static float expect_gram(const cml_case *, uint64_t seed, uint64_t i)
{
    static uint64_t tile = UINT64_MAX, tile_seed;
    static float out[GRAM * GRAM];
    if (i / 1024 != tile || seed != tile_seed) {
        tile = i / 1024, tile_seed = seed;
        int t[GRAM * GRAM];
        for (int e = 0; e < GRAM * GRAM; e++)
            t[e] = cml_rand_fixed10_k(seed, 0, tile * 1024 + e);
        for (int r = 0; r < GRAM; r++)
            for (int c = 0; c < GRAM; c++) {
                int acc = 0;
                for (int k = 0; k < GRAM; k++)
                    acc += t[r * GRAM + k] * t[c * GRAM + k];
                out[r * GRAM + c] = (float)acc * 0x1p-12f;
            }
    }
    return out[i % 1024];
}

// ---- one run function per kind of task ----

typedef void (*vector_fn)(float *, const float *, size_t, cudaStream_t);

/* 3.1: strides offset..offset+n-1 for 4-, 8- and 16-byte elements: out[size * n + s] is
 * stride offset + s. Strides stay below 2^22 (the sheet's domain), n at most 4096. */
static void run_degree(const cml_case *c)
{
    const size_t n = c->n, first = c->offset;
    if (n > MAX_STRIDES || first > ((size_t)1 << 22) - n) {
        cml_case_fail("n = %zu strides from %zu: at most %d, below 2^22", n, first, MAX_STRIDES);
        return;
    }
    float *d_out = cml_alloc(3 * n);
    if (!d_out)
        return;
    std::vector<float> h(3 * n);
    cml_run_case(c, d_out, 3 * n, 0, [&](cudaStream_t s) {
        for (int size = 0; size < 3; size++)
            for (size_t stride = 0; stride < n; stride++)
                h[size * n + stride] = (float)conflict_degree((int)(first + stride), 4 << size);
        CML_CHECK(cudaMemcpyAsync(d_out, h.data(), h.size() * sizeof(float),
                                  cudaMemcpyHostToDevice, s));
        CML_CHECK(cudaStreamSynchronize(s));
    });
}

static void run_scale(const cml_case *c, vector_fn launch)
{
    const size_t n = c->n;
    float *d_in = cml_input_with(n, fill_any_floats, 0);
    float *d_out = cml_alloc(n);
    if (!d_in || !d_out)
        return;
    cml_run_case(c, d_out, n, 2 * n * sizeof(float),
                 [&](cudaStream_t s) { launch(d_out, d_in, n, s); });
}

static void run_gram(const cml_case *c, vector_fn launch)
{
    const size_t n = c->n;
    if (n % 1024 != 0 || n / 1024 > 0x7FFFFFFF) {
        cml_case_fail("n = %zu: a whole number of 32 x 32 tiles (a multiple of 1024) needed", n);
        return;
    }
    float *d_in = small_int_input(n);
    float *d_out = cml_alloc(n);
    if (!d_in || !d_out)
        return;
    cml_run_case(c, d_out, n, 2 * n * sizeof(float),
                 [&](cudaStream_t s) { launch(d_out, d_in, n, s); });
}

template <vector_fn F> static void run_scale_with(const cml_case *c) { run_scale(c, F); }
template <vector_fn F> static void run_gram_with(const cml_case *c) { run_gram(c, F); }

// ---- the lab ----

static const cml_task TASKS[] = {
    {"3.1", "conflict_degree (host code)", "n,offset", "", run_degree, NULL},
    {"3.2", "scaleRowMajor", "n", "n=67108864", run_scale_with<launch_scale_row_major>,
     expect_scale2},
    {"3.3a", "gramPadded", "n", "n=67108864", run_gram_with<launch_gram_padded>, expect_gram},
    {"3.3b", "gramSwizzled", "n", "n=67108864", run_gram_with<launch_gram_swizzled>,
     expect_gram},
};
static const cml_task GIVEN[] = {
    {"3.2", "scaleColumnMajor (given)", "n", "", run_scale_with<launch_scale_column_major>,
     expect_scale2},
    {"3.3", "gramConflicted (given)", "n", "", run_gram_with<launch_gram_conflicted>,
     expect_gram},
};
#include "bench.cuh" /* the tables: degree_table(), bench(), extras() */

int main(int argc, char **argv)
{
    static const cml_lab lab = {"03_bank_conflicts", "Shared-memory bank conflicts", TASKS,
                                (int)(sizeof TASKS / sizeof TASKS[0]), bench, extras};
    return cml_main(argc, argv, &lab);
}
