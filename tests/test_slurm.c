/* A grading job array on a real Slurm (issue 10): a private single-node cluster
 * (tests/slurm_local.h) runs a 4-task array with --gres=gpu:1 and throttle %2, in which task 2
 * fails on purpose. Submission, dispatch, one task's failure and collection, end to end. The
 * cluster and the array run once, in the test case's unchecked fixture; its teardown always
 * stops the cluster. Skipped with a count where Slurm is not installed (or not root). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "slurm_local.h"
#include "suites.h"
#include "util.h"

#define TESTS 4 /* the tests slurm_suite() adds, counted as skipped without Slurm */
#define TASKS 4
#define FAILING_TASK 2
#define THROTTLE 2
#define ARRAY_WAIT_S 60 /* measured: about 7 s from submission to the last task's end */

/* Each task: its start and end times, then (all but task 2) the GPU it was given. */
static const char TASK_SCRIPT[] =
    "#!/bin/bash\n"
    "start=$(date +%s.%N)\n"
    "sleep 1\n"
    "echo \"$start $(date +%s.%N)\" > \"times.$SLURM_ARRAY_TASK_ID\"\n"
    "[ \"$SLURM_ARRAY_TASK_ID\" != 2 ] || exit 3\n"
    "echo \"${CUDA_VISIBLE_DEVICES-unset}\" > \"result.$SLURM_ARRAY_TASK_ID\"\n";

static char tmp[64], cluster[CML_PATH], jobdir[CML_PATH], failure[2048];
static long job = -1;

/* Start the cluster and run the array; a failure is kept in `failure` for every test to
 * report (an unchecked fixture must not abort: its teardown would still run, but quietly). */
static void run_array(void)
{
    char conf[CML_PATH], script[CML_PATH], why[1536];
    const char *const opts[] = { "--gres=gpu:1", "--output=%A_%a.log", NULL };
    test_tmpdir(tmp, sizeof tmp);
    cml_fmt(cluster, sizeof cluster, "%s/cluster", tmp);
    cml_fmt(jobdir, sizeof jobdir, "%s/job", tmp);
    cml_fmt(script, sizeof script, "%s/task.sh", jobdir);
    if (cml_mkdirs(jobdir) < 0 || cml_write_file(script, TASK_SCRIPT, strlen(TASK_SCRIPT)) < 0) {
        snprintf(failure, sizeof failure, "cannot write the task script in %s", tmp);
        return;
    }
    if (slurm_local_start(cluster, conf, sizeof conf, why, sizeof why) < 0) {
        snprintf(failure, sizeof failure, "the local cluster did not start: %s", why);
        return;
    }
    char array[32];
    snprintf(array, sizeof array, "0-%d%%%d", TASKS - 1, THROTTLE);
    job = slurm_local_array(cluster, jobdir, script, array, opts, ARRAY_WAIT_S, why, sizeof why);
    if (job < 0)
        snprintf(failure, sizeof failure, "the array did not run: %s", why);
}

static void stop_cluster(void)
{
    if (tmp[0]) {
        slurm_local_stop(cluster);
        cml_rmtree(tmp);
    }
}

/* jobdir/<name>.<task>'s text (static, first line), or NULL when there is no such file. */
static const char *task_file(const char *name, int task)
{
    static char text[256];
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/%s.%d", jobdir, name, task);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    if (!fgets(text, sizeof text, f))
        text[0] = '\0';
    fclose(f);
    text[strcspn(text, "\n")] = '\0';
    return text;
}

START_TEST(every_task_but_the_failing_one_writes_its_result)
{
    ck_assert_msg(job > 0, "%s", failure);
    for (int t = 0; t < TASKS; t++)
        ck_assert_msg((task_file("result", t) != NULL) == (t != FAILING_TASK),
                      "task %d: result file %s", t, task_file("result", t) ? "present" : "missing");
}
END_TEST

START_TEST(failing_task_shows_failed_with_its_exit_code)
{
    ck_assert_msg(job > 0, "%s", failure);
    for (int t = 0; t < TASKS; t++) {
        char state[32];
        int code = -1;
        ck_assert_msg(slurm_local_task(cluster, job, t, state, sizeof state, &code) == 0,
                      "scontrol knows no task %d of job %ld", t, job);
        const char *want = t == FAILING_TASK ? "FAILED" : "COMPLETED";
        ck_assert_msg(!strcmp(state, want) && code == (t == FAILING_TASK ? 3 : 0),
                      "task %d: %s with exit code %d, expected %s", t, state, code, want);
    }
}
END_TEST

/* On this node each task's gpu:1 also allows only two at once (2 GPUs, 2 CPUs): this shows the
 * throttle and the GRES together hold, not that %2 alone would. */
START_TEST(throttle_lets_at_most_two_tasks_run_at_once)
{
    ck_assert_msg(job > 0, "%s", failure);
    double start[TASKS], end[TASKS];
    for (int t = 0; t < TASKS; t++) {
        const char *times = task_file("times", t);
        ck_assert_msg(times && sscanf(times, "%lf %lf", &start[t], &end[t]) == 2,
                      "task %d left no start and end times", t);
    }
    for (int t = 0; t < TASKS; t++) { /* the most running at once is reached at a start */
        int running = 0;
        for (int u = 0; u < TASKS; u++)
            running += start[u] <= start[t] && start[t] < end[u];
        ck_assert_msg(running <= THROTTLE, "%d tasks ran at once (when task %d started)",
                      running, t);
    }
}
END_TEST

START_TEST(each_task_is_given_one_of_the_two_gpus)
{
    ck_assert_msg(job > 0, "%s", failure);
    for (int t = 0; t < TASKS; t++) {
        const char *gpu = task_file("result", t);
        ck_assert_msg(t == FAILING_TASK || (gpu && (!strcmp(gpu, "0") || !strcmp(gpu, "1"))),
                      "task %d: CUDA_VISIBLE_DEVICES=%s", t, gpu ? gpu : "(no file)");
    }
}
END_TEST

static char skip_reason[256];
static int skipped = -1;

/* Contract in suites.h. */
Suite *slurm_suite(void)
{
    Suite *s = suite_create("slurm");
    skipped = 0;
    if (!slurm_local_available(skip_reason, sizeof skip_reason)) {
        skipped = TESTS;
        return s;
    }
    TCase *tc = tcase_create("array");
    tcase_set_tags(tc, "slurm");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, run_array, stop_cluster);
    tcase_add_test(tc, every_task_but_the_failing_one_writes_its_result);
    tcase_add_test(tc, failing_task_shows_failed_with_its_exit_code);
    tcase_add_test(tc, throttle_lets_at_most_two_tasks_run_at_once);
    tcase_add_test(tc, each_task_is_given_one_of_the_two_gpus);
    suite_add_tcase(s, tc);
    return s;
}

/* Contract in suites.h. */
int slurm_tests_skipped(char *why, size_t len)
{
    if (skipped > 0)
        snprintf(why, len, "%s", skip_reason);
    return skipped > 0 ? skipped : 0;
}
