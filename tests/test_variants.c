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

/* A launch that ends its wrapper, without CML_CHECK_LAUNCH() after it: GCC makes the stub's call
 * a tail jump, and the assembler resolves a jump within .text without a relocation. It lost
 * 4.1's vector check as "no host code launches copyVector4". */
START_TEST(launch_as_the_last_statement_passes_the_vector_checks)
{
    check_variant("04", "vectorized.cu",
                  "    copyVector4<<<(unsigned)blocks, threads, 0, stream>>>(d_out, d_in, n, "
                  "head, nvec);\n    CML_CHECK_LAUNCH();\n",
                  "    copyVector4<<<(unsigned)blocks, threads, 0, stream>>>(d_out, d_in, n, "
                  "head, nvec);\n", "4.1");
    assert_kind(CML_TECH_PTX, CML_TECH_PASSED);
}
END_TEST

/* A kernel chosen at run time from a table of kernel pointers: the code refers to the table,
 * and only the table's data to the kernels. It lost 4.1's vector check the same way. */
START_TEST(kernel_launched_through_a_table_passes_the_vector_checks)
{
    check_variant_with("04", "vectorized.cu",
                       "__global__ void copyPlain(float *out, const float *in, size_t n, "
                       "size_t, size_t)\n{\n"
                       "    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;\n"
                       "         i += (size_t)gridDim.x * blockDim.x)\n"
                       "        out[i] = in[i];\n}\n",
                       "    copyVector4<<<(unsigned)blocks, threads, 0, stream>>>(d_out, d_in, n, "
                       "head, nvec);\n",
                       "    using Copy = void (*)(float *, const float *, size_t, size_t, "
                       "size_t);\n"
                       "    static const Copy kCopies[] = { copyVector4, copyPlain };\n"
                       "    kCopies[nvec > n]<<<(unsigned)blocks, threads, 0, stream>>>(d_out, "
                       "d_in, n, head, nvec);\n", "4.1");
    assert_kind(CML_TECH_PTX, CML_TECH_PASSED);
}
END_TEST

/* A file-local kernel (here made so by a static declaration before the solution's definition)
 * handed to cudaLaunchKernel: the wrapper takes its host function's address, which the
 * assembler resolves within .text ("lea ...(%rip)", no relocation). It lost 4.1's vector check
 * as "no host code launches copyVector4"; a template kernel launched so did the same. */
START_TEST(static_kernel_through_cudaLaunchKernel_passes_the_vector_checks)
{
    check_variant_with("04", "vectorized.cu",
                       "static __global__ void copyVector4(float *__restrict__, "
                       "const float *__restrict__, size_t, size_t, size_t);\n",
                       VEC4_LAUNCH,
                       "    size_t h = head, v = nvec;\n"
                       "    void *args[] = { &d_out, &d_in, &n, &h, &v };\n"
                       "    (void)cudaLaunchKernel((const void *)copyVector4, "
                       "dim3((unsigned)blocks), dim3(threads), args, 0, stream);\n", "4.1");
    assert_kind(CML_TECH_PTX, CML_TECH_PASSED);
}
END_TEST

/* Lab 04's 4.2b launch wrapper as the solution writes it, up to the kernel's last argument. */
#define P4_LAUNCH "void launch_transform_point4(float *d_out, const float *d_in, size_t n, " \
    "cudaStream_t stream)\n{\n    const int threads = 256;\n" \
    "    const size_t blocks = std::min<size_t>((n + threads - 1) / threads, (size_t)1 << 20);\n" \
    "    transformPoint4<<<(unsigned)blocks, threads, 0, stream>>>(\n" \
    "        reinterpret_cast<Point4 *>(d_out), reinterpret_cast<const Point4 *>(d_in), n"

