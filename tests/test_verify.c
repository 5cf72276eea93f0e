/* verify: real output files, built here from cml_rand.h with the formulas of
 * docs/SPEC.md (not with the grader's own code), correct and broken in the ways a
 * student's kernel breaks them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cml_rand.h"
#include "verify.h"
#include "suites.h"

#define SEED 0x5eedULL

static char dir[64], out[128];
static cml_task_spec task;
static cml_case_spec kase;
static cml_case_record rec;
static cml_case_verdict v;

static void setup(void)
{
    strcpy(dir, "/tmp/cml_verify_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/case0.bin", dir);
    memset(&task, 0, sizeof task);
    memset(&kase, 0, sizeof kase);
    memset(&rec, 0, sizeof rec);
    strcpy(task.id, "1.1");
    rec.status = CML_CASE_OK;
    strcpy(rec.task, "1.1");
    rec.elem_bytes = 4;
}

static void teardown(void)
{
    unlink(out);
    rmdir(dir);
}

static void write_floats(const float *x, size_t n)
{
    FILE *f = fopen(out, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(x, sizeof *x, n, f), n);
    fclose(f);
}

/* The right output of a copy of n elements (caller frees). */
static float *copy_output(uint64_t n)
{
    float *x = malloc(n * sizeof *x);
    for (uint64_t i = 0; i < n; i++)
        x[i] = cml_rand_f32_all(SEED, 0, i);
    return x;
}

/* The right output of a rows x cols transpose: out[c*rows + r] = in0[r*cols + c]. */
static float *transpose_output(uint64_t rows, uint64_t cols)
{
    float *x = malloc(rows * cols * sizeof *x);
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t c = 0; c < cols; c++)
            x[c * rows + r] = cml_rand_f32_all(SEED, 0, r * cols + c);
    return x;
}

static int verify(const char *check)
{
    snprintf(task.check, sizeof task.check, "%s", check);
    return cml_verify_case(&task, &kase, SEED, out, &rec, &v);
}

/* A copy case of n elements whose output has been written, one element replaced by bad. */
static int verify_copy_with(uint64_t n, uint64_t at, float bad)
{
    float *x = copy_output(n);
    if (at < n)
        x[at] = bad;
    kase.n = n;
    write_floats(x, n);
    free(x);
    return verify("copy");
}

START_TEST(passes_correct_copy)
{
    ck_assert_int_eq(verify_copy_with(4097, ~0ull, 0), 1);
    ck_assert_uint_eq(v.nbad, 0);
    ck_assert_str_eq(v.reason, "");
}
END_TEST

/* Lab 04's points: x, y, z become 2*v + (1, -2, 0.5); a fourth float (w) is copied. Inputs:
 * x, y, z over a coordinate's values, w over every float (labs/04_float4/harness.cu). */
START_TEST(passes_points_and_names_the_component)
{
    enum { N = 1001 };
    static float x[4 * N];
    const float d[4] = {1.0f, -2.0f, 0.5f, 0.0f};
    kase.n = N;
    for (int width = 3; width <= 4; width++) {
        for (uint64_t i = 0; i < (uint64_t)width * N; i++) {
            float in = i % width == 3 ? cml_rand_f32_all(SEED, 0, i)
                                      : cml_rand_f32_domain(SEED, 0, i);
            x[i] = i % width == 3 ? in : 2.0f * in + d[i % width];
        }
        write_floats(x, (size_t)width * N);
        ck_assert_int_eq(verify(width == 3 ? "points3" : "points4"), 1);
    }
    uint32_t w7;
    memcpy(&w7, &x[4 * 7 + 3], sizeof w7);
    w7 ^= 1u; /* point 7's w, one bit off (whatever value it holds) */
    memcpy(&x[4 * 7 + 3], &w7, sizeof w7);
    write_floats(x, 4 * N);
    ck_assert_int_eq(verify("points4"), 0);
    ck_assert_ptr_nonnull(strstr(v.reason, "point 7, w"));
}
END_TEST

START_TEST(passes_correct_transpose_33x65)
{
    float *x = transpose_output(33, 65);
    kase.rows = 33, kase.cols = 65;
    write_floats(x, 33 * 65);
    free(x);
    ck_assert_int_eq(verify("transpose"), 1);
}
END_TEST

