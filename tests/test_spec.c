/* The grading spec reader: what it accepts, what it fills in, and that every mistake an
 * instructor can make is refused with "path:line: message". */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "grade.h"
#include "spec.h"
#include "suites.h"

#define LAB_HEAD "lab 01_coalescing\nfiles coalescing.cu\n"
#define TASK_1_1 "task 1.1\ncheck copy\npoints 6\ncase n=1000\n"

static char spec_path[64];
static char err[512];
static cml_lab_spec spec;

/* Writes text to a temporary spec file and loads it; returns cml_spec_load's result. */
static int load(const char *text)
{
    return test_spec_text(text, &spec, spec_path, err, sizeof err);
}

/* Asserts the load fails with "path:line: ..." containing `what`. */
static void assert_rejected(const char *text, int line, const char *what)
{
    char where[96];
    ck_assert_int_eq(load(text), -1);
    snprintf(where, sizeof where, "%s:%d: ", spec_path, line);
    ck_assert_msg(strncmp(err, where, strlen(where)) == 0, "'%s' should start with '%s'", err,
                  where);
    ck_assert_msg(strstr(err, what) != NULL, "'%s' should contain '%s'", err, what);
}

START_TEST(parses_lab_directives)
{
    ck_assert_int_eq(load("lab 01_coalescing\ntitle Global-memory coalescing\n"
                          "files a.cu b.cu\nharness harness.cu a.h\nnote docs/01_coalescing.md\n"
                          "timeout 90\n" TASK_1_1), 0);
    ck_assert_str_eq(spec.lab, "01_coalescing");
    ck_assert_str_eq(spec.title, "Global-memory coalescing");
    ck_assert_int_eq(spec.nfiles, 2);
    ck_assert_str_eq(spec.files[1], "b.cu");
    ck_assert_int_eq(spec.nharness, 2);
    ck_assert_str_eq(spec.harness[0], "harness.cu");
    ck_assert_str_eq(spec.note, "docs/01_coalescing.md");
    ck_assert_double_eq(spec.timeout_s, 90);
}
END_TEST

START_TEST(defaults_timeout_60_and_exact_tolerance)
{
    ck_assert_int_eq(load(LAB_HEAD TASK_1_1), 0);
    ck_assert_double_eq(spec.timeout_s, 60);
    ck_assert_double_eq(spec.tasks[0].rel_tol, 0);
}
END_TEST

START_TEST(parses_task_block)
{
    ck_assert_int_eq(load(LAB_HEAD "task 1.2a\ntitle Naive transpose: rows in, columns out\n"
                          "check transpose\ntolerance rel 1e-5\npoints 6\n"
                          "case rows=4,cols=5\nperf 4 1.15 2.5\n"
                          "hint Section 4, \"Two naive transposes\": which side is strided?\n"
                          "case rows=8191,cols=8193 time\n"), 0);
    const cml_task_spec *t = &spec.tasks[0];
    ck_assert_int_eq(spec.ntasks, 1);
    ck_assert_str_eq(t->id, "1.2a");
    ck_assert_str_eq(t->title, "Naive transpose: rows in, columns out");
    ck_assert_str_eq(t->check, "transpose");
    ck_assert_double_eq(t->rel_tol, 1e-5);
    ck_assert_double_eq(t->points, 6);
    ck_assert_double_eq(t->perf_points, 4);
    ck_assert_double_eq(t->full_ratio, 1.15);
    ck_assert_double_eq(t->zero_ratio, 2.5);
    ck_assert_str_eq(t->hint, "Section 4, \"Two naive transposes\": which side is strided?");
    ck_assert_int_eq(t->ncases, 2);
}
END_TEST

