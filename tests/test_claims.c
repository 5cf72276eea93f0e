/* The result channel is a claim (records_claims.c): every record the student's process could
 * have forged that no honest harness writes marks the run tampered, and every record the honest
 * harness does write is still read. Each rule has a test that trips it and one that does not. */
#include <check.h>
#include <string.h>

#include "records.h"
#include "report.h"
#include "judge.h"
#include "speed.h"
#include "suites.h"

TCase *claims_pipeline_tcase(void); /* tests/test_claims_pipeline.c */
TCase *bytes_tcase(void);           /* tests/test_bytes.c */
TCase *verified_tcase(void);        /* tests/test_verified.c */

static cml_run_record rec;

/* Three cases of task 1.1; the last is timed, as the grader asks for them. */
static const cml_run_asked ASKED = {3, {"1.1", "1.1", "1.1"}, {0, 0, 1}};

#define HEAD                                                                                   \
    "hello protocol=1 lab=01_coalescing\n"                                                     \
    "device name=Fake cc=90 sms=132 l2=52428800 mem=84929347584 driver=13000 runtime=13000\n" \
    "copybw gbps=3000.0 bytes=2147483648\n"
#define CASES                                                                                  \
    "case k=0 task=1.1 status=ok elems=1000 elem_bytes=4 file=case0.bin\n"                     \
    "case k=1 task=1.1 status=ok elems=4097 elem_bytes=4 file=case1.bin\n"                     \
    "case k=2 task=1.1 status=ok elems=65536 elem_bytes=4 file=case2.bin\n"
#define REP "rep k=2 r=0 hash=7 wsum=-1.5 wabs=1.5\n"
#define TIME_LINE "time k=2 task=1.1 ms=0.5 host_ms=0.5 reps=1 spread=0.001 bytes=524288\n"
#define TIME REP TIME_LINE /* one repetition and the evidence of its output */
#define HONEST HEAD CASES TIME "note task=1.1 msg=a table row\ndone\n"

static void parse(const char *text)
{
    ck_assert_int_eq(cml_records_parse_claims(text, strlen(text), &ASKED, &rec), 0);
}

/* The run was tampered and the first forgery seen contains `what`. */
#define ck_assert_forged(what)                                                                 \
    ck_assert_msg(rec.tampered && strstr(rec.tamper, what), "tampered %d, '%s' (want '%s')",   \
                  rec.tampered, rec.tamper, what)
#define ck_assert_honest() ck_assert_msg(!rec.tampered, "forged: %s", rec.tamper)

START_TEST(honest_run_is_read_whole)
{
    parse(HONEST);
    ck_assert_honest();
    ck_assert(rec.hello && rec.done && rec.ncases == 3 && rec.cases[2].has_time);
    ck_assert_double_eq_tol(rec.cases[2].ms, 0.5, 1e-12);
    ck_assert_str_eq(rec.notes[0], "1.1: a table row");
}
END_TEST

START_TEST(honest_todo_error_and_crash_are_not_forgeries)
{
    parse(HEAD "case k=0 task=1.1 status=todo msg=write the kernel\n"
               "todo task=1.1 msg=write the kernel\n"
               "case k=1 task=1.1 status=error msg=CUDA error at harness.cu:88\n");
    ck_assert_honest();
    ck_assert_int_eq(rec.cases[1].status, CML_CASE_ERROR);
}
END_TEST

START_TEST(record_after_done_is_forged_and_not_applied)
{
    parse(HEAD CASES TIME "done\n\ncase k=0 task=1.1 status=error msg=after\n");
    ck_assert_str_eq(rec.tamper, "wrote a 'case' record after 'done' (line 11)");
    ck_assert_int_eq(rec.cases[0].status, CML_CASE_OK);
}
END_TEST

START_TEST(blank_lines_after_done_are_no_records)
{
    parse(HONEST "\n\r\n");
    ck_assert_honest();
}
END_TEST

START_TEST(second_done_is_forged)
{
    parse(HONEST "done\n");
    ck_assert_forged("wrote a second 'done'");
}
END_TEST

START_TEST(case_beyond_the_cases_asked_is_forged)
{
    parse(HEAD CASES "case k=3 task=1.1 status=ok elems=1 file=case3.bin\n");
    ck_assert_forged("'case' record for k=3, but the grader asked for 3 case(s)");
    ck_assert_int_eq(rec.ncases, 3);
}
END_TEST

