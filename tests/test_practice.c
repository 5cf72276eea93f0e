/* The practice grade (docs/ARCHITECTURE.md, "Practice grade"): a repository without
 * solutions/ (the student bundle) judges speed from the student's fraction of this GPU's copy
 * bandwidth against the spec's practice_fraction; with solutions/ nothing changes. The whole
 * grading runs on the fake repository (tests/fake_root.c) with build/fake_lab, whose copy
 * bandwidth is 3000 GB/s and whose every case takes FAKE_REF_MS (2 ms unless set). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "helpers.h"
#include "report.h"
#include "speed.h"
#include "spec.h"
#include "suites.h"
#include "util.h"
#include "verify.h"

static char root[64], work[CML_PATH], out[CML_PATH];
static cml_lab_spec specs[2];
static cml_grading *g;

static void setup(void)
{
    fake_root_setup(root, sizeof root, 20, 20, specs, work, sizeof work);
    cml_fmt(out, sizeof out, "%s/out", root);
    setenv("CML_SANITIZE", "off", 1); /* the sanitizers are not what these tests are about */
    g = calloc(1, sizeof *g);
}

static void teardown(void)
{
    unsetenv("CML_SANITIZE");
    unsetenv("FAKE_REF_MS");
    free(g);
    cml_rmtree(root);
}

/* What the fake lab reaches of its copy bandwidth on task t's first timed case at `ms`: the
 * practice_fraction of a reference that runs as fast as the fake does by default. */
static double fake_fraction(const cml_task_spec *t, double ms)
{
    for (int i = 0; i < t->ncases; i++)
        if (t->cases[i].timed)
            return (double)cml_case_bytes(t, &t->cases[i]) / (ms * 1e6) / 3000.0;
    return 0;
}

/* Lab 01_fake graded through cml_grade, its tasks' practice_fraction that of a 2 ms run;
 * without solutions/ when `bundle` is set. */
static const cml_lab_result *grade_lab1(int bundle)
{
    char sols[CML_PATH], err[512];
    double build_s;
    for (int t = 0; t < specs[0].ntasks; t++)
        if (specs[0].tasks[t].perf_points > 0)
            specs[0].tasks[t].practice_fraction = fake_fraction(&specs[0].tasks[t], 2.0);
    cml_fmt(sols, sizeof sols, "%s/solutions", root);
    if (bundle)
        cml_rmtree(sols);
    const char *bin = test_path("build/fake_lab");
    cml_grade_opts o = { root, root, out, 7, 0, NULL, bin, bin, NULL, NULL, { NULL, NULL }, NULL,
                         0 };
    ck_assert_msg(cml_grade(&o, specs, 1, g, &build_s, err, sizeof err) == 0, "%s", err);
    return &g->labs[0];
}

START_TEST(practice_grade_gives_full_speed_at_the_reference_fraction)
{
    const cml_task_result *r = test_task(grade_lab1(1), "1.1");
    ck_assert_msg(r->perf_score == 4 && strstr(r->detail, "practice grade"),
                  "perf %g of 4, detail '%s'", r->perf_score, r->detail);
}
END_TEST

/* The feedback's bandwidth table and chart: without a reference run the bound is the copy
 * bandwidth the student's own run measured (the fake's 3000 GB/s), never 0. */
START_TEST(practice_chart_bound_is_the_runs_copy_bandwidth)
{
    const cml_lab_result *lab = grade_lab1(1);
    const cml_task_result *r = test_task(lab, "1.1");
    double v[3];
    const char *bound;
    cml_chart_values(lab, r, v, &bound);
    ck_assert_msg(fabs(v[2] - 3000) < 1 && strcmp(bound, "device copy") == 0,
                  "bound %g (%s)", v[2], bound);
}
END_TEST

/* 444 times the reference's time, as a copy launched on 2 blocks of 32 threads measured. */
START_TEST(practice_grade_takes_speed_points_from_a_slow_kernel)
{
    setenv("FAKE_REF_MS", "888", 1);
    const cml_task_result *r = test_task(grade_lab1(1), "1.1");
    ck_assert_msg(r->perf_score == 0 && r->status == CML_STATUS_SLOW &&
                  fabs(r->ratio - 444) < 1, "perf %g, status %s, ratio %g, detail '%s'",
                  r->perf_score, cml_status_name(r->status), r->ratio, r->detail);
}
END_TEST

START_TEST(practice_grade_without_a_bound_judges_no_speed)
{
    char sols[CML_PATH], err[512];
    double build_s;
    cml_fmt(sols, sizeof sols, "%s/solutions", root);
    cml_rmtree(sols); /* and the fake spec gives no practice_fraction */
    const char *bin = test_path("build/fake_lab");
    cml_grade_opts o = { root, root, out, 7, 0, NULL, bin, bin, NULL, NULL, { NULL, NULL }, NULL,
                         0 };
    ck_assert_msg(cml_grade(&o, specs, 1, g, &build_s, err, sizeof err) == 0, "%s", err);
    const cml_task_result *r = test_task(&g->labs[0], "1.1");
    ck_assert_msg(r->perf_score == 0 && strstr(r->detail, "speed not judged"),
                  "perf %g, detail '%s'", r->perf_score, r->detail);
}
END_TEST

/* With solutions/ the reference is timed as before: a slow machine (both 444x) is ratio 1. */
START_TEST(full_repository_grades_against_the_reference_as_before)
{
    setenv("FAKE_REF_MS", "888", 1);
    const cml_lab_result *lab = grade_lab1(0);
    const cml_task_result *r = test_task(lab, "1.1");
    ck_assert_msg(!g->practice && !lab->practice && r->perf_score == 4 &&
                  strcmp(r->detail, "1.00x the reference time (full credit up to 1.15x, none "
                         "from 2.5x)") == 0, "practice %d, perf %g, detail '%s'", g->practice,
                  r->perf_score, r->detail);
}
END_TEST

