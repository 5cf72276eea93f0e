/* What the grader refuses is said to students before they meet it: docs/YOUR_FILE.md names
 * every rule a build error can report (each `(rule: X)` the grader's sources can print, each
 * deny group of grader/specs/link.rules) and every exercise sheet points to it. Added to the
 * sheets suite. No GPU. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "suites.h"
#include "util.h"

/* Every rule name in text after `marker` up to `end` ("(rule: " ... ")"), each looked up in
 * page as "`name`": the missing ones appended to why (one per line); how many. A name may be
 * "calls (group)". */
static int unexplained(const char *text, const char *marker, const char *end, const char *page,
                       char *why, size_t len)
{
    int missing = 0;
    for (const char *p = strstr(text, marker); p; p = strstr(p + 1, marker)) {
        const char *name = p + strlen(marker);
        /* a two-character end (`)"`, a source's string) is one sequence: "(rule: calls
         * (lesson))" names `calls (lesson)` */
        const char *stop = strlen(end) == 2 ? strstr(name, end) : NULL;
        if (stop && (size_t)(stop - name) >= strcspn(name, "\"\n"))
            stop = NULL; /* past the string's own end: the name is split across lines */
        size_t n = stop ? (size_t)(stop - name) : strcspn(name, end);
        char want[128];
        snprintf(want, sizeof want, "`%.*s`", (int)n, name);
        if (n == 0 || strchr(want, '%') || strstr(page, want) || strncmp(name, "readable", 8) == 0)
            continue; /* a format, or a grader error ("cannot be checked"), not a rule */
        size_t used = strlen(why);
        snprintf(why + used, len - used, "%s is not explained\n", want);
        missing++;
    }
    return missing;
}

/* The deny groups of link.rules as "calls (group)" lines, into out. */
static void deny_groups(const char *rules, char *out, size_t len)
{
    out[0] = '\0';
    for (const char *l = rules; *l; l += strcspn(l, "\n"), l += *l == '\n')
        if (strncmp(l, "deny ", 5) == 0) {
            size_t used = strlen(out);
            snprintf(out + used, len - used, "(rule: calls (%.*s)\n",
                     (int)strcspn(l + 5, " \n"), l + 5);
        }
}

/* Every (rule: X) in the grader's sources and every deny group, against the page. */
static int check_page(const char *page, char *why, size_t len)
{
    char path[CML_PATH], groups[4096];
    int missing = 0;
    why[0] = '\0';
    cml_fmt(path, sizeof path, "%s/grader/specs/link.rules", test_root());
    char *rules = cml_read_text(path, 1 << 20, NULL);
    ck_assert_ptr_nonnull(rules);
    deny_groups(rules, groups, sizeof groups);
    missing += unexplained(groups, "(rule: ", "\n", page, why, len);
    free(rules);
    static const char *const DIRS[] = { "grader/src/2_build", "grader/src/6_measure" };
    for (size_t d = 0; d < sizeof DIRS / sizeof DIRS[0]; d++) {
        char dir[CML_PATH];
        cml_fmt(dir, sizeof dir, "%s/%s", test_root(), DIRS[d]);
        DIR *h = opendir(dir);
        ck_assert_ptr_nonnull(h);
        for (struct dirent *e; (e = readdir(h));) {
            size_t n = strlen(e->d_name);
            if (n < 3 || strcmp(e->d_name + n - 2, ".c") != 0)
                continue;
            cml_fmt(path, sizeof path, "%s/%s", dir, e->d_name);
            char *src = cml_read_text(path, 1 << 20, NULL);
            if (src)
                missing += unexplained(src, "(rule: ", ")\"", page, why, len);
            free(src);
        }
        closedir(h);
    }
    return missing;
}

START_TEST(every_refusal_is_explained_to_students)
{
    char path[CML_PATH], why[4096];
    cml_fmt(path, sizeof path, "%s/docs/YOUR_FILE.md", test_root());
    char *page = cml_read_text(path, 1 << 20, NULL);
    ck_assert_msg(page != NULL, "no %s", path);
    int missing = check_page(page, why, sizeof why);
    free(page);
    ck_assert_msg(missing == 0, "docs/YOUR_FILE.md must explain every rule:\n%s", why);
}
END_TEST

/* The check itself: a page that leaves out a rule and a deny group is caught. */
START_TEST(a_page_without_a_rule_is_caught)
{
    char why[4096];
    int missing = check_page("`defines` `calls (file-access)`", why, sizeof why);
    ck_assert_msg(missing >= 3 && strstr(why, "`constructors`") && strstr(why, "`asm`") &&
                  strstr(why, "`calls (host-timer)`") && !strstr(why, "`defines` is"), "%s", why);
}
END_TEST

START_TEST(every_sheet_points_to_the_rules)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/labs", test_root());
    DIR *h = opendir(path);
    ck_assert_ptr_nonnull(h);
    int sheets = 0;
    for (struct dirent *e; (e = readdir(h));) {
        if (e->d_name[0] == '.')
            continue;
        cml_fmt(path, sizeof path, "%s/labs/%s/EXERCISE.md", test_root(), e->d_name);
        char *sheet = cml_read_text(path, 1 << 20, NULL);
        if (!sheet)
            continue;
        sheets++;
        ck_assert_msg(strstr(sheet, "(../../docs/YOUR_FILE.md)") != NULL,
                      "%s does not link docs/YOUR_FILE.md", path);
        free(sheet);
    }
    closedir(h);
    ck_assert_int_eq(sheets, 7);
}
END_TEST

/* Contract in suites.h. */
void sheets_rules_add(Suite *s)
{
    TCase *tc = tcase_create("rules said first");
    tcase_add_test(tc, every_refusal_is_explained_to_students);
    tcase_add_test(tc, a_page_without_a_rule_is_caught);
    tcase_add_test(tc, every_sheet_points_to_the_rules);
    suite_add_tcase(s, tc);
}