/* Ordinary CUDA C++ the toolkit only accepts with a flag: a __device__ lambda handed to a
 * template kernel (--extended-lambda) and std::max in device code (--expt-relaxed-constexpr).
 * Every lab build passes both (build.h's CML_NVCC_LANG), so this file builds and 4.2b's static
 * checks see its 128-bit point; without the flags the whole lab was a build-error. */
START_TEST(device_lambda_and_std_max_in_a_kernel_build)
{
    check_variant("04", "vectorized.cu",
                  "__global__ void transformPoint4(Point4 *__restrict__ out, const Point4 "
                  "*__restrict__ in,\n                                size_t n)\n{\n"
                  "    const size_t step = (size_t)gridDim.x * blockDim.x;\n"
                  "    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += "
                  "step) {\n        const Point4 p = in[i];\n        out[i] = Point4{2.0f * p.x "
                  "+ POINT_DX, 2.0f * p.y + POINT_DY, 2.0f * p.z + POINT_DZ, p.w};\n    }\n}\n\n"
                  P4_LAUNCH ");\n",
                  "template <class F>\n__global__ void transformPoint4(Point4 *__restrict__ out, "
                  "const Point4 *__restrict__ in, size_t n,\n                                F move)"
                  "\n{\n    const size_t step = (size_t)gridDim.x * blockDim.x;\n"
                  "    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; "
                  "i += step)\n        out[i] = move(in[i]);\n}\n\n"
                  P4_LAUNCH ",\n        [] __device__(Point4 p) {\n"
                  "            return Point4{std::max(2.0f * p.x + POINT_DX, -3.0e38f),\n"
                  "                          2.0f * p.y + POINT_DY, 2.0f * p.z + POINT_DZ, p.w};\n"
                  "        });\n", "4.2b");
    assert_kind(CML_TECH_PTX, CML_TECH_PASSED); /* it built (else the build asserts) */
}
END_TEST

/* A file written in the repository that names the lab's headers by their place there builds
 * as it did there: the whole lab was a build-error ("../../common/cml_lab.h: No such file"). */
START_TEST(repository_path_includes_build)
{
    check_variant("04", "vectorized.cu", "#include \"vectorized.h\"",
                  "#include \"../../common/cml_lab.h\"\n#include \"../04_float4/vectorized.h\"",
                  "4.1");
    assert_kind(CML_TECH_PTX, CML_TECH_PASSED); /* it built (else the build asserts) */
}
END_TEST

/* CUB's umbrella header and Thrust's, included and not used for the work: NVTX's inline loader
 * they pull in (dlopen, dlsym, reached by no API function) made the whole lab a build-error;
 * the build compiles NVTX's calls to nothing (NVTX_DISABLE, CML_NVCC_LANG). */
START_TEST(cub_and_thrust_headers_build)
{
    check_variant("04", "vectorized.cu", "#include \"vectorized.h\"",
                  "#include \"vectorized.h\"\n#include <cub/cub.cuh>\n"
                  "#include <thrust/device_vector.h>", "4.1");
    assert_kind(CML_TECH_PTX, CML_TECH_PASSED); /* it built (else the build asserts) */
}
END_TEST

/* Lab 07's managed allocation, as the solution writes it; 7.1 forbids copies and device
 * buffers in managed.cu, read as the compiler sees it. */
#define UM_ALLOC "float *um_alloc(size_t n)\n{\n"

START_TEST(old_copies_under_if0_pass_the_no_copy_check)
{
    check_variant("07", "managed.cu", UM_ALLOC,
                  "#if 0 // the explicit-copy version this port replaced\n"
                  "static void copyIn(float *d, const float *h, size_t n)\n{\n"
                  "    CML_CHECK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));\n"
                  "}\n#endif\n"
                  "// no cudaMemcpy below: \"cudaMemcpy\" in a string names nothing either\n"
                  UM_ALLOC "    static const char *why = \"no cudaMalloc, no cudaMemcpy\";\n"
                  "    (void)why;\n", "7.1");
    assert_kind(CML_TECH_FORBID, CML_TECH_PASSED);
}
END_TEST

