/* ncu technique checks through the fake tool of technique_fixture.h: one task's runs, the
 * lab's shared run and its fallback, and ncu's CSV read by kernel (test_technique.c holds the
 * spec and text checks). */
#include "technique_fixture.h"
#include "suites.h"

/* The tests that read the fake tool's arguments run it unconfined: under the sandbox it could
 * write them nowhere but its run folder (test_sandbox.c checks that). */
START_TEST(ncu_within_limit_passes)
{
    char *args;
    setenv("CML_SANDBOX", "off", 1);
    grade("ncu copyVec m.sum 0 no bank conflicts\nncu_case n=256", "passed");
    assert_check(0, CML_TECH_PASSED,
                 "m.sum = 0 <= 0 over 2 launches of kernels matching copyVec (case 1.1,n=256)");
    ck_assert_double_eq(r.score, 10);
    ck_assert_ptr_nonnull(args = cml_read_text(in_dir("args"), 4096, NULL));
    ck_assert_ptr_nonnull(strstr(args, "--clock-control none --target-processes all "
                                       "--profile-from-start off --kernel-name regex:copyVec "
                                       "--metrics m.sum --csv"));
    ck_assert_ptr_nonnull(strstr(args, "./lab --no-output --case 1.1,n=256"));
    ck_assert_ptr_null(strstr(args, "--seed")); /* the seed goes through CML_SEED_FD's pipe */
    free(args);
}
END_TEST

/* Two metrics of one kernel: one profiling run collects both, and each check reads its own. */
START_TEST(ncu_profiles_a_kernel_once_for_all_its_metrics)
{
    char *runs, path[CML_PATH];
    setenv("CML_SANDBOX", "off", 1);
    grade("ncu copyVec m.sum 0 no conflicts\nncu copyVec other.sum 100 few others", "passed");
    assert_check(0, CML_TECH_PASSED, "m.sum = 0 <= 0");
    assert_check(1, CML_TECH_PASSED, "other.sum = 77 <= 100");
    cml_fmt(path, sizeof path, "%s.runs", in_dir("args"));
    ck_assert_ptr_nonnull(runs = cml_read_text(path, 4096, NULL));
    ck_assert_str_eq(runs, "run\n");
    free(runs);
}
END_TEST

/* A check on a sum of metrics: ncu collects each term once, the check reads their sum. */
START_TEST(ncu_checks_a_sum_of_metrics)
{
    char *args;
    setenv("CML_SANDBOX", "off", 1);
    grade("ncu copyVec m.sum+other.sum 100 little of both\nncu copyVec other.sum 100 few others",
          "passed");
    assert_check(0, CML_TECH_PASSED, "m.sum+other.sum = 77 <= 100");
    ck_assert_ptr_nonnull(args = cml_read_text(in_dir("args"), 4096, NULL));
    ck_assert_ptr_nonnull(strstr(args, "--metrics m.sum,other.sum --csv"));
    free(args);
    setenv("FAKE_NCU_VALUE", "24", 1);
    grade("ncu copyVec m.sum+other.sum 100 little of both", "passed");
    assert_check(0, CML_TECH_FAILED, "m.sum+other.sum = 101 > limit 100");
}
END_TEST

/* A per-launch property in a range (3.3b: one 32 x 32 tile of shared memory per block): the
 * largest launch is judged, never the sum of the launches; below the range fails too. */
START_TEST(ncu_checks_a_per_launch_range)
{
    const char *line = "ncu copyVec launch__smem 4096..8191 one tile per block";
    grade(line, "passed");
    assert_check(0, CML_TECH_PASSED, "launch__smem = 4096 within 4096..8191 in the largest of 2 "
                 "launches of kernels matching copyVec");
    setenv("FAKE_SMEM1", "8320", 1); /* a decoy array beside a padded tile, in one launch */
    grade(line, "passed");
    assert_check(0, CML_TECH_FAILED, "launch__smem = 8320 > limit 8191 in the largest of 2");
    setenv("FAKE_SMEM0", "0", 1);
    setenv("FAKE_SMEM1", "0", 1); /* no shared memory at all */
    grade(line, "passed");
    assert_check(0, CML_TECH_FAILED, "launch__smem = 0 < minimum 4096");
}
END_TEST

