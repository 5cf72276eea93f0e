/* Trace checks at every traced case (issue 44, grader/src/6_measure/trace_run.c): a task's
 * `trace_case` lines add cases its trace checks must hold at, each its own traced run, and a
 * bound may scale with a case parameter (`8*n`). The fake lab writes one trace for the small
 * case and another (FAKE_TRACE_ALSO) for the case holding FAKE_TRACE_WHEN: a lab that behaves
 * otherwise at a larger size, as lab 06's 6.2 skipping its copy out from two passes on. */
#include "technique_fixture.h"
#include "suites.h"
#include "technique_run.h"

static const char NM_TEXT[] = "0000000000001000 T main\n"
                              "0000000000002000 T _Z6portedPfi\n"
                              "0000000000003000 t _ZL7harnessv\n";
static const char SYMBOLS[] = "T _Z6portedPfi\n";

/* The student's copies: in and out, bytes each way as given. */
#define COPIES(in, out)                                                                      \
    "cml-trace 1\n"                                                                          \
    "api drv cuMemcpyHtoDAsync_v2 corr=11 frames=2010,1010\n"                                \
    "memcpy kind=1 bytes=" #in " corr=11 rtcorr=0 stream=7\n"                                \
    "api drv cuMemcpyDtoHAsync_v2 corr=12 frames=2020,1020\n"                                \
    "memcpy kind=2 bytes=" #out " corr=12 rtcorr=0 stream=7\nend\n"

static void two_traces(const char *small, const char *large)
{
    fake_trace_tools(NM_TEXT, SYMBOLS);
    put("small.txt", small, 0);
    put("large.txt", large, 0);
    setenv("FAKE_TRACE", in_dir("small.txt"), 1);
    setenv("FAKE_TRACE_ALSO", in_dir("large.txt"), 1);
    setenv("FAKE_TRACE_WHEN", "n=1024", 1);
}

static void unset(void)
{
    const char *vars[] = {"CML_TRACE_LIB", "CML_NM", "FAKE_TRACE", "FAKE_TRACE_ALSO",
                          "FAKE_TRACE_WHEN"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);
}

/* 6.2's limits per element: 8 bytes in and 4 out per n, at n = 256 and at n = 1024. */
#define PER_ELEMENT "trace copy_htod 8*n.. in\ntrace copy_dtoh 4*n.. out\nncu_case n=256\n" \
                    "trace_case n=1024"

/* A lab that copies its result out at the small case only (as a 6.2 whose last pass wrote the
 * host buffer through its mapped address from two passes on) fails at the large case, and the
 * verdict names it. */
START_TEST(a_violation_at_the_second_case_fails)
{
    two_traces(COPIES(2048, 1024), COPIES(8192, 0));
    grade(PER_ELEMENT, "passed");
    unset();
    assert_check(0, CML_TECH_PASSED, "copy_htod = 2048 bytes >= 2048");
    assert_check(0, CML_TECH_PASSED, "held also at n=1024: 8192");
    assert_check(1, CML_TECH_FAILED, "copy_dtoh = 0 bytes < minimum 4096, traced over 2 memory calls "
                                     "of your code (case 1.1,n=1024)");
    ck_assert_str_eq(cml_status_name(r.status), "technique");
}
END_TEST

/* The limit scales: the large case's bytes are four times the small one's, and both pass. A
 * plain limit of the small case's bytes would let the large case copy a quarter. */
START_TEST(an_honest_lab_passes_at_every_case)
{
    two_traces(COPIES(2048, 1024), COPIES(8192, 4096));
    grade(PER_ELEMENT, "passed");
    unset();
    assert_check(0, CML_TECH_PASSED, "held also at n=1024: 8192");
    assert_check(1, CML_TECH_PASSED, "copy_dtoh = 1024 bytes >= 1024");
    ck_assert_str_eq(cml_status_name(r.status), "passed");
    two_traces(COPIES(2048, 1024), COPIES(2048, 1024)); /* a quarter at n = 1024 */
    grade(PER_ELEMENT, "passed");
    unset();
    assert_check(0, CML_TECH_FAILED, "copy_htod = 2048 bytes < minimum 8192");
}
END_TEST

/* One traced run per case, each with the case's own --case; the traced cases are timed when a
 * check compares timed calls. */
START_TEST(each_case_is_its_own_run)
{
    two_traces(COPIES(2048, 1024), COPIES(8192, 4096));
    grade("trace copy_htod 8*n.. in\ntrace calls_unlike_checked 0 same\nncu_case n=256\n"
          "trace_case n=1024\ntrace_case n=4096", "passed");
    assert_check(0, CML_TECH_FAILED, "(case 1.1,n=4096,time)"); /* 2048 < 8 x 4096 */
    static cml_trace_run run;
    cml_trace_collect(&spec, &spec.tasks[0], &env, &run);
    unset();
    ck_assert_int_eq(run.n, 3);
    ck_assert_str_eq(run.c[0].one, "1.1,n=256,time");
    ck_assert_str_eq(run.c[1].one, "1.1,n=1024,time");
    ck_assert_str_eq(run.c[2].one, "1.1,n=4096,time");
    ck_assert(run.c[1].rc == 0 && run.c[1].tally.v[CML_TRACE_HTOD] == 8192);
    ck_assert(run.c[2].rc == 0 && run.c[2].tally.v[CML_TRACE_HTOD] == 2048);
}
END_TEST

