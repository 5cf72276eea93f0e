/* The test runner's progress (tests/check_runner.c): a line as each suite starts and one as it
 * ends, with its count and seconds, Check's line for each failure, and CK_RUN_SUITE kept. */
#include <stdlib.h>
#include <string.h>

#include "check_runner.h"
#include "suites.h"

START_TEST(passes) { ck_assert_int_eq(1, 1); }
END_TEST

START_TEST(fails) { ck_assert_msg(0, "planted failure"); }
END_TEST

static Suite *alpha(void)
{
    Suite *s = suite_create("alpha");
    TCase *tc = tcase_create("a");
    tcase_add_test(tc, passes);
    tcase_add_test(tc, passes);
    suite_add_tcase(s, tc);
    return s;
}

static Suite *beta(void)
{
    Suite *s = suite_create("beta");
    TCase *tc = tcase_create("b");
    tcase_add_test(tc, fails);
    suite_add_tcase(s, tc);
    return s;
}

/* The progress text of running alpha and beta (in a static buffer); the counts into run and
 * failed. */
static const char *progress_of(int *run, int *failed)
{
    static const runner_suite list[] = { { "alpha", alpha }, { "beta", beta } };
    static char text[8192];
    memset(text, 0, sizeof text);
    FILE *m = fmemopen(text, sizeof text - 1, "w");
    *run = *failed = 0;
    runner_run(list, 2, m, run, failed);
    fclose(m);
    return text;
}

/* Where needle first is in hay, -1 when nowhere. */
static long at(const char *hay, const char *needle)
{
    const char *p = strstr(hay, needle);
    return p ? (long)(p - hay) : -1;
}

/* This test's own filters must not filter the runs inside it. */
static void clear_filters(void)
{
    unsetenv("CK_RUN_SUITE");
    unsetenv("CK_RUN_CASE");
    unsetenv("CK_INCLUDE_TAGS");
    unsetenv("CK_EXCLUDE_TAGS");
    unsetenv("CK_VERBOSITY");
}

START_TEST(runner_says_each_suite_as_it_starts_and_ends)
{
    int run, failed;
    clear_filters();
    const char *text = progress_of(&run, &failed);
    ck_assert_int_eq(run, 3);
    ck_assert_int_eq(failed, 1);
    long start = at(text, "[ 1/2] alpha ...\n"), end = at(text, "[ 1/2] alpha: 2 tests, 0 failed");
    long beta_end = at(text, "[ 2/2] beta: 1 test, 1 failed, ");
    int in_order = start >= 0 && end > start && beta_end > end && at(text, " s (total ") > end;
    ck_assert_msg(in_order, "progress:\n%s", text);
    ck_assert_msg(strstr(text, ":F:b: planted failure\n"), "progress:\n%s", text);
}
END_TEST

START_TEST(runner_leaves_out_suites_ck_run_suite_does_not_name)
{
    int run, failed;
    clear_filters();
    setenv("CK_RUN_SUITE", "beta", 1);
    const char *text = progress_of(&run, &failed);
    ck_assert_msg(!strstr(text, "alpha") && strstr(text, "[ 2/2] beta ..."), "%s", text);
    ck_assert_int_eq(run, 1);
}
END_TEST

/* The runner's suite. */
Suite *runner_suite_of_tests(void)
{
    Suite *s = suite_create("runner");
    TCase *tc = tcase_create("progress");
    tcase_add_test(tc, runner_says_each_suite_as_it_starts_and_ends);
    tcase_add_test(tc, runner_leaves_out_suites_ck_run_suite_does_not_name);
    suite_add_tcase(s, tc);
    return s;
}
