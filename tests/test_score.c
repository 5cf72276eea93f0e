/* score: how verdicts and times become points, a status and the one-line detail. The task is
 * 6 correctness points over 3 cases plus 4 performance points on the last (timed) case; the
 * reference ran once for the lab, timed cases only, as the pipeline runs it. */
#include <math.h>
#include <string.h>

#include "judge.h"
#include "speed.h"
#include "suites.h"

static cml_task_spec spec;
static cml_task_result r;
static cml_run_record student, ref;

static void set_case(cml_case_record *c, const char *task, double ms, uint64_t bytes)
{
    c->status = CML_CASE_OK;
    strcpy(c->task, task);
    c->has_time = ms > 0;
    c->ms = ms;
    c->bytes = bytes;
}

static void setup(void)
{
    memset(&spec, 0, sizeof spec);
    memset(&r, 0, sizeof r);
    memset(&student, 0, sizeof student);
    memset(&ref, 0, sizeof ref);
    strcpy(spec.id, "1.1");
    strcpy(spec.check, "copy"); /* the grader counts bytes from the check and the case */
    spec.points = 6, spec.perf_points = 4, spec.full_ratio = 1.15, spec.zero_ratio = 2.5;
    spec.ncases = 3;
    strcpy(spec.cases[0].text, "n=1000");
    strcpy(spec.cases[1].text, "n=4097");
    strcpy(spec.cases[2].text, "n=67108864");
    spec.cases[0].n = 1000, spec.cases[1].n = 4097, spec.cases[2].n = 67108864;
    spec.cases[2].timed = 1;
    r.spec = &spec;
    for (int i = 0; i < 3; i++)
        set_case(&student.cases[i], "1.1", i == 2 ? 1.0 : 0, i == 2 ? 536870912 : 0);
    student.ncases = 3, student.done = 1, student.copy_gbps = 3000;
    set_case(&ref.cases[0], "1.1", 1.0, 536870912);
    ref.ncases = 1, ref.done = 1;
}

static void pass_cases(int n)
{
    for (int i = 0; i < 3; i++)
        r.cases[i].passed = i < n;
}

START_TEST(perf_fraction_is_full_at_or_below_full_ratio)
{
    ck_assert_double_eq(cml_perf_fraction(0.5, 1.15, 2.5), 1);
    ck_assert_double_eq(cml_perf_fraction(1.15, 1.15, 2.5), 1);
}
END_TEST

START_TEST(perf_fraction_interpolates_linearly)
{
    ck_assert_double_eq_tol(cml_perf_fraction(1.825, 1.15, 2.5), 0.5, 1e-12);
    ck_assert_double_eq_tol(cml_perf_fraction(2.0, 1.0, 3.0), 0.5, 1e-12);
    ck_assert_double_eq_tol(cml_perf_fraction(2.5, 1.0, 3.0), 0.25, 1e-12);
}
END_TEST

START_TEST(perf_fraction_is_zero_at_or_above_zero_ratio)
{
    ck_assert_double_eq(cml_perf_fraction(2.5, 1.15, 2.5), 0);
    ck_assert_double_eq(cml_perf_fraction(40, 1.15, 2.5), 0);
}
END_TEST

START_TEST(perf_fraction_guards_nan_inf_and_nonpositive_ratios)
{
    ck_assert_double_eq(cml_perf_fraction(NAN, 1.15, 2.5), 0);
    ck_assert_double_eq(cml_perf_fraction(INFINITY, 1.15, 2.5), 0);
    ck_assert_double_eq(cml_perf_fraction(0, 1.15, 2.5), 0);
    ck_assert_double_eq(cml_perf_fraction(-1, 1.15, 2.5), 0);
}
END_TEST

START_TEST(fast_correct_task_gets_full_marks)
{
    pass_cases(3);
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_str_eq(cml_status_name(r.status), "passed");
    ck_assert_double_eq(r.score, 10);
    ck_assert_double_eq(r.max_score, 10);
    ck_assert_str_eq(r.detail,
                     "1.00x the reference time (full credit up to 1.15x, none from 2.5x)");
}
END_TEST