START_TEST(parses_rectangular_timed_case)
{
    ck_assert_int_eq(load(LAB_HEAD "task 2.1\ncheck transpose\npoints 1\n"
                          "case rows=8191,cols=8193 time\n"), 0);
    const cml_case_spec *c = &spec.tasks[0].cases[0];
    ck_assert_str_eq(c->text, "rows=8191,cols=8193");
    ck_assert_int_eq(c->timed, 1);
    ck_assert_uint_eq(c->rows, 8191);
    ck_assert_uint_eq(c->cols, 8193);
    ck_assert_uint_eq(c->n, 0);
}
END_TEST

START_TEST(parses_offset_and_stride_and_keeps_unknown_keys)
{
    ck_assert_int_eq(load(LAB_HEAD "task 1.3\ncheck gather\npoints 1\n"
                          "case n=16777216,offset=3,stride=2,block=256\n"), 0);
    const cml_case_spec *c = &spec.tasks[0].cases[0];
    ck_assert_uint_eq(c->n, 16777216);
    ck_assert_uint_eq(c->offset, 3);
    ck_assert_uint_eq(c->stride, 2);
    ck_assert_str_eq(c->text, "n=16777216,offset=3,stride=2,block=256");
    ck_assert_int_eq(c->timed, 0);
}
END_TEST

START_TEST(accepts_time_inside_the_case_list)
{
    ck_assert_int_eq(load(LAB_HEAD "task 1.1\ncheck copy\npoints 1\ncase n=64,time\n"), 0);
    ck_assert_str_eq(spec.tasks[0].cases[0].text, "n=64");
    ck_assert_int_eq(spec.tasks[0].cases[0].timed, 1);
}
END_TEST

START_TEST(ignores_comments_blank_lines_and_indentation)
{
    ck_assert_int_eq(load("# a spec\n\n   lab 01_coalescing   # the folder\n\t files a.cu\n"
                          "\ntask 1.1  # first\n  check copy\n  points 6 # six\n"
                          "  case n=4097   \r\n"), 0);
    ck_assert_str_eq(spec.lab, "01_coalescing");
    ck_assert_double_eq(spec.tasks[0].points, 6);
    ck_assert_str_eq(spec.tasks[0].cases[0].text, "n=4097");
}
END_TEST

START_TEST(keeps_hash_inside_a_word)
{
    ck_assert_int_eq(load(LAB_HEAD TASK_1_1 "hint compare with C# arrays # comment\n"), 0);
    ck_assert_str_eq(spec.tasks[0].hint, "compare with C# arrays");
}
END_TEST

START_TEST(finds_task_by_id)
{
    ck_assert_int_eq(load(LAB_HEAD TASK_1_1 "task 1.2\ncheck copy\npoints 2\ncase n=5\n"), 0);
    ck_assert_ptr_eq(cml_spec_task(&spec, "1.2"), &spec.tasks[1]);
    ck_assert_ptr_null(cml_spec_task(&spec, "9.9"));
}
END_TEST

START_TEST(rejects_unknown_directive)
{
    assert_rejected(LAB_HEAD "colour red\n" TASK_1_1, 3, "unknown directive 'colour'");
}
END_TEST

START_TEST(rejects_task_directive_before_any_task)
{
    assert_rejected(LAB_HEAD "points 5\n" TASK_1_1, 3, "outside a task");
}
END_TEST

START_TEST(rejects_lab_directive_after_a_task)
{
    assert_rejected(LAB_HEAD TASK_1_1 "timeout 5\n", 7, "before the first 'task'");
}
END_TEST

START_TEST(rejects_duplicate_task_id)
{
    assert_rejected(LAB_HEAD TASK_1_1 TASK_1_1, 7, "duplicate task id '1.1'");
}
END_TEST

START_TEST(rejects_too_many_tasks)
{
    char text[4096] = LAB_HEAD;
    for (int i = 0; i <= CML_MAX_TASKS; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text),
                 "task 1.%d\ncheck copy\npoints 1\ncase n=1\n", i);
    assert_rejected(text, 3 + 4 * CML_MAX_TASKS, "too many tasks");
}
END_TEST

