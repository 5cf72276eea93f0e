/* The planted bugs as patches: the applier finds hunks by their text, refuses stale ones, and
 * every planted bug still applies to its lab's solution (no GPU needed). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "planted.h"
#include "suites.h"
#include "util.h"

#define MAX_BUGS 64

static const char *SOLUTION = "int a;\nint b = 1;\nint c;\nint d = 2;\nint e;\n";
static const char *PATCH =
    "--- a/k.cu\n+++ b/k.cu\n@@ -1,3 +1,3 @@\n int a;\n-int b = 1;\n+int b = 9;\n int c;\n"
    "--- a/other.cu\n+++ b/other.cu\n@@ -1 +1 @@\n-int e;\n+int z;\n";

START_TEST(applies_a_hunk_found_by_its_context)
{
    char err[256];
    int n = 0;
    char *got = planted_apply(SOLUTION, PATCH, "k.cu", &n, err, sizeof err);
    ck_assert_str_eq(got, "int a;\nint b = 9;\nint c;\nint d = 2;\nint e;\n");
    free(got);
}
END_TEST

START_TEST(applies_only_the_hunks_of_the_named_file)
{
    char err[256];
    int n = 0;
    char *got = planted_apply(SOLUTION, PATCH, "k.cu", &n, err, sizeof err);
    free(got);
    ck_assert_int_eq(n, 1);
}
END_TEST

START_TEST(refuses_a_hunk_whose_context_changed)
{
    char err[256] = "";
    int n = 0;
    char *got = planted_apply("int a;\nint b = 2;\nint c;\n", PATCH, "k.cu", &n, err, sizeof err);
    ck_assert_msg(got == NULL && strstr(err, "does not match"), "%s", err);
}
END_TEST

START_TEST(matches_whole_lines_only)
{
    char err[256] = "";
    int n = 0;
    char *got = planted_apply("xint a;\nint b = 1;\nint c;\n", PATCH, "k.cu", &n, err, sizeof err);
    ck_assert_ptr_null(got);
}
END_TEST

/* Each planted bug applies to its solution and changes it. */
START_TEST(every_planted_bug_applies_to_its_solution)
{
    static planted_bug bugs[MAX_BUGS];
    int n = planted_find(test_path("tests/planted"), bugs, MAX_BUGS);
    char msg[1024] = "", dir[64];
    for (int i = 0; i < n && !msg[0]; i++) {
        test_tmpdir(dir, sizeof dir);
        if (planted_materialize(test_root(), bugs[i].lab, bugs[i].dir, dir, msg, sizeof msg) < 0)
            ck_abort_msg("%s: %s", bugs[i].dir, msg);
        cml_rmtree(dir);
    }
    ck_assert_int_gt(n, 0);
}
END_TEST

Suite *planted_suite(void)
{
    Suite *s = suite_create("planted");
    TCase *tc = tcase_create("patches");
    tcase_add_test(tc, applies_a_hunk_found_by_its_context);
    tcase_add_test(tc, applies_only_the_hunks_of_the_named_file);
    tcase_add_test(tc, refuses_a_hunk_whose_context_changed);
    tcase_add_test(tc, matches_whole_lines_only);
    tcase_add_test(tc, every_planted_bug_applies_to_its_solution);
    suite_add_tcase(s, tc);
    return s;
}
