/* Static technique checks (ptx, forbid) on real builds, no GPU: correct code written
 * differently from the solution passes them, and code that games them fails. Each variant is a
 * lab's solution with one piece of text replaced, compiled by nvcc through build.c with its
 * evidence (the PTX and preprocessed text the grader reads), then checked as a task whose
 * cases all passed. (SASS needs cuobjdump and ncu/sanitize a GPU: not checked here.) */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "technique.h"
#include "variant_build.h"

/* Lab 04's float4 middle, as the solution writes it. */
#define VEC4_BODY "    const float4 *in4 = reinterpret_cast<const float4 *>(in + head);\n" \
                  "    float4 *out4 = reinterpret_cast<float4 *>(out + head);\n"         \
                  "    for (size_t i = t; i < nvec; i += step)\n"                          \
                  "        out4[i] = in4[i];\n"

START_TEST(int4_through_ldg_passes_the_vector_checks)
{
    check_variant("04", "vectorized.cu", VEC4_BODY,
                  "    const int4 *in4 = reinterpret_cast<const int4 *>(in + head);\n"
                  "    int4 *out4 = reinterpret_cast<int4 *>(out + head);\n"
                  "    for (size_t i = t; i < nvec; i += step)\n"
                  "        out4[i] = __ldg(in4 + i);\n", "4.1");
    assert_kind(CML_TECH_PTX, CML_TECH_PASSED); /* ld.global.nc.v4.s32 */
}
END_TEST

START_TEST(annotated_ptr_streaming_passes_the_vector_checks)
{
    check_variant_with("04", "vectorized.cu", "#include <cuda/annotated_ptr>\n", VEC4_BODY,
                  "    cuda::annotated_ptr<const float4, cuda::access_property::streaming> in4(\n"
                  "        reinterpret_cast<const float4 *>(in + head));\n"
                  "    cuda::annotated_ptr<float4, cuda::access_property::streaming> out4(\n"
                  "        reinterpret_cast<float4 *>(out + head));\n"
                  "    for (size_t i = t; i < nvec; i += step)\n"
                  "        out4[i] = in4[i];\n", "4.1");
    assert_kind(CML_TECH_PTX, CML_TECH_PASSED); /* ld.global.L2::cache_hint.v4.u32 */
}
END_TEST

START_TEST(streaming_intrinsics_pass_the_vector_checks)
{
    check_variant("04", "vectorized.cu", VEC4_BODY,
                  "    const float4 *in4 = reinterpret_cast<const float4 *>(in + head);\n"
                  "    float4 *out4 = reinterpret_cast<float4 *>(out + head);\n"
                  "    for (size_t i = t; i < nvec; i += step)\n"
                  "        __stcs(out4 + i, __ldcs(in4 + i));\n", "4.1");
    assert_kind(CML_TECH_PTX, CML_TECH_PASSED); /* ld.global.cs.v4.f32 */
}
END_TEST

START_TEST(scalar_middle_fails_the_vector_checks)
{
    check_variant("04", "vectorized.cu", VEC4_BODY,
                  "    for (size_t i = head + t; i < tail; i += step)\n"
                  "        out[i] = in[i];\n", "4.1");
    assert_kind(CML_TECH_PTX, CML_TECH_FAILED);
}
END_TEST

/* A decoy: copyVector4 keeps its float4 code and is compiled, but the wrapper launches a plain
 * copy instead (tests/attacks/gpu/04_float4/decoy_vector_kernel). */
START_TEST(unlaunched_vector_kernel_fails_the_vector_checks)
{
    check_variant_with("04", "vectorized.cu",
                       "__global__ void copyPlain(float *out, const float *in, size_t n)\n{\n"
                       "    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;\n"
                       "         i += (size_t)gridDim.x * blockDim.x)\n"
                       "        out[i] = in[i];\n}\n",
                       "    copyVector4<<<(unsigned)blocks, threads, 0, stream>>>(d_out, d_in, n, "
                       "head, nvec);\n",
                       "    copyPlain<<<(unsigned)blocks, threads, 0, stream>>>(d_out, d_in, n);\n"
                       "    (void)nvec;\n", "4.1");
    assert_kind(CML_TECH_PTX, CML_TECH_FAILED);
    ck_assert_msg(strstr(variant_r.tech[0].detail, "no host code launches copyVector4") != NULL,
                  "%s",
                  variant_r.tech[0].detail);
}
END_TEST

/* Lab 04's kernel head and launch, as the solution writes them. */
#define VEC4_HEAD "__global__ void copyVector4(float *__restrict__ out, const float *__restrict__ in, size_t n,\n"
#define VEC4_LAUNCH "    copyVector4<<<(unsigned)blocks, threads, 0, stream>>>(d_out, d_in, n, head, nvec);\n"

