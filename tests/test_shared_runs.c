/* Tasks that share one run of the student's binary (grade_shared.c, the default) get the
 * verdicts that a run per task gives, for an honest lab and for each way a task can go wrong;
 * a run that does not end cleanly is thrown away and its tasks run alone. Part of the pipeline
 * suite, on build/fake_lab. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "helpers.h"
#include "util.h"

static char root[64], work[CML_PATH];
static cml_lab_spec specs[2];

static void setup(void)
{
    fake_root_setup(root, sizeof root, 2, 30, specs, work, sizeof work);
}

static void teardown(void)
{
    cml_rmtree(root);
    unsetenv("CML_SHARED_RUNS");
}

/* What lab 01 got with FAKE_MODE=mode in task 1.2 (NULL: honest), shared runs on or off; the
 * progress lines into log (malloc'd). */
static void grade(const char *mode, int shared, cml_lab_result *r, char **log)
{
    size_t len = 0;
    FILE *progress = open_memstream(log, &len);
    cml_run_opts o = { .seed = 4242, .work_dir = work, .cc = 90, .progress = progress };
    if (shared)
        unsetenv("CML_SHARED_RUNS"); /* the default */
    else
        setenv("CML_SHARED_RUNS", "0", 1);
    fake_grade(&specs[0], mode, "1.2", &o, r);
    fclose(progress);
    unsetenv("FAKE_MODE");
    unsetenv("FAKE_TASK");
}

static const char *const MODES[] = { NULL, "wrong", "crash", "todo", "slow", "nan", "hang",
                                     "cudaerror", "fewreps", "stdoutforge", "afterdone",
                                     "twodone" };

START_TEST(shared_run_gives_the_verdicts_of_a_run_per_task)
{
    const char *mode = MODES[_i];
    cml_lab_result alone, shared;
    char *log_alone = NULL, *log_shared = NULL;
    grade(mode, 0, &alone, &log_alone);
    grade(mode, 1, &shared, &log_shared);
    ck_assert_msg(strstr(log_shared, "tasks 1.1 to 1.3: 6 case(s) in one run") &&
                  !strstr(log_alone, "in one run"), "%s: %s", mode ? mode : "honest",
                  log_shared);
    for (int t = 0; t < specs[0].ntasks; t++) {
        const cml_task_result *a = &alone.tasks[t], *s = &shared.tasks[t];
        ck_assert_msg(a->status == s->status && a->score == s->score &&
                      a->cases_passed == s->cases_passed, "%s, task %s: alone %s %g (%d cases), "
                      "shared %s %g (%d cases): %s", mode ? mode : "honest", a->spec->id,
                      cml_status_name(a->status), a->score, a->cases_passed,
                      cml_status_name(s->status), s->score, s->cases_passed, s->detail);
    }
    ck_assert_msg(mode || shared.score == shared.max_score, "honest: %g/%g", shared.score,
                  shared.max_score);
    free(log_alone);
    free(log_shared);
}
END_TEST

/* A task that crashes the shared run costs only itself: the run is thrown away (it says so)
 * and every task runs alone. */
START_TEST(crash_in_a_shared_run_sends_each_task_alone)
{
    cml_lab_result r;
    char *log = NULL;
    grade("crash", 1, &r, &log);
    ck_assert_msg(strstr(log, "did not end cleanly: each task runs alone") &&
                  strstr(log, "task 1.1: 3 case(s)") && strstr(log, "task 1.3: 1 case(s)") &&
                  r.tasks[0].status == CML_STATUS_PASSED && r.tasks[2].status ==
                  CML_STATUS_PASSED && r.tasks[1].status == CML_STATUS_CRASH, "%s", log);
    free(log);
}
END_TEST

/* Code that fails only after another task's code ran in its process (fake mode wronginshared)
 * gets the verdict of its own run: the shared run's `wrong` is graded again alone. Fails when
 * a failure in a clean shared run stands. */
START_TEST(failure_in_a_shared_run_is_graded_again_alone)
{
    cml_lab_result r;
    char *log = NULL;
    grade("wronginshared", 1, &r, &log);
    ck_assert_msg(strstr(log, "tasks 1.1 to 1.3: 6 case(s) in one run") &&
                  strstr(log, "task 1.2: wrong in the shared run: graded again alone") &&
                  !strstr(log, "task 1.1: wrong") && r.score == r.max_score,
                  "%g/%g, 1.2 %s: %s\n%s", r.score, r.max_score,
                  cml_status_name(r.tasks[1].status), r.tasks[1].detail, log);
    free(log);
}
END_TEST

/* The real labs' case counts: every lab's tasks share one run (lab 01 has 12 + 13 cases, lab 03
 * 15 + 5, lab 04 15 + 10), a run never holds more than CML_MAX_RUN_CASES, and a refused task
 * (skip) ends a group. */
START_TEST(groups_fill_one_run_up_to_its_case_limit)
{
    cml_lab_spec spec;
    memset(&spec, 0, sizeof spec);
    const int counts[] = {12, 13, 5, 2};
    spec.ntasks = 4;
    for (int t = 0; t < spec.ntasks; t++)
        spec.tasks[t].ncases = counts[t];
    int skip[CML_MAX_TASKS] = {0};
    ck_assert_int_eq(CML_MAX_RUN_CASES, 32);
    ck_assert_int_eq(cml_shared_group_end(&spec, 0, skip), 4); /* 32 cases exactly: one run */
    spec.tasks[3].ncases = 3; /* 33: the last task starts the next run */
    ck_assert_int_eq(cml_shared_group_end(&spec, 0, skip), 3);
    ck_assert_int_eq(cml_shared_group_end(&spec, 3, skip), 4);
    skip[1] = 1; /* refused at link time: never run, and no run goes past it */
    ck_assert_int_eq(cml_shared_group_end(&spec, 0, skip), 1);
    ck_assert_int_eq(cml_shared_group_end(&spec, 2, skip), 4);
}
END_TEST

/* Contract in suites.h (pipeline suite). */
TCase *shared_runs_tcase(void)
{
    TCase *tc = tcase_create("shared runs");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, shared_run_gives_the_verdicts_of_a_run_per_task, 0,
                        (int)(sizeof MODES / sizeof MODES[0]));
    tcase_add_test(tc, crash_in_a_shared_run_sends_each_task_alone);
    tcase_add_test(tc, failure_in_a_shared_run_is_graded_again_alone);
    tcase_add_test(tc, groups_fill_one_run_up_to_its_case_limit);
    return tc;
}
