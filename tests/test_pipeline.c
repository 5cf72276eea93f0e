/* The whole pipeline of one lab (grade_lab.c: reference run, student runs, verify, score)
 * against build/fake_lab, which misbehaves as FAKE_MODE says in the task FAKE_TASK names.
 * Each test pins the verdict of the misbehaving task and that the others were still graded. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grade.h"
#include "helpers.h"
#include "run.h"
#include "sha256.h"
#include "suites.h"
#include "util.h"

TCase *cli_tcase(void); /* tests/test_cli.c */
TCase *stage_tcase(void); /* tests/test_cli.c */
TCase *shared_runs_tcase(void); /* tests/test_shared_runs.c */

static char root[64], work[CML_PATH];
static cml_lab_spec specs[2];
static cml_lab_result result;

static const char *student_sha, *ref_sha; /* what the binaries' builds gave, or NULL */
static FILE *progress;                     /* the grader's progress lines, when wanted */

static void setup(void)
{
    fake_root_setup(root, sizeof root, 2, 30, specs, work, sizeof work);
}

static void teardown(void)
{
    cml_rmtree(root);
    student_sha = ref_sha = NULL;
}

/* Grade lab 01_fake with FAKE_MODE=mode applied to `task`. */
static void grade_lab1(const char *mode, const char *task)
{
    cml_run_opts o = { .seed = 12345, .work_dir = work, .cc = 90, .student_sha = student_sha,
                       .ref_sha = ref_sha, .progress = progress };
    fake_grade(&specs[0], mode, task, &o, &result);
}

static const cml_task_result *task(const char *id)
{
    return test_task(&result, id);
}

static int others_full(const char *except)
{
    return test_others_full(&result, except);
}

/* The verdict of `id` is `status` with `text` in its detail, and the other tasks passed. */
#define ck_assert_verdict(id, want_status, text)                                               \
    ck_assert_msg(strcmp(cml_status_name(task(id)->status), want_status) == 0 &&               \
                  strstr(task(id)->detail, text) && others_full(id),                           \
                  "task %s: status %s (want %s), detail '%s' (want '%s'), others full: %d",    \
                  id, cml_status_name(task(id)->status), want_status, task(id)->detail, text,  \
                  others_full(id))

START_TEST(right_output_gets_full_marks)
{
    grade_lab1(NULL, NULL);
    ck_assert_msg(result.max_score == 24 && result.score == result.max_score,
                  "score %g of %g", result.score, result.max_score);
}
END_TEST

/* The seed (12345) reaches the lab through a pipe only: the fake lab exits 2 when it finds
 * --seed in its argv or the seed's digits in its environment, and its outputs, made from the
 * seed it read, verify. Before, the grader passed `--seed 12345` on the command line, where a
 * student file reads it from /proc/self/cmdline. */
START_TEST(seed_reaches_the_lab_only_through_its_pipe)
{
    grade_lab1(NULL, NULL);
    ck_assert_msg(result.score == result.max_score && result.max_score > 0,
                  "score %g of %g: %s", result.score, result.max_score, task("1.1")->detail);
}
END_TEST

/* Every run checks its copy of the binary against the SHA-256 its build gave: a binary that
 * changed after the build is never run, so nobody is timed against a replaced reference. */
START_TEST(binaries_matching_their_build_are_run)
{
    static char sha[CML_SHA256_HEX];
    ck_assert_int_eq(cml_sha256_file(test_path("build/fake_lab"), sha), 0);
    student_sha = ref_sha = sha;
    grade_lab1(NULL, NULL);
    ck_assert_msg(result.score == 24, "score %g", result.score);
}
END_TEST

START_TEST(student_binary_changed_after_its_build_is_not_run)
{
    student_sha = "0000000000000000000000000000000000000000000000000000000000000000";
    grade_lab1(NULL, NULL);
    ck_assert_msg(result.score == 0, "score %g", result.score);
    ck_assert_msg(strstr(task("1.1")->detail, "changed after its build"), "%s",
                  task("1.1")->detail);
}
END_TEST

START_TEST(reference_changed_after_its_build_is_not_run)
{
    char *said = NULL;
    size_t len = 0;
    ref_sha = "0000000000000000000000000000000000000000000000000000000000000000";
    progress = open_memstream(&said, &len);
    grade_lab1(NULL, NULL);
    fclose(progress);
    progress = NULL;
    ck_assert_msg(!result.ref_run.hello, "the refused reference ran");
    ck_assert_msg(strstr(said, "reference solution") && strstr(said, "changed after its build"),
                  "progress: %s", said);
    free(said);
    for (int i = 0; i < result.ntasks; i++)
        ck_assert_msg(!result.tasks[i].timed || result.tasks[i].ratio == 0,
                      "task %s timed against a refused reference", result.tasks[i].spec->id);
}
END_TEST