START_TEST(token_pasted_copy_fails_the_no_copy_check)
{
    check_variant("07", "managed.cu", UM_ALLOC,
                  "#define CML_JOIN(a, b) a##b\n" UM_ALLOC
                  "    if (n == 0) /* never taken by the harness, but compiled */\n"
                  "        CML_CHECK(CML_JOIN(cuda, Memset)(nullptr, 0, 0));\n", "7.1");
    assert_kind(CML_TECH_FORBID, CML_TECH_FAILED);
    ck_assert_msg(strstr(kind_detail(CML_TECH_FORBID), "managed.cu line ") != NULL, "%s",
                  kind_detail(CML_TECH_FORBID));
}
END_TEST

/* Copies through a library: no forbidden name in managed.cu's text, but its object calls
 * cudaMalloc and cudaMemcpyAsync (Thrust's device_malloc and copy, instantiated in the file;
 * never called, and code anywhere in the file counts, as the sheet says). A forbid that read
 * the text alone passed it. */
START_TEST(copies_through_a_library_fail_the_no_copy_check)
{
    check_variant("07", "managed.cu", "#include \"managed.h\"\n",
                  "#include \"managed.h\"\n#include <thrust/copy.h>\n"
                  "#include <thrust/device_malloc.h>\n"
                  "void via_thrust(float *C, const float *A, size_t n) // never called\n{\n"
                  "    thrust::device_ptr<float> a = thrust::device_malloc<float>(n);\n"
                  "    thrust::copy(A, A + n, a);\n    thrust::copy(a, a + n, C);\n}\n", "7.1");
    assert_kind(CML_TECH_FORBID, CML_TECH_FAILED);
    ck_assert_msg(strstr(kind_detail(CML_TECH_FORBID), "managed.cu's object calls cudaM") != NULL,
                  "%s", kind_detail(CML_TECH_FORBID));
}
END_TEST

/* Lab 03: the 2008 experiment must go through shared memory; 3.3b must swizzle, not pad. */
#define ROW_MAJOR_TILE "    __shared__ float tile[TILE * TILE];\n"
#define SWIZZLE_TILE "    __shared__ float tile[GRAM][GRAM];\n"
#define SWIZZLE_STORE "    tile[i][j ^ i] = in[base + i * GRAM + j];\n"
/* the solution's 3.3b body, from its tile to its product */
#define SWIZZLE_BODY                                                                   \
    SWIZZLE_TILE "    const int i = threadIdx.y, j = threadIdx.x;\n"                     \
                 "    const size_t base = blockIdx.x * (size_t)(GRAM * GRAM);\n"        \
    SWIZZLE_STORE "    __syncthreads();\n    float acc = 0.0f;\n#pragma unroll\n"       \
                  "    for (int k = 0; k < GRAM; k++)\n"                                 \
                  "        acc += tile[i][k ^ i] * tile[j][k ^ j];\n"

/* 3.3b's technique is measured since issue 44 (ncu: the tile's bytes per block, exactly 4096,
 * and its conflicts), no longer a PTX XOR: without a GPU, a variant's static checks must not
 * fail it, and a padded tile (4224 bytes) must lie outside the measured range. */
static void assert_no_static_check_fails(void)
{
    for (int i = 0; i < variant_r.spec->ntech; i++)
        if (variant_r.spec->tech[i].kind != CML_TECH_NCU &&
            variant_r.spec->tech[i].kind != CML_TECH_TRACE)
            ck_assert_msg(variant_r.tech[i].state != CML_TECH_FAILED, "%s",
                          variant_r.tech[i].detail);
}

