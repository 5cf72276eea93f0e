/* 4.2b's `probe`: Point4 declared 16-byte aligned, read by the compiler from the file as
 * written (2_build/evidence_probe.c). Every spelling of the alignment passes, and so does an
 * alias of float4; a 4-byte-aligned Point4 whose kernel casts to float4 fails it though its
 * PTX has the 128-bit accesses (red team of 2026-11-29, point4_unaligned_struct_cast). Real
 * nvcc builds through variant_build.c; part of the variants suite. */
#include <check.h>
#include <string.h>

#include "suites.h"
#include "technique.h"
#include "variant_build.h"

#define STRUCT "struct __align__(16) Point4 {\n    float x, y, z, w;\n};\n"
#define KERNEL_BODY                                                                            \
    "        const Point4 p = in[i];\n"                                                        \
    "        out[i] = Point4{2.0f * p.x + POINT_DX, 2.0f * p.y + POINT_DY, 2.0f * p.z + "      \
    "POINT_DZ, p.w};\n"

/* alignas(16), a GNU attribute, or an alias of float4: the compiler says 16 each time. */
START_TEST(every_spelling_of_the_alignment_passes_the_probe)
{
    static const char *const SPELLINGS[] = {
        "struct alignas(16) Point4 {\n    float x, y, z, w;\n};\n",
        "struct __attribute__((aligned(16))) Point4 {\n    float x, y, z, w;\n};\n",
        "typedef struct __align__(16) {\n    float x, y, z, w;\n} Point4;\n",
        "using Point4 = float4;\n",
    };
    for (size_t i = 0; i < sizeof SPELLINGS / sizeof SPELLINGS[0]; i++) {
        check_variant("04", "vectorized.cu", STRUCT, SPELLINGS[i], "4.2b");
        assert_kind(CML_TECH_PROBE, CML_TECH_PASSED);
        assert_kind(CML_TECH_PTX, CML_TECH_PASSED);
    }
}
END_TEST

/* The struct left at 4-byte alignment, its points moved through float4 casts: the PTX checks
 * pass (ld/st.global.v4), the probe fails and names the condition. */
START_TEST(unaligned_point4_behind_float4_casts_fails_the_probe)
{
    check_variant("04", "vectorized.cu", STRUCT "\n// transformPoint4: the padded point is one "
                  "128-bit load and one 128-bit store; w rides along.\n"
                  "__global__ void transformPoint4(Point4 *__restrict__ out, const Point4 "
                  "*__restrict__ in,\n                                size_t n)\n{\n"
                  "    const size_t step = (size_t)gridDim.x * blockDim.x;\n"
                  "    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; "
                  "i += step) {\n" KERNEL_BODY,
                  "struct Point4 {\n    float x, y, z, w;\n};\n"
                  "__global__ void transformPoint4(Point4 *__restrict__ out, const Point4 "
                  "*__restrict__ in, size_t n)\n{\n"
                  "    const size_t step = (size_t)gridDim.x * blockDim.x;\n"
                  "    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; "
                  "i += step) {\n"
                  "        const float4 p = reinterpret_cast<const float4 *>(in)[i];\n"
                  "        reinterpret_cast<float4 *>(out)[i] = make_float4(2.0f * p.x + "
                  "POINT_DX, 2.0f * p.y + POINT_DY, 2.0f * p.z + POINT_DZ, p.w);\n", "4.2b");
    assert_kind(CML_TECH_PTX, CML_TECH_PASSED);
    assert_kind(CML_TECH_PROBE, CML_TECH_FAILED);
    ck_assert_msg(strstr(kind_detail(CML_TECH_PROBE), "alignof(Point4)==16 does not hold"), "%s",
                  kind_detail(CML_TECH_PROBE));
}
END_TEST

/* Adds the probe tests to the variants suite's case. */
void variants_probe_add(TCase *tc)
{
    tcase_add_test(tc, every_spelling_of_the_alignment_passes_the_probe);
    tcase_add_test(tc, unaligned_point4_behind_float4_casts_fails_the_probe);
}