START_TEST(passes_transpose_1x1)
{
    float *x = transpose_output(1, 1);
    kase.rows = 1, kase.cols = 1;
    write_floats(x, 1);
    free(x);
    ck_assert_int_eq(verify("transpose"), 1);
}
END_TEST

START_TEST(rejects_untransposed_copy_and_says_where)
{
    float *x = copy_output(33 * 65); /* rows x cols copied, not transposed */
    kase.rows = 33, kase.cols = 65;
    write_floats(x, 33 * 65);
    free(x);
    ck_assert_int_eq(verify("transpose"), 0);
    ck_assert_uint_eq(v.mis[0].index, 1);
    ck_assert_ptr_nonnull(strstr(v.reason, "first at index 1 (output row 0, column 1)"));
}
END_TEST

START_TEST(passes_gather_with_offset_and_stride)
{
    float x[1000];
    for (int i = 0; i < 1000; i++)
        x[i] = cml_rand_f32_all(SEED, 0, 3 + (uint64_t)i * 7);
    kase.n = 1000, kase.offset = 3, kase.stride = 7;
    write_floats(x, 1000);
    ck_assert_int_eq(verify("gather"), 1);
}
END_TEST

/* offset (lab 04's 4.1) and gather (lab 01's 1.3) read every bit pattern; cml_rand_f32's
 * inputs are not 4.1's since round 5 (tests/test_verify_bits.c) */
START_TEST(gather_stride_zero_means_one)
{
    float x[100];
    for (int i = 0; i < 100; i++)
        x[i] = cml_rand_f32_all(SEED, 0, 5 + (uint64_t)i);
    kase.n = 100, kase.offset = 5;
    write_floats(x, 100);
    ck_assert_int_eq(verify("offset"), 1);
    ck_assert_int_eq(verify("gather"), 1);
    for (int i = 0; i < 100; i++)
        x[i] = cml_rand_f32(SEED, 0, 5 + (uint64_t)i);
    write_floats(x, 100);
    ck_assert_int_eq(verify("offset"), 0);
}
END_TEST

START_TEST(rejects_one_bad_element)
{
    float want = cml_rand_f32_all(SEED, 0, 5); /* 2.62937 */
    ck_assert_int_eq(verify_copy_with(4097, 5, want * 2), 0);
    ck_assert_uint_eq(v.nbad, 1);
    ck_assert_int_eq(v.nmis, 1);
    ck_assert_uint_eq(v.mis[0].index, 5);
    ck_assert_double_eq(v.mis[0].expected, want);
    ck_assert_double_eq(v.mis[0].got, want * 2);
    ck_assert_ptr_nonnull(
        strstr(v.reason, "1 of 4097 elements differ; first at index 5: expected"));
}
END_TEST

START_TEST(rejects_nan_in_output)
{
    ck_assert_int_eq(verify_copy_with(100, 42, NAN), 0);
    ck_assert_ptr_nonnull(strstr(v.reason, "got nan"));
}
END_TEST

START_TEST(rejects_nan_even_under_relative_tolerance)
{
    task.rel_tol = 1e-3;
    ck_assert_int_eq(verify_copy_with(100, 42, NAN), 0);
    ck_assert_int_eq(verify_copy_with(100, 42, INFINITY), 0);
}
END_TEST

START_TEST(relative_tolerance_accepts_small_error)
{
    task.rel_tol = 1e-5;
    float want = cml_rand_f32_all(SEED, 0, 7); /* -5.62e32 */
    ck_assert_int_eq(verify_copy_with(1000, 7, nextafterf(want, 10.0f)), 1);
}
END_TEST

START_TEST(relative_tolerance_rejects_large_error)
{
    task.rel_tol = 1e-5;
    float want = cml_rand_f32_all(SEED, 0, 7); /* -5.62e32 */
    ck_assert_int_eq(verify_copy_with(1000, 7, want * 1.001f), 0);
}
END_TEST