START_TEST(trace_cases_and_scaled_bounds_are_read_by_the_spec)
{
    ck_assert_msg(load(HEAD TASK "trace copy_htod 8*n.. in\ntrace launches_per_call 1*passes.. "
                       "a launch per pass\nncu_case n=256,passes=2\n"
                       "trace_case n=1024,passes=3\ntechnique 1\n") == 0, "%s", err);
    const cml_task_spec *t = &spec.tasks[0];
    ck_assert(t->tech[0].min == 8 && strcmp(t->tech[0].min_per, "n") == 0);
    ck_assert(t->tech[0].max == HUGE_VAL && t->tech[0].max_per[0] == '\0');
    ck_assert_int_eq(t->ntrace_also, 1);
    ck_assert_str_eq(t->trace_also[0], "n=1024,passes=3");
    double lo = 0, hi = 0;
    ck_assert_int_eq(cml_tech_bounds_at(&t->tech[1], "n=1024,passes=3,time", &lo, &hi), 0);
    ck_assert(lo == 3 && hi == HUGE_VAL);
    ck_assert_int_eq(cml_tech_bounds_at(&t->tech[1], "n=1024", &lo, &hi), -1);
    /* every traced case must have the parameter, and every profiled case an ncu bound's */
    rejected(HEAD TASK "trace copy_htod 8*n.. in\ntrace_case n=4,passes=2\nncu_case offset=1\n"
             "technique 1\n", "lacks");
    rejected(HEAD TASK "trace copy_htod 8*.. in\ntechnique 1\n", "<number>*<case parameter>");
    rejected(HEAD TASK "ncu * m.sum 0.5*n x\nncu_case n=8\nncu_case offset=1\ntechnique 1\n",
             "lacks");
    ck_assert_msg(load(HEAD TASK "ncu * m.sum 0.5*n x\nncu_case n=8\nncu_case n=16,offset=1\n"
                       "technique 1\n") == 0, "%s", err);
    ck_assert_int_eq(cml_tech_bounds_at(&spec.tasks[0].tech[0], "4.1,n=16,offset=1", &lo, &hi),
                     0);
    ck_assert(hi == 8);
    rejected(HEAD TASK "trace copy_htod 0 in\ntrace_case n=4 time\ntechnique 1\n",
             "drop 'time'");
    rejected(HEAD TASK "trace copy_htod 0 in\ntrace_case n=1\ntrace_case n=2\ntrace_case n=3\n"
             "trace_case n=4\ntechnique 1\n", "at most 3");
    rejected(HEAD TASK "trace_case n=4\n", "no check");
}
END_TEST

/* The graded specs (issue 44): every trace task of labs 06 and 07 is traced at a large case
 * as well, with several passes where passes exist; 6.2's copy limits scale with n; 6.3's launch
 * count with passes; 7.1 counts one store per element of its ncu case. */
START_TEST(labs_06_and_07_trace_a_large_case)
{
    const char *labs[] = {"grader/specs/06_zero_copy.spec", "grader/specs/07_unified_memory.spec"};
    for (int l = 0; l < 2; l++) {
        static cml_lab_spec s;
        ck_assert_msg(cml_spec_load(test_path(labs[l]), &s, err, sizeof err) == 0, "%s", err);
        for (int i = 0; i < s.ntasks; i++) {
            const cml_task_spec *t = &s.tasks[i];
            int big = 0, stream = 0;
            for (int k = 0; k < t->ntrace_also; k++) {
                double n = 0, rows = 0, cols = 0, passes = 0;
                cml_case_param(t->trace_also[k], "passes", &passes);
                big |= (cml_case_param(t->trace_also[k], "n", &n) == 0 && n >= 4194304 &&
                        passes >= 2) ||
                       (cml_case_param(t->trace_also[k], "rows", &rows) == 0 &&
                        cml_case_param(t->trace_also[k], "cols", &cols) == 0 &&
                        rows * cols > (1 << 20));
            }
            for (int k = 0; k < t->ntech; k++)
                stream |= strcmp(t->tech[k].metric, "ops_not_on_stream") == 0 &&
                          t->tech[k].max == 0;
            ck_assert_msg(big, "task %s traces no large case", t->id);
            ck_assert_msg(stream || strcmp(t->id, "7.1") == 0, "task %s: ops_not_on_stream",
                          t->id);
            if (strcmp(t->id, "6.2") == 0)
                ck_assert(strcmp(t->tech[2].metric, "copy_htod") == 0 &&
                          strcmp(t->tech[2].min_per, "n") == 0 && t->tech[2].min == 8);
        }
    }
}
END_TEST

/* Contract in suites.h. */
void technique_trace_cases_add(Suite *s)
{
    TCase *tc = tcase_create("trace_cases");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, a_violation_at_the_second_case_fails);
    tcase_add_test(tc, an_honest_lab_passes_at_every_case);
    tcase_add_test(tc, each_case_is_its_own_run);
    tcase_add_test(tc, trace_cases_and_scaled_bounds_are_read_by_the_spec);
    tcase_add_test(tc, labs_06_and_07_trace_a_large_case);
    suite_add_tcase(s, tc);
}
