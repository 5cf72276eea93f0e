/* The GPU lock a batch's gradings share (class.h), on the fake repository: held around every
 * GPU run of a grading, never during its builds, and waited for. Part of the batch suite. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "batch_fixture.h"
#include "batch_run.h"
#include "class.h"
#include "gpu_lock.h"
#include "suites.h"
#include "util.h"

/* Whether another process could take the lock at path right now. */
static int lock_free(const char *path)
{
    char cmd[CML_PATH + 64];
    snprintf(cmd, sizeof cmd, "flock -n '%s' true", path);
    return system(cmd) == 0;
}

START_TEST(gpu_hold_excludes_other_processes_and_nests)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/gpu.lock", root);
    cml_gpu_hold_path(NULL);
    cml_gpu_hold(); /* no path: nothing is locked */
    cml_gpu_release();
    cml_gpu_hold_path(path);
    cml_gpu_hold();
    cml_gpu_hold();
    int held = !lock_free(path);
    cml_gpu_release(); /* inner release: still held */
    int still = !lock_free(path);
    cml_gpu_release();
    int freed = lock_free(path);
    cml_gpu_hold_path(NULL);
    ck_assert_msg(held && still && freed, "held %d, after the inner release %d, freed %d", held,
                  still, freed);
}
END_TEST

typedef struct {
    int group;
    double got, released; /* when this thread's hold began and ended */
} holder;

/* Hold the GPU for 0.3 s in the thread's group. */
static void *hold_a_while(void *arg)
{
    holder *h = arg;
    cml_gpu_group_set(h->group);
    cml_gpu_hold();
    h->got = cml_now();
    nanosleep(&(struct timespec){ 0, 300000000 }, NULL);
    h->released = cml_now();
    cml_gpu_release();
    return NULL;
}

/* The pipeline's two lab workers (grade_labs.c) have groups of their own: one's hold waits for
 * the other's to end. A thread of the holder's group (an ncu run the technique phase starts)
 * nests inside its hold at once. */
START_TEST(gpu_hold_groups_take_turns_and_nest_within_one)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/gpu.lock", root);
    cml_gpu_hold_path(path);
    holder h[2] = { { .group = 1 }, { .group = 2 } };
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        ck_assert(pthread_create(&th[i], NULL, hold_a_while, &h[i]) == 0);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    const holder *first = h[0].got < h[1].got ? &h[0] : &h[1];
    const holder *second = first == &h[0] ? &h[1] : &h[0];
    int apart = second->got >= first->released;
    cml_gpu_hold(); /* group 0, this thread's */
    holder same = { .group = 0 };
    pthread_create(&th[0], NULL, hold_a_while, &same);
    pthread_join(th[0], NULL);
    const double nested = cml_now();
    int still = !lock_free(path);
    cml_gpu_release();
    int freed = lock_free(path);
    cml_gpu_hold_path(NULL);
    ck_assert_msg(apart, "group %d held from %.3f while group %d held until %.3f",
                  second->group, second->got, first->group, first->released);
    ck_assert_msg(same.got < nested && still && freed, "a thread of the holder's group did not "
                  "nest in its hold (still held %d, freed after %d)", still, freed);
}
END_TEST

/* cml-grade grade of a copy of labs/ with --gpu-lock lock and, when share is not NULL,
 * --gpu-share share; its exit status, *took its time. */
static int grade_sharing(const char *lock, const char *share, double *took)
{
    char dir[CML_PATH], alice[CML_PATH];
    cml_fmt(dir, sizeof dir, "%s/out1", root);
    cml_fmt(alice, sizeof alice, "%s/alice", sub);
    if (access(alice, F_OK) != 0)
        student("alice", NULL);
    const char *args[] = { "grade", "--root", root, "--submission", alice, "--out", dir,
                           "--gpu-lock", lock, "--no-color", share ? "--gpu-share" : NULL,
                           share, NULL };
    double t0 = cml_now();
    int rc = cli(args);
    *took = cml_now() - t0;
    return rc;
}

