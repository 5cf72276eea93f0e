/* Lab 04 harness (pristine): the tasks and their cases, the given copyScalar kernel, the guard
 * check around out[0..n) for misaligned copies, and the bench table with this run's ratios.
 * Allocation, inputs, poisoning, checks, timing and the result protocol live in
 * common/ (the harness library); the student's kernels live in vectorized.cu. */
#include "vectorized.h"

#include <stdint.h>
#include <stdio.h>
#include <vector>

// copyScalar: the "before" of task 4.1. One float per thread: a warp moves 128 bytes with one
// 32-bit load instruction per lane, four times the instructions of a float4 copy.
__global__ void copyScalar(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}

static void launch_copy_scalar(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    copyScalar<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- the right outputs, for self-checks (the grader computes its own) ----

/* 4.1 moves floats and is compared bit for bit, so its input holds every float bit pattern
 * (cml_rand_f32_all: -0, infinities, NaNs with payloads, subnormals; red team round 5: a copy
 * done as 2v - v, exact on [1, 4), passed). The grader's check offset generates the same. */
static float expect_copy(const cml_case *c, uint64_t seed, uint64_t i)
{
    return cml_rand_f32_all(seed, 0, c->offset + i);
}

/* Float i of the points input (`width` floats a point; issue 44): x, y and z over the values a
 * coordinate takes (cml_rand_f32_domain: signed zeros, negative, large, small, non-integer), w
 * over every value a float holds (cml_rand_f32_all: NaN payloads, infinities, -0, subnormals,
 * FLT_MAX), since it is copied through unchanged and checked bit for bit. The grader's points
 * checks (grader/src/0_spec/checks_vector.c) generate the same. */
static CML_HD float point_input(uint64_t seed, uint64_t i, int width)
{
    return (int)(i % width) == 3 ? cml_rand_f32_all(seed, 0, i) : cml_rand_f32_domain(seed, 0, i);
}

/* Point p's component k (of `width` floats a point): 2*x + (DX, DY, DZ), w copied. */
static float expect_point(uint64_t seed, uint64_t i, int width)
{
    const float d[4] = {POINT_DX, POINT_DY, POINT_DZ, 0.0f};
    const float x = point_input(seed, i, width);
    return (int)(i % width) == 3 ? x : 2.0f * x + d[i % width];
}

static float expect_points3(const cml_case *, uint64_t seed, uint64_t i)
{
    return expect_point(seed, i, 3);
}

static float expect_points4(const cml_case *, uint64_t seed, uint64_t i)
{
    return expect_point(seed, i, 4);
}

// ---- 4.1: copies at any alignment, inside poisoned guards ----

typedef void (*copy_fn)(float *, const float *, size_t, cudaStream_t);
enum { GUARD = 4 }; /* poisoned floats kept on each side of out[0..n) */

/* Whether the floats [0, before) and [before + n, before + n + GUARD) still hold the poison. */
static bool guards_intact(const float *d_base, size_t before, size_t n)
{
    std::vector<uint32_t> head(before), tail(GUARD);
    CML_CHECK(cudaMemcpy(head.data(), d_base, before * 4, cudaMemcpyDeviceToHost));
    CML_CHECK(cudaMemcpy(tail.data(), d_base + before + n, GUARD * 4, cudaMemcpyDeviceToHost));
    for (uint32_t w : head)
        if (w != 0xFFFFFFFFu)
            return false;
    for (uint32_t w : tail)
        if (w != 0xFFFFFFFFu)
            return false;
    return true;
}

/* in = d_in + offset, out = d_out + outoff (outoff defaults to offset); out keeps GUARD + outoff
 * poisoned floats before it and GUARD after. The launch runs once on the poisoned buffer first:
 * a write outside out[0..n) fails the case; then the library runs, checks and times it. Under
 * compute-sanitizer the task may touch only in[0..n) and out[0..n) of the two buffers
 * (cml_exact), so memcheck sees an access outside them even where it changes no value. */
static void run_copy_with(const cml_case *c, copy_fn launch)
{
    const size_t n = c->n, offset = c->offset, outoff = cml_case_key(c, "outoff", offset);
    if (offset > 1024 || outoff > 1024) {
        cml_case_fail("offset and outoff must be at most 1024 floats");
        return;
    }
    const size_t before = GUARD + outoff, total = before + n + GUARD;
    float *d_in = cml_input_of(offset + n, 0, CML_VALUES_EVERY_BIT), *d_base = cml_alloc(total);
    if (!d_in || !d_base)
        return;
    float *out = d_base + before;
    const float *in = d_in + offset;
    cudaStream_t s = cml_stream();
    CML_CHECK(cudaMemsetAsync(d_base, CML_POISON_BYTE, total * sizeof(float), s));
    /* under compute-sanitizer, a byte of d_in or d_base outside in[0..n) and out[0..n) is out of
     * bounds: memcheck then sees reads before in[0] and writes that leave a value unchanged */
    cml_exact(in, n);
    cml_exact(out, n);
    launch(out, in, n, s);
    const cudaError_t err = cudaStreamSynchronize(s);
    if (err != cudaSuccess)
        cml_cuda_fail(err, "the task's kernels (found by the synchronize after them)",
                      "the task's launch wrapper", 0);
    cml_exact(d_base, total); /* the guard floats are the harness's to read */
    const bool intact = guards_intact(d_base, before, n);
    cml_exact(out, n);
    if (!intact) {
        cml_case_fail("wrote outside out[0..n): a float just before out[0] or just after "
                      "out[n-1] changed (in is %zu floats past a 16-byte boundary, out %zu)",
                      offset % 4, outoff % 4);
        return;
    }
    cml_run_case(c, out, n, 2 * n * sizeof(float), [&](cudaStream_t st) { launch(out, in, n, st); });
}

static void run_copy_vec4(const cml_case *c) { run_copy_with(c, launch_copy_vec4); }
static void run_copy_scalar(const cml_case *c) { run_copy_with(c, launch_copy_scalar); }

// ---- 4.2: n points, 3 or 4 floats each ----

__global__ void fillPoints(float *p, size_t elems, uint64_t seed, int width)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < elems;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = point_input(seed, i, width);
}

