/* A lab run that waits for its turn (cml_run_sandboxed_turn): the lab starts at once, finds
 * CML_SEED_WAIT, gets its seed only once the turn is taken, and its time limit and wall time
 * count from there. Part of the run suite. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "run.h"
#include "sandbox.h"
#include "suites.h"
#include "util.h"

typedef struct {
    const char *dir;
    double wait_s;            /* how long the turn keeps the lab waiting */
    int started_before;       /* the lab had started (its `wait` file) when the turn came */
    int seed_before;          /* ... and already had a seed (its `seed` file): it must not */
    char wait[16];            /* CML_SEED_WAIT as the lab found it: "1", start CUDA now */
} turn_probe;

static int exists_in(const char *dir, const char *name)
{
    char path[CML_PATH];
    struct stat st;
    return cml_fmt(path, sizeof path, "%s/%s", dir, name) == 0 && stat(path, &st) == 0;
}

/* The turn: another run's time on the GPU, then a look at what the lab has done meanwhile. */
static void slow_turn(void *arg)
{
    turn_probe *t = arg;
    double until = cml_now() + t->wait_s;
    while (cml_now() < until && !exists_in(t->dir, "wait"))
        nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
    while (cml_now() < until)
        nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
    t->started_before = exists_in(t->dir, "wait");
    t->seed_before = exists_in(t->dir, "seed");
}

/* A copy of sh as the lab, run with a turn that takes wait_s and a time limit of limit_s: it
 * notes CML_SEED_WAIT, reads its seed from CML_SEED_FD and writes it back. */
static void run_with_turn(turn_probe *t, double limit_s, cml_proc_result *res, char *seed,
                          size_t len)
{
    static const char *script = "echo \"$CML_SEED_WAIT\" > wait; "
                                "eval \"read -r s <&$CML_SEED_FD\"; echo \"$s\" > seed";
    char top[64], parent[CML_PATH], dir[CML_PATH], err[256], path[CML_PATH];
    test_tmpdir(top, sizeof top);
    cml_fmt(parent, sizeof parent, "%s/work", top);
    ck_assert_msg(cml_sandbox_scratch(parent, "t", "/bin/dash", dir, sizeof dir, err,
                                      sizeof err) == 0, "%s", err);
    t->dir = dir;
    char *argv[] = { "./lab", "-c", (char *)script, NULL };
    const cml_run_turn turn = { slow_turn, t };
    cml_run_sandboxed_turn(argv, dir, -1, 987654321987ull, &turn, limit_s, 4096, res);
    cml_fmt(path, sizeof path, "%s/seed", dir);
    char *text = cml_read_text(path, 64, NULL);
    snprintf(seed, len, "%s", text ? text : "(none)");
    free(text);
    cml_fmt(path, sizeof path, "%s/wait", dir);
    text = cml_read_text(path, 64, NULL);
    snprintf(t->wait, sizeof t->wait, "%s", text ? text : "(none)");
    free(text);
    cml_rmtree(top);
}

START_TEST(a_lab_starts_before_its_turn_and_gets_its_seed_only_then)
{
    turn_probe t = { .wait_s = 0.6 };
    cml_proc_result res = { 0 };
    char seed[64];
    run_with_turn(&t, 10, &res, seed, sizeof seed);
    ck_assert_msg(res.started && res.exited && res.exit_code == 0, "exit %d: %s", res.exit_code,
                  res.output ? res.output : "");
    ck_assert_msg(t.started_before, "the lab had not started when its turn came");
    ck_assert_msg(!t.seed_before, "the lab had its seed before its turn");
    ck_assert_str_eq(seed, "987654321987\n");
    ck_assert_msg(strcmp(t.wait, "1\n") == 0, "CML_SEED_WAIT was '%s', not 1", t.wait);
    cml_proc_result_free(&res);
}
END_TEST

/* The turn takes 1.5 s, longer than the 1 s limit: the limit counts from the turn, so the lab
 * finishes, and its wall time leaves the wait out. */
START_TEST(a_labs_time_limit_starts_with_its_turn)
{
    turn_probe t = { .wait_s = 1.5 };
    cml_proc_result res = { 0 };
    char seed[64];
    run_with_turn(&t, 1.0, &res, seed, sizeof seed);
    ck_assert_msg(!res.timed_out && res.exited && res.exit_code == 0, "timed out %d, exit %d: "
                  "%s", res.timed_out, res.exit_code, res.output ? res.output : "");
    ck_assert_msg(res.wall_s < 1.0, "wall time %.2f s counts the wait for the turn", res.wall_s);
    ck_assert_str_eq(seed, "987654321987\n");
    cml_proc_result_free(&res);
}
END_TEST

/* Contract in suites.h. */
void run_turn_add(Suite *s)
{
    TCase *tc = tcase_create("turns");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, a_lab_starts_before_its_turn_and_gets_its_seed_only_then);
    tcase_add_test(tc, a_labs_time_limit_starts_with_its_turn);
    suite_add_tcase(s, tc);
}
