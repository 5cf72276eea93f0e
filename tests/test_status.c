/* status: the one table of task statuses (status.c) and the one function that awards points
 * (cml_judge, judge.c). The names are what record.json, results.json and summary.tsv say, so
 * the table is pinned here against the list docs/ARCHITECTURE.md gives. */
#include <string.h>

#include "findings.h"
#include "helpers.h"
#include "judge.h"
#include "speed.h"
#include "suites.h"

/* The statuses of docs/ARCHITECTURE.md ("Outputs of cml-grade grade"), in the enum's order. */
static const struct {
    enum cml_status status;
    const char *name;
} DOCUMENTED[] = {
    {CML_STATUS_PASSED, "passed"},   {CML_STATUS_SLOW, "slow"},
    {CML_STATUS_TECHNIQUE, "technique"}, {CML_STATUS_WRONG, "wrong"},
    {CML_STATUS_TODO, "todo"},       {CML_STATUS_ERROR, "error"},
    {CML_STATUS_CRASH, "crash"},     {CML_STATUS_TIMEOUT, "timeout"},
    {CML_STATUS_TAMPERED, "tampered"}, {CML_STATUS_BUILD_ERROR, "build-error"},
    {CML_STATUS_NO_GPU, "no-gpu"},   {CML_STATUS_SANITIZER, "sanitizer"},
    {CML_STATUS_MISSING, "missing"},
};
#define NDOCUMENTED ((int)(sizeof DOCUMENTED / sizeof DOCUMENTED[0]))

START_TEST(every_status_has_a_name)
{
    for (int s = CML_STATUS_NONE + 1; s < CML_STATUS_COUNT; s++)
        ck_assert_msg(cml_status_name(s)[0] != '\0', "status %d has no name", s);
    ck_assert_str_eq(cml_status_name(CML_STATUS_NONE), ""); /* not graded: shown as "-" */
}
END_TEST

START_TEST(every_name_round_trips)
{
    for (int s = CML_STATUS_NONE + 1; s < CML_STATUS_COUNT; s++) {
        enum cml_status back = CML_STATUS_NONE;
        ck_assert_int_eq(cml_status_from_name(cml_status_name(s), &back), 0);
        ck_assert_int_eq(back, s);
    }
}
END_TEST

START_TEST(unknown_names_are_rejected)
{
    const char *bad[] = {"", "PASSED", "pass", "build_error", "passed ", "?", "nogpu"};
    enum cml_status out = CML_STATUS_WRONG;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(cml_status_from_name(bad[i], &out) == -1, "'%s' was accepted", bad[i]);
    ck_assert_int_eq(cml_status_from_name(NULL, &out), -1);
    ck_assert_int_eq(out, CML_STATUS_WRONG); /* left alone */
    ck_assert_str_eq(cml_status_name(CML_STATUS_COUNT), "?");
}
END_TEST

/* Fails when a status is mapped to another name, or a status is added without documenting it. */
START_TEST(names_are_the_documented_ones)
{
    ck_assert_int_eq(NDOCUMENTED, CML_STATUS_COUNT - 1);
    for (int i = 0; i < NDOCUMENTED; i++)
        ck_assert_str_eq(cml_status_name(DOCUMENTED[i].status), DOCUMENTED[i].name);
}
END_TEST

START_TEST(solved_means_every_case_passed)
{
    for (int s = 0; s < CML_STATUS_COUNT; s++)
        ck_assert_int_eq(cml_status_solved(s), s == CML_STATUS_PASSED || s == CML_STATUS_SLOW ||
                                               s == CML_STATUS_TECHNIQUE);
}
END_TEST

static cml_task_spec spec;
static cml_task_result r;

/* 6 correctness points over 3 cases, 4 performance and 2 technique points; every case passed
 * and earned everything, so only the status can take points away. */
