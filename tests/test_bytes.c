/* Bytes moved are the grader's own count (cml_case_bytes), never the lab's `bytes=` claim. The
 * count must still be what an honest harness reports, so GB/s and the fraction of the copy
 * bandwidth mean what the lecture notes say: the table below is each harness's expression,
 * read from labs/NN_name/harness.cu, checked against the grader for every case of every spec. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "helpers.h"
#include "suites.h"
#include "verify.h"

/* The value of `key` in a case's text ("n=9,passes=3"), or `fallback`. */
static uint64_t key(const cml_case_spec *c, const char *k, uint64_t fallback)
{
    size_t len = strlen(k);
    for (const char *s = c->text; *s; s += strcspn(s, ","), s += (*s == ','))
        if (strncmp(s, k, len) == 0 && s[len] == '=')
            return strtoull(s + len + 1, NULL, 10);
    return fallback;
}

/* What the lab's harness passes as `bytes` for case c of task id (its run function and line);
 * -1 for a task the table does not know. */
static int harness_bytes(const char *id, const cml_case_spec *c, uint64_t *out)
{
    const uint64_t f = 4, n = c->n, rc = c->rows * c->cols;
    static const struct {
        const char *ids;
        int kind;
    } TABLE[] = {
        {" 1.1 1.3 3.2 3.3a 3.3b 4.1 ", 0}, /* run_copy, run_gather, run_scale, run_gram,
                                               run_copy_with: 2 * n * sizeof(float) */
        {" 1.2a 1.2b 2.1 2.2 ", 1},         /* run_transpose, run_matrix: 2 * elems * 4 */
        {" 3.1 ", 2},                       /* run_degree: 0 (host code, never timed) */
        {" 4.2a ", 3},                      /* run_points<.., 3>: 2 * (3 * n) * 4 */
        {" 4.2b ", 4},                      /* run_points<.., 4>: 2 * (4 * n) * 4 */
        {" 5.1 ", 5},                       /* run_update_soa: 36 * n */
        {" 5.2 ", 6},                       /* run_potential_soa: 12 * n */
        {" 5.3 ", 7},                       /* run_aos_to_soa: 64 * n */
        {" 6.1 ", 8},                       /* link_io(n, passes): 2f + f, f = n*4*passes */
        {" 6.2 6.3a 6.3b ", 9},             /* link_io(n, 1): 2f + f, f = n * 4 */
        {" 7.1 7.2 7.3 ", 10},              /* run_kind: {2f, f}, f = rows * cols * 4 */
    };
    char word[24];
    snprintf(word, sizeof word, " %s ", id);
    for (size_t i = 0; i < sizeof TABLE / sizeof TABLE[0]; i++) {
        if (!strstr(TABLE[i].ids, word))
            continue;
        const uint64_t v[] = {2 * n * f, 2 * rc * f, 0, 2 * 3 * n * f, 2 * 4 * n * f, 36 * n,
                              12 * n, 64 * n, 3 * n * f * key(c, "passes", 1), 3 * n * f,
                              3 * rc * f};
        *out = v[TABLE[i].kind];
        return 0;
    }
    return -1;
}

START_TEST(grader_counts_what_every_harness_reports)
{
    static cml_lab_spec specs[CML_MAX_LABS];
    char err[512];
    int nlabs = cml_load_specs(test_root(), NULL, specs, CML_MAX_LABS, err, sizeof err);
    int ncases = 0;
    ck_assert_msg(nlabs == 7, "%d specs: %s", nlabs, err);
    for (int l = 0; l < nlabs; l++)
        for (int t = 0; t < specs[l].ntasks; t++) {
            const cml_task_spec *task = &specs[l].tasks[t];
            for (int c = 0; c < task->ncases; c++, ncases++) {
                uint64_t want = 0, got = cml_case_bytes(task, &task->cases[c]);
                ck_assert_msg(harness_bytes(task->id, &task->cases[c], &want) == 0,
                              "task %s is not in the table of harness byte counts", task->id);
                ck_assert_msg(got == want, "task %s case %s: the grader counts %llu bytes, the "
                              "harness reports %llu", task->id, task->cases[c].text,
                              (unsigned long long)got, (unsigned long long)want);
            }
        }
    ck_assert_int_gt(ncases, 100);
}
END_TEST

/* The zero-copy count differs from the copies' count once a case has several passes. */
START_TEST(zero_copy_counts_every_pass_and_copies_count_one)
{
    cml_task_spec mapped = {.check = "saxpy_mapped"}, copies = {.check = "saxpy"};
    cml_case_spec c = {.text = "n=1000,passes=10", .n = 1000};
    ck_assert_uint_eq(cml_case_bytes(&mapped, &c), 120000);
    ck_assert_uint_eq(cml_case_bytes(&copies, &c), 12000);
}
END_TEST

START_TEST(unknown_check_counts_no_bytes)
{
    cml_task_spec t = {.check = "nonesuch"};
    cml_case_spec c = {.text = "n=1000", .n = 1000};
    ck_assert_uint_eq(cml_case_bytes(&t, &c), 0);
}
END_TEST

START_TEST(huge_case_saturates_instead_of_wrapping)
{
    cml_task_spec t = {.check = "copy"};
    cml_case_spec c = {.text = "n=4611686018427387904", .n = (uint64_t)1 << 62};
    ck_assert_uint_eq(cml_case_bytes(&t, &c), UINT64_MAX);
}
END_TEST

/* The grader's byte counts, against the harnesses'. */
TCase *bytes_tcase(void)
{
    TCase *tc = tcase_create("grader-counted bytes");
    tcase_add_test(tc, grader_counts_what_every_harness_reports);
    tcase_add_test(tc, zero_copy_counts_every_pass_and_copies_count_one);
    tcase_add_test(tc, unknown_check_counts_no_bytes);
    tcase_add_test(tc, huge_case_saturates_instead_of_wrapping);
    return tc;
}