START_TEST(ncu_over_limit_fails)
{
    setenv("FAKE_NCU_VALUE", "1,536", 1);
    grade("ncu copyVec m.sum 0 no bank conflicts", "passed");
    assert_check(0, CML_TECH_FAILED, "m.sum = 1536 > limit 0");
    assert_check(0, CML_TECH_FAILED, "case 1.1,n=1000"); /* the first case by default */
    ck_assert_str_eq(cml_status_name(r.status), "technique");
    ck_assert_double_eq(r.score, 6);
}
END_TEST

START_TEST(ncu_without_permission_or_a_working_tool_is_not_checked)
{
    setenv("FAKE_NCU", "perm", 1);
    grade("ncu copyVec m.sum 0 no bank conflicts", "passed");
    assert_check(0, CML_TECH_NOT_CHECKED, "ERR_NVGPUCTRPERM");
    ck_assert_double_eq(r.score, 10);
    setenv("FAKE_NCU", "error", 1);
    grade("ncu copyVec m.sum 0 no bank conflicts", "passed");
    assert_check(0, CML_TECH_NOT_CHECKED, "ncu reported no m.sum");
    setenv("CML_NCU", "/nonexistent/ncu", 1);
    grade("ncu copyVec m.sum 0 no bank conflicts", "passed");
    assert_check(0, CML_TECH_NOT_CHECKED, "not checked (ncu not found)");
    ck_assert_str_eq(cml_status_name(r.status), "passed");
}
END_TEST

/* A kernel filter that matched nothing means the lab launched no such kernel under ncu (a
 * renamed kernel, or a lab that behaves differently when profiled): a failure, never "not
 * checked". */
START_TEST(ncu_filter_matching_no_kernel_fails)
{
    setenv("FAKE_NCU", "none", 1);
    grade("ncu copyVec m.sum 0 no bank conflicts", "passed");
    assert_check(0, CML_TECH_FAILED, "no kernel matching 'copyVec' ran under ncu");
    ck_assert_str_eq(cml_status_name(r.status), "technique");
}
END_TEST

/* The counters come from ncu's log file: rows a lab prints on stdout are not read. */
START_TEST(ncu_reads_its_log_not_the_labs_stdout)
{
    setenv("FAKE_NCU", "forged", 1);
    setenv("FAKE_NCU_VALUE", "5000", 1);
    grade("ncu copyVec m.sum 0 no bank conflicts", "passed");
    assert_check(0, CML_TECH_FAILED, "m.sum = 5000 > limit 0");
}
END_TEST

/* ncu's rows read by kernel: the pattern matches the kernel's unqualified name whole, its
 * template arguments, parameters, return type and namespaces cut off (issue 44). */
START_TEST(sums_an_ncu_metric_of_one_kernel)
{
    double sum = 0;
    const char *csv = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n"
                      "\"0\",\"void gram<32>(float *, int)\",\"m.sum\",\"1\"\n"
                      "\"1\",\"gramPadded(const float *)\",\"m.sum\",\"20\"\n"
                      "\"2\",\"scale(int)\",\"m.sum\",\"300\"\n";
    ck_assert_int_eq(cml_ncu_value(csv, "m.sum", "gramPadded", 0, -1, &sum, NULL), 1);
    ck_assert_double_eq(sum, 20);
    ck_assert_int_eq(cml_ncu_value(csv, "m.sum", "gram", 0, -1, &sum, NULL), 1);
    ck_assert_double_eq(sum, 1);
    ck_assert_int_eq(cml_ncu_value(csv, "m.sum", "gram|scale", 0, -1, &sum, NULL), 2);
    ck_assert_double_eq(sum, 301);
    /* parameters are no name */
    ck_assert_int_eq(cml_ncu_value(csv, "m.sum", "int", 0, -1, &sum, NULL), 0);
    /* no Kernel Name column: nothing is k's */
    ck_assert_int_eq(cml_ncu_value("\"Metric Name\",\"Metric Value\"\n\"m.sum\",\"4\"\n",
                                   "m.sum", "k", 0, -1, &sum, NULL), 0);
}
END_TEST