/* A template kernel launched through its instantiation: nvcc gives its host function internal
 * linkage (_ZN..L11copyVector4I...), which the launch evidence must still see. */
START_TEST(template_kernel_passes_the_vector_checks)
{
    check_variant("04", "vectorized.cu", VEC4_HEAD,
                  "template <typename T>\n__global__ void copyVector4(T *__restrict__ out, "
                  "const T *__restrict__ in, size_t n,\n", "4.1");
    assert_kind(CML_TECH_PTX, CML_TECH_PASSED);
}
END_TEST


/* Lab 06's zero-copy allocation, as the solution writes it. */
#define ZC_ALLOC "float *zc_alloc_mapped(size_t n)\n{\n"

START_TEST(old_copies_under_if0_pass_the_no_copy_check)
{
    check_variant("06", "zerocopy.cu", ZC_ALLOC,
                  "#if 0 // the explicit-copy version this port replaced\n"
                  "static void copyIn(float *d, const float *h, size_t n)\n{\n"
                  "    CML_CHECK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));\n"
                  "}\n#endif\n"
                  "// no cudaMemcpy below: \"cudaMemcpy\" in a string names nothing either\n"
                  ZC_ALLOC "    static const char *why = \"no cudaMalloc, no cudaMemcpy\";\n"
                  "    (void)why;\n", "6.1");
    assert_kind(CML_TECH_FORBID, CML_TECH_PASSED);
}
END_TEST

START_TEST(token_pasted_copy_fails_the_no_copy_check)
{
    check_variant("06", "zerocopy.cu", ZC_ALLOC,
                  "#define CML_JOIN(a, b) a##b\n" ZC_ALLOC
                  "    if (n == 0) /* never taken by the harness, but compiled */\n"
                  "        CML_CHECK(CML_JOIN(cuda, Memset)(nullptr, 0, 0));\n", "6.1");
    assert_kind(CML_TECH_FORBID, CML_TECH_FAILED);
    ck_assert_msg(strstr(variant_r.tech[0].detail, "zerocopy.cu line ") != NULL, "%s",
                  variant_r.tech[0].detail);
}
END_TEST

/* Lab 03: the 2008 experiment must go through shared memory; 3.3b must swizzle, not pad. */
#define ROW_MAJOR_TILE "    __shared__ float tile[TILE * TILE];\n"
#define SWIZZLE_TILE "    __shared__ float tile[GRAM][GRAM];\n"
#define SWIZZLE_STORE "    tile[i][j ^ i] = in[base + i * GRAM + j];\n"

START_TEST(experiment_without_shared_memory_fails)
{
    /* the right answer straight from global memory; the old body after the return, with
     * its tile in registers, is never reached */
    check_variant("03", "bank_conflicts.cu", ROW_MAJOR_TILE,
                  "    const size_t g = blockIdx.x * (size_t)(TILE * TILE) + threadIdx.y * TILE +\n"
                  "                     threadIdx.x;\n"
                  "    if (g < n)\n        out[g] = 2.0f * in[g];\n    return;\n"
                  "    float tile[TILE * TILE];\n", "3.2");
    assert_kind(CML_TECH_PTX, CML_TECH_FAILED);
}
END_TEST

START_TEST(padded_tile_for_the_swizzle_fails)
{
    /* 3.3b done as 3.3a: one spare column, no XOR */
    check_variant("03", "bank_conflicts.cu",
                  SWIZZLE_TILE "    const int i = threadIdx.y, j = threadIdx.x;\n"
                  "    const size_t base = blockIdx.x * (size_t)(GRAM * GRAM);\n" SWIZZLE_STORE
                  "    __syncthreads();\n    float acc = 0.0f;\n#pragma unroll\n"
                  "    for (int k = 0; k < GRAM; k++)\n"
                  "        acc += tile[i][k ^ i] * tile[j][k ^ j];\n",
                  "    __shared__ float tile[GRAM][GRAM + 1];\n"
                  "    const int i = threadIdx.y, j = threadIdx.x;\n"
                  "    const size_t base = blockIdx.x * (size_t)(GRAM * GRAM);\n"
                  "    tile[i][j] = in[base + i * GRAM + j];\n"
                  "    __syncthreads();\n    float acc = 0.0f;\n#pragma unroll\n"
                  "    for (int k = 0; k < GRAM; k++)\n"
                  "        acc += tile[i][k] * tile[j][k];\n", "3.3b");
    assert_kind(CML_TECH_PTX, CML_TECH_FAILED);
}
END_TEST