static int grade_locked(const char *lock, double *took)
{
    return grade_sharing(lock, NULL, took);
}

START_TEST(grading_builds_without_the_gpu_lock)
{
    char lock[CML_PATH], log[CML_PATH];
    double took;
    cml_fmt(lock, sizeof lock, "%s/gpu.lock", root);
    cml_fmt(log, sizeof log, "%s/nvcc.log", root);
    setenv("FAKE_NVCC_LOCK", lock, 1); /* the fake nvcc notes LOCKED when it cannot take it */
    setenv("FAKE_NVCC_LOG", log, 1);
    int rc = grade_locked(lock, &took);
    unsetenv("FAKE_NVCC_LOCK");
    unsetenv("FAKE_NVCC_LOG");
    char *built = cml_read_text(log, 1 << 16, NULL);
    ck_assert_msg(rc == 0 && built && strstr(built, "fake.o") && !strstr(built, "LOCKED"),
                  "exit %d; a build ran while the grading held the GPU lock:\n%s\n%s", rc,
                  built ? built : "(no nvcc log)", output);
    free(built);
}
END_TEST

START_TEST(grading_holds_the_gpu_lock_while_its_labs_run)
{
    char lock[64];
    double took;
    snprintf(lock, sizeof lock, "/dev/shm/cml-gpu-lock-%d", (int)getpid()); /* the lab may read /dev */
    setenv("FAKE_LOCK_HELD", lock, 1);
    int rc = grade_locked(lock, &took);
    unsetenv("FAKE_LOCK_HELD");
    unlink(lock);
    ck_assert_msg(rc == 0, "exit %d: a lab ran without the GPU lock held:\n%s", rc, output);
}
END_TEST

/* The labs of one grading are graded two at a time (grade_labs.c), one verified while the next
 * runs: their runs still never meet. Each fake run holds an exclusive flock for 0.3 s and
 * fails when another run of the grading holds it. */
START_TEST(labs_of_one_grading_never_run_at_once)
{
    char lock[64], excl[64];
    double took;
    snprintf(lock, sizeof lock, "/dev/shm/cml-gpu-lock-%d", (int)getpid());
    snprintf(excl, sizeof excl, "/dev/shm/cml-one-run-%d", (int)getpid()); /* the lab reads /dev */
    FILE *f = fopen(excl, "w");
    ck_assert(f && fclose(f) == 0);
    setenv("FAKE_EXCLUSIVE", excl, 1);
    int rc = grade_locked(lock, &took);
    unsetenv("FAKE_EXCLUSIVE");
    unlink(lock);
    unlink(excl);
    ck_assert_msg(rc == 0 && !strstr(output, "another run"), "exit %d: two runs of one grading "
                  "met on the GPU:\n%s", rc, output);
}
END_TEST

START_TEST(grading_waits_for_the_gpu_lock_to_run)
{
    char lock[CML_PATH], hold[CML_PATH + 64];
    double took;
    cml_fmt(lock, sizeof lock, "%s/gpu.lock", root);
    snprintf(hold, sizeof hold, "flock '%s' sleep 3 &", lock); /* another grading's run */
    ck_assert(system(hold) == 0);
    nanosleep(&(struct timespec){ 0, 300000000 }, NULL);
    int rc = grade_locked(lock, &took);
    ck_assert_msg(rc == 0 && took >= 2.4, "exit %d in %.1f s while another held the GPU lock "
                  "for 3 s: it ran on the GPU meanwhile\n%s", rc, took, output);
}
END_TEST