START_TEST(exact_compare_rejects_one_ulp)
{
    float want = cml_rand_f32_all(SEED, 0, 7); /* -5.62e32 */
    ck_assert_int_eq(verify_copy_with(1000, 7, nextafterf(want, 10.0f)), 0);
}
END_TEST

START_TEST(counts_all_mismatches_and_keeps_the_first_five)
{
    float *x = copy_output(100000);
    for (int i = 0; i < 100000; i += 10)
        x[i] = -x[i];
    kase.n = 100000;
    write_floats(x, 100000);
    free(x);
    ck_assert_int_eq(verify("copy"), 0);
    ck_assert_uint_eq(v.nbad, 10000);
    ck_assert_int_eq(v.nmis, CML_MAX_MISMATCH);
    ck_assert_uint_eq(v.mis[4].index, 40);
    ck_assert_ptr_nonnull(strstr(v.reason, "10000 of 100000 elements differ; first at index 0"));
}
END_TEST

/* A file large enough to be compared in several slices on several threads (4 Mi elements: 64
 * chunks of 64 Ki): counts add up across slices, and the mismatches kept are the file's first,
 * in index order, even when later slices finish first. */
START_TEST(large_file_counts_across_slices_and_keeps_the_first_mismatches)
{
    const uint64_t n = 4u << 20;
    float *x = copy_output(n);
    const uint64_t bad[] = {3u << 20, (3u << 20) + 7, 1500000, 1500001, 65536 * 5 + 3,
                            n - 1, 2u << 20};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        x[bad[i]] = -x[bad[i]] - 1;
    memset(x + (n - 40), CML_POISON_BYTE, 20 * sizeof *x); /* unwritten, in the last slice */
    kase.n = n;
    write_floats(x, n);
    free(x);
    ck_assert_int_eq(verify("copy"), 0);
    ck_assert_uint_eq(v.nbad, 7 + 20);
    ck_assert_int_eq(v.nmis, CML_MAX_MISMATCH);
    const uint64_t first[CML_MAX_MISMATCH] = {65536 * 5 + 3, 1500000, 1500001, 2u << 20,
                                              3u << 20};
    for (int i = 0; i < CML_MAX_MISMATCH; i++)
        ck_assert_uint_eq(v.mis[i].index, first[i]);
    ck_assert_ptr_nonnull(strstr(v.reason, "27 of 4194304 elements differ (20 never written); "
                                           "first at index 327683"));
}
END_TEST

START_TEST(rejects_short_file)
{
    float *x = copy_output(4096);
    kase.n = 4097;
    write_floats(x, 4096);
    free(x);
    ck_assert_int_eq(verify("copy"), 0);
    ck_assert_str_eq(v.reason, "expected 4097 elements, file has 4096");
}
END_TEST

START_TEST(rejects_file_of_partial_elements)
{
    FILE *f = fopen(out, "wb");
    fwrite("abcdef", 1, 6, f);
    fclose(f);
    kase.n = 2;
    ck_assert_int_eq(verify("copy"), 0);
    ck_assert_str_eq(v.reason, "expected 2 elements (8 bytes), file has 6 bytes");
}
END_TEST

START_TEST(reports_missing_output_file)
{
    kase.n = 10;
    ck_assert_int_eq(verify("copy"), 0);
    ck_assert_str_eq(v.reason, "output file case0.bin missing");
}
END_TEST

START_TEST(refuses_a_symbolic_link_as_output)
{
    ck_assert_int_eq(symlink("/etc/passwd", out), 0);
    kase.n = 10;
    ck_assert_int_eq(verify("copy"), 0);
    ck_assert_ptr_nonnull(strstr(v.reason, "output case0.bin is a symbolic link"));
}
END_TEST

START_TEST(reports_output_never_written)
{
    float *x = malloc(5000 * sizeof *x);
    memset(x, CML_POISON_BYTE, 5000 * sizeof *x);
    kase.n = 5000;
    write_floats(x, 5000);
    free(x);
    ck_assert_int_eq(verify("copy"), 0);
    ck_assert_str_eq(v.reason, "output never written (still the poison pattern)");
}
END_TEST