START_TEST(flat_swizzled_tile_passes)
{
    check_variant("03", "bank_conflicts.cu",
                  SWIZZLE_TILE "    const int i = threadIdx.y, j = threadIdx.x;\n"
                  "    const size_t base = blockIdx.x * (size_t)(GRAM * GRAM);\n" SWIZZLE_STORE
                  "    __syncthreads();\n    float acc = 0.0f;\n#pragma unroll\n"
                  "    for (int k = 0; k < GRAM; k++)\n"
                  "        acc += tile[i][k ^ i] * tile[j][k ^ j];\n",
                  "    __shared__ float flat[GRAM * GRAM]; // (r, c) at r * GRAM + (c ^ r)\n"
                  "    const int i = threadIdx.y, j = threadIdx.x;\n"
                  "    const size_t base = blockIdx.x * (size_t)(GRAM * GRAM);\n"
                  "    flat[i * GRAM + (i ^ j)] = in[base + i * GRAM + j];\n"
                  "    __syncthreads();\n    float acc = 0.0f;\n#pragma unroll\n"
                  "    for (int k = 0; k < GRAM; k++)\n"
                  "        acc += flat[i * GRAM + (i ^ k)] * flat[j * GRAM + (j ^ k)];\n", "3.3b");
    assert_kind(CML_TECH_PTX, CML_TECH_PASSED);
}
END_TEST

/* The zero-copy path hands its work to copies.cu's explicit-copy path: zerocopy.cu names no
 * copy, but calls a function that another student file defines. */
START_TEST(zero_copy_path_calling_the_copy_path_fails_the_no_copy_check)
{
    check_variant_with("06", "zerocopy.cu",
                       "#include \"zerocopy.h\"\n",
                       "              cudaStream_t stream)\n{\n",
                       "              cudaStream_t stream)\n{\n"
                       "    if (passes > 0) { /* d_x, d_y: any device buffers it finds */\n"
                       "        copy_saxpy(h_out, h_x, h_y, n, passes, nullptr, nullptr, stream);\n"
                       "        return;\n    }\n", "6.1");
    assert_kind(CML_TECH_FORBID, CML_TECH_FAILED);
    ck_assert_msg(strstr(variant_r.tech[0].detail, "calls ") &&
                  strstr(variant_r.tech[0].detail, "copies.cu"),
                  "%s", variant_r.tech[0].detail);
}
END_TEST

/* Lab 06's 6.2 must copy (a `calls` check on copy_saxpy's references): its copies, as the
 * solution writes them. */
#define COPY_BODY "    const size_t bytes = n * sizeof(float);\n" \
    "    CML_CHECK(cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice, stream));\n" \
    "    CML_CHECK(cudaMemcpyAsync(d_y, h_y, bytes, cudaMemcpyHostToDevice, stream));\n"
#define COPY_LOOP "    const size_t blocks = std::min((n + 255) / 256, (size_t)cml_sm_count() * 8);\n" \
    "    for (int p = 0; p < passes; p++) {\n" \
    "        saxpyDevice<<<(unsigned)blocks, 256, 0, stream>>>(d_y, d_x, d_y, n, SAXPY_A);\n" \
    "        CML_CHECK_LAUNCH();\n    }\n"
#define COPY_OUT "    CML_CHECK(cudaMemcpyAsync(h_out, d_y, bytes, cudaMemcpyDeviceToHost, stream));\n"

START_TEST(copy_path_computing_on_mapped_memory_fails_the_copy_check)
{
    /* right answers with no copy at all: the passes read and write the mapped host buffers */
    check_variant("06", "copies.cu",
                  COPY_BODY COPY_LOOP COPY_OUT,
                  "    float *dx, *dy, *dout;\n    (void)d_x, (void)d_y;\n"
                  "    CML_CHECK(cudaHostGetDevicePointer((void **)&dx, (void *)h_x, 0));\n"
                  "    CML_CHECK(cudaHostGetDevicePointer((void **)&dy, (void *)h_y, 0));\n"
                  "    CML_CHECK(cudaHostGetDevicePointer((void **)&dout, h_out, 0));\n"
                  "    const size_t blocks = std::min((n + 255) / 256, (size_t)cml_sm_count() * 8);\n"
                  "    for (int p = 0; p < passes; p++) {\n"
                  "        saxpyDevice<<<(unsigned)blocks, 256, 0, stream>>>(dout, dx, p ? dout : dy,"
                  " n, SAXPY_A);\n        CML_CHECK_LAUNCH();\n    }\n", "6.2");
    assert_kind(CML_TECH_CALLS, CML_TECH_FAILED);
}
END_TEST

