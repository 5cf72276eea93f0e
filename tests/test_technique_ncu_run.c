/* The lab under ncu (technique_run.c): it gets the graded runs' result channel and must run
 * its case to `done`, through a fake ncu that starts the fake lab as the real one starts the
 * lab (everything from ./confine on) and then reports a counter. */
#include "technique_fixture.h"
#include "suites.h"

/* Runs the lab with FAKE_UNDER_TOOL set, then prints one row of copyVec's m.sum, 0. */
static const char RUNNING_NCU[] =
    "#!/bin/sh\n[ \"$1\" = --log-file ] && { exec > \"$2\"; shift 2; }\n"
    "while [ $# -gt 0 ] && [ \"$1\" != ./confine ] && [ \"$1\" != ./lab ]; do shift; done\n"
    "FAKE_UNDER_TOOL=1 \"$@\" > /dev/null 2>&1\n"
    "echo '\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"'\n"
    "echo '\"0\",\"1\",\"copyVec\",\"m.sum\",\"\",\"0\"'\nexit 0\n";

/* As ncu says when another profiler holds the GPU's counters: the lab, started, ends after
 * hello (the fake lab's dodge does the same), and ncu's log names the driver's refusal. */
static const char BUSY_NCU[] =
    "#!/bin/sh\n[ \"$1\" = --log-file ] && { exec > \"$2\"; shift 2; }\n"
    "while [ $# -gt 0 ] && [ \"$1\" != ./confine ] && [ \"$1\" != ./lab ]; do shift; done\n"
    "FAKE_UNDER_TOOL=1 FAKE_DODGE=1 \"$@\" > /dev/null 2>&1\n"
    "echo '==ERROR== Profiling failed because a driver resource was unavailable. Ensure that no "
    "other tool (like DCGM) is concurrently collecting profiling data.'\n"
    "echo '==ERROR== The application returned an error code (9).'\nexit 0\n";

/* Task 1.1's ncu check on the fake lab binary under the running fake. */
static void grade_under_running_ncu(void)
{
    setenv("CML_SANDBOX", "off", 1);
    put("ncu-run", RUNNING_NCU, 1);
    setenv("CML_NCU", in_dir("ncu-run"), 1);
    env.bin = test_path("build/fake_lab");
    grade("ncu copyVec m.sum 0 no bank conflicts\nncu_case n=256", "passed");
}

/* A lab that runs its case to the end under ncu keeps the check's verdict. */
START_TEST(lab_that_runs_its_case_under_ncu_is_judged_by_the_counter)
{
    grade_under_running_ncu();
    assert_check(0, CML_TECH_PASSED, "m.sum = 0 <= 0 over 1 launch of kernels matching copyVec");
    ck_assert_str_eq(cml_status_name(r.status), "passed");
}
END_TEST

/* A lab that leaves right after hello when it finds itself under a tool (it could not tell
 * before: the ncu run had no result channel) fails the check, never "not checked". */
START_TEST(lab_that_leaves_early_under_ncu_fails_the_check)
{
    setenv("FAKE_DODGE", "1", 1);
    grade_under_running_ncu();
    unsetenv("FAKE_DODGE");
    assert_check(0, CML_TECH_FAILED, "the lab binary ended under ncu after 0 of 1 case(s), "
                                     "without its done record");
    ck_assert_str_eq(cml_status_name(r.status), "technique");
}
END_TEST

/* The same early end when ncu says the GPU's counters were taken is the machine's doing: not
 * checked, with the reason, never a failure of the student's. */
START_TEST(counters_taken_by_another_profiler_are_not_checked)
{
    setenv("CML_SANDBOX", "off", 1);
    put("ncu-busy", BUSY_NCU, 1);
    setenv("CML_NCU", in_dir("ncu-busy"), 1);
    env.bin = test_path("build/fake_lab");
    grade("ncu copyVec m.sum 0 no bank conflicts\nncu_case n=256", "passed");
    assert_check(0, CML_TECH_NOT_CHECKED, "not checked (the GPU's profiling counters were taken "
                                          "by another profiler, such as DCGM");
}
END_TEST

/* Contract in suites.h: these tests, a test case of the technique suite with this file's own
 * copy of the fixture. */
void technique_ncu_run_add(Suite *s)
{
    TCase *tc = tcase_create("ncu run");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, lab_that_runs_its_case_under_ncu_is_judged_by_the_counter);
    tcase_add_test(tc, lab_that_leaves_early_under_ncu_fails_the_check);
    tcase_add_test(tc, counters_taken_by_another_profiler_are_not_checked);
    suite_add_tcase(s, tc);
}
