/* GPU tests, through the CLI as a child process (never CUDA in the test process): the solutions
 * score full marks under five seeds, the skeletons score zero with their TODO messages, and
 * every planted-bug submission (tests/planted/<lab>/<bug>/) gets the verdicts its EXPECT pins. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "helpers.h"
#include "probe.h"
#include "suites.h"
#include "util.h"

#define MAX_PLANTED 64
#define SOLUTION_RUNS 5

static char planted[MAX_PLANTED][CML_PATH];   /* tests/planted/<lab>/<bug> */
static char planted_lab[MAX_PLANTED][64];
static int nplanted = -1;
static char out[64];
static char *output;
static test_summary_line lines[64];

/* Every tests/planted/<lab>/<bug>/ holding an EXPECT file, in name order. */
static int find_planted(void)
{
    if (nplanted >= 0)
        return nplanted;
    nplanted = 0;
    struct dirent **labs = NULL, **bugs = NULL;
    const char *base = test_path("tests/planted");
    int nl = scandir(base, &labs, NULL, alphasort);
    for (int i = 0; i < nl; i++) {
        char dir[CML_PATH], expect[CML_PATH];
        int nb = labs[i]->d_name[0] == '.' || cml_fmt(dir, sizeof dir, "%s/%s", base,
                 labs[i]->d_name) < 0 ? -1 : scandir(dir, &bugs, NULL, alphasort);
        for (int j = 0; j < nb; j++) {
            struct stat st;
            if (bugs[j]->d_name[0] != '.' && nplanted < MAX_PLANTED &&
                cml_fmt(expect, sizeof expect, "%s/%s/EXPECT", dir, bugs[j]->d_name) == 0 &&
                stat(expect, &st) == 0) {
                cml_fmt(planted[nplanted], CML_PATH, "%s/%s", dir, bugs[j]->d_name);
                snprintf(planted_lab[nplanted++], 64, "%.63s", labs[i]->d_name);
            }
            free(bugs[j]);
        }
        if (nb >= 0)
            free(bugs);
        free(labs[i]);
    }
    if (nl >= 0)
        free(labs);
    return nplanted;
}

/* Contract in suites.h: the probe is built and run as a child process. */
int gpu_present(char *reason, size_t len)
{
    cml_probe_result *p = calloc(1, sizeof *p);
    cml_probe(test_root(), test_path("build/cache"), p);
    int have = p->have_gpu;
    snprintf(reason, len, "%s", p->reason);
    free(p);
    return have;
}

static void setup(void)
{
    test_tmpdir(out, sizeof out);
    output = NULL;
}

static void teardown(void)
{
    free(output);
    cml_rmtree(out);
}

/* cml-grade grade --submission sub [--lab lab] --seed seed --out <tmp>; its exit status. */
static int grade(const char *sub, const char *lab, unsigned long long seed)
{
    char seedstr[32];
    snprintf(seedstr, sizeof seedstr, "%llu", seed);
    char *argv[16] = { (char *)test_path("build/cml-grade"), "grade", "--root",
                       (char *)test_root(), "--submission", (char *)sub, "--out", out,
                       "--seed", seedstr, "--no-color" };
    int n = 11;
    if (lab) {
        argv[n++] = "--lab";
        argv[n++] = (char *)lab;
    }
    argv[n] = NULL;
    free(output);
    return test_exec(argv, 580, &output);
}

/* The first line of summary.tsv that breaks `ok`, as a message; "" when none does. */
static void first_bad_line(int (*ok)(const test_summary_line *), char *msg, size_t len)
{
    int n = test_read_summary(out, lines, 64);
    msg[0] = '\0';
    if (n <= 0)
        snprintf(msg, len, "no summary.tsv lines");
    for (int i = 0; i < n && !msg[0]; i++)
        if (!ok(&lines[i]))
            snprintf(msg, len, "%.63s %.15s: %.31s %g/%g: %.900s", lines[i].lab, lines[i].task,
                     lines[i].status, lines[i].score, lines[i].max_score, lines[i].detail);
}

static int full_marks(const test_summary_line *l)
{
    return strcmp(l->status, "passed") == 0 && l->score >= l->max_score - 1e-9;
}