/* A helper kernel whose name starts with the task's kernel's (`scaleRowMajorWarmup`, which made
 * the shared stores scaleRowMajor never made: issue 44) is not the task's kernel. The rows are
 * an H200's shape (docs/bench); the real kernel staged nothing. */
#define SMEM_ROWS(name, v) "\"0\",\"1\",\"lab\",\"" name "\",\"" \
    "smsp__sass_inst_executed_op_shared_st.sum\",\"\",\"" v "\"\n"
#define SMEM_HEAD "\"ID\",\"Process ID\",\"Process Name\",\"Kernel Name\",\"Metric Name\"," \
    "\"Metric Unit\",\"Metric Value\"\n"
START_TEST(a_helper_kernel_named_after_the_task_kernel_is_not_counted)
{
    double v = -1;
    const char *csv = SMEM_HEAD
        SMEM_ROWS("scaleRowMajor(float *, const float *, unsigned long)", "0")
        SMEM_ROWS("scaleRowMajorWarmup(float *, unsigned long)", "65,536")
        SMEM_ROWS("void warm::scaleRowMajor_helper<32>(float *)", "65,536");
    ck_assert_int_eq(cml_ncu_value(csv, "smsp__sass_inst_executed_op_shared_st.sum",
                                   "scaleRowMajor", 0, -1, &v, NULL), 1);
    ck_assert_double_eq(v, 0);
}
END_TEST

/* The task's kernel written as a template, in a namespace (named or anonymous), or with a
 * template argument in parentheses, is still the task's kernel. */
START_TEST(a_template_or_namespaced_task_kernel_is_counted)
{
    double v = -1;
    const char *csv = SMEM_HEAD
        SMEM_ROWS("void scaleRowMajor<32>(float *, const float *, unsigned long)", "1")
        SMEM_ROWS("void lab3::scaleRowMajor<32, (int)8>(float *, const float *, int)", "20")
        SMEM_ROWS("(anonymous namespace)::scaleRowMajor(float *, const float *, int)", "300")
        SMEM_ROWS("scaleRowMajor", "4000");
    ck_assert_int_eq(cml_ncu_value(csv, "smsp__sass_inst_executed_op_shared_st.sum",
                                   "scaleRowMajor", 0, -1, &v, NULL), 4);
    ck_assert_double_eq(v, 4321);
}
END_TEST

#define TWO_TASKS HEAD TASK "ncu copyVec m.sum 0 no conflicts\ntechnique 1\ntask 1.2\ncheck copy\n" \
    "points 6\ncase n=1000\nncu other m.sum 0 no conflicts\nncu_case n=64\ntechnique 1\n"

/* Task t of spec graded as passed with its technique checks, into x. */
static void lab_task(int t, cml_task_result *x)
{
    memset(x, 0, sizeof *x);
    x->spec = &spec.tasks[t];
    x->credit = (cml_credit){ .cases = 2 };
    judge_as(x, CML_STATUS_PASSED, "all cases passed");
    cml_technique_task(&spec, &spec.tasks[t], &env, x);
    cml_publish_task(x);
}

/* A spec of two tasks loaded and both profiled in the lab's shared run (unconfined, to read
 * the fake's arguments). */
static void shared_run_of_two(const char *text)
{
    setenv("CML_SANDBOX", "off", 1);
    ck_assert_msg(load(text) == 0, "%s", err);
    ck_assert_int_eq(cml_tech_ncu_lab(&spec, (int[]){1, 1}, &env), 2);
}

/* TWO_TASKS, both solved, through the lab's shared run, then each task's checks into a and b. */
static void grade_two_tasks(cml_task_result *a, cml_task_result *b)
{
    shared_run_of_two(TWO_TASKS);
    lab_task(0, a);
    lab_task(1, b);
    cml_ncu_runs_free(env.ncu);
}

/* How many times the fake ncu ran. */
static int ncu_runs(void)
{
    char path[CML_PATH], *runs;
    cml_fmt(path, sizeof path, "%s.runs", in_dir("args"));
    int n = 0;
    if ((runs = cml_read_text(path, 4096, NULL)))
        for (const char *p = runs; (p = strstr(p, "run")); p++)
            n++;
    free(runs);
    return n;
}