START_TEST(time_beyond_the_cases_asked_is_forged)
{
    parse(HEAD CASES "time k=15 task=1.1 ms=0.1\n");
    ck_assert_forged("'time' record for k=15");
}
END_TEST

START_TEST(case_for_another_task_is_forged)
{
    parse(HEAD "case k=0 task=1.2 status=ok elems=1000 file=case0.bin\n");
    ck_assert_forged("for task '1.2' at k=0, where the grader asked for task 1.1");
}
END_TEST

START_TEST(time_for_another_task_is_forged)
{
    parse(HEAD CASES "time k=2 task=2.1 ms=0.5\n");
    ck_assert_forged("'time' record for task '2.1' at k=2");
}
END_TEST

START_TEST(second_case_record_for_a_k_is_forged)
{
    parse(HEAD CASES "case k=1 task=1.1 status=ok elems=4097 file=case1.bin\n");
    ck_assert_forged("wrote a second 'case' record for k=1 (line 7)");
}
END_TEST

START_TEST(second_time_record_for_a_k_is_forged)
{
    parse(HEAD CASES TIME TIME_LINE);
    ck_assert_forged("wrote a second 'time' record for k=2");
}
END_TEST

START_TEST(time_for_a_case_not_asked_to_be_timed_is_forged)
{
    parse(HEAD CASES "time k=1 task=1.1 ms=0.001 bytes=32776\n");
    ck_assert_forged("'time' record for k=1, a case the grader did not ask to time");
    ck_assert_int_eq(rec.cases[1].has_time, 0);
}
END_TEST

START_TEST(time_before_its_case_record_is_forged)
{
    parse(HEAD TIME_LINE CASES);
    ck_assert_forged("whose case record had not been written");
}
END_TEST

START_TEST(time_for_a_case_that_is_not_ok_is_forged)
{
    parse(HEAD "case k=2 task=1.1 status=todo msg=later\n" TIME_LINE);
    ck_assert_forged("whose case record is not status=ok");
}
END_TEST

START_TEST(malformed_line_after_hello_is_forged)
{
    parse(HEAD "case k=0 task=1.1 status\n");
    ck_assert_forged("wrote a malformed 'case' line");
}
END_TEST

START_TEST(unknown_record_after_hello_is_forged)
{
    parse(HEAD "bonus points=100\n");
    ck_assert_forged("malformed 'bonus' line");
}
END_TEST

START_TEST(malformed_line_before_hello_is_only_skipped)
{
    parse("garbage from a static constructor\n" HONEST);
    ck_assert_honest();
}
END_TEST

/* A TODO's task name and message are the student's own text, passed through by the harness. */
START_TEST(malformed_todo_is_only_skipped)
{
    parse(HEAD "todo task=1.1 by friday msg=later\n" CASES TIME "done\n");
    ck_assert_honest();
}
END_TEST

/* Every timed repetition reports what its output held (only verified work is timed). */
START_TEST(time_of_more_repetitions_than_evidence_is_forged)
{
    parse(HEAD CASES REP "time k=2 task=1.1 ms=0.5 reps=2\n");
    ck_assert_forged("'time' record for k=2 of 2 repetitions, but 1 carried the evidence");
}
END_TEST

START_TEST(time_without_repetitions_is_forged)
{
    parse(HEAD CASES "time k=2 task=1.1 ms=0.5\n");
    ck_assert_forged("'time' record for k=2 of 0 repetitions");
}
END_TEST

START_TEST(evidence_after_its_time_is_forged)
{
    parse(HEAD CASES TIME "rep k=2 r=1 hash=7 wsum=1 wabs=1\n");
    ck_assert_forged("'rep' record for k=2 after its time");
}
END_TEST

START_TEST(evidence_for_an_untimed_case_is_forged)
{
    parse(HEAD CASES "rep k=1 r=0 hash=7 wsum=1 wabs=1\n");
    ck_assert_forged("'rep' record for k=1, a case the grader did not ask to time");
}
END_TEST

START_TEST(first_forgery_is_the_one_reported)
{
    parse(HEAD CASES "case k=0 task=1.1 status=ok\ndone\ndone\n");
    ck_assert_forged("second 'case' record for k=0 (line 7)");
}
END_TEST