START_TEST(slow_task_loses_perf_points)
{
    pass_cases(3);
    student.cases[2].ms = 1.825;
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_str_eq(cml_status_name(r.status), "slow");
    ck_assert_double_eq_tol(r.perf_score, 2, 1e-9);
    ck_assert_double_eq_tol(r.score, 8, 1e-9);
    ck_assert_ptr_nonnull(strstr(r.detail, "1.82x the reference time"));
}
END_TEST

START_TEST(correctness_is_shared_by_the_cases)
{
    pass_cases(2);
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_double_eq_tol(r.correctness_score, 4, 1e-9);
    ck_assert_int_eq(r.cases_passed, 2);
}
END_TEST

START_TEST(no_perf_points_unless_every_case_passes)
{
    pass_cases(2);
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_double_eq(r.perf_score, 0);
    ck_assert_str_eq(cml_status_name(r.status), "wrong");
}
END_TEST

START_TEST(detail_names_the_first_failing_case)
{
    pass_cases(1);
    strcpy(r.cases[1].reason, "3 of 4097 elements differ");
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_str_eq(r.detail, "case n=4097: 3 of 4097 elements differ");
}
END_TEST

START_TEST(ratio_is_geometric_mean_over_timed_cases)
{
    pass_cases(3);
    spec.cases[1].timed = 1;
    set_case(&student.cases[1], "1.1", 2.0, 1000);
    student.cases[2].ms = 0.5;
    set_case(&ref.cases[0], "1.1", 1.0, 1000);
    set_case(&ref.cases[1], "1.1", 1.0, 536870912);
    ref.ncases = 2;
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_double_eq_tol(r.ratio, 1.0, 1e-12); /* sqrt(2.0 * 0.5) */
    ck_assert_double_eq_tol(r.ms, 2.0, 1e-12);    /* the first timed case */
}
END_TEST

START_TEST(missing_reference_time_gives_full_perf_points)
{
    pass_cases(3);
    ref.cases[0].status = CML_CASE_ERROR;
    ref.cases[0].has_time = 0;
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_double_eq(r.perf_score, 4);
    ck_assert_str_eq(cml_status_name(r.status), "passed");
    ck_assert_str_eq(r.detail, "reference time unavailable: performance not judged");
}
END_TEST

START_TEST(no_reference_run_at_all_gives_full_perf_points)
{
    pass_cases(3);
    cml_score_task(&r, &student, NULL);
    cml_publish_task(&r);
    ck_assert_double_eq(r.score, 10);
}
END_TEST

START_TEST(missing_student_time_gives_no_perf_points)
{
    pass_cases(3);
    student.cases[2].has_time = 0;
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_double_eq(r.perf_score, 0);
    ck_assert_str_eq(cml_status_name(r.status), "slow");
    ck_assert_ptr_nonnull(strstr(r.detail, "no time recorded"));
}
END_TEST

START_TEST(bandwidth_and_copy_fraction_come_from_the_first_timed_case)
{
    pass_cases(3);
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_double_eq_tol(r.gbps, 536.870912, 1e-9);
    ck_assert_double_eq_tol(r.copy_fraction, 536.870912 / 3000, 1e-12);
    ck_assert_int_eq(r.implausible, 0);
}
END_TEST

/* The lab's bytes= is a claim: a GB/s figure from it would be whatever the student wrote. */
START_TEST(bandwidth_ignores_the_bytes_the_lab_claims)
{
    pass_cases(3);
    student.cases[2].bytes = 1000000000000000ull; /* 10^15: 10^6 GB/s if believed */
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_double_eq_tol(r.gbps, 536.870912, 1e-9);
    ck_assert_int_eq(r.implausible, 0);
    ck_assert_str_eq(cml_status_name(r.status), "passed");
}
END_TEST

START_TEST(implausible_bandwidth_gets_no_perf_points)
{
    pass_cases(3);
    student.cases[2].ms = 0.1; /* 5369 GB/s on a GPU that copies at 3000 */
    ref.cases[0].ms = 0.2;
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_int_eq(r.implausible, 1);
    ck_assert_double_eq(r.perf_score, 0);
    ck_assert_str_eq(cml_status_name(r.status), "slow");
    ck_assert_ptr_nonnull(strstr(r.detail, "implausible"));
}
END_TEST