static void setup(void)
{
    memset(&spec, 0, sizeof spec);
    memset(&r, 0, sizeof r);
    strcpy(spec.id, "1.1");
    spec.points = 6, spec.perf_points = 4, spec.technique_points = 2, spec.ncases = 3;
    spec.ntech = 1; /* a technique check, for `technique` */
    r.spec = &spec;
    r.cases_passed = 3;
    r.credit = (cml_credit){.cases = 3, .perf = 1, .technique = 1};
}

START_TEST(award_scores_zero_unless_solved)
{
    for (int s = CML_STATUS_PASSED; s < CML_STATUS_COUNT; s++) {
        if (cml_status_solved(s))
            continue;
        r.credit.cases = 0; /* no case passed; the perf and technique credit must not leak */
        judge_as(&r, s, "x");
        ck_assert_int_eq(r.status, s);
        ck_assert_msg(r.score == 0 && r.perf_score == 0 && r.technique_score == 0,
                      "%s scored %g", cml_status_name(s), r.score);
        ck_assert_double_eq(r.max_score, 12);
    }
}
END_TEST

START_TEST(award_gives_the_full_maximum_to_every_status)
{
    for (int s = CML_STATUS_PASSED; s < CML_STATUS_COUNT; s++) {
        judge_as(&r, s, "x");
        ck_assert_int_eq(r.status, s);
        ck_assert_msg(r.max_score == 12, "%s: max %g", cml_status_name(s), r.max_score);
    }
}
END_TEST

START_TEST(award_follows_what_each_status_earns)
{
    judge_as(&r, CML_STATUS_PASSED, "all 3 cases passed");
    ck_assert_double_eq(r.score, 12);
    judge_as(&r, CML_STATUS_TECHNIQUE, "a check failed");
    ck_assert(r.score == 10 && r.technique_score == 0);
    r.credit.cases = 2;
    judge_as(&r, CML_STATUS_WRONG, "case 3 failed");
    ck_assert(r.correctness_score == 4 && r.perf_score == 0 && r.score == 4);
    const enum cml_status nothing[] = {CML_STATUS_TIMEOUT, CML_STATUS_TAMPERED,
                                       CML_STATUS_BUILD_ERROR, CML_STATUS_NO_GPU,
                                       CML_STATUS_SANITIZER, CML_STATUS_MISSING};
    for (size_t i = 0; i < sizeof nothing / sizeof nothing[0]; i++) { /* whatever passed */
        judge_as(&r, nothing[i], "x");
        ck_assert_msg(r.score == 0, "%s scored %g", cml_status_name(nothing[i]), r.score);
    }
}
END_TEST

/* The precedence, one finding over another, and the detail each leaves: a forged record over
 * everything, a run cut short over its cases, a sanitizer tool's error over a technique check
 * (and after a guard region's finding), a failed case over a failed check, a failed check over
 * the speed; a note follows the words it belongs to. */