START_TEST(practice_report_says_practice_grade)
{
    char *term = NULL, path[CML_PATH];
    size_t len = 0;
    grade_lab1(1);
    FILE *f = open_memstream(&term, &len);
    cml_report_terminal(f, g, 0);
    fclose(f);
    cml_fmt(path, sizeof path, "%s/record.json", out);
    char *record = cml_read_text(path, 1u << 24, NULL);
    cml_fmt(path, sizeof path, "%s/feedback.md", out);
    char *feedback = cml_read_text(path, 1u << 24, NULL);
    const char *plain = "speed is judged against this GPU's copy bandwidth, not the reference "
                        "solution; the course grader's speed points can differ";
    ck_assert_msg(strstr(term, plain) && record && strstr(record, "\"mode\": \"practice\"") &&
                  feedback && strstr(feedback, plain), "terminal:\n%s", term);
    free(term);
    free(record);
    free(feedback);
}
END_TEST

START_TEST(practice_credit_maps_the_fraction_to_a_ratio)
{
    cml_task_spec t = { .id = "9.9", .check = "copy", .perf_points = 10, .full_ratio = 1.15,
                        .zero_ratio = 2.5, .practice_fraction = 0.94 };
    cml_task_result r = { .spec = &t };
    char detail[512];
    double at_ref = cml_practice_credit(&r, 0.94, detail, sizeof detail);
    double half = cml_practice_credit(&r, 0.47, detail, sizeof detail);
    ck_assert_msg(at_ref == 1 && fabs(r.ratio - 2) < 1e-9 && fabs(half - 0.5 / 1.35) < 1e-9,
                  "credit %g at the reference's fraction, %g at half (ratio %g)", at_ref, half,
                  r.ratio);
}
END_TEST

/* practice_fraction: a fraction of a bandwidth, on a task with speed points. */
START_TEST(spec_refuses_a_practice_fraction_out_of_range)
{
    static const char *const bad[] = {
        "practice_fraction 0\n", "practice_fraction 1.5\n", "practice_fraction 0.9 0.8\n",
        "practice_fraction\n" };
    char path[64], err[512];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "lab 09_x\ntitle X\nfiles x.cu\nharness harness.cu\n"
                 "task 9.1\ntitle T\ncheck copy\npoints 1\ncase n=64 time\nperf 2 1.15 2.5\n%s",
                 bad[i]);
        cml_lab_spec *s = calloc(1, sizeof *s);
        ck_assert_msg(test_spec_text(text, s, path, err, sizeof err) != 0 &&
                      strstr(err, "practice_fraction"), "accepted '%s' (%s)", bad[i], err);
        free(s);
    }
}
END_TEST

START_TEST(spec_refuses_a_practice_fraction_without_perf)
{
    char path[64], err[512];
    cml_lab_spec *s = calloc(1, sizeof *s);
    int rc = test_spec_text("lab 09_x\ntitle X\nfiles x.cu\nharness harness.cu\ntask 9.1\n"
                            "title T\ncheck copy\npoints 1\ncase n=64 time\n"
                            "practice_fraction 0.9\n", s, path, err, sizeof err);
    ck_assert_msg(rc != 0 && strstr(err, "no 'perf'"), "rc %d: %s", rc, err);
    free(s);
}
END_TEST

START_TEST(spec_reads_a_practice_fraction)
{
    char path[64], err[512];
    cml_lab_spec *s = calloc(1, sizeof *s);
    int rc = test_spec_text("lab 09_x\ntitle X\nfiles x.cu\nharness harness.cu\ntask 9.1\n"
                            "title T\ncheck copy\npoints 1\ncase n=64 time\nperf 2 1.15 2.5\n"
                            "practice_fraction 0.94   # measured\n", s, path, err, sizeof err);
    ck_assert_msg(rc == 0 && s->tasks[0].practice_fraction == 0.94, "rc %d: %s", rc, err);
    free(s);
}
END_TEST

TCase *practice_bounds_tcase(void); /* tests/test_practice_bounds.c */
TCase *bundle_tcase(void);          /* tests/test_bundle.c */

Suite *practice_suite(void)
{
    Suite *s = suite_create("practice");
    TCase *tc = tcase_create("practice grade");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, practice_grade_gives_full_speed_at_the_reference_fraction);
    tcase_add_test(tc, practice_grade_takes_speed_points_from_a_slow_kernel);
    tcase_add_test(tc, practice_grade_without_a_bound_judges_no_speed);
    tcase_add_test(tc, practice_chart_bound_is_the_runs_copy_bandwidth);
    tcase_add_test(tc, full_repository_grades_against_the_reference_as_before);
    tcase_add_test(tc, practice_report_says_practice_grade);
    suite_add_tcase(s, tc);
    TCase *unit = tcase_create("practice bound");
    tcase_add_test(unit, practice_credit_maps_the_fraction_to_a_ratio);
    tcase_add_test(unit, spec_refuses_a_practice_fraction_out_of_range);
    tcase_add_test(unit, spec_refuses_a_practice_fraction_without_perf);
    tcase_add_test(unit, spec_reads_a_practice_fraction);
    suite_add_tcase(s, unit);
    suite_add_tcase(s, practice_bounds_tcase());
    suite_add_tcase(s, bundle_tcase());
    return s;
}
