/* Job arrays on a real Slurm (issue 10): a private single-node cluster (tests/slurm_local.h)
 * runs a plain 4-task array with --gres=gpu:1 and throttle %2, in which task 2 fails on purpose,
 * then cml-grade slurm's own array grading a class on the fake repository (no GPU, no nvcc):
 * submission, dispatch, one task's failure and collection, end to end. The cluster and the
 * plain array run once, in the test case's unchecked fixture; its teardown always stops the
 * cluster. Skipped with a count where Slurm is not installed (or not root). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "helpers.h"
#include "slurm_local.h"
#include "suites.h"
#include "util.h"

#define TESTS 5 /* the tests slurm_suite() adds, counted as skipped without Slurm */
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
static int cluster_up;

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
    cluster_up = 1;
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

/* The class the grading array grades, in plan order (the submissions folder's, sorted). */
static const char *const CLASS[] = { "alice", "bob", "carol", "dave" };
#define STUDENTS 4
#define FAILING_STUDENT 3 /* dave: his task cannot write its output folder */
#define GRADING_WAIT_S 60 /* measured: the test takes 5.3-5.5 s, submission to collect */

/* Run a shell command line built from fmt and two strings (fixture copies and archives). */
static void sh(const char *fmt, const char *a, const char *b)
{
    char cmd[3 * CML_PATH];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    ck_assert_msg(system(cmd) == 0, "fixture command failed: %s", cmd);
}

/* cml-grade with args (NULL-terminated, after the program); its exit status, its output
 * into *output (free it). */