/* Two solved tasks with ncu checks: one run with both cases, each check on its own kernel. */
START_TEST(ncu_profiles_a_labs_solved_tasks_in_one_run)
{
    cml_task_result a, b;
    char *args;
    setenv("FAKE_NCU", "two", 1);
    setenv("FAKE_NCU_OTHER", "9", 1);
    grade_two_tasks(&a, &b);
    ck_assert_int_eq(ncu_runs(), 1);
    ck_assert_ptr_nonnull(args = cml_read_text(in_dir("args"), 4096, NULL));
    ck_assert_ptr_nonnull(strstr(args, "--kernel-name regex:copyVec|other --metrics m.sum --csv"));
    ck_assert_ptr_nonnull(strstr(args, "--case 1.1,n=1000 --case 1.2,n=64"));
    free(args);
    ck_assert_msg(a.tech[0].state == CML_TECH_PASSED &&
                  strstr(a.tech[0].detail, "m.sum = 0 <= 0 over 2 launches of kernels matching "
                         "copyVec (case 1.1,n=1000, in one ncu run for 2 tasks)"), "%s",
                  a.tech[0].detail);
    ck_assert_msg(b.tech[0].state == CML_TECH_FAILED &&
                  strstr(b.tech[0].detail, "m.sum = 9 > limit 0 over 1 launch of"), "%s",
                  b.tech[0].detail);
    ck_assert_str_eq(cml_status_name(b.status), "technique");
}
END_TEST

/* `ncu *`: every kernel the task's case launched inside the harness's window, whatever its
 * name (here a template kernel beside copyVec); an open range (`5..`) has no maximum. */
START_TEST(ncu_star_reads_every_kernel_of_the_task)
{
    char *args;
    setenv("CML_SANDBOX", "off", 1);
    setenv("FAKE_NCU", "two", 1);
    setenv("FAKE_NCU_OTHER", "9", 1);
    grade("ncu * m.sum 5.. the task's kernels read enough\nncu_case n=64", "passed");
    assert_check(0, CML_TECH_PASSED, "m.sum = 9 >= 5 over 3 launches of the task's kernels "
                 "(case 1.1,n=64)");
    ck_assert_ptr_nonnull(args = cml_read_text(in_dir("args"), 4096, NULL));
    ck_assert_ptr_nonnull(strstr(args, "--profile-from-start off --kernel-name regex:.* "));
    free(args);
    setenv("FAKE_NCU", "none", 1); /* no kernel in the window: the work was not on the GPU */
    grade("ncu * m.sum 5.. the task's kernels read enough", "passed");
    assert_check(0, CML_TECH_FAILED, "no kernel of the task ran under ncu");
    setenv("FAKE_NCU", "markonly", 1); /* the same, with the harness's marker profiled */
    grade("ncu * m.sum 0 the task's kernels read little", "passed");
    assert_check(0, CML_TECH_FAILED, "no kernel of the task ran under ncu");
}
END_TEST

#define STAR_TASKS HEAD TASK "ncu * m.sum 0 none\ntechnique 1\ntask 1.2\ncheck copy\n" \
    "points 6\ncase n=1000\nncu * m.sum 5.. some\nncu_case n=64\ntechnique 1\n"

/* Two tasks' `*` checks share one run: the harness's case marker opens each case's window, and
 * each check reads its own case's rows (copyVec's for 1.1, the template's for 1.2). */
START_TEST(ncu_star_checks_share_a_run_by_case_markers)
{
    cml_task_result a, b;
    setenv("FAKE_NCU", "cases", 1);
    setenv("FAKE_NCU_OTHER", "9", 1);
    shared_run_of_two(STAR_TASKS);
    lab_task(0, &a);
    lab_task(1, &b);
    ck_assert_int_eq(ncu_runs(), 1);
    ck_assert_msg(a.tech[0].state == CML_TECH_PASSED &&
                  strstr(a.tech[0].detail, "m.sum = 0 <= 0 over 2 launches of the task's kernels "
                         "(case 1.1,n=1000, in one ncu run for 2 tasks)"), "%s", a.tech[0].detail);
    ck_assert_msg(b.tech[0].state == CML_TECH_PASSED &&
                  strstr(b.tech[0].detail, "m.sum = 9 >= 5 over 1 launch of the task's kernels "
                         "(case 1.2,n=64, in one ncu run"), "%s", b.tech[0].detail);
    cml_ncu_runs_free(env.ncu);
}
END_TEST

