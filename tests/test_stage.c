/* Staging (stage.c): only the whitelisted student files, regular and small, found in a
 * labs/-shaped or a flat submission, beside pristine harness files. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grade.h"
#include "helpers.h"
#include "stage.h"
#include "util.h"

static char root[64], sub[CML_PATH];

static cml_lab_spec stage_specs[2];
static char staged[CML_PATH], stage_err[1024];

static void stage_setup(void)
{
    test_tmpdir(root, sizeof root);
    fake_root_make(root, 20, 20);
    fake_root_specs(root, stage_specs);
    cml_fmt(sub, sizeof sub, "%s/sub", root);
    ck_assert(cml_mkdirs(sub) == 0);
}

static void stage_teardown(void)
{
    cml_rmtree(root);
}

/* Stage lab 01_fake's student side from `sub`; cml_stage's result. */
static int stage1(void)
{
    char work[CML_PATH];
    cml_fmt(work, sizeof work, "%s/work", root);
    return cml_stage(root, &stage_specs[0], CML_SIDE_STUDENT, sub, work, staged, sizeof staged,
                     stage_err, sizeof stage_err);
}

/* The staged copy of `name`, or "" when absent. */
static char *staged_text(const char *name)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/%s", staged, name);
    char *text = cml_read_text(path, 1u << 20, NULL);
    return text ? text : strdup("");
}

static void put_sub(const char *rel, const char *text)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/%s", sub, rel);
    test_write(path, text);
}

START_TEST(flat_submission_is_accepted)
{
    put_sub("fake.cu", "flat\n");
    int rc = stage1();
    char *text = staged_text("fake.cu");
    ck_assert_msg(rc == 0 && strcmp(text, "flat\n") == 0, "rc %d (%s), staged '%s'", rc,
                  stage_err, text);
    free(text);
}
END_TEST

START_TEST(labs_shaped_submission_wins_over_flat)
{
    put_sub("fake.cu", "flat\n");
    ck_assert(cml_mkdirs(strcat(strcpy(staged, sub), "/01_fake")) == 0);
    put_sub("01_fake/fake.cu", "shaped\n");
    int rc = stage1();
    char *text = staged_text("fake.cu");
    ck_assert_msg(rc == 0 && strcmp(text, "shaped\n") == 0, "rc %d, staged '%s'", rc, text);
    free(text);
}
END_TEST

START_TEST(harness_is_pristine_whatever_the_submission_holds)
{
    put_sub("fake.cu", "mine\n");
    put_sub("harness.cu", "int main() { award_full_marks(); }\n");
    int rc = stage1();
    char *text = staged_text("harness.cu");
    ck_assert_msg(rc == 0 && strcmp(text, "// fake source: ld.shared bar.sync\n") == 0, "staged harness '%s'", text);
    free(text);
}
END_TEST

START_TEST(symlinked_student_file_is_refused)
{
    char target[CML_PATH], link[CML_PATH];
    cml_fmt(target, sizeof target, "%s/solutions/01_fake/fake.cu", root);
    cml_fmt(link, sizeof link, "%s/fake.cu", sub);
    ck_assert(symlink(target, link) == 0);
    ck_assert_msg(stage1() == -1 && strstr(stage_err, "symbolic link"), "err '%s'", stage_err);
}
END_TEST

START_TEST(oversized_student_file_is_refused)
{
    char *big = malloc(CML_MAX_STUDENT_FILE + 2);
    memset(big, 'x', CML_MAX_STUDENT_FILE + 1);
    big[CML_MAX_STUDENT_FILE + 1] = '\0';
    put_sub("fake.cu", big);
    free(big);
    ck_assert_msg(stage1() == -1 && strstr(stage_err, "more than"), "err '%s'", stage_err);
}
END_TEST

START_TEST(student_file_that_is_a_folder_is_refused)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/fake.cu", sub);
    ck_assert(mkdir(path, 0755) == 0);
    ck_assert_msg(stage1() == -1 && strstr(stage_err, "not a regular file"), "err '%s'",
                  stage_err);
}
END_TEST

START_TEST(missing_student_file_says_where_to_put_it)
{
    ck_assert_msg(stage1() == CML_FIND_MISSING && strstr(stage_err, "not handed in: fake.cu") &&
                  strstr(stage_err, "01_fake/fake.cu"), "err '%s'", stage_err);
}
END_TEST

/* A `reference_files` file (lab 02's tuning variants, one of which is 2.2's answer) lies beside
 * the reference build only: a student's `#include` of it cannot find it. */
START_TEST(reference_files_are_staged_beside_the_reference_only)
{
    char path[CML_PATH], work[CML_PATH], *text;
    cml_fmt(path, sizeof path, "%s/solutions/01_fake/answers.cuh", root);
    test_write(path, "// the answer\n");
    snprintf(stage_specs[0].reference_files[0], sizeof stage_specs[0].reference_files[0], "%s",
             "answers.cuh");
    stage_specs[0].nreference_files = 1;
    put_sub("fake.cu", "// mine\n");
    ck_assert_msg(stage1() == 0, "%s", stage_err);
    ck_assert_str_eq(text = staged_text("answers.cuh"), "");
    free(text);
    cml_fmt(work, sizeof work, "%s/work", root);
    ck_assert_msg(cml_stage(root, &stage_specs[0], CML_SIDE_REFERENCE, NULL, work, staged,
                            sizeof staged, stage_err, sizeof stage_err) == 0, "%s", stage_err);
    ck_assert_str_eq(text = staged_text("answers.cuh"), "// the answer\n");
    free(text);
}
END_TEST

/* The staging rules. */
TCase *stage_tcase(void)
{
    TCase *tc = tcase_create("stage");
    tcase_add_checked_fixture(tc, stage_setup, stage_teardown);
    tcase_add_test(tc, flat_submission_is_accepted);
    tcase_add_test(tc, labs_shaped_submission_wins_over_flat);
    tcase_add_test(tc, harness_is_pristine_whatever_the_submission_holds);
    tcase_add_test(tc, symlinked_student_file_is_refused);
    tcase_add_test(tc, oversized_student_file_is_refused);
    tcase_add_test(tc, student_file_that_is_a_folder_is_refused);
    tcase_add_test(tc, missing_student_file_says_where_to_put_it);
    tcase_add_test(tc, reference_files_are_staged_beside_the_reference_only);
    return tc;
}