START_TEST(copies_through_a_file_local_helper_pass_the_copy_check)
{
    /* a helper gcc may not inline: its cudaMemcpy2DAsync is a call of copy_saxpy's callee */
    check_variant_with("06", "copies.cu",
                       "#include \"zerocopy.h\"\n__attribute__((noinline)) static void "
                       "copyRows(void *to, const void *from, size_t bytes, cudaMemcpyKind k,\n"
                       "                     cudaStream_t s)\n{\n"
                       "    CML_CHECK(cudaMemcpy2DAsync(to, bytes, from, bytes, bytes, 1, k, s));\n"
                       "}\n", COPY_BODY COPY_LOOP COPY_OUT,
                       "    const size_t bytes = n * sizeof(float);\n"
                       "    copyRows(d_x, h_x, bytes, cudaMemcpyHostToDevice, stream);\n"
                       "    copyRows(d_y, h_y, bytes, cudaMemcpyHostToDevice, stream);\n"
                       COPY_LOOP "    copyRows(h_out, d_y, bytes, cudaMemcpyDeviceToHost, stream);\n",
                       "6.2");
    assert_kind(CML_TECH_CALLS, CML_TECH_PASSED);
    ck_assert_msg(strstr(variant_r.tech[0].detail, "copyRows") != NULL, "%s",
                  variant_r.tech[0].detail); /* found through the helper, not inlined */
}
END_TEST

START_TEST(blocking_copies_pass_the_copy_check)
{
    check_variant("06", "copies.cu", COPY_OUT,
                  "    CML_CHECK(cudaStreamSynchronize(stream));\n"
                  "    CML_CHECK(cudaMemcpy(h_out, d_y, bytes, cudaMemcpyDeviceToHost));\n", "6.2");
    assert_kind(CML_TECH_CALLS, CML_TECH_PASSED);
}
END_TEST

/* Without nm the build cannot say what copy_saxpy calls: not checked, never a false fail. */
START_TEST(copy_check_without_nm_is_not_checked)
{
    setenv("CML_NM", "/nonexistent/nm", 1);
    check_variant("06", "copies.cu", "", "", "6.2");
    unsetenv("CML_NM");
    assert_kind(CML_TECH_CALLS, CML_TECH_NOT_CHECKED);
}
END_TEST

/* The solutions themselves pass every static check of every task (ptx, forbid, calls). */
START_TEST(solutions_pass_every_static_check)
{
    const char *labs[] = { "03", "04", "06", "07" };
    for (size_t l = 0; l < sizeof labs / sizeof labs[0]; l++) {
        const cml_lab_spec *spec = variant_lab(labs[l]);
        for (int k = 0; k < spec->ntasks; k++) {
            int statics = 0;
            for (int i = 0; i < spec->tasks[k].ntech; i++)
                statics += spec->tasks[k].tech[i].kind == CML_TECH_PTX ||
                           spec->tasks[k].tech[i].kind == CML_TECH_FORBID ||
                           spec->tasks[k].tech[i].kind == CML_TECH_CALLS;
            if (!statics)
                continue;
            check_variant(labs[l], spec->files[0], "", "", spec->tasks[k].id);
            for (int i = 0; i < variant_r.spec->ntech; i++)
                ck_assert_msg(variant_r.tech[i].state != CML_TECH_FAILED,
                              "%s task %s: %s check: %s", spec->lab, variant_r.spec->id,
                              cml_tech_kind_name(variant_r.spec->tech[i].kind),
                              variant_r.tech[i].detail);
        }
    }
}
END_TEST

Suite *variants_suite(void)
{
    Suite *s = suite_create("variants");
    TCase *tc = tcase_create("static checks on real builds");
    tcase_set_timeout(tc, 300);
    variants_load();
    tcase_add_test(tc, solutions_pass_every_static_check);
    tcase_add_test(tc, experiment_without_shared_memory_fails);
    tcase_add_test(tc, padded_tile_for_the_swizzle_fails);
    tcase_add_test(tc, flat_swizzled_tile_passes);
    tcase_add_test(tc, int4_through_ldg_passes_the_vector_checks);
    tcase_add_test(tc, template_kernel_passes_the_vector_checks);
    tcase_add_test(tc, annotated_ptr_streaming_passes_the_vector_checks);
    tcase_add_test(tc, streaming_intrinsics_pass_the_vector_checks);
    tcase_add_test(tc, scalar_middle_fails_the_vector_checks);
    tcase_add_test(tc, unlaunched_vector_kernel_fails_the_vector_checks);
    tcase_add_test(tc, old_copies_under_if0_pass_the_no_copy_check);
    tcase_add_test(tc, token_pasted_copy_fails_the_no_copy_check);
    tcase_add_test(tc, zero_copy_path_calling_the_copy_path_fails_the_no_copy_check);
    tcase_add_test(tc, copy_path_computing_on_mapped_memory_fails_the_copy_check);
    tcase_add_test(tc, copies_through_a_file_local_helper_pass_the_copy_check);
    tcase_add_test(tc, blocking_copies_pass_the_copy_check);
    tcase_add_test(tc, copy_check_without_nm_is_not_checked);
    variants_planted_add(tc);
    suite_add_tcase(s, tc);
    return s;
}
