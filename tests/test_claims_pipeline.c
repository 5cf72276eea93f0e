/* Forged records through the whole pipeline: build/fake_lab forges as FAKE_MODE says in the task
 * FAKE_TASK names (right outputs every time), and the grader must call that task `tampered`,
 * score it 0, say what it saw, and grade the other tasks as if nothing happened. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "helpers.h"
#include "suites.h"
#include "util.h"

static char root[64], work[CML_PATH];
static cml_lab_spec specs[2];
static cml_lab_result result;

static void setup(void)
{
    fake_root_setup(root, sizeof root, 5, 5, specs, work, sizeof work);
}

static void teardown(void)
{
    cml_rmtree(root);
}

/* Grade lab 01_fake (1.1 copy, 1.2 transpose, 1.3 gather) with FAKE_MODE=mode in `task`. */
static void grade_lab1(const char *mode, const char *task)
{
    cml_run_opts o = { .seed = 12345, .work_dir = work, .cc = 90 };
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

/* Task `id` is tampered, scored 0 though its outputs were right, its detail holds `text`,
 * and the other tasks got full marks. */
#define ck_assert_tampered(id, text)                                                           \
    ck_assert_msg(task(id)->status == CML_STATUS_TAMPERED && task(id)->score == 0 &&          \
                  strstr(task(id)->detail, text) &&                                            \
                  strstr(task(id)->detail, "results from the lab process are claims") &&      \
                  others_full(id),                                                             \
                  "task %s: status %s, score %g, detail '%s' (want '%s'), others full: %d",    \
                  id, cml_status_name(task(id)->status), task(id)->score, task(id)->detail,    \
                  text, others_full(id))

START_TEST(case_after_done_is_tampered)
{
    grade_lab1("afterdone", "1.2");
    ck_assert_tampered("1.2", "wrote a 'case' record after 'done'");
    ck_assert_int_eq(task("1.2")->cases_passed, 2); /* verified right, and still worth 0 */
}
END_TEST

START_TEST(second_done_is_tampered)
{
    grade_lab1("twodone", "1.1");
    ck_assert_tampered("1.1", "wrote a second 'done'");
}
END_TEST

START_TEST(case_nobody_asked_for_is_tampered)
{
    grade_lab1("kout", "1.3");
    ck_assert_tampered("1.3", "'case' record for k=1, but the grader asked for 1 case(s)");
}
END_TEST

START_TEST(case_for_another_task_is_tampered)
{
    grade_lab1("othertask", "1.2");
    ck_assert_tampered("1.2", "for task '9.9' at k=0, where the grader asked for task 1.2");
}
END_TEST

START_TEST(duplicate_case_is_tampered)
{
    grade_lab1("dupcase", "1.1");
    ck_assert_tampered("1.1", "wrote a second 'case' record for k=0");
}
END_TEST

START_TEST(time_for_an_untimed_case_is_tampered)
{
    grade_lab1("timeuntimed", "1.1");
    ck_assert_tampered("1.1", "'time' record for k=0, a case the grader did not ask to time");
}
END_TEST

START_TEST(malformed_line_is_tampered)
{
    grade_lab1("malformed", "1.3");
    ck_assert_tampered("1.3", "wrote a malformed 'case' line");
}
END_TEST

/* A time record's msg says only what a guard region found; anything else there is forged. */
START_TEST(time_with_another_message_is_tampered)
{
    grade_lab1("timemsg", "1.1");
    ck_assert_tampered("1.1", "wrote a malformed 'time' line");
}
END_TEST

/* A forged second measurement of a slow task is as forged as a first. */
START_TEST(forged_second_measurement_is_tampered)
{
    grade_lab1("slowthenforge", "1.1");
    ck_assert_tampered("1.1", "wrote a second 'case' record for k=0");
}
END_TEST

/* bytes=10^15 would be 5e8 GB/s, implausible; the grader's own count, 65536 * 8 bytes in
 * 2 ms, is 0.262 GB/s. The claim is ignored, and it is no forgery. */
START_TEST(bytes_claimed_by_the_lab_are_ignored)
{
    grade_lab1("hugebytes", "1.1");
    const cml_task_result *r = task("1.1");
    ck_assert_msg(r->status == CML_STATUS_PASSED && !r->implausible &&
                  fabs(r->gbps - 0.262144) < 1e-9 && others_full("1.1"),
                  "status %s, implausible %d, %g GB/s (want passed, 0, 0.262144): %s",
                  cml_status_name(r->status), r->implausible, r->gbps, r->detail);
}
END_TEST

/* stdout is the student's and is not the result channel: records printed there are text. */
START_TEST(records_on_stdout_are_not_claims)
{
    grade_lab1("stdoutforge", "");
    ck_assert_msg(result.score == 24 && result.max_score == 24, "score %g of %g: %s",
                  result.score, result.max_score, task("1.1")->detail);
}
END_TEST

START_TEST(honest_fake_lab_gets_full_marks)
{
    grade_lab1("right", "");
    ck_assert_msg(result.score == 24 && result.max_score == 24, "score %g of %g", result.score,
                  result.max_score);
}
END_TEST

/* A tampered reference run gives no reference times: performance is not judged, and the
 * student loses nothing for it. */
START_TEST(tampered_reference_gives_no_reference_times)
{
    setenv("FAKE_REF_MODE", "twodone", 1);
    grade_lab1("right", "");
    const cml_task_result *r = task("1.1");
    ck_assert_msg(result.score == 24 && r->ref_ms == 0 &&
                  strstr(r->detail, "reference time unavailable"),
                  "score %g, reference ms %g: %s", result.score, r->ref_ms, r->detail);
}
END_TEST

/* cml-grade end to end: summary.tsv, results.json and the terminal know `tampered`. */
START_TEST(reports_name_the_tampered_status_and_the_hint)
{
    char out[CML_PATH], sub[CML_PATH], path[CML_PATH], *text = NULL, *json;
    test_summary_line lines[16];
    cml_fmt(out, sizeof out, "%s/out", root);
    cml_fmt(sub, sizeof sub, "%s/labs", root);
    setenv("FAKE_MODE", "dupcase", 1);
    setenv("FAKE_TASK", "2.1", 1);
    char *argv[] = { (char *)test_path("build/cml-grade"), "grade", "--root", root,
                     "--submission", sub, "--out", out, "--seed", "42", "--no-color", NULL };
    int rc = test_exec(argv, 60, &text);
    int n = test_read_summary(out, lines, 16);
    const test_summary_line *l = test_summary_find(lines, n, "02_fake", "2.1");
    const test_summary_line *other = test_summary_find(lines, n, "02_fake", "2.2");
    cml_fmt(path, sizeof path, "%s/results.json", out);
    json = cml_read_text(path, 1u << 24, NULL);
    ck_assert_msg(rc == 1 && l && strcmp(l->status, "tampered") == 0 && l->score == 0 &&
                  other && strcmp(other->status, "passed") == 0 && json &&
                  strstr(json, "verified by the grader") && text && strstr(text, "tampered"),
                  "exit %d, 2.1 %s, 2.2 %s, results.json hint %d; output:\n%s", rc,
                  l ? l->status : "missing", other ? other->status : "missing",
                  json && strstr(json, "verified by the grader"), text);
    free(json);
    free(text);
}
END_TEST

/* The claims tests that run the pipeline on build/fake_lab. */
TCase *claims_pipeline_tcase(void)
{
    TCase *tc = tcase_create("forged runs");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, case_after_done_is_tampered);
    tcase_add_test(tc, second_done_is_tampered);
    tcase_add_test(tc, case_nobody_asked_for_is_tampered);
    tcase_add_test(tc, case_for_another_task_is_tampered);
    tcase_add_test(tc, duplicate_case_is_tampered);
    tcase_add_test(tc, time_for_an_untimed_case_is_tampered);
    tcase_add_test(tc, malformed_line_is_tampered);
    tcase_add_test(tc, time_with_another_message_is_tampered);
    tcase_add_test(tc, forged_second_measurement_is_tampered);
    tcase_add_test(tc, bytes_claimed_by_the_lab_are_ignored);
    tcase_add_test(tc, records_on_stdout_are_not_claims);
    tcase_add_test(tc, honest_fake_lab_gets_full_marks);
    tcase_add_test(tc, tampered_reference_gives_no_reference_times);
    tcase_add_test(tc, reports_name_the_tampered_status_and_the_hint);
    return tc;
}
