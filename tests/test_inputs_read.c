/* "Inputs are only read" (issue 44): the harness keeps a keyed digest of every input a task
 * only reads (common/cml_digest.h), taken at its fill and again after the checked launch
 * (common/cml_inputs.cu). No GPU here: these tests hold the digest to what the check needs (any
 * changed element shows, a restored buffer does not, any order of summing agrees), and the
 * library and harnesses to where the check must stand. Run on a GPU: not yet (see
 * docs/SPEC.md, "Inputs are only read"). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cml_digest.h"
#include "helpers.h"
#include "suites.h"
#include "util.h"

enum { N = 4099 };
static const uint64_t KEY = 0x5eed0f1e1d5ull, SEED = 44;

static uint32_t bits_of(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* The digest as the host's threads take it: parts [b, e), summed in any order. */
static uint64_t digest(uint64_t key, const float *p, size_t b, size_t e)
{
    uint64_t h = 0;
    for (size_t i = b; i < e; i++)
        h += cml_digest_term(key, i, bits_of(p[i]));
    return h;
}

static void fill(float *p, uint32_t stream)
{
    for (size_t i = 0; i < N; i++)
        p[i] = cml_rand_f32(SEED, stream, i);
}

/* Any one element changed in any bit, a sign of zero included, changes the digest. */
START_TEST(a_changed_element_changes_the_digest)
{
    static float x[N];
    fill(x, 0);
    x[17] = 0.0f;
    const uint64_t before = digest(KEY, x, 0, N);
    for (size_t i = 0; i < N; i += 97)
        for (int bit = 0; bit < 32; bit++) {
            uint32_t b = bits_of(x[i]) ^ (1u << bit);
            const float old = x[i];
            memcpy(&x[i], &b, sizeof b);
            ck_assert_msg(digest(KEY, x, 0, N) != before, "element %zu bit %d unseen", i, bit);
            x[i] = old;
        }
    x[17] = -0.0f;
    ck_assert_msg(digest(KEY, x, 0, N) != before, "-0 written over +0 unseen");
}
END_TEST

/* Two elements swapped (the same values, elsewhere) change it too. */
START_TEST(swapped_elements_change_the_digest)
{
    static float x[N];
    fill(x, 0);
    const uint64_t before = digest(KEY, x, 0, N);
    const float t = x[3];
    x[3] = x[4000], x[4000] = t;
    ck_assert(digest(KEY, x, 0, N) != before);
}
END_TEST

/* Lab 06's saxpy that accumulates its passes in y: y no longer holds its fill. The same
 * saxpy that keeps its passes in out leaves y's digest as it was. */
START_TEST(saxpy_accumulating_in_y_is_seen_and_one_using_out_is_not)
{
    static float x[N], y[N], out[N];
    fill(x, 0), fill(y, 1);
    const uint64_t y_filled = digest(KEY, y, 0, N);
    for (size_t i = 0; i < N; i++) {
        out[i] = 2.0f * x[i] + y[i];
        for (int p = 1; p < 3; p++)
            out[i] = 2.0f * x[i] + out[i];
    }
    ck_assert(digest(KEY, y, 0, N) == y_filled);
    for (int p = 0; p < 2; p++)
        for (size_t i = 0; i < N; i++)
            y[i] = 2.0f * x[i] + y[i];
    ck_assert(digest(KEY, y, 0, N) != y_filled);
}
END_TEST

/* A buffer used as scratch and restored bit for bit is unchanged: the rule is about what
 * the caller finds, not about how the task got there. */
START_TEST(a_restored_input_keeps_its_digest)
{
    static float y[N];
    fill(y, 1);
    const uint64_t filled = digest(KEY, y, 0, N);
    for (size_t i = 0; i < N; i++)
        y[i] = y[i] * 2.0f; /* exact: a power of two */
    ck_assert(digest(KEY, y, 0, N) != filled);
    for (size_t i = 0; i < N; i++)
        y[i] = y[i] * 0.5f;
    ck_assert(digest(KEY, y, 0, N) == filled);
}
END_TEST