static int grade_cli(const char *const args[], char **output)
{
    char *argv[32] = { (char *)test_path("build/cml-grade") };
    int n = 1;
    for (; args[n - 1] && n < 31; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    return test_exec(argv, 60, output);
}

/* The submissions in subs: alice and dave copies of the fake labs, bob's with 01's file broken
 * (it fails to build: a grade, not a failed task), carol's copy as a .tar.gz. */
static void write_class(const char *root, const char *subs)
{
    char path[CML_PATH];
    ck_assert_msg(cml_mkdirs(subs) == 0, "cannot create %s", subs);
    sh("cp -r %s/labs %s/alice", root, subs);
    sh("cp -r %s/labs %s/bob", root, subs);
    sh("cp -r %s/labs %s/dave", root, subs);
    sh("tar -czf %s/carol.tar.gz -C %s/labs .", subs, root);
    cml_fmt(path, sizeof path, "%s/bob/01_fake/fake.cu", subs);
    test_write(path, "BROKEN\n");
}

/* The text of OUT/slurm/<job>_<task>.out (static, its last 1500 bytes), for messages. */
static const char *task_output(const char *out, long array_job, int task)
{
    static char text[1536];
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/slurm/%ld_%d.out", out, array_job, task);
    char *all = cml_read_text(path, 1 << 20, NULL);
    size_t n = all ? strlen(all) : 0;
    snprintf(text, sizeof text, "%s", !all ? "(no output file)" : all + (n > 1500 ? n - 1500 : 0));
    free(all);
    return text;
}

/* Total and max of `name`'s row in the gradebook CSV text (columns: student, one per lab,
 * total, max, status); 0, or -1 when it has no such row. */
static int book_total(const char *book, const char *name, double *total, double *max)
{
    char key[160];
    int col = 0;
    for (const char *c = book; *c && *c != '\n' && strncmp(c, "total,", 6); c++)
        col += *c == ','; /* the header's columns before "total" */
    snprintf(key, sizeof key, "\n%s,", name);
    const char *row = strstr(book, key);
    if (!row)
        return -1;
    for (row++; col > 0 && (row = strchr(row, ',')); col--)
        row++;
    return row && sscanf(row, "%lf,%lf", total, max) == 2 ? 0 : -1;
}

/* cml-grade slurm's own array script on the cluster, grading the fake repository's labs with
 * the fake nvcc (the environment sbatch passes on names it): each student's task grades him,
 * dave's fails as a task, and collect merges what the tasks wrote. */
START_TEST(grading_array_grades_each_student_and_collect_names_the_failed_task)
{
    ck_assert_msg(cluster_up, "%s", failure);
    char root[CML_PATH], subs[CML_PATH], out[CML_PATH], path[CML_PATH], why[1536], *output;
    cml_fmt(root, sizeof root, "%s/class", tmp);
    cml_fmt(subs, sizeof subs, "%s/submissions", root);
    cml_fmt(out, sizeof out, "%s/out", root);
    fake_root_make(root, 20, 20);
    write_class(root, subs);
    const char *plan[] = { "slurm", "--root", root, "--submissions", subs, "--out", out,
                           "--throttle", "2", "--cpus", "1", "--time", "5m", NULL };
    int rc = grade_cli(plan, &output);
    ck_assert_msg(rc == 0, "cml-grade slurm: exit %d\n%s", rc, output);
    free(output);
    /* dave's grading cannot create its output folder: no status, a non-zero task */
    cml_fmt(path, sizeof path, "%s/students/dave", out);
    cml_rmtree(path);
    cml_fmt(why, sizeof why, "%s/students", out);
    ck_assert(cml_mkdirs(why) == 0);
    test_write(path, "a file where dave's folder goes\n");
    cml_fmt(path, sizeof path, "%s/grade-array.sbatch", out);
    long array_job = slurm_local_array(cluster, out, path, NULL, NULL, GRADING_WAIT_S, why,
                                       sizeof why);
    ck_assert_msg(array_job > 0, "the grading array did not run: %s", why);

    for (int t = 0; t < STUDENTS; t++) {
        char state[32];
        int code = -1;
        ck_assert_msg(slurm_local_task(cluster, array_job, t, state, sizeof state, &code) == 0,
                      "scontrol knows no task %d of job %ld", t, array_job);
        int failing = t == FAILING_STUDENT;
        ck_assert_msg(!strcmp(state, failing ? "FAILED" : "COMPLETED") && (code != 0) == failing,
                      "%s's task %d: %s with exit code %d, expected %s; its output:\n%s",
                      CLASS[t], t, state, code, failing ? "FAILED" : "COMPLETED with 0",
                      task_output(out, array_job, t));
    }
    cml_student_status st[STUDENTS];
    for (int t = 0; t < FAILING_STUDENT; t++) { /* graded, on the GPU Slurm gave the task */
        const char *said = task_output(out, array_job, t);
        ck_assert_msg(cml_status_read(out, CLASS[t], &st[t]) == 0 &&
                      !strcmp(st[t].state, "graded") &&
                      (strstr(said, " on GPU 0 ") || strstr(said, " on GPU 1 ")),
                      "%s: no status, not graded, or no GPU 0 or 1; task said:\n%s", CLASS[t],
                      said);
    }
    ck_assert_msg(st[0].max > 0 && st[0].score == st[0].max && st[2].score == st[2].max &&
                  st[1].score < st[1].max, "alice %g/%g, bob %g/%g, carol %g/%g", st[0].score,
                  st[0].max, st[1].score, st[1].max, st[2].score, st[2].max);

    const char *collect[] = { "collect", "--out", out, NULL };
    rc = grade_cli(collect, &output);
    cml_fmt(path, sizeof path, "%s/gradebook.csv", out);
    char *book = cml_read_text(path, 1 << 20, NULL);
    double total = -1, max = -1;
    ck_assert_msg(rc == 1 && book && book_total(book, "alice", &total, &max) == 0 &&
                  total == max && max > 0 && strstr(book, "\nbob,") && strstr(book, "\ncarol,") &&
                  strstr(book, "\ndave,") && strstr(strstr(book, "\ndave,"), "not graded"),
                  "collect: exit %d (1 expected: dave has no result)\n%s\ngradebook.csv:\n%s", rc,
                  output, book ? book : "(missing)");
    free(book);
    free(output);
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
    tcase_add_test(tc, grading_array_grades_each_student_and_collect_names_the_failed_task);
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