START_TEST(calibrate_holds_the_gpu_lock_for_its_probe_and_runs)
{
    char lock[64], cal[CML_PATH];
    snprintf(lock, sizeof lock, "/dev/shm/cml-gpu-lock-%d", (int)getpid());
    cml_fmt(cal, sizeof cal, "%s/c.cal", root);
    setenv("FAKE_LOCK_HELD", lock, 1); /* the fake probe and labs exit 9 when it is free */
    const char *args[] = { "calibrate", "--root", root, "--out", cal, "--gpu-lock", lock, NULL };
    int rc = cli(args);
    unsetenv("FAKE_LOCK_HELD");
    unlink(lock);
    ck_assert_msg(rc == 0, "exit %d: the probe or a reference ran without the lock:\n%s", rc,
                  output);
}
END_TEST

/* The CUDA context the probe's binary keeps open (probe.c) starts and ends while the grading
 * holds the GPU lock, and ends with the grading; CML_HOLD_CONTEXT=0 keeps none. */
START_TEST(held_context_starts_and_ends_under_the_gpu_lock)
{
    char lock[64], log[CML_PATH];
    double took;
    snprintf(lock, sizeof lock, "/dev/shm/cml-gpu-lock-%d", (int)getpid());
    cml_fmt(log, sizeof log, "%s/hold.log", root);
    setenv("FAKE_LOCK_HELD", lock, 1);
    setenv("FAKE_HOLD_LOG", log, 1);
    int rc = grade_locked(lock, &took);
    char *text = cml_read_text(log, 4096, NULL);
    int pid = 0, pid2 = -1;
    char a[16] = "", b[16] = "";
    int n = text ? sscanf(text, "hold %d %15s\nlet-go %d %15s", &pid, a, &pid2, b) : 0;
    free(text);
    unlink(log);
    setenv("CML_HOLD_CONTEXT", "0", 1);
    int rc2 = grade_locked(lock, &took);
    unsetenv("CML_HOLD_CONTEXT");
    text = cml_read_text(log, 4096, NULL);
    unsetenv("FAKE_LOCK_HELD");
    unsetenv("FAKE_HOLD_LOG");
    unlink(lock);
    ck_assert_msg(rc == 0 && n == 4 && pid == pid2 && strcmp(a, "locked") == 0 &&
                  strcmp(b, "locked") == 0, "exit %d; hold log: pid %d %s, pid %d %s\n%s", rc,
                  pid, a, pid2, b, output);
    ck_assert_msg(kill(pid, 0) != 0, "the context keeper %d outlived its grading", pid);
    ck_assert_msg(rc2 == 0 && !text, "CML_HOLD_CONTEXT=0 (exit %d): %s", rc2, text);
}
END_TEST

/* A batch's grading that built ahead (--gpu-share N) runs only once one of the N places is
 * free: with the one place held by another grading for 3 s it waits, builds done; with two
 * places it goes on at once. */
START_TEST(grading_past_its_builds_waits_for_a_place)
{
    char lock[CML_PATH], hold[CML_PATH + 64], log[CML_PATH];
    double took, took2;
    cml_fmt(lock, sizeof lock, "%s/gpu.lock", root);
    cml_fmt(log, sizeof log, "%s/nvcc.log", root);
    snprintf(hold, sizeof hold, "flock '%s.place0' sleep 3 &", lock);
    ck_assert(system(hold) == 0);
    nanosleep(&(struct timespec){ 0, 300000000 }, NULL);
    setenv("FAKE_NVCC_LOG", log, 1);
    int rc = grade_sharing(lock, "1", &took);
    unsetenv("FAKE_NVCC_LOG");
    char *built = cml_read_text(log, 1 << 16, NULL);
    ck_assert_msg(rc == 0 && took >= 2.4 && built && strstr(built, "fake.o"),
                  "exit %d in %.1f s with the only place held 3 s (builds: %s)\n%s", rc, took,
                  built ? built : "none", output);
    free(built);
    ck_assert(system(hold) == 0);
    nanosleep(&(struct timespec){ 0, 300000000 }, NULL);
    rc = grade_sharing(lock, "2", &took2);
    ck_assert_msg(rc == 0 && took2 < took - 1.0, "exit %d in %.1f s with a second place free "
                  "(%.1f s with none)\n%s", rc, took2, took, output);
}
END_TEST