/* The GPU sums warps then atomics, the host's threads parts: any split agrees. */
START_TEST(any_order_of_summing_gives_the_same_digest)
{
    static float x[N];
    fill(x, 0);
    const uint64_t whole = digest(KEY, x, 0, N);
    ck_assert(digest(KEY, x, 0, 1000) + digest(KEY, x, 1000, 3333) + digest(KEY, x, 3333, N) ==
              whole);
    uint64_t backwards = 0;
    for (size_t i = N; i-- > 0;)
        backwards += cml_digest_term(KEY, i, bits_of(x[i]));
    ck_assert(backwards == whole);
}
END_TEST

/* The key is the run's secret: the same buffer under another key has another digest, so a
 * change made to cancel out under one key shows under the one the run drew. */
START_TEST(the_digest_depends_on_the_key)
{
    static float x[N];
    fill(x, 0);
    ck_assert(digest(KEY, x, 0, N) != digest(KEY + 1, x, 0, N));
}
END_TEST

/* The text of a repository file; the test fails when it cannot be read. */
static char *file_text(const char *rel)
{
    char *t = cml_read_text(test_path(rel), 1u << 20, NULL);
    ck_assert_msg(t != NULL, "cannot read %s", rel);
    return t;
}

/* The library checks after the checked launch finished and before any verdict or timed
 * repetition: the check's reads come after the task's kernels, and no repetition (whose
 * refill would hide the change) runs first. */
START_TEST(the_runner_checks_inputs_between_the_checked_launch_and_any_verdict)
{
    char *t = file_text("common/cml_run_case.cpp");
    const char *run = strstr(t, "static void run_case(");
    ck_assert(run != NULL);
    const char *sync = strstr(run, "sync_task_kernels();");
    const char *check = strstr(run, "cml_case_inputs_intact(");
    const char *verdict = strstr(run, "cml_self_check(");
    const char *timed = strstr(run, "cml_time_device(");
    ck_assert_msg(sync && check && verdict && timed, "run_case lacks a step");
    ck_assert_msg(sync < check && check < verdict && check < timed,
                  "the input check must follow the sync and precede the verdict and timing");
    free(t);
}
END_TEST

/* The inputs lab 06 and 07 hand their tasks are host copies of the case's inputs: each is
 * registered, or the check would see only the device buffers the task never gets. */
START_TEST(host_inputs_of_labs_06_and_07_are_registered)
{
    static const char *const LAB[][3] = {{"labs/06_zero_copy/harness.cu", "\"h_x\"", "\"h_y\""},
                                         {"labs/07_unified_memory/harness.cu", "\"A\"",
                                          "\"B\""}};
    for (int l = 0; l < 2; l++) {
        char *t = file_text(LAB[l][0]);
        const char *call = strstr(t, "cml_input_copy(");
        ck_assert_msg(call && strstr(call, LAB[l][1]) && strstr(call, LAB[l][2]),
                      "%s: its host inputs are not registered with cml_input_copy", LAB[l][0]);
        free(t);
    }
}
END_TEST

void verify_inputs_add(Suite *s)
{
    TCase *tc = tcase_create("inputs only read");
    tcase_add_test(tc, a_changed_element_changes_the_digest);
    tcase_add_test(tc, swapped_elements_change_the_digest);
    tcase_add_test(tc, saxpy_accumulating_in_y_is_seen_and_one_using_out_is_not);
    tcase_add_test(tc, a_restored_input_keeps_its_digest);
    tcase_add_test(tc, any_order_of_summing_gives_the_same_digest);
    tcase_add_test(tc, the_digest_depends_on_the_key);
    tcase_add_test(tc, the_runner_checks_inputs_between_the_checked_launch_and_any_verdict);
    tcase_add_test(tc, host_inputs_of_labs_06_and_07_are_registered);
    suite_add_tcase(s, tc);
}