START_TEST(rejects_too_many_cases)
{
    char text[4096] = LAB_HEAD "task 1.1\ncheck copy\npoints 1\n";
    for (int i = 0; i <= CML_MAX_CASES; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "case n=%d\n", i + 1);
    assert_rejected(text, 6 + CML_MAX_CASES, "too many cases");
}
END_TEST

START_TEST(rejects_task_without_check)
{
    assert_rejected(LAB_HEAD "task 1.1\npoints 6\ncase n=1\n", 3, "has no 'check'");
}
END_TEST

START_TEST(rejects_task_without_points)
{
    assert_rejected(LAB_HEAD "task 1.1\ncheck copy\ncase n=1\ntask 1.2\n", 3, "has no 'points'");
}
END_TEST

START_TEST(rejects_task_without_cases)
{
    assert_rejected(LAB_HEAD "task 1.1\ncheck copy\npoints 6\n", 3, "has no 'case'");
}
END_TEST

START_TEST(rejects_full_ratio_not_below_zero_ratio)
{
    assert_rejected(LAB_HEAD TASK_1_1 "perf 4 2.5 2.5\n", 7, "full_ratio < zero_ratio");
}
END_TEST

START_TEST(rejects_negative_points)
{
    assert_rejected(LAB_HEAD "task 1.1\ncheck copy\npoints -1\n", 5, "points must be >= 0");
}
END_TEST

START_TEST(rejects_non_numeric_numbers)
{
    assert_rejected(LAB_HEAD "task 1.1\ncheck copy\npoints six\n", 5, "must be a number");
    assert_rejected(LAB_HEAD "timeout 10s\n", 3, "must be a number");
    assert_rejected(LAB_HEAD "task 1.1\ncheck copy\npoints 1\ncase n=4k\n", 6, "whole number");
    assert_rejected(LAB_HEAD "task 1.1\ncheck copy\npoints 1\ncase n=-4\n", 6, "whole number");
}
END_TEST

START_TEST(rejects_unknown_check_and_lists_known_ones)
{
    assert_rejected(LAB_HEAD "task 1.1\ncheck cpoy\n", 4, "known: copy, transpose");
}
END_TEST

START_TEST(rejects_case_without_what_its_check_needs)
{
    assert_rejected(LAB_HEAD "task 1.1\ncheck transpose\npoints 1\ncase n=4\n", 6,
                    "needs rows=");
}
END_TEST

START_TEST(rejects_perf_points_without_a_timed_case)
{
    assert_rejected(LAB_HEAD TASK_1_1 "perf 4 1.15 2.5\n", 3, "no case marked 'time'");
}
END_TEST

START_TEST(rejects_paths_in_student_file_names)
{
    assert_rejected("lab x\nfiles ../solutions/x.cu\n", 2, "not a plain file name");
}
END_TEST

START_TEST(rejects_spec_without_lab)
{
    ck_assert_int_eq(load("files a.cu\n" TASK_1_1), -1);
    ck_assert_ptr_nonnull(strstr(err, "no 'lab' directive"));
}
END_TEST