#define GRAM_PADDED_BYTES (32.0 * 33 * 4)
static void assert_tile_bytes_refused(double bytes)
{
    int seen = 0;
    for (int i = 0; i < variant_r.spec->ntech; i++) {
        const cml_tech_spec *t = &variant_r.spec->tech[i];
        if (t->kind == CML_TECH_NCU && strstr(t->metric, "launch__shared_mem_per_block")) {
            seen++;
            ck_assert_msg(bytes < t->min || bytes > t->max, "%g bytes per block pass %s",
                          bytes, t->metric);
        }
    }
    ck_assert_msg(seen > 0, "task %s measures no shared memory per block", variant_r.spec->id);
}

/* 3.2's staging is measured since issue 44 (L1's shared wavefronts at the timed size), no
 * longer a PTX text: the right answer straight from global memory fails no static check, and
 * what its run measures (no shared traffic) lies below every floor of the task. */
START_TEST(experiment_without_shared_memory_fails)
{
    /* the old body after the return, with its tile in registers, is never reached */
    check_variant("03", "bank_conflicts.cu", ROW_MAJOR_TILE,
                  "    const size_t g = blockIdx.x * (size_t)(TILE * TILE) + threadIdx.y * TILE +\n"
                  "                     threadIdx.x;\n"
                  "    if (g < n)\n        out[g] = 2.0f * in[g];\n    return;\n"
                  "    float tile[TILE * TILE];\n", "3.2");
    assert_no_static_check_fails();
    int floors = 0;
    for (int i = 0; i < variant_r.spec->ntech; i++) {
        const cml_tech_spec *t = &variant_r.spec->tech[i];
        if (t->kind == CML_TECH_NCU && strstr(t->metric, "wavefronts_mem_shared")) {
            floors++;
            ck_assert_msg(0.0 < t->min, "no shared traffic passes %s", t->metric);
        }
    }
    ck_assert_int_eq(floors, 2); /* the stores (and cp.async) and the loads */
}
END_TEST

START_TEST(padded_tile_for_the_swizzle_fails)
{
    /* 3.3b done as 3.3a: one spare column, no XOR */
    check_variant("03", "bank_conflicts.cu",
                  SWIZZLE_BODY,
                  "    __shared__ float tile[GRAM][GRAM + 1];\n"
                  "    const int i = threadIdx.y, j = threadIdx.x;\n"
                  "    const size_t base = blockIdx.x * (size_t)(GRAM * GRAM);\n"
                  "    tile[i][j] = in[base + i * GRAM + j];\n"
                  "    __syncthreads();\n    float acc = 0.0f;\n#pragma unroll\n"
                  "    for (int k = 0; k < GRAM; k++)\n"
                  "        acc += tile[i][k] * tile[j][k];\n", "3.3b");
    assert_no_static_check_fails();
    assert_tile_bytes_refused(GRAM_PADDED_BYTES);
}
END_TEST

START_TEST(flat_swizzled_tile_passes)
{
    check_variant("03", "bank_conflicts.cu",
                  SWIZZLE_BODY,
                  "    __shared__ float flat[GRAM * GRAM]; // (r, c) at r * GRAM + (c ^ r)\n"
                  "    const int i = threadIdx.y, j = threadIdx.x;\n"
                  "    const size_t base = blockIdx.x * (size_t)(GRAM * GRAM);\n"
                  "    flat[i * GRAM + (i ^ j)] = in[base + i * GRAM + j];\n"
                  "    __syncthreads();\n    float acc = 0.0f;\n#pragma unroll\n"
                  "    for (int k = 0; k < GRAM; k++)\n"
                  "        acc += flat[i * GRAM + (i ^ k)] * flat[j * GRAM + (j ^ k)];\n", "3.3b");
    assert_no_static_check_fails();
}
END_TEST

/* A volatile tile (st.volatile.shared), or every step through one __noinline__ mover taking
 * generic pointers (tests/honest/03_bank_conflicts/generic_mover_noinline: PTX st.f32, SASS
 * ST, no st.shared at all), stages through shared memory all the same: no static check may
 * fail either (the PTX check once wanted "st.shared", then "st...shared"). */