/* The place is the grading's until it ends (its descriptor stays open); asking again keeps
 * it; a grading without --gpu-share takes none. */
START_TEST(a_place_is_kept_until_the_grading_ends)
{
    char lock[CML_PATH], place0[CML_PATH + 8], place1[CML_PATH + 8];
    cml_fmt(lock, sizeof lock, "%s/gpu.lock", root);
    snprintf(place0, sizeof place0, "%s.place0", lock);
    snprintf(place1, sizeof place1, "%s.place1", lock);
    cml_gpu_hold_path(lock);
    cml_gpu_enter(); /* no share set: no place */
    ck_assert_int_eq(access(place0, F_OK) != 0, 1);
    cml_gpu_share_set(2);
    cml_gpu_enter();
    int kept = !lock_free(place0), other = lock_free(place1);
    cml_gpu_enter();
    int again = !lock_free(place0) && lock_free(place1);
    cml_gpu_hold_path(NULL);
    ck_assert_msg(kept && other && again, "place0 held %d, place1 free %d, after asking again %d",
                  kept, other, again);
}
END_TEST

/* The batch starts one grading more per GPU than may run and tells each how many may. */
START_TEST(batch_builds_one_ahead_per_gpu)
{
    static cml_batch b;
    static char *args[CML_GRADE_ARGS + 1], buf[CML_GRADE_ARGS][4096];
    memset(&b, 0, sizeof b);
    b.per_gpu = 2, b.ahead = 1, b.ngpus = 1;
    snprintf(b.gpu[0], sizeof b.gpu[0], "0");
    snprintf(b.out_abs, sizeof b.out_abs, "%s", root);
    b.plan.n = 1;
    b.plan.e = calloc(1, sizeof *b.plan.e);
    snprintf(b.plan.e[0].name, sizeof b.plan.e[0].name, "alice");
    cml_fmt(b.plan.e[0].path, sizeof b.plan.e[0].path, "%s/alice", sub);
    ck_assert_int_eq(cml_batch_procs(&b), 3);
    cml_batch_grade_args(&b, 0, 0, args, buf);
    int share = 0;
    for (int i = 0; args[i]; i++)
        share |= strcmp(args[i], "--gpu-share") == 0 && args[i + 1] &&
                 strcmp(args[i + 1], "2") == 0;
    b.ahead = 0;
    cml_batch_grade_args(&b, 0, 0, args, buf);
    int none = 1;
    for (int i = 0; args[i]; i++)
        none &= strcmp(args[i], "--gpu-share") != 0;
    free(b.plan.e);
    ck_assert_msg(share && none && cml_batch_procs(&b) == 2, "--gpu-share 2 passed %d, absent "
                  "without ahead %d", share, none);
}
END_TEST

/* Contract in suites.h. */
void batch_lock_add(Suite *s)
{
    TCase *tc = tcase_create("gpu lock");
    tcase_add_checked_fixture(tc, batch_setup, batch_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, gpu_hold_excludes_other_processes_and_nests);
    tcase_add_test(tc, gpu_hold_groups_take_turns_and_nest_within_one);
    tcase_add_test(tc, labs_of_one_grading_never_run_at_once);
    tcase_add_test(tc, grading_builds_without_the_gpu_lock);
    tcase_add_test(tc, grading_waits_for_the_gpu_lock_to_run);
    tcase_add_test(tc, grading_holds_the_gpu_lock_while_its_labs_run);
    tcase_add_test(tc, calibrate_holds_the_gpu_lock_for_its_probe_and_runs);
    tcase_add_test(tc, held_context_starts_and_ends_under_the_gpu_lock);
    tcase_add_test(tc, grading_past_its_builds_waits_for_a_place);
    tcase_add_test(tc, a_place_is_kept_until_the_grading_ends);
    tcase_add_test(tc, batch_builds_one_ahead_per_gpu);
    suite_add_tcase(s, tc);
}