START_TEST(reports_missing_spec_file)
{
    ck_assert_int_eq(cml_spec_load("/nonexistent/x.spec", &spec, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/x.spec:0: cannot open"));
}
END_TEST

START_TEST(parses_the_api_functions_a_task_calls)
{
    ck_assert_int_eq(load(LAB_HEAD "link_api f g h\n" TASK_1_1 "api g h\n"), 0);
    ck_assert_int_eq(spec.tasks[0].napi, 2);
    ck_assert_str_eq(spec.tasks[0].api[1], "h");
}
END_TEST

START_TEST(rejects_an_api_function_not_in_link_api)
{
    assert_rejected(LAB_HEAD "link_api f\n" TASK_1_1 "api g\n", 8, "not a function of the "
                    "lab's link_api");
}
END_TEST

/* Every shipped task names the API functions its harness code calls, and every API function
 * is some task's: a link rule broken in one wrapper then costs only the tasks that call it. */
START_TEST(every_shipped_task_names_its_api_functions)
{
    cml_lab_spec *all = calloc(CML_MAX_LABS, sizeof *all);
    int n = cml_load_specs(test_root(), NULL, all, CML_MAX_LABS, err, sizeof err);
    char msg[300] = "";
    ck_assert_msg(n == 7, "%d specs: %s", n, err);
    for (int l = 0; l < n && !msg[0]; l++) {
        const cml_link_rules *r = &all[l].link;
        for (int t = 0; t < all[l].ntasks && !msg[0]; t++)
            if (all[l].tasks[t].napi == 0)
                snprintf(msg, sizeof msg, "%s task %s has no 'api'", all[l].lab,
                         all[l].tasks[t].id);
        for (int i = 0; i < r->n && !msg[0]; i++) {
            int used = r->names[i].list != CML_LINK_API;
            for (int t = 0; t < all[l].ntasks && !used; t++)
                for (int a = 0; a < all[l].tasks[t].napi; a++)
                    used |= strcmp(all[l].tasks[t].api[a], r->names[i].pattern) == 0;
            if (!used)
                snprintf(msg, sizeof msg, "%s: no task's 'api' names %s", all[l].lab,
                         r->names[i].pattern);
        }
    }
    free(all);
    ck_assert_msg(!msg[0], "%s", msg);
}
END_TEST

/* The spec reader's suite. */
Suite *spec_suite(void)
{
    Suite *s = suite_create("spec");
    TCase *ok = tcase_create("accepts"), *bad = tcase_create("rejects");
    tcase_add_test(ok, parses_lab_directives);
    tcase_add_test(ok, defaults_timeout_60_and_exact_tolerance);
    tcase_add_test(ok, parses_task_block);
    tcase_add_test(ok, parses_rectangular_timed_case);
    tcase_add_test(ok, parses_offset_and_stride_and_keeps_unknown_keys);
    tcase_add_test(ok, accepts_time_inside_the_case_list);
    tcase_add_test(ok, ignores_comments_blank_lines_and_indentation);
    tcase_add_test(ok, keeps_hash_inside_a_word);
    tcase_add_test(ok, finds_task_by_id);
    tcase_add_test(ok, parses_the_api_functions_a_task_calls);
    tcase_add_test(ok, every_shipped_task_names_its_api_functions);
    tcase_add_test(bad, rejects_unknown_directive);
    tcase_add_test(bad, rejects_task_directive_before_any_task);
    tcase_add_test(bad, rejects_lab_directive_after_a_task);
    tcase_add_test(bad, rejects_duplicate_task_id);
    tcase_add_test(bad, rejects_too_many_tasks);
    tcase_add_test(bad, rejects_too_many_cases);
    tcase_add_test(bad, rejects_task_without_check);
    tcase_add_test(bad, rejects_task_without_points);
    tcase_add_test(bad, rejects_task_without_cases);
    tcase_add_test(bad, rejects_full_ratio_not_below_zero_ratio);
    tcase_add_test(bad, rejects_negative_points);
    tcase_add_test(bad, rejects_non_numeric_numbers);
    tcase_add_test(bad, rejects_unknown_check_and_lists_known_ones);
    tcase_add_test(bad, rejects_case_without_what_its_check_needs);
    tcase_add_test(bad, rejects_perf_points_without_a_timed_case);
    tcase_add_test(bad, rejects_paths_in_student_file_names);
    tcase_add_test(bad, rejects_spec_without_lab);
    tcase_add_test(bad, reports_missing_spec_file);
    tcase_add_test(bad, rejects_an_api_function_not_in_link_api);
    suite_add_tcase(s, ok);
    suite_add_tcase(s, bad);
    spec_draw_add(s);
    spec_domains_add(s);
    spec_contract_0103_add(s);
    spec_domains_layout_add(s);
    return s;
}