static int zero_with_todo(const test_summary_line *l)
{
    return strcmp(l->status, "todo") == 0 && l->score == 0 && strstr(l->detail, "TODO");
}

START_TEST(solutions_score_full_marks)
{
    char msg[1200] = "";
    unsigned long long seed = (unsigned long long)time(NULL);
    int rc = 0;
    for (int i = 0; i < SOLUTION_RUNS && !msg[0]; i++, seed += 7919) {
        rc = grade(test_path("solutions"), NULL, seed);
        first_bad_line(full_marks, msg, sizeof msg);
        if (!msg[0] && rc != 0)
            snprintf(msg, sizeof msg, "exit status %d", rc);
    }
    ck_assert_msg(!msg[0], "seed %llu: %s\n%.4000s", seed, msg, output);
}
END_TEST

START_TEST(skeletons_score_zero_with_todo_messages)
{
    char msg[1200];
    grade(test_path("labs"), NULL, 1);
    first_bad_line(zero_with_todo, msg, sizeof msg);
    ck_assert_msg(!msg[0], "%s\n%.4000s", msg, output);
}
END_TEST

/* The verdict EXPECT pins for `task` ("<task> <status> [text]" lines) into want and text;
 * both left as they are when the task is not listed. */
static void expected_verdict(const char *expect, const char *task, char *want, size_t wlen,
                             char *text, size_t tlen)
{
    for (const char *p = expect; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        char line[600], id[16], status[32];
        int used = 0;
        snprintf(line, sizeof line, "%.*s", (int)strcspn(p, "\n"), p);
        if (sscanf(line, "%15s %31s %n", id, status, &used) >= 2 && strcmp(id, task) == 0) {
            snprintf(want, wlen, "%s", status);
            snprintf(text, tlen, "%s", line + used);
            return;
        }
    }
}

/* Compare summary.tsv with EXPECT: "<task> <status> [text]" per pinned task; others passed. */
static void compare_expect(const char *expect, const char *lab, char *msg, size_t len)
{
    int n = test_read_summary(out, lines, 64), seen = 0;
    msg[0] = '\0';
    for (int i = 0; i < n && !msg[0]; i++) {
        if (strcmp(lines[i].lab, lab) != 0)
            continue;
        seen++;
        char want[32] = "passed", text[512] = "";
        expected_verdict(expect, lines[i].task, want, sizeof want, text, sizeof text);
        if (strcmp(lines[i].status, want) != 0 || !strstr(lines[i].detail, text))
            snprintf(msg, len, "task %.15s: got %.31s (%.900s), want %s%s%.500s", lines[i].task,
                     lines[i].status, lines[i].detail, want, text[0] ? " with " : "", text);
    }
    if (!seen)
        snprintf(msg, len, "no summary.tsv line for lab %s", lab);
}

START_TEST(planted_bug_gets_its_expected_verdict)
{
    char path[CML_PATH], msg[1600];
    cml_fmt(path, sizeof path, "%s/EXPECT", planted[_i]);
    char *expect = cml_read_text(path, 1u << 16, NULL);
    grade(planted[_i], planted_lab[_i], 1);
    compare_expect(expect ? expect : "", planted_lab[_i], msg, sizeof msg);
    free(expect);
    ck_assert_msg(!msg[0], "%s: %s\n%.4000s", planted[_i], msg, output);
}
END_TEST

/* The fixed GPU tests; the planted ones are counted from tests/planted. */
static const TTest *const *fixed_tests(int *n)
{
    static const TTest *list[2];
    list[0] = solutions_score_full_marks;
    list[1] = skeletons_score_zero_with_todo_messages;
    *n = 2;
    return list;
}

/* Contract in suites.h. */
int gpu_test_count(void)
{
    int n;
    fixed_tests(&n);
    return n + find_planted();
}

/* The GPU suite: add it only when gpu_present() says so. */
Suite *gpu_suite(void)
{
    int n;
    const TTest *const *fixed = fixed_tests(&n);
    Suite *s = suite_create("gpu");
    TCase *tc = tcase_create("grading on this GPU");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 1200);
    for (int i = 0; i < n; i++)
        tcase_add_test(tc, fixed[i]);
    tcase_add_loop_test(tc, planted_bug_gets_its_expected_verdict, 0, find_planted());
    suite_add_tcase(s, tc);
    return s;
}