START_TEST(counts_elements_left_unwritten)
{
    float *x = copy_output(1000);
    memset(x + 990, CML_POISON_BYTE, 10 * sizeof *x); /* the tail nobody wrote */
    kase.n = 1000;
    write_floats(x, 1000);
    free(x);
    ck_assert_int_eq(verify("copy"), 0);
    ck_assert_ptr_nonnull(strstr(v.reason, "10 of 1000 elements differ (10 never written); "
                                           "first at index 990"));
}
END_TEST

START_TEST(todo_record_gives_todo_reason)
{
    rec.status = CML_CASE_TODO;
    strcpy(rec.msg, "write the coalesced copy kernel");
    kase.n = 10;
    ck_assert_int_eq(verify("copy"), 0);
    ck_assert_str_eq(v.reason, "TODO(1.1): write the coalesced copy kernel");
}
END_TEST

START_TEST(error_record_gives_its_message)
{
    rec.status = CML_CASE_ERROR;
    strcpy(rec.msg, "CUDA error an illegal memory access was encountered");
    kase.n = 10;
    ck_assert_int_eq(verify("copy"), 0);
    ck_assert_str_eq(v.reason, "CUDA error an illegal memory access was encountered");
}
END_TEST

START_TEST(missing_record_says_the_binary_stopped)
{
    kase.n = 10;
    snprintf(task.check, sizeof task.check, "copy");
    ck_assert_int_eq(cml_verify_case(&task, &kase, SEED, out, NULL, &v), 0);
    ck_assert_str_eq(v.reason, "no result: the lab binary stopped before this case");
}
END_TEST

START_TEST(depends_on_the_seed)
{
    float *x = copy_output(64);
    kase.n = 64;
    write_floats(x, 64);
    free(x);
    snprintf(task.check, sizeof task.check, "copy");
    ck_assert_int_eq(cml_verify_case(&task, &kase, SEED + 1, out, &rec, &v), 0);
}
END_TEST

/* The verifier's suite. */
Suite *verify_suite(void)
{
    Suite *s = suite_create("verify");
    TCase *right = tcase_create("correct outputs"), *wrong = tcase_create("wrong outputs");
    TCase *records = tcase_create("records and files");
    tcase_add_checked_fixture(right, setup, teardown);
    tcase_add_checked_fixture(wrong, setup, teardown);
    tcase_add_checked_fixture(records, setup, teardown);
    tcase_add_test(right, passes_correct_copy);
    tcase_add_test(right, passes_correct_transpose_33x65);
    tcase_add_test(right, passes_points_and_names_the_component);
    tcase_add_test(right, passes_transpose_1x1);
    tcase_add_test(right, passes_gather_with_offset_and_stride);
    tcase_add_test(right, gather_stride_zero_means_one);
    tcase_add_test(right, relative_tolerance_accepts_small_error);
    tcase_add_test(wrong, rejects_untransposed_copy_and_says_where);
    tcase_add_test(wrong, rejects_one_bad_element);
    tcase_add_test(wrong, rejects_nan_in_output);
    tcase_add_test(wrong, rejects_nan_even_under_relative_tolerance);
    tcase_add_test(wrong, relative_tolerance_rejects_large_error);
    tcase_add_test(wrong, exact_compare_rejects_one_ulp);
    tcase_add_test(wrong, counts_all_mismatches_and_keeps_the_first_five);
    tcase_add_test(wrong, large_file_counts_across_slices_and_keeps_the_first_mismatches);
    tcase_add_test(wrong, reports_output_never_written);
    tcase_add_test(wrong, counts_elements_left_unwritten);
    tcase_add_test(wrong, depends_on_the_seed);
    tcase_add_test(records, rejects_short_file);
    tcase_add_test(records, rejects_file_of_partial_elements);
    tcase_add_test(records, reports_missing_output_file);
    tcase_add_test(records, refuses_a_symbolic_link_as_output);
    tcase_add_test(records, todo_record_gives_todo_reason);
    tcase_add_test(records, error_record_gives_its_message);
    tcase_add_test(records, missing_record_says_the_binary_stopped);
    suite_add_tcase(s, right);
    suite_add_tcase(s, wrong);
    suite_add_tcase(s, records);
    verify_passthrough_add(s);
    verify_inputs_add(s);
    verify_bits_add(s);
    return s;
}
