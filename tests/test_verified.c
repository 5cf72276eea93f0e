/* Only verified work is timed, against the right bound: every timed repetition runs on inputs of
 * its own seed and reports the evidence of its output, which the grader recomputes for a sample
 * (4_verify/verify_reps.c, through the pipeline on build/fake_lab); a host-involved time is held
 * to the pinned link's bound and a device time to the device copy's, both as the reference run
 * measured them (5_time/speed.c). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "helpers.h"
#include "judge.h"
#include "speed.h"
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
    unsetenv("CML_VERIFY_REPS");
    cml_rmtree(root);
}

/* Grade lab 01_fake (1.1 copy and 1.2 transpose are timed) with FAKE_MODE=mode in `task`. */
static const cml_task_result *grade(const char *mode, const char *task)
{
    cml_run_opts o = { .seed = 4242, .work_dir = work, .cc = 90 };
    fake_grade(&specs[0], mode, task, &o, &result);
    return test_task(&result, task);
}

START_TEST(repetitions_on_their_own_inputs_pass)
{
    const cml_task_result *r = grade("right", "1.2");
    ck_assert_msg(r->status == CML_STATUS_PASSED && test_others_full(&result, "1.2"),
                  "status %s: %s", cml_status_name(r->status), r->detail);
}
END_TEST

/* The work done for the checked run only: every repetition left the first inputs' output. */
START_TEST(lazy_timed_repetitions_fail_the_case)
{
    const cml_task_result *r = grade("lazy", "1.1");
    ck_assert_msg(r->status == CML_STATUS_WRONG && r->cases_passed == 2 &&
                  r->perf_score == 0 && strstr(r->detail, "timed repetition") &&
                  test_others_full(&result, "1.1"),
                  "status %s, %d passed: %s", cml_status_name(r->status), r->cases_passed,
                  r->detail);
}
END_TEST

/* Even a sample of one finds a lab that skipped the work on every repetition. */
START_TEST(a_sample_of_one_repetition_finds_a_lazy_lab)
{
    setenv("CML_VERIFY_REPS", "1", 1);
    const cml_task_result *r = grade("lazy", "1.2");
    ck_assert_msg(r->status == CML_STATUS_WRONG, "status %s: %s", cml_status_name(r->status),
                  r->detail);
}
END_TEST

/* Past the first ten repetitions (those drawn before the run), a sample is drawn after it. */
START_TEST(late_repetitions_are_verified_too)
{
    const cml_task_result *r = grade("lazylate", "1.1");
    ck_assert_msg(r->status == CML_STATUS_WRONG && strstr(r->detail, "timed repetition 1"),
                  "status %s: %s", cml_status_name(r->status), r->detail);
}
END_TEST

START_TEST(repetitions_without_evidence_are_tampered)
{
    const cml_task_result *r = grade("fewreps", "1.1");
    ck_assert_msg(r->status == CML_STATUS_TAMPERED && strstr(r->detail, "carried the evidence"),
                  "status %s: %s", cml_status_name(r->status), r->detail);
}
END_TEST

/* ---- bounds: the same-run bandwidths of the reference, per kind of task ---- */

static cml_task_spec spec;
static cml_task_result r;
static cml_run_record student, ref;

/* Task 6.1, check `check`, one timed case of n = 2^24 floats; the student took `ms`; the
 * reference run measured the link at h2d/d2h GB/s and the device copy at 3000 GB/s. */
static void score_one(const char *check, double ms, double h2d, double d2h)
{
    memset(&spec, 0, sizeof spec), memset(&r, 0, sizeof r);
    memset(&student, 0, sizeof student), memset(&ref, 0, sizeof ref);
    strcpy(spec.id, "6.1"), strcpy(spec.check, check);
    spec.points = 4, spec.perf_points = 4, spec.full_ratio = 1.15, spec.zero_ratio = 2.5;
    spec.ncases = 1, spec.cases[0].n = 1 << 24, spec.cases[0].timed = 1;
    strcpy(spec.cases[0].text, "n=16777216,passes=1");
    r.spec = &spec, r.cases[0].passed = 1;
    cml_run_record *runs[] = {&student, &ref};
    for (int i = 0; i < 2; i++) {
        cml_run_record *run = runs[i];
        run->ncases = 1, run->done = 1, run->cases[0].status = CML_CASE_OK;
        strcpy(run->cases[0].task, "6.1");
        run->cases[0].has_time = 1, run->cases[0].ms = ms;
    }
    ref.copy_gbps = 3000, ref.link_h2d_gbps = h2d, ref.link_d2h_gbps = d2h;
    student.copy_gbps = 1e9; /* a claim: forged, it would make anything plausible */
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
}

/* 2^24 floats of x and y in (128 MiB) at 50 GB/s take 2.68 ms: 1 ms is impossible. */
START_TEST(host_task_faster_than_the_link_is_implausible)
{
    score_one("saxpy", 1.0, 50, 50);
    ck_assert_msg(r.implausible && r.perf_score == 0 && strstr(r.detail, "host link"),
                  "implausible %d, fraction %g: %s", r.implausible, r.copy_fraction, r.detail);
}
END_TEST

START_TEST(host_task_at_the_link_is_plausible)
{
    score_one("saxpy", 2.8, 50, 50);
    ck_assert_msg(!r.implausible && r.status == CML_STATUS_PASSED, "fraction %g: %s",
                  r.copy_fraction, r.detail);
}
END_TEST

/* 128 MiB read and written in 0.03 ms is 4474 GB/s: over the reference's 3000, though under
 * the 10^9 GB/s the student's own run claimed. */
START_TEST(device_task_is_held_to_the_reference_copy_bandwidth)
{
    score_one("copy", 0.03, 50, 50);
    ck_assert_msg(r.implausible && r.copy_fraction > 1.05, "fraction %g: %s", r.copy_fraction,
                  r.detail);
}
END_TEST

TCase *verified_tcase(void)
{
    TCase *tc = tcase_create("verified");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, repetitions_on_their_own_inputs_pass);
    tcase_add_test(tc, lazy_timed_repetitions_fail_the_case);
    tcase_add_test(tc, a_sample_of_one_repetition_finds_a_lazy_lab);
    tcase_add_test(tc, late_repetitions_are_verified_too);
    tcase_add_test(tc, repetitions_without_evidence_are_tampered);
    tcase_add_test(tc, host_task_faster_than_the_link_is_implausible);
    tcase_add_test(tc, host_task_at_the_link_is_plausible);
    tcase_add_test(tc, device_task_is_held_to_the_reference_copy_bandwidth);
    return tc;
}