START_TEST(wrong_output_fails_that_task)
{
    grade_lab1("wrong", "1.2");
    ck_assert_verdict("1.2", "wrong", "elements differ");
}
END_TEST

START_TEST(nan_output_fails)
{
    grade_lab1("nan", "1.1");
    ck_assert_verdict("1.1", "wrong", "got nan");
}
END_TEST

START_TEST(missing_output_fails)
{
    grade_lab1("nothing", "1.3");
    ck_assert_verdict("1.3", "wrong", "missing");
}
END_TEST

START_TEST(short_output_fails)
{
    grade_lab1("short", "1.1");
    ck_assert_verdict("1.1", "wrong", "expected 1000 elements");
}
END_TEST

START_TEST(crash_costs_only_that_task)
{
    grade_lab1("crash", "1.2");
    ck_assert_verdict("1.2", "crash", "SIGSEGV");
}
END_TEST

START_TEST(hang_times_out_and_grading_goes_on)
{
    grade_lab1("hang", "1.1");
    ck_assert_verdict("1.1", "timeout", "timed out after 2 s");
}
END_TEST

START_TEST(flood_is_capped_and_grading_goes_on)
{
    grade_lab1("flood", "1.1");
    const cml_task_result *r = task("1.1");
    ck_assert_msg(r->output_len <= CML_RUN_OUTPUT_CAP && r->output_dropped > 90000000 &&
                  r->status == CML_STATUS_PASSED && others_full("1.1"),
                  "kept %zu, dropped %zu, status %s", r->output_len, r->output_dropped,
                  cml_status_name(r->status));
}
END_TEST

START_TEST(exit_without_done_is_a_crash)
{
    grade_lab1("exit3", "1.3");
    ck_assert_verdict("1.3", "crash", "exited with status 3");
}
END_TEST

START_TEST(cuda_error_then_exit_is_an_error_not_a_crash)
{
    grade_lab1("cudaerror", "1.1");
    ck_assert_verdict("1.1", "error", "unspecified launch failure");
}
END_TEST

/* The fault a guard region raises (an access outside the case's buffers) is a memory error:
 * the sanitizer verdict, with what the guard found, and no points for the cases before it. */
START_TEST(guard_region_fault_is_a_sanitizer_verdict)
{
    grade_lab1("guardfault", "1.1");
    ck_assert_verdict("1.1", "sanitizer", "memory outside the case's buffers");
    ck_assert_verdict("1.1", "sanitizer", "cudaErrorIllegalAddress");
}
END_TEST

/* A write around the buffers that only the timed repetitions made (the harness counts the
 * canaries after them too) is the same finding as one in the checked launch. */
START_TEST(guard_region_write_in_timed_repetitions_is_a_sanitizer_verdict)
{
    grade_lab1("slackintiming", "1.1");
    ck_assert_verdict("1.1", "sanitizer", "past the end of a device buffer of 1000 floats, in "
                                          "its timed repetitions");
}
END_TEST

/* The host's cores writing a guarded output in a timed repetition (lab 07's 7.2 adding on the
 * host after its checked run) is the case's error, not a memory error of its kernels. */
START_TEST(host_write_in_timed_repetitions_is_an_error)
{
    grade_lab1("hostwrite", "1.1");
    ck_assert_verdict("1.1", "error", "host's cores wrote the task's output in a timed "
                                      "repetition");
}
END_TEST

START_TEST(todo_reports_its_message)
{
    grade_lab1("todo", "1.2");
    ck_assert_verdict("1.2", "todo", "write the fake kernel");
}
END_TEST

START_TEST(slow_loses_performance_points)
{
    grade_lab1("slow", "1.1");
    const cml_task_result *r = task("1.1");
    ck_assert_msg(r->status == CML_STATUS_SLOW && r->score == 6 && others_full("1.1"),
                  "status %s, score %g (want slow, 6 of 10): %s", cml_status_name(r->status),
                  r->score, r->detail);
    ck_assert_msg(strstr(r->detail, "measured twice, 3.00x then 3.00x"),
                  "a slow verdict is confirmed by a second measurement: %s", r->detail);
}
END_TEST

/* A second measurement counts only when its outputs are right too. */
START_TEST(second_measurement_with_wrong_output_does_not_count)
{
    grade_lab1("slowthenwrong", "1.1");
    const cml_task_result *r = task("1.1");
    ck_assert_msg(r->status == CML_STATUS_SLOW && r->score == 6 &&
                  fabs(r->ratio - 3) < 1e-9 &&
                  strstr(r->detail, "second run's output was wrong") && others_full("1.1"),
                  "status %s, score %g, ratio %.17g, others full %d (want slow, 6, 3): %s",
                  cml_status_name(r->status), r->score, r->ratio, others_full("1.1"), r->detail);
}
END_TEST