/* arg: the floats a point (3 or 4). */
static void fill_points(float *p, size_t elems, uint64_t seed, uint64_t arg, cudaStream_t s)
{
    const size_t blocks = (elems + 255) / 256 < 65536 ? (elems + 255) / 256 : 65536;
    fillPoints<<<(unsigned)blocks, 256, 0, s>>>(p, elems, seed, (int)arg);
    CML_CHECK_LAUNCH();
}

template <void (*Launch)(float *, const float *, size_t, cudaStream_t), int Width>
static void run_points(const cml_case *c)
{
    const size_t n = c->n, elems = Width * n;
    float *d_in = cml_input_with(elems, fill_points, Width), *d_out = cml_alloc(elems);
    if (!d_in || !d_out)
        return;
    cml_run_case(c, d_out, elems, 2 * elems * sizeof(float),
                 [&](cudaStream_t s) { Launch(d_out, d_in, n, s); });
}

// ---- the lab ----

static const cml_task TASKS[] = {
    {"4.1", "copyVector4", "n,offset,outoff", "n=67108864 n=67108864,offset=1",
     run_copy_vec4, expect_copy},
    {"4.2a", "transformFloat3", "n", "n=25165824", run_points<launch_transform_float3, 3>,
     expect_points3},
    {"4.2b", "transformPoint4", "n", "n=25165824", run_points<launch_transform_point4, 4>,
     expect_points4},
};
static const cml_task COPY_SCALAR = {"4.1", "copyScalar (given)", "n,offset,outoff", "",
                                     run_copy_scalar, expect_copy};
static const char *const BIG = "n=67108864";      /* 256 MiB each way */
static const char *const POINTS = "n=25165824";  /* 24M points: 288 / 384 MiB each way */

#include "bench_ratios.cuh"

static void extras(void)
{
    cml_table_title("4.1: the given copyScalar, for comparison with your copyVector4");
    cml_table_run(&COPY_SCALAR, BIG);
}

static void bench(void)
{
    cml_table_title("4.1: 256 MiB copies: scalar (given), float4 aligned, offset, mixed offsets");
    const enum cml_row_status scalar = cml_table_run(&COPY_SCALAR, BIG);
    const enum cml_row_status vec4 = cml_table_run(&TASKS[0], BIG);
    cml_table_run(&TASKS[0], "n=67108864,offset=1");
    cml_table_run(&TASKS[0], "n=67108864,offset=1,outoff=2");
    cml_table_title("4.2: 24M points, float3 (12 B) vs Point4 (16 B); GB/s counts bytes moved");
    const enum cml_row_status f3 = cml_table_run(&TASKS[1], POINTS);
    const enum cml_row_status p4 = cml_table_run(&TASKS[2], POINTS);
    print_ratios(scalar == CML_ROW_RAN && vec4 == CML_ROW_RAN, f3 == CML_ROW_RAN &&
                 p4 == CML_ROW_RAN);
}

int main(int argc, char **argv)
{
    static const cml_lab lab = {"04_float4", "16-byte vector access and alignment", TASKS,
                                (int)(sizeof TASKS / sizeof TASKS[0]), bench, extras};
    return cml_main(argc, argv, &lab);
}