START_TEST(forged_record_type_is_printed_safely)
{
    parse(HONEST "c\x01se k=0\n");
    ck_assert_forged("wrote a 'c?se' record after 'done'");
}
END_TEST

START_TEST(without_a_request_every_case_is_forged)
{
    ck_assert_int_eq(cml_records_parse_claims(HONEST, strlen(HONEST), NULL, &rec), 0);
    ck_assert_forged("but the grader asked for 0 case(s)");
}
END_TEST

/* The report's hint: the spec's for an ordinary failure, the grader's rules for a forgery. */
START_TEST(tampered_task_hints_that_the_grader_verifies)
{
    cml_task_spec t = {.id = "1.1", .hint = "Section 2"};
    cml_task_result r = {.spec = &t, .status = CML_STATUS_WRONG};
    const char *where, *text;
    cml_task_hint(&r, "docs/01.md", &where, &text);
    ck_assert(strcmp(where, "docs/01.md") == 0 && strcmp(text, "Section 2") == 0);
    r.status = CML_STATUS_TAMPERED;
    cml_task_hint(&r, "docs/01.md", &where, &text);
    ck_assert_msg(strstr(text, "verified by the grader"), "hint: %s", text);
}
END_TEST

START_TEST(tampered_run_scores_nothing)
{
    cml_task_spec t = {.id = "1.1", .points = 6, .perf_points = 4, .technique_points = 2,
                       .ncases = 1};
    cml_task_result r = {.spec = &t};
    r.cases[0].passed = 1;
    memset(&rec, 0, sizeof rec);
    rec.tampered = 1;
    strcpy(rec.tamper, "wrote a second 'done' (line 9)");
    cml_score_task(&r, &rec, NULL);
    cml_publish_task(&r);
    ck_assert_str_eq(cml_status_name(r.status), "tampered");
    ck_assert(r.score == 0 && r.correctness_score == 0 && r.max_score == 12);
    ck_assert_str_eq(r.detail, "the lab process wrote a second 'done' (line 9): results from "
                               "the lab process are claims, and this one was forged");
}
END_TEST

Suite *claims_suite(void)
{
    Suite *s = suite_create("claims");
    TCase *tc = tcase_create("parser");
    tcase_add_test(tc, honest_run_is_read_whole);
    tcase_add_test(tc, honest_todo_error_and_crash_are_not_forgeries);
    tcase_add_test(tc, record_after_done_is_forged_and_not_applied);
    tcase_add_test(tc, blank_lines_after_done_are_no_records);
    tcase_add_test(tc, second_done_is_forged);
    tcase_add_test(tc, case_beyond_the_cases_asked_is_forged);
    tcase_add_test(tc, time_beyond_the_cases_asked_is_forged);
    tcase_add_test(tc, case_for_another_task_is_forged);
    tcase_add_test(tc, time_for_another_task_is_forged);
    tcase_add_test(tc, second_case_record_for_a_k_is_forged);
    tcase_add_test(tc, second_time_record_for_a_k_is_forged);
    tcase_add_test(tc, time_for_a_case_not_asked_to_be_timed_is_forged);
    tcase_add_test(tc, time_before_its_case_record_is_forged);
    tcase_add_test(tc, time_for_a_case_that_is_not_ok_is_forged);
    tcase_add_test(tc, malformed_line_after_hello_is_forged);
    tcase_add_test(tc, unknown_record_after_hello_is_forged);
    tcase_add_test(tc, malformed_line_before_hello_is_only_skipped);
    tcase_add_test(tc, malformed_todo_is_only_skipped);
    tcase_add_test(tc, time_of_more_repetitions_than_evidence_is_forged);
    tcase_add_test(tc, time_without_repetitions_is_forged);
    tcase_add_test(tc, evidence_after_its_time_is_forged);
    tcase_add_test(tc, evidence_for_an_untimed_case_is_forged);
    tcase_add_test(tc, first_forgery_is_the_one_reported);
    tcase_add_test(tc, forged_record_type_is_printed_safely);
    tcase_add_test(tc, without_a_request_every_case_is_forged);
    tcase_add_test(tc, tampered_task_hints_that_the_grader_verifies);
    tcase_add_test(tc, tampered_run_scores_nothing);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, claims_pipeline_tcase());
    suite_add_tcase(s, bytes_tcase());
    suite_add_tcase(s, verified_tcase());
    return s;
}