/* A slow first measurement that the second does not confirm costs nothing. */
START_TEST(slow_once_is_measured_again_and_keeps_its_points)
{
    grade_lab1("slowonce", "1.1");
    const cml_task_result *r = task("1.1");
    ck_assert_msg(r->status == CML_STATUS_PASSED && r->score == 10 && r->ratio == 1 &&
                  strstr(r->detail, "measured twice, 3.00x then 1.00x") && others_full("1.1"),
                  "status %s, score %g, ratio %g (want passed, 10, 1): %s",
                  cml_status_name(r->status), r->score, r->ratio, r->detail);
}
END_TEST

START_TEST(output_files_are_deleted_after_verification)
{
    grade_lab1(NULL, NULL);
    ck_assert_msg(rmdir(work) == 0, "%s still holds files", work);
}
END_TEST

/* Poll record.json for up to `seconds` until it names `lab`. */
static int record_names(const char *out, const char *lab, double seconds)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/record.json", out);
    for (double t0 = cml_now(); cml_now() - t0 < seconds; usleep(50000)) {
        char *text = cml_read_text(path, 1u << 24, NULL);
        int found = text && strstr(text, lab);
        free(text);
        if (found)
            return 1;
    }
    return 0;
}

START_TEST(record_json_written_after_each_lab)
{
    char out[CML_PATH];
    cml_fmt(out, sizeof out, "%s/out", root);
    setenv("FAKE_MODE", "hang", 1); /* lab 02 hangs for its 30 s timeout */
    setenv("FAKE_TASK", "2.1", 1);
    pid_t pid = fork();
    if (pid == 0) {
        cml_grade_opts o = { root, root, out, 7, 0, NULL, test_path("build/fake_lab"),
                             test_path("build/fake_lab"), NULL, NULL, { NULL, NULL }, NULL, 0 };
        cml_grading *g = calloc(1, sizeof *g);
        double build_s;
        char err[256];
        cml_run_kill_children_on_signals();
        _exit(cml_grade(&o, specs, 2, g, &build_s, err, sizeof err) == 0 ? 0 : 1);
    }
    int lab1 = record_names(out, "01_fake", 20), lab2 = record_names(out, "02_fake", 0.2);
    kill(pid, SIGTERM); /* the grader takes its running lab binary down with it */
    waitpid(pid, NULL, 0);
    ck_assert_msg(lab1 && !lab2, "record.json names 01_fake: %d, 02_fake: %d (want 1, 0)",
                  lab1, lab2);
}
END_TEST

/* The pipeline's tests: one lab in process, the CLI end to end, staging. */
Suite *pipeline_suite(void)
{
    Suite *s = suite_create("pipeline");
    TCase *tc = tcase_create("one lab");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, right_output_gets_full_marks);
    tcase_add_test(tc, binaries_matching_their_build_are_run);
    tcase_add_test(tc, student_binary_changed_after_its_build_is_not_run);
    tcase_add_test(tc, reference_changed_after_its_build_is_not_run);
    tcase_add_test(tc, wrong_output_fails_that_task);
    tcase_add_test(tc, nan_output_fails);
    tcase_add_test(tc, missing_output_fails);
    tcase_add_test(tc, short_output_fails);
    tcase_add_test(tc, crash_costs_only_that_task);
    tcase_add_test(tc, hang_times_out_and_grading_goes_on);
    tcase_add_test(tc, flood_is_capped_and_grading_goes_on);
    tcase_add_test(tc, exit_without_done_is_a_crash);
    tcase_add_test(tc, cuda_error_then_exit_is_an_error_not_a_crash);
    tcase_add_test(tc, guard_region_fault_is_a_sanitizer_verdict);
    tcase_add_test(tc, guard_region_write_in_timed_repetitions_is_a_sanitizer_verdict);
    tcase_add_test(tc, host_write_in_timed_repetitions_is_an_error);
    tcase_add_test(tc, seed_reaches_the_lab_only_through_its_pipe);
    tcase_add_test(tc, todo_reports_its_message);
    tcase_add_test(tc, slow_loses_performance_points);
    tcase_add_test(tc, slow_once_is_measured_again_and_keeps_its_points);
    tcase_add_test(tc, second_measurement_with_wrong_output_does_not_count);
    tcase_add_test(tc, output_files_are_deleted_after_verification);
    tcase_add_test(tc, record_json_written_after_each_lab);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, cli_tcase());
    suite_add_tcase(s, stage_tcase());
    suite_add_tcase(s, shared_runs_tcase());
    return s;
}
