/* GPU tests, through the CLI as a child process (never CUDA in the test process): the solutions
 * score full marks under five seeds, the skeletons score zero with their TODO messages, and
 * every planted bug (the solution with tests/planted/<lab>/<bug>/bug.patch applied) gets the
 * verdicts its EXPECT pins. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "planted.h"
#include "probe.h"
#include "suites.h"
#include "util.h"

#define MAX_PLANTED 64
#define SOLUTION_RUNS 5

static planted_bug planted[MAX_PLANTED]; /* tests/planted/<lab>/<bug> */
static int nplanted = -1;
static char out[64], sub[64];
static char *output;
static test_summary_line lines[64];

/* Every planted bug (tests/planted/<lab>/<bug>/ with an EXPECT), found once. */
static int find_planted(void)
{
    if (nplanted < 0)
        nplanted = planted_find(test_path("tests/planted"), planted, MAX_PLANTED);
    return nplanted;
}

/* Contract in suites.h. cml_probe runs in a forked child, not in the runner: it sets up the
 * grader's sandbox state (as root, this process's folder of run folders in /tmp, and an exit
 * handler that removes it), which every forked test would otherwise inherit and each remove at
 * its exit (run_folder_is_reachable_by_the_labs_user then found the folder re-made 0755). */
int gpu_present(char *reason, size_t len)
{
    char buf[1 + sizeof ((cml_probe_result *)0)->reason] = "0";
    int fds[2];
    snprintf(reason, len, "the GPU probe could not be started");
    if (pipe(fds) < 0)
        return 0;
    pid_t pid = fork();
    if (pid == 0) {
        cml_probe_result *p = calloc(1, sizeof *p);
        close(fds[0]);
        if (p) {
            cml_probe(test_root(), test_path("build/cache"), p);
            buf[0] = p->have_gpu ? '1' : '0';
            snprintf(buf + 1, sizeof buf - 1, "%s", p->reason);
        }
        ssize_t w = write(fds[1], buf, strlen(buf) + 1);
        exit(w > 0 ? 0 : 1); /* exit, not _exit: the child's own run folder goes with it */
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t r;
    while (pid > 0 && got < sizeof buf - 1 &&
           (r = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)r;
    close(fds[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    buf[got] = '\0';
    if (got > 0)
        snprintf(reason, len, "%s", buf + 1);
    return got > 0 && buf[0] == '1';
}

static void setup(void)
{
    test_tmpdir(out, sizeof out);
    test_tmpdir(sub, sizeof sub);
    output = NULL;
}

static void teardown(void)
{
    free(output);
    cml_rmtree(out);
    cml_rmtree(sub);
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

/* The grading's output for a failure message: the whole of it goes to stderr (the test log),
 * its last 2000 characters into the message, which Check caps at 4096 bytes (a longer one
 * ended the test run with "Message string too long" and lost the reason, H200). */
static const char *output_tail(void)
{
    const size_t len = output ? strlen(output) : 0;
    if (output)
        fprintf(stderr, "---- the grading's output ----\n%s\n---- end ----\n", output);
    return output ? output + (len > 2000 ? len - 2000 : 0) : "";
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
    ck_assert_msg(!msg[0], "seed %llu: %s\n%s", seed, msg, msg[0] ? output_tail() : "");
}
END_TEST

START_TEST(skeletons_score_zero_with_todo_messages)
{
    char msg[1200];
    grade(test_path("labs"), NULL, 1);
    first_bad_line(zero_with_todo, msg, sizeof msg);
    ck_assert_msg(!msg[0], "%s\n%s", msg, msg[0] ? output_tail() : "");
}
END_TEST

/* Compare summary.tsv with EXPECT: "<task> <status> [text]" per pinned task; others passed. */
static void compare_expect(const char *expect, const char *lab, char *msg, size_t len)
{
    int n = test_read_summary(out, lines, 64);
    planted_compare(lines, n > 0 ? n : 0, expect, lab, msg, len);
}

/* The solution with the bug's patch applied, in `sub`, graded; verdicts as EXPECT says. */
START_TEST(planted_bug_gets_its_expected_verdict)
{
    char path[CML_PATH], msg[1600];
    const planted_bug *b = &planted[_i];
    ck_assert_msg(planted_materialize(test_root(), b->lab, b->dir, sub, msg, sizeof msg) == 0,
                  "%s: %s", b->dir, msg);
    cml_fmt(path, sizeof path, "%s/EXPECT", b->dir);
    char *expect = cml_read_text(path, 1u << 16, NULL);
    grade(sub, b->lab, 1);
    compare_expect(expect ? expect : "", b->lab, msg, sizeof msg);
    free(expect);
    ck_assert_msg(!msg[0], "%s: %s\n%s", b->dir, msg, msg[0] ? output_tail() : "");
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
    return n + find_planted() + gpu_attack_count();
}

/* The GPU suite: add it only when gpu_present() says so. Three test cases with Check tags, so
 * a GPU session can run them in separate calls: CK_INCLUDE_TAGS=gpu-grading (the solutions five
 * times, the skeletons), CK_INCLUDE_TAGS=gpu-planted (every planted bug) and
 * CK_INCLUDE_TAGS=gpu-attacks (the attack corpus, tests/test_gpu_attacks.c). */
Suite *gpu_suite(void)
{
    int n;
    const TTest *const *fixed = fixed_tests(&n);
    Suite *s = suite_create("gpu");
    TCase *grading = tcase_create("grading on this GPU");
    TCase *bugs = tcase_create("planted bugs on this GPU");
    tcase_set_tags(grading, "gpu-grading");
    tcase_set_tags(bugs, "gpu-planted");
    for (TCase **tc = (TCase *[]){ grading, bugs, NULL }; *tc; tc++) {
        tcase_add_checked_fixture(*tc, setup, teardown);
        tcase_set_timeout(*tc, 1200);
    }
    for (int i = 0; i < n; i++)
        tcase_add_test(grading, fixed[i]);
    tcase_add_loop_test(bugs, planted_bug_gets_its_expected_verdict, 0, find_planted());
    suite_add_tcase(s, grading);
    suite_add_tcase(s, bugs);
    gpu_attacks_add(s);
    return s;
}