START_TEST(todo_record_makes_the_status_todo)
{
    pass_cases(0);
    student.cases[0].status = CML_CASE_TODO;
    strcpy(r.cases[0].reason, "TODO(1.1): write the coalesced copy kernel");
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_str_eq(cml_status_name(r.status), "todo");
    ck_assert_str_eq(r.detail, "TODO(1.1): write the coalesced copy kernel");
    ck_assert_double_eq(r.score, 0);
}
END_TEST

START_TEST(error_record_makes_the_status_error)
{
    pass_cases(1);
    student.cases[1].status = CML_CASE_ERROR;
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_str_eq(cml_status_name(r.status), "error");
}
END_TEST

/* A guard region's fault (the CUDA error an access outside the case's buffers raises, or a
 * canary the kernels wrote): a memory error whatever passed before, so no points at all. */
START_TEST(guard_region_fault_makes_the_status_sanitizer)
{
    const char *msgs[] = {
        "CUDA error cudaErrorIllegalAddress (an illegal memory access was encountered) in the "
        "task's kernels (found by the synchronize after them), in the task's launch wrapper",
        "guard region: the task's kernels wrote 4 byte(s) past the end of a device buffer of "
        "4097 floats",
    };
    for (int m = 0; m < 2; m++) {
        setup();
        pass_cases(1);
        student.cases[1].status = CML_CASE_ERROR;
        strcpy(student.cases[1].msg, msgs[m]);
        strcpy(r.cases[1].reason, msgs[m]);
        cml_score_task(&r, &student, &ref);
        cml_publish_task(&r);
        ck_assert_str_eq(cml_status_name(r.status), "sanitizer");
        ck_assert_double_eq(r.score, 0);
        ck_assert_ptr_nonnull(strstr(r.detail, "memory outside the case's buffers"));
        ck_assert_ptr_nonnull(strstr(r.detail, msgs[m]));
    }
}
END_TEST

/* Another CUDA error is the task's own error: the cases that passed before keep their share. */
START_TEST(other_cuda_error_stays_an_error)
{
    pass_cases(1);
    student.cases[1].status = CML_CASE_ERROR;
    strcpy(student.cases[1].msg, "CUDA error cudaErrorLaunchOutOfResources (too many resources "
           "requested for launch) in launching the task's kernels, in the task's launch wrapper");
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_str_eq(cml_status_name(r.status), "error");
    ck_assert_double_eq_tol(r.score, 2, 1e-9);
}
END_TEST

START_TEST(missing_results_without_done_make_the_status_crash)
{
    pass_cases(1);
    student.ncases = 1;
    student.done = 0;
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_str_eq(cml_status_name(r.status), "crash");
    ck_assert_double_eq_tol(r.score, 2, 1e-9);
}
END_TEST

START_TEST(keeps_a_preset_timeout_and_scores_zero)
{
    pass_cases(2);
    r.found.stopped = CML_STOP_TIMED_OUT; /* what the pipeline found before scoring */
    strcpy(r.found.why, "timed out after 60 s");
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_str_eq(cml_status_name(r.status), "timeout");
    ck_assert_str_eq(r.detail, "timed out after 60 s");
    ck_assert_double_eq(r.score, 0);
    ck_assert_double_eq(r.max_score, 10);
}
END_TEST

START_TEST(preset_build_error_gets_a_detail)
{
    r.found.stopped = CML_STOP_NOT_BUILT;
    cml_score_task(&r, NULL, NULL);
    cml_publish_task(&r);
    ck_assert_str_eq(cml_status_name(r.status), "build-error");
    ck_assert_str_ne(r.detail, "");
    ck_assert_double_eq(r.score, 0);
}
END_TEST

START_TEST(untimed_task_passes_on_correctness_alone)
{
    pass_cases(3);
    spec.perf_points = 0;
    spec.cases[2].timed = 0;
    cml_score_task(&r, &student, NULL);
    cml_publish_task(&r);
    ck_assert_str_eq(cml_status_name(r.status), "passed");
    ck_assert_double_eq(r.score, 6);
    ck_assert_str_eq(r.detail, "all 3 cases passed");
}
END_TEST

