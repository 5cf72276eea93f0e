/* Lab 01 harness (pristine): the tasks and their cases, the given copyChunked kernel, the bench
 * table and the offset/stride sweeps. Allocation, inputs, poisoning, checks, timing and the
 * result protocol live in common/ (the harness library); the student's kernels live in
 * coalescing.cu. */
#include "coalescing.h"

#include <stdio.h>

// copyChunked: the "before" of task 1.1. Thread t copies its own stretch [t*CHUNK, (t+1)*CHUNK),
// so at each step the 32 lanes of a warp are CHUNK floats apart: 32 lines for one request.
enum { CHUNK = 32 };
__global__ void copyChunked(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
    const size_t first = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * CHUNK;
    const size_t end = first + CHUNK < n ? first + CHUNK : n;
    for (size_t i = first; i < end; i++)
        out[i] = in[i];
}

static void launch_copy_chunked(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    const size_t threads = (n + CHUNK - 1) / CHUNK;
    copyChunked<<<(unsigned)((threads + 255) / 256), 256, 0, stream>>>(d_out, d_in, n);
    CML_CHECK_LAUNCH();
}

// ---- inputs and the right outputs (self-checks; the grader computes its own) ----

/* Every task of this lab moves floats and is compared bit for bit, so its inputs hold every
 * kind of float (cml_rand_f32_all: -0, infinities, NaNs with payloads, subnormals; issue 44):
 * a "copy" done by arithmetic (1*x + 0) turns -0 into +0 and rewrites NaN payloads, and fails.
 * The grader's checks copy, transpose and gather (grader/src/0_spec/checks.c) generate the same
 * (common/'s cml_input_of fills them). */
static float *every_bit_input(size_t n) { return cml_input_of(n, 0, CML_VALUES_EVERY_BIT); }

static float expect_copy(const cml_case *, uint64_t seed, uint64_t i)
{
    return cml_rand_f32_all(seed, 0, i);
}

static float expect_transpose(const cml_case *c, uint64_t seed, uint64_t i)
{
    const uint64_t col = i / c->rows, row = i % c->rows; /* out is cols x rows */
    return cml_rand_f32_all(seed, 0, row * c->cols + col);
}

static float expect_gather(const cml_case *c, uint64_t seed, uint64_t i)
{
    return cml_rand_f32_all(seed, 0, c->offset + i * c->stride);
}

// ---- one run function per kind of task: allocate, fill, hand the launch to the library ----

typedef void (*copy_fn)(float *, const float *, size_t, cudaStream_t);
typedef void (*transpose_fn)(float *, const float *, int, int, cudaStream_t);

static void run_copy(const cml_case *c, copy_fn launch)
{
    const size_t n = c->n;
    float *d_in = every_bit_input(n);
    float *d_out = cml_alloc(n);
    if (!d_in || !d_out)
        return;
    cml_run_case(c, d_out, n, 2 * n * sizeof(float),
                 [&](cudaStream_t s) { launch(d_out, d_in, n, s); });
}

static void run_transpose(const cml_case *c, transpose_fn launch)
{
    const int rows = (int)c->rows, cols = (int)c->cols;
    const size_t elems = (size_t)c->rows * c->cols;
    float *d_in = every_bit_input(elems);
    float *d_out = cml_alloc(elems);
    if (!d_in || !d_out)
        return;
    cml_run_case(c, d_out, elems, 2 * elems * sizeof(float),
                 [&](cudaStream_t s) { launch(d_out, d_in, rows, cols, s); });
}

/* 1.3 reads offset + (n-1)*stride + 1 floats and counts only the n useful ones, both ways. */
static void run_gather(const cml_case *c)
{
    const size_t n = c->n, offset = c->offset, stride = c->stride, limit = (size_t)1 << 60;
    if (offset > limit || (n - 1) > (limit - offset) / stride) {
        cml_case_fail("offset + (n-1)*stride is beyond 2^60 floats");
        return;
    }
    const size_t in_elems = offset + (n - 1) * stride + 1;
    float *d_in = every_bit_input(in_elems);
    float *d_out = cml_alloc(n);
    if (!d_in || !d_out)
        return;
    cml_run_case(c, d_out, n, 2 * n * sizeof(float), [&](cudaStream_t s) {
        launch_copy_offset_stride(d_out, d_in, n, offset, stride, s);
    });
}

static void run_copy_coalesced(const cml_case *c) { run_copy(c, launch_copy_coalesced); }
static void run_copy_chunked(const cml_case *c) { run_copy(c, launch_copy_chunked); }
static void run_naive_read(const cml_case *c)
{
    run_transpose(c, launch_transpose_naive_read_coalesced);
}
static void run_naive_write(const cml_case *c)
{
    run_transpose(c, launch_transpose_naive_write_coalesced);
}

// ---- the lab ----

static const cml_task TASKS[] = {
    {"1.1", "copyCoalesced", "n", "n=67108864", run_copy_coalesced, expect_copy},
    {"1.2a", "transposeNaiveReadCoalesced", "rows,cols", "rows=8192,cols=8192 rows=8191,cols=8193",
     run_naive_read, expect_transpose},
    {"1.2b", "transposeNaiveWriteCoalesced", "rows,cols",
     "rows=8192,cols=8192 rows=8191,cols=8193", run_naive_write, expect_transpose},
    {"1.3", "copyOffsetStride", "n,offset,stride", "n=16777216,offset=3,stride=2", run_gather,
     expect_gather},
};
static const cml_task COPY_CHUNKED = {"1.1", "copyChunked (given)", "n", "", run_copy_chunked,
                                      expect_copy};
static const char *const BIG_COPY = "n=67108864"; /* 256 MiB each way */

/* Section 5's tables: 16M useful floats, offsets 0..32 at stride 1, strides 1..32 at offset 0.
 * At stride 32 the input is 2 GiB; a row that does not fit in memory is skipped with a note. */
static void sweeps(void)
{
    char spec[64];
    cml_table_title("1.3: offsets at stride 1, n = 16M (GB/s counts the useful bytes only)");
    for (int offset = 0; offset <= 32; offset++) {
        snprintf(spec, sizeof spec, "n=16777216,offset=%d", offset);
        if (cml_table_run(&TASKS[3], spec) == CML_ROW_TODO)
            return;
    }
    cml_table_title("1.3: strides at offset 0, n = 16M (GB/s counts the useful bytes only)");
    for (int stride = 1; stride <= 32; stride *= 2) {
        snprintf(spec, sizeof spec, "n=16777216,stride=%d", stride);
        cml_table_run(&TASKS[3], spec);
    }
}

static void extras(void)
{
    cml_table_title("1.1: the given copyChunked, for comparison with your copyCoalesced");
    cml_table_run(&COPY_CHUNKED, BIG_COPY);
    sweeps();
}

static void bench(void)
{
    cml_table_title("1.1: one 256 MiB copy, chunked per thread (given) vs coalesced");
    cml_table_run(&COPY_CHUNKED, BIG_COPY);
    cml_table_run(&TASKS[0], BIG_COPY);
    cml_table_title("1.2: naive transposes, reads coalesced (a) vs writes coalesced (b)");
    for (const char *size : {"rows=8192,cols=8192", "rows=8191,cols=8193"}) {
        cml_table_run(&TASKS[1], size);
        cml_table_run(&TASKS[2], size);
    }
    sweeps();
}

int main(int argc, char **argv)
{
    static const cml_lab lab = {"01_coalescing", "Global-memory coalescing", TASKS,
                                (int)(sizeof TASKS / sizeof TASKS[0]), bench, extras};
    return cml_main(argc, argv, &lab);
}
