/* The exercise sheets against the grading specs: every task of a spec has a heading in its lab's
 * labs/<lab>/EXERCISE.md, "### 6.1 Zero-copy saxpy (12 points: 7 correct, 3 speed, 2 technique)"
 * (or "(10 points, correctness only)", or "### 1.2a and 1.2b ... (10 points each: ...)"), whose
 * points are the spec's: correctness `points`, speed `perf`, `technique`. The spec grades, so a
 * sheet that says otherwise misleads the student (6.1's sheet said 8 + 4 while the spec gave
 * 7 + 3 + 2). No GPU. */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "spec.h"
#include "suites.h"
#include "util.h"

static cml_lab_spec specs[CML_MAX_LABS];
static int nspecs;

/* The number right before " <word>" in text (a "7 correct"), or -1 when the word is absent. */
static double number_before(const char *text, const char *word)
{
    char pat[32];
    snprintf(pat, sizeof pat, " %s", word);
    const char *w = strstr(text, pat);
    if (!w)
        return -1;
    const char *p = w;
    while (p > text && (isdigit((unsigned char)p[-1]) || p[-1] == '.'))
        p--;
    return p < w ? strtod(p, NULL) : -1;
}

/* Whether the heading line (after "### ") names task id: ids come first, joined by "and" or
 * commas, then the title. */
static int heading_names(const char *line, const char *id)
{
    char word[64];
    int used = 0;
    for (const char *p = line; sscanf(p, "%63s%n", word, &used) == 1; p += used) {
        size_t n = strlen(word);
        if (n && word[n - 1] == ',')
            word[--n] = '\0';
        if (strcmp(word, id) == 0)
            return 1;
        if (n && strcmp(word, "and") != 0 && !(isdigit((unsigned char)word[0]) && strchr(word, '.')))
            return 0; /* the title has begun */
    }
    return 0;
}

/* The sheet's disagreements with spec, one line each into why; how many (a task without a
 * heading or without a points clause is one). */
static int sheet_mismatches(const cml_lab_spec *spec, const char *sheet, char *why, size_t len)
{
    int bad = 0;
    size_t used = 0;
    why[0] = '\0';
    for (int t = 0; t < spec->ntasks; t++) {
        const cml_task_spec *task = &spec->tasks[t];
        char line[512] = "";
        for (const char *p = sheet; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
            if (strncmp(p, "### ", 4) == 0) {
                snprintf(line, sizeof line, "%.*s", (int)strcspn(p + 4, "\n"), p + 4);
                if (heading_names(line, task->id))
                    break;
                line[0] = '\0';
            }
        const char *clause = line[0] ? strrchr(line, '(') : NULL;
        double total = clause ? number_before(clause, "points") : -1;
        double correct = clause && strstr(clause, "correctness only") ? total
                         : clause ? number_before(clause, "correct") : -1;
        double speed = clause ? number_before(clause, "speed") : -1;
        double tech = clause ? number_before(clause, "technique") : -1;
        speed = speed < 0 ? 0 : speed, tech = tech < 0 ? 0 : tech;
        double want = task->points + task->perf_points + task->technique_points;
        if (total != want || correct != task->points || speed != task->perf_points ||
            tech != task->technique_points) {
            int w = snprintf(why + used, len - used, "%s %s: sheet '%.120s' says %g = %g correct "
                             "+ %g speed + %g technique, the spec %g = %g + %g + %g\n",
                             spec->lab, task->id, line[0] ? line : "(no heading)", total,
                             correct, speed, tech, want, task->points, task->perf_points,
                             task->technique_points);
            used += w > 0 && (size_t)w < len - used ? (size_t)w : 0;
            bad++;
        }
    }
    return bad;
}

/* Each lab's sheet: every task's heading gives the spec's points. */
START_TEST(sheet_points_equal_the_spec)
{
    const cml_lab_spec *spec = &specs[_i];
    char path[CML_PATH], why[4096];
    cml_fmt(path, sizeof path, "%s/labs/%s/EXERCISE.md", test_root(), spec->lab);
    char *sheet = cml_read_text(path, 1 << 20, NULL);
    ck_assert_msg(sheet != NULL, "%s has no exercise sheet (%s)", spec->lab, path);
    int bad = sheet_mismatches(spec, sheet, why, sizeof why);
    free(sheet);
    ck_assert_msg(bad == 0, "%s", why);
}
END_TEST

/* The comparison itself: a sheet with other numbers fails, one written differently passes. */
START_TEST(sheet_check_fails_other_points_and_passes_other_wording)
{
    cml_lab_spec spec = { .lab = "06_x", .ntasks = 3 };
    spec.tasks[0] = (cml_task_spec){ .id = "6.1", .points = 7, .perf_points = 3,
                                     .technique_points = 2 };
    spec.tasks[1] = (cml_task_spec){ .id = "6.3a", .points = 5, .perf_points = 4 };
    spec.tasks[2] = (cml_task_spec){ .id = "6.3b", .points = 5, .perf_points = 4 };
    char why[2048];
    const char *old = "### 6.1 Zero-copy saxpy (12 points: 8 correct, 4 speed)\n"
                      "### 6.3a and 6.3b Choose (9 points each: 5 correct, 4 speed)\n";
    ck_assert_int_eq(sheet_mismatches(&spec, old, why, sizeof why), 1);
    ck_assert_msg(strstr(why, "6.1: sheet") && strstr(why, "the spec 12 = 7 + 3 + 2"), "%s", why);
    const char *other = "### 6.3b, 6.3a Choose (9 points each: 4 speed, 5 correct)\n"
                        "### 6.1 Zero-copy saxpy (12 points: 7 correct, 3 speed, 2 technique)\n";
    ck_assert_msg(sheet_mismatches(&spec, other, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq(sheet_mismatches(&spec, "### 6.1 Zero-copy (12 points)\n", why,
                                      sizeof why), 3); /* no split; 6.3a and 6.3b missing */
    spec.tasks[0] = (cml_task_spec){ .id = "3.1", .points = 8 };
    spec.ntasks = 1;
    ck_assert_int_eq(sheet_mismatches(&spec, "### 3.1 Predict (8 points, correctness only)\n",
                                      why, sizeof why), 0);
    ck_assert_int_eq(sheet_mismatches(&spec, "### 3.10 Other (8 points, correctness only)\n",
                                      why, sizeof why), 1); /* 3.10 is not 3.1 */
}
END_TEST

/* Contract in suites.h. */
Suite *sheets_suite(void)
{
    char err[512];
    Suite *s = suite_create("sheets");
    TCase *tc = tcase_create("every lab");
    nspecs = cml_load_specs(test_root(), NULL, specs, CML_MAX_LABS, err, sizeof err);
    if (nspecs < 0) {
        fprintf(stderr, "sheets suite: %s\n", err);
        nspecs = 0;
    }
    tcase_add_test(tc, sheet_check_fails_other_points_and_passes_other_wording);
    tcase_add_loop_test(tc, sheet_points_equal_the_spec, 0, nspecs);
    suite_add_tcase(s, tc);
    sheets_rules_add(s);
    sheets_contract_add(s);
    docs_links_add(s);
    docs_links_code_add(s);
    layers_add(s);
    layers_calls_add(s);
    layers_files_add(s);
    return s;
}