START_TEST(finds_its_times_in_a_reference_run_of_several_tasks)
{
    pass_cases(3);
    set_case(&ref.cases[0], "1.0", 9.0, 1);
    set_case(&ref.cases[1], "1.1", 0.5, 536870912);
    set_case(&ref.cases[2], "1.2", 9.0, 1);
    ref.ncases = 3;
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_double_eq_tol(r.ref_ms, 0.5, 1e-12);
    ck_assert_double_eq_tol(r.ratio, 2.0, 1e-12);
}
END_TEST

START_TEST(finds_its_times_in_a_reference_run_of_every_case)
{
    pass_cases(3);
    set_case(&ref.cases[0], "1.1", 0, 0);
    set_case(&ref.cases[1], "1.1", 0, 0);
    set_case(&ref.cases[2], "1.1", 2.0, 536870912);
    ref.ncases = 3;
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_double_eq_tol(r.ratio, 0.5, 1e-12);
}
END_TEST

START_TEST(finds_its_times_in_a_reference_record_spread_by_case_index)
{
    pass_cases(3);
    memset(&ref.cases[0], 0, sizeof ref.cases[0]); /* the pipeline's layout: spec indices */
    set_case(&ref.cases[2], "1.1", 0.25, 536870912);
    ref.ncases = 3;
    cml_score_task(&r, &student, &ref);
    cml_publish_task(&r);
    ck_assert_double_eq_tol(r.ratio, 4.0, 1e-12);
}
END_TEST

/* The scorer's suite. */
Suite *score_suite(void)
{
    Suite *s = suite_create("score");
    TCase *frac = tcase_create("perf fraction"), *task = tcase_create("task");
    tcase_add_checked_fixture(task, setup, NULL);
    tcase_add_test(frac, perf_fraction_is_full_at_or_below_full_ratio);
    tcase_add_test(frac, perf_fraction_interpolates_linearly);
    tcase_add_test(frac, perf_fraction_is_zero_at_or_above_zero_ratio);
    tcase_add_test(frac, perf_fraction_guards_nan_inf_and_nonpositive_ratios);
    tcase_add_test(task, fast_correct_task_gets_full_marks);
    tcase_add_test(task, slow_task_loses_perf_points);
    tcase_add_test(task, correctness_is_shared_by_the_cases);
    tcase_add_test(task, no_perf_points_unless_every_case_passes);
    tcase_add_test(task, detail_names_the_first_failing_case);
    tcase_add_test(task, ratio_is_geometric_mean_over_timed_cases);
    tcase_add_test(task, missing_reference_time_gives_full_perf_points);
    tcase_add_test(task, no_reference_run_at_all_gives_full_perf_points);
    tcase_add_test(task, missing_student_time_gives_no_perf_points);
    tcase_add_test(task, bandwidth_and_copy_fraction_come_from_the_first_timed_case);
    tcase_add_test(task, bandwidth_ignores_the_bytes_the_lab_claims);
    tcase_add_test(task, implausible_bandwidth_gets_no_perf_points);
    tcase_add_test(task, todo_record_makes_the_status_todo);
    tcase_add_test(task, error_record_makes_the_status_error);
    tcase_add_test(task, missing_results_without_done_make_the_status_crash);
    tcase_add_test(task, keeps_a_preset_timeout_and_scores_zero);
    tcase_add_test(task, preset_build_error_gets_a_detail);
    tcase_add_test(task, untimed_task_passes_on_correctness_alone);
    tcase_add_test(task, finds_its_times_in_a_reference_run_of_several_tasks);
    tcase_add_test(task, finds_its_times_in_a_reference_run_of_every_case);
    tcase_add_test(task, finds_its_times_in_a_reference_record_spread_by_case_index);
    tcase_add_test(task, guard_region_fault_makes_the_status_sanitizer);
    tcase_add_test(task, other_cuda_error_stays_an_error);
    suite_add_tcase(s, frac);
    suite_add_tcase(s, task);
    return s;
}
