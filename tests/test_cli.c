/* cml-grade end to end on the fake repository (tests/fake_root.c): staging, the fake nvcc,
 * the probe, the reports, the exit status; and the staging rules on their own. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "helpers.h"
#include "stage.h"
#include "util.h"

static char root[64], out[CML_PATH], sub[CML_PATH];
static char *output;
static test_summary_line lines[16];

static void setup(void)
{
    test_tmpdir(root, sizeof root);
    fake_root_make(root, 20, 20);
    cml_fmt(out, sizeof out, "%s/out", root);
    cml_fmt(sub, sizeof sub, "%s/labs", root);
    output = NULL;
}

static void teardown(void)
{
    free(output);
    cml_rmtree(root);
}

/* cml-grade grade on the fake root, extra options appended; its exit status. */
static int grade(const char *extra)
{
    char *argv[16] = { (char *)test_path("build/cml-grade"), "grade", "--root", root,
                       "--submission", sub, "--out", out, "--seed", "42", "--no-color" };
    int n = 11;
    if (extra)
        argv[n++] = (char *)extra;
    argv[n] = NULL;
    free(output);
    return test_exec(argv, 60, &output);
}

/* Every task of `lab` in summary.tsv has `status` and `text` in its detail. */
static int lab_is(const char *lab, const char *status, const char *text)
{
    int n = test_read_summary(out, lines, 16), seen = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(lines[i].lab, lab) == 0) {
            seen++;
            if (strcmp(lines[i].status, status) != 0 || !strstr(lines[i].detail, text))
                return 0;
        }
    return seen > 0;
}

START_TEST(exit_status_nonzero_unless_full_marks)
{
    int full = grade(NULL);
    setenv("FAKE_MODE", "wrong", 1);
    setenv("FAKE_TASK", "2.2", 1);
    int wrong = grade(NULL);
    ck_assert_msg(full == 0 && wrong == 1, "exit %d for full marks (want 0), %d for a wrong "
                  "task (want 1); output:\n%s", full, wrong, output);
}
END_TEST

START_TEST(build_error_costs_only_that_lab)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/01_fake/fake.cu", sub);
    test_write(path, "BROKEN\n");
    grade(NULL);
    ck_assert_msg(lab_is("01_fake", "build-error", "error: expected") &&
                  lab_is("02_fake", "passed", ""), "output:\n%s", output);
}
END_TEST

/* A lab not handed in is `missing` (never build-error), says what to put where, costs only
 * that lab, and the terminal says so once without a compiler heading. Fails on a finder that
 * calls it a build error. */
START_TEST(missing_student_file_costs_only_that_lab)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/02_fake/other.cu", sub);
    unlink(path);
    grade(NULL);
    ck_assert_msg(lab_is("02_fake", "missing", "not handed in: other.cu is nowhere") &&
                  lab_is("02_fake", "missing", "02_fake/other.cu") &&
                  lab_is("01_fake", "passed", "") && !strstr(output, "The compiler said") &&
                  strstr(output, "Nothing to build:"), "output:\n%s", output);
}
END_TEST

START_TEST(without_gpu_labs_are_compiled_and_marked_no_gpu)
{
    setenv("CML_FAKE_GPU", "0", 1);
    int rc = grade(NULL);
    ck_assert_msg(rc == 2 && strstr(output, "No GPU found") &&
                  lab_is("01_fake", "no-gpu", "compiled") && lab_is("02_fake", "no-gpu", ""),
                  "exit %d, output:\n%s", rc, output);
}
END_TEST

/* Line n from the end of text (1: the last), without its newline. */
static void line_from_end(const char *text, int n, char *buf, size_t len)
{
    size_t end = strlen(text);
    while (end > 0 && text[end - 1] == '\n')
        end--;
    size_t start = end;
    for (int i = 0; i < n; i++) {
        end = start;
        if (i > 0 && end > 0)
            end--; /* skip the newline before the line just passed */
        start = end;
        while (start > 0 && text[start - 1] != '\n')
            start--;
    }
    snprintf(buf, len, "%.*s", (int)(end - start), text + start);
}

START_TEST(wall_time_line_comes_just_before_the_score_line)
{
    char last[256], before[256];
    grade(NULL);
    line_from_end(output, 1, last, sizeof last);
    line_from_end(output, 2, before, sizeof before);
    ck_assert_msg(strncmp(last, "Score: ", 7) == 0 && strncmp(before, "graded 2 labs in ", 17) == 0,
                  "last lines '%s' and '%s'; output:\n%s", before, last, output);
}
END_TEST

START_TEST(reference_builds_are_cached_between_gradings)
{
    char log[CML_PATH];
    cml_fmt(log, sizeof log, "%s/nvcc.log", root);
    grade(NULL);
    setenv("FAKE_NVCC_LOG", log, 1);
    grade(NULL);
    char *text = cml_read_text(log, 1u << 16, NULL);
    int builds = 0; /* link steps (-o lab); each build also compiles its objects first */
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        builds += strcmp(l, "lab") == 0;
    free(text);
    ck_assert_msg(builds == 2, "the second grading linked %d lab binaries (want 2: the "
                  "students')", builds);
}
END_TEST

/* The pristine harness library is compiled once per grading (into work/common-objects-sm*),
 * not once per build: every build copies those objects. */
START_TEST(harness_library_is_compiled_once_per_grading)
{
    char log[CML_PATH];
    cml_fmt(log, sizeof log, "%s/nvcc.log", root);
    setenv("FAKE_NVCC_LOG", log, 1);
    grade(NULL);
    unsetenv("FAKE_NVCC_LOG");
    char *text = cml_read_text(log, 1u << 16, NULL);
    int once = 0, in_builds = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        once += strstr(l, "/common-objects-sm") != NULL;
        in_builds += strncmp(l, "common/", 7) == 0;
    }
    free(text);
    ck_assert_msg(once == CML_NCOMMON && in_builds == 0, "library objects compiled once: %d "
                  "(want %d), inside builds: %d (want 0)", once, CML_NCOMMON, in_builds);
}
END_TEST

START_TEST(unknown_option_is_a_usage_error)
{
    ck_assert_int_eq(grade("--bogus"), 2);
}
END_TEST

START_TEST(unknown_command_is_a_usage_error)
{
    char *argv[] = { (char *)test_path("build/cml-grade"), "grde", NULL };
    ck_assert_int_eq(test_exec(argv, 10, &output), 2);
}
END_TEST

START_TEST(help_names_both_commands)
{
    char *argv[] = { (char *)test_path("build/cml-grade"), "--help", NULL };
    int rc = test_exec(argv, 10, &output);
    ck_assert_msg(rc == 0 && strstr(output, "\n  grade ") && strstr(output, "\n  bench "),
                  "exit %d, output:\n%s", rc, output);
}
END_TEST

/* The CLI's tests. */
TCase *cli_tcase(void)
{
    TCase *tc = tcase_create("cli");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, exit_status_nonzero_unless_full_marks);
    tcase_add_test(tc, build_error_costs_only_that_lab);
    tcase_add_test(tc, missing_student_file_costs_only_that_lab);
    tcase_add_test(tc, without_gpu_labs_are_compiled_and_marked_no_gpu);
    tcase_add_test(tc, wall_time_line_comes_just_before_the_score_line);
    tcase_add_test(tc, reference_builds_are_cached_between_gradings);
    tcase_add_test(tc, harness_library_is_compiled_once_per_grading);
    tcase_add_test(tc, unknown_option_is_a_usage_error);
    tcase_add_test(tc, unknown_command_is_a_usage_error);
    tcase_add_test(tc, help_names_both_commands);
    return tc;
}