START_TEST(volatile_tile_passes_the_shared_memory_checks)
{
    check_variant("03", "bank_conflicts.cu", ROW_MAJOR_TILE,
                  "    __shared__ volatile float tile[TILE * TILE];\n", "3.2");
    assert_no_static_check_fails();
    check_variant_with("03", "bank_conflicts.cu",
                       "__device__ __noinline__ void cml_move(float *d, const float *s, float k)"
                       " { *d = k * *s; }\n",
                       "        tile[e] = 2.0f * tile[e];\n",
                       "        cml_move(&tile[e], &tile[e], 2.0f);\n", "3.2");
    assert_no_static_check_fails();
}
END_TEST

/* A swizzle in size_t, its store loop stepping by the block's height: the XOR is xor.b64,
 * which the check once refused (it wanted xor.b32). */
START_TEST(size_t_swizzle_passes_the_xor_check)
{
    check_variant("03", "bank_conflicts.cu",
                  SWIZZLE_BODY,
                  "    __shared__ float flat[GRAM * GRAM];\n"
                  "    const size_t i = threadIdx.y, j = threadIdx.x;\n"
                  "    const size_t base = blockIdx.x * (size_t)(GRAM * GRAM);\n"
                  "    for (size_t r = i; r < GRAM; r += blockDim.y) // any block height\n"
                  "        flat[r * GRAM + (j ^ r)] = in[base + r * GRAM + j];\n"
                  "    __syncthreads();\n    float acc = 0.0f;\n#pragma unroll 4\n"
                  "    for (size_t k = 0; k < GRAM; k++)\n"
                  "        acc += flat[i * GRAM + (k ^ i)] * flat[j * GRAM + (k ^ j)];\n",
                  "3.3b");
    assert_no_static_check_fails();
}
END_TEST

/* The solutions themselves pass every static check of every task (ptx, forbid). */
START_TEST(solutions_pass_every_static_check)
{
    const char *labs[] = { "03", "04", "07" };
    for (size_t l = 0; l < sizeof labs / sizeof labs[0]; l++) {
        const cml_lab_spec *spec = variant_lab(labs[l]);
        for (int k = 0; k < spec->ntasks; k++) {
            int statics = 0;
            for (int i = 0; i < spec->tasks[k].ntech; i++)
                statics += spec->tasks[k].tech[i].kind == CML_TECH_PTX ||
                           spec->tasks[k].tech[i].kind == CML_TECH_FORBID;
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
    tcase_add_test(tc, volatile_tile_passes_the_shared_memory_checks);
    tcase_add_test(tc, size_t_swizzle_passes_the_xor_check);
    tcase_add_test(tc, int4_through_ldg_passes_the_vector_checks);
    tcase_add_test(tc, template_kernel_passes_the_vector_checks);
    tcase_add_test(tc, kernel_launched_through_a_table_passes_the_vector_checks);
    tcase_add_test(tc, launch_as_the_last_statement_passes_the_vector_checks);
    tcase_add_test(tc, static_kernel_through_cudaLaunchKernel_passes_the_vector_checks);
    tcase_add_test(tc, annotated_ptr_streaming_passes_the_vector_checks);
    tcase_add_test(tc, streaming_intrinsics_pass_the_vector_checks);
    tcase_add_test(tc, scalar_middle_fails_the_vector_checks);
    tcase_add_test(tc, unlaunched_vector_kernel_fails_the_vector_checks);
    tcase_add_test(tc, device_lambda_and_std_max_in_a_kernel_build);
    tcase_add_test(tc, repository_path_includes_build);
    tcase_add_test(tc, cub_and_thrust_headers_build);
    tcase_add_test(tc, old_copies_under_if0_pass_the_no_copy_check);
    tcase_add_test(tc, token_pasted_copy_fails_the_no_copy_check);
    tcase_add_test(tc, copies_through_a_library_fail_the_no_copy_check);
    variants_planted_add(tc);
    variants_probe_add(tc);
    suite_add_tcase(s, tc);
    return s;
}