START_TEST(judge_follows_the_precedence_of_findings)
{
    judge_as(&r, CML_STATUS_PASSED, "all 3 cases passed");
    strcpy(r.found.note, "measured twice");
    cml_publish_task(&r);
    ck_assert_str_eq(r.detail, "all 3 cases passed; measured twice");
    r.found.checked = 1; /* the technique stage: check 0 failed */
    r.tech[0].state = CML_TECH_FAILED;
    strcpy(r.tech[0].detail, "no xor");
    cml_publish_task(&r);
    ck_assert_int_eq(r.status, CML_STATUS_TECHNIQUE);
    ck_assert_msg(strstr(r.detail, "): no xor; all 3 cases passed; measured twice"), "%s",
                  r.detail);
    r.sanitizers[1].state = CML_TECH_FAILED; /* the sanitizer phase: racecheck */
    strcpy(r.sanitizers[1].detail, "racecheck: a race");
    cml_publish_task(&r);
    ck_assert_int_eq(r.status, CML_STATUS_SANITIZER);
    ck_assert_str_eq(r.detail, "racecheck: a race");
    r.found.faults = CML_FAULT_GUARD | CML_FAULT_WRONG; /* a guard region's, after the tools' */
    strcpy(r.found.why, "case n=7: illegal address");
    r.found.note[0] = '\0';
    cml_publish_task(&r);
    ck_assert_msg(strncmp(r.detail, "racecheck: a race; memory outside", 33) == 0 &&
                  strstr(r.detail, "): case n=7: illegal address"), "%s", r.detail);
    r.sanitizers[1].state = CML_TECH_PASSED;
    r.found.faults = CML_FAULT_WRONG;
    cml_publish_task(&r); /* a wrong case: the failed check and the tools do not matter */
    ck_assert_int_eq(r.status, CML_STATUS_WRONG);
    r.found.stopped = CML_STOP_TIMED_OUT;
    cml_publish_task(&r);
    ck_assert_int_eq(r.status, CML_STATUS_TIMEOUT);
    strcpy(r.found.tampered, "wrote a record after done");
    cml_publish_task(&r);
    ck_assert_int_eq(r.status, CML_STATUS_TAMPERED);
    ck_assert_msg(strstr(r.detail, "the lab process wrote a record after done"), "%s", r.detail);
}
END_TEST

/* A check that was due and did not run keeps its points, and a course grading counts it (exit
 * 3, `course_unchecked` in results.json); a practice grading does not, a check that ran and
 * passed or failed never counts, and neither does one of a task whose cases failed (it was
 * never due). */
START_TEST(unchecked_checks_count_in_course_gradings_only)
{
    static cml_grading g;
    memset(&g, 0, sizeof g);
    r.found.checked = 1;
    r.tech[0].state = CML_TECH_NOT_CHECKED;
    g.nlabs = 1, g.labs[0].ntasks = 1, g.labs[0].tasks[0] = r;
    ck_assert_int_eq(cml_unchecked(&r), 1);
    ck_assert_int_eq(cml_course_unchecked(&g), 1);
    g.labs[0].practice = 1;
    ck_assert_int_eq(cml_course_unchecked(&g), 0);
    g.labs[0].practice = 0;
    for (int st = CML_TECH_NOT_RUN; st <= CML_TECH_FAILED; st++) {
        g.labs[0].tasks[0].tech[0].state = (enum cml_tech_state)st;
        ck_assert_int_eq(cml_course_unchecked(&g), 0);
    }
    g.labs[0].tasks[0].tech[0].state = CML_TECH_NOT_CHECKED;
    g.labs[0].tasks[0].sanitizers[2].state = CML_TECH_NOT_CHECKED;
    ck_assert_int_eq(cml_course_unchecked(&g), 2);
    g.labs[0].tasks[0].found.checked = 0;
    g.labs[0].tasks[0].found.faults = CML_FAULT_WRONG;
    g.labs[0].tasks[0].cases_passed = 2;
    ck_assert_int_eq(cml_course_unchecked(&g), 0);
}
END_TEST

/* The status table's suite. */
Suite *status_suite(void)
{
    Suite *s = suite_create("status");
    TCase *table = tcase_create("table"), *award = tcase_create("award");
    tcase_add_checked_fixture(award, setup, NULL);
    tcase_add_test(table, every_status_has_a_name);
    tcase_add_test(table, every_name_round_trips);
    tcase_add_test(table, unknown_names_are_rejected);
    tcase_add_test(table, names_are_the_documented_ones);
    tcase_add_test(table, solved_means_every_case_passed);
    tcase_add_test(award, award_scores_zero_unless_solved);
    tcase_add_test(award, award_gives_the_full_maximum_to_every_status);
    tcase_add_test(award, award_follows_what_each_status_earns);
    tcase_add_test(award, judge_follows_the_precedence_of_findings);
    tcase_add_test(award, unchecked_checks_count_in_course_gradings_only);
    suite_add_tcase(s, table);
    suite_add_tcase(s, award);
    judge_add(s);
    return s;
}