/* One marker for two cases (a window lost): the shared run cannot say whose rows are whose, and
 * each task profiles alone. A task's own run with two markers (a kernel of the student's named
 * like the harness's, to move its rows out of the window) fails. */
START_TEST(ncu_star_checks_without_one_marker_per_case)
{
    cml_task_result a, b;
    setenv("FAKE_NCU", "two", 1);
    setenv("FAKE_NCU_OTHER", "9", 1);
    shared_run_of_two(STAR_TASKS);
    lab_task(0, &a);
    ck_assert_int_eq(ncu_runs(), 2);
    ck_assert_msg(!strstr(a.tech[0].detail, "one ncu run"), "%s", a.tech[0].detail);
    cml_ncu_runs_free(env.ncu);
    setenv("FAKE_NCU", "cases", 1);
    lab_task(1, &b);
    ck_assert_msg(b.tech[0].state == CML_TECH_FAILED &&
                  strstr(b.tech[0].detail, "2 launches of a kernel named cml_case_mark"), "%s",
                  b.tech[0].detail);
    ck_assert_str_eq(cml_status_name(b.status), "technique");
}
END_TEST

/* A shared run that failed, or one task solved: each task's checks run as they always did. */
START_TEST(ncu_lab_run_falls_back_to_each_tasks_own)
{
    cml_task_result a, b;
    setenv("FAKE_NCU", "error", 1);
    grade_two_tasks(&a, &b);
    ck_assert_int_eq(ncu_runs(), 3);
    ck_assert_int_eq(a.tech[0].state, CML_TECH_NOT_CHECKED);
    ck_assert_int_eq(b.tech[0].state, CML_TECH_NOT_CHECKED);
    ck_assert_ptr_nonnull(strstr(b.tech[0].detail, "Failed to prepare kernel"));
    ck_assert_int_eq(cml_tech_ncu_lab(&spec, (int[]){1, 0}, &env), 0); /* one solved: no run */
    ck_assert_int_eq(ncu_runs(), 3);
}
END_TEST

/* Contract in suites.h: the ncu tests, a test case of the technique suite with this file's own
 * copy of the fixture. */
void technique_ncu_add(Suite *s)
{
    TCase *tools = tcase_create("ncu");
    tcase_add_checked_fixture(tools, setup, teardown);
    tcase_add_test(tools, sums_an_ncu_metric_of_one_kernel);
    tcase_add_test(tools, a_helper_kernel_named_after_the_task_kernel_is_not_counted);
    tcase_add_test(tools, a_template_or_namespaced_task_kernel_is_counted);
    tcase_add_test(tools, ncu_within_limit_passes);
    tcase_add_test(tools, ncu_checks_a_sum_of_metrics);
    tcase_add_test(tools, ncu_over_limit_fails);
    tcase_add_test(tools, ncu_checks_a_per_launch_range);
    tcase_add_test(tools, ncu_profiles_a_kernel_once_for_all_its_metrics);
    tcase_add_test(tools, ncu_without_permission_or_a_working_tool_is_not_checked);
    tcase_add_test(tools, ncu_filter_matching_no_kernel_fails);
    tcase_add_test(tools, ncu_reads_its_log_not_the_labs_stdout);
    tcase_add_test(tools, ncu_profiles_a_labs_solved_tasks_in_one_run);
    tcase_add_test(tools, ncu_lab_run_falls_back_to_each_tasks_own);
    tcase_add_test(tools, ncu_star_reads_every_kernel_of_the_task);
    tcase_add_test(tools, ncu_star_checks_share_a_run_by_case_markers);
    tcase_add_test(tools, ncu_star_checks_without_one_marker_per_case);
    suite_add_tcase(s, tools);
}
