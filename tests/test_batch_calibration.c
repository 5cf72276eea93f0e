/* The batch's calibration (grader/src/class/batch_drift.c, calibrate.c) on the fake
 * repository, no GPU needed: drift found and regraded, the calibration made beside the first
 * gradings' builds or first, a batch killed while it calibrates, and its builds' priority.
 * Part of the batch suite. */
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "batch_fixture.h"
#include "batch_run.h"
#include "helpers.h"
#include "suites.h"
#include "util.h"

/* The calibration's reference took 6 ms a case; from then on it takes 2 ms (the GPU
 * "drifted"), and every student's timed case 6 ms: graded with the calibration, 1.00x, full
 * marks; measured live, 3.00x, no speed points. The drift check finds it, and a1, graded
 * before it, is graded again with live reference runs, losing its speed points: a drift that
 * changes points is acted on. */
START_TEST(batch_drift_regrades_with_live_reference_runs)
{
    char cal[CML_PATH], path[CML_PATH];
    student("a1", NULL);
    student("a2", NULL);
    student("a3", NULL);
    cml_fmt(cal, sizeof cal, "%s/cal.cal", root);
    setenv("FAKE_REF_MS", "6", 1); /* the calibration's reference: 6 ms a case */
    const char *calibrate[] = { "calibrate", "--root", root, "--out", cal, NULL };
    int crc = cli(calibrate);
    unsetenv("FAKE_REF_MS"); /* from now on the reference takes 2 ms: the GPU "drifted" */
    ck_assert_msg(crc == 0, "calibrate: exit %d\n%s", crc, output);
    setenv("FAKE_MODE", "slow", 1); /* the students: 3 x 2 ms */
    const char *args[] = { "batch", "--root", root, "--submissions", sub, "--out", out,
                           "--gpus", "0", "--per-gpu", "1", "--calibration", cal,
                           "--check-every", "1", NULL };
    int rc = cli(args);
    unsetenv("FAKE_MODE");
    cml_fmt(path, sizeof path, "%s/students/a1/status.drifted", out);
    ck_assert_msg(rc == 0 && strstr(output, "drift on GPU 0") && access(path, F_OK) == 0,
                  "exit %d, no drift found or nothing regraded:\n%s", rc, output);
    for (int i = 1; i <= 3; i++) {
        char name[8], rec[CML_PATH];
        snprintf(name, sizeof name, "a%d", i);
        cml_student_status st = status_of(name);
        cml_fmt(rec, sizeof rec, "%s/students/%s/record.json", out, name);
        char *json = cml_read_text(rec, 1 << 22, NULL);
        ck_assert_msg(strcmp(st.state, "graded") == 0 && st.score < st.max && json &&
                      strstr(json, "measured in this grading") && !strstr(json,
                      "\"source\": \"calibration\""), "%s: %s %g/%g, its reference %s", name,
                      st.state, st.score, st.max, json && strstr(json, "\"source\": "
                      "\"calibration\"") ? "from the drifted calibration" : "?");
        free(json);
    }
}
END_TEST

/* cml_drift_done on a batch of two students graded on GPU 0 since its last good check, the
 * check's exit status `first` then `second` (3: drift, 0: within the tolerance); how many of
 * them went back on the queue, whether the GPU measures live, and the progress lines. */
static int two_checks(int first, int second, int *live, char *lines, size_t len)
{
    cml_batch *b = calloc(1, sizeof *b);
    ck_assert_ptr_nonnull(b);
    int graded_on[2] = { 0, 0 }, queue[2];
    static cml_plan_entry e[2] = { { .name = "s1" }, { .name = "s2" } };
    b->plan.e = e, b->plan.n = 2, b->graded_on = graded_on, b->queue = queue;
    b->ngpus = 1, b->since[0] = 2, b->check_every = 2;
    snprintf(b->gpu[0], sizeof b->gpu[0], "0");
    snprintf(b->out_abs, sizeof b->out_abs, "%s", out);
    snprintf(b->cal_path, sizeof b->cal_path, "cal.cal"); /* a calibration is in use */
    FILE *f = fmemopen(lines, len, "w");
    b->progress.f = f;
    cml_drift_done(b, 0, first << 8);
    ck_assert_int_eq(b->nqueue, 0); /* one finding: nobody graded again yet */
    ck_assert_int_eq(cml_drift_due(b, 0), 1); /* and the next check is due at once */
    cml_drift_done(b, 0, second << 8);
    fclose(f);
    int n = b->nqueue;
    *live = b->live[0];
    free(b);
    return n;
}

/* A check that finds drift is made again before anyone is graded again: found twice, the GPU
 * measures live and its students since the last good check are graded again; found once, the
 * second check's ok clears it. */
START_TEST(drift_is_acted_on_when_a_second_check_finds_it_too)
{
    char lines[2048];
    int live;
    ck_assert_int_eq(two_checks(3, 3, &live, lines, sizeof lines), 2);
    ck_assert_msg(live && strstr(lines, "found drift (drift-gpu0.log): checking once more") &&
                  strstr(lines, "drift on GPU 0") && strstr(lines, "2 student(s)"), "%s",
                  lines);
    ck_assert_int_eq(two_checks(3, 0, &live, lines, sizeof lines), 0);
    ck_assert_msg(!live && strstr(lines, "drift check on GPU 0 again: ok, so the first finding "
                                         "was the check's own noise"), "%s", lines);
}
END_TEST

/* student `name`'s summary.tsv in the batch's output (NULL: none) */
static void summary_of(const char *name, const char *text)
{
    char dir[CML_PATH], path[CML_PATH];
    cml_fmt(dir, sizeof dir, "%s/students/%s", out, name);
    ck_assert_int_eq(cml_mkdirs(dir), 0);
    cml_fmt(path, sizeof path, "%s/status", dir);
    test_write(path, "graded\n");
    cml_fmt(path, sizeof path, "%s/summary.tsv", dir);
    if (text)
        test_write(path, text);
}

#define SPEED(lab, task, r, full) lab "\t" task "\tpassed\t10\t10\t" r "x the reference time " \
    "(full credit up to " full "x, none from 2.5x)\n"

/* Found twice, drift sends back only the students whose speed points it could change: their
 * graded ratio over the lab's factor (the farthest from 1 of both checks) crosses no credit
 * bound. s1 (6.1 at 0.95x, 1.1 at 1.00x) stays graded; s2 (6.1 at 1.10x, 1.196x over 0.92,
 * past 1.15x) and s3 (no summary to judge by) are graded again. The logs' other lines (the
 * reference's build, a lab not comparable) name no factor. */
START_TEST(drift_spares_students_whose_points_it_cannot_change)
{
    char path[CML_PATH], lines[2048];
    ck_assert_int_eq(cml_mkdirs(out), 0);
    cml_fmt(path, sizeof path, "%s/drift-gpu0.log", out);
    test_write(path, "calibrate: 2 reference run(s) on Fake GPU\n"
                     "01_coalescing: 1.010x the calibration's time over 3 timed case(s): ok\n"
                     "06_zero_copy: 0.930x the calibration's time over 4 timed case(s): DRIFT\n");
    cml_fmt(path, sizeof path, "%s/drift-gpu0-again.log", out);
    test_write(path, "01_coalescing: 0.990x the calibration's time over 3 timed case(s): ok\n"
                     "06_zero_copy: 0.920x the calibration's time over 4 timed case(s): DRIFT\n"
                     "07_unified_memory: not comparable (no timed case in common)\n");
    summary_of("s1", SPEED("01_coalescing", "1.1", "1.00", "1.3")
                     SPEED("06_zero_copy", "6.1", "0.95", "1.15")
                     "06_zero_copy\t7.1\tpassed\t12\t12\tall 5 cases passed\n");
    summary_of("s2", SPEED("06_zero_copy", "6.1", "1.10", "1.15"));
    summary_of("s3", NULL);
    cml_batch *b = calloc(1, sizeof *b);
    ck_assert_ptr_nonnull(b);
    int graded_on[3] = { 0, 0, 0 }, queue[3];
    static cml_plan_entry e[3] = { { .name = "s1" }, { .name = "s2" }, { .name = "s3" } };
    b->plan.e = e, b->plan.n = 3, b->graded_on = graded_on, b->queue = queue;
    b->ngpus = 1, b->since[0] = 3, b->check_every = 3;
    snprintf(b->gpu[0], sizeof b->gpu[0], "0");
    snprintf(b->out_abs, sizeof b->out_abs, "%s", out);
    snprintf(b->cal_path, sizeof b->cal_path, "cal.cal");
    FILE *f = fmemopen(lines, sizeof lines, "w");
    b->progress.f = f;
    cml_drift_done(b, 0, 3 << 8);
    cml_drift_done(b, 0, 3 << 8);
    fclose(f);
    int n = b->nqueue, q0 = queue[0], q1 = queue[1];
    free(b);
    ck_assert_msg(n == 2 && q0 == 1 && q1 == 2, "%d graded again (%d, %d): %s", n, q0, q1, lines);
    ck_assert_msg(strstr(lines, "2 student(s) graded since its last check are graded again, 1 "
                                "kept"), "%s", lines);
    cml_fmt(path, sizeof path, "%s/students/s1/status", out);
    ck_assert_int_eq(access(path, F_OK), 0);
    cml_fmt(path, sizeof path, "%s/students/s2/status.drifted", out);
    ck_assert_int_eq(access(path, F_OK), 0);
}
END_TEST

/* What a drift can touch, alone: a ratio inside the partial-credit band moves with any factor;
 * one at a bound moves within the rounding; a lab the checks did not measure takes their
 * factor; no log, or a log whose lines name no factor, counts as touched. */
START_TEST(drift_touches_partial_credit_bounds_and_the_unknown)
{
    char dir[CML_PATH], log[CML_PATH], other[CML_PATH];
    ck_assert_int_eq(cml_mkdirs(out), 0);
    cml_fmt(log, sizeof log, "%s/one.log", out);
    test_write(log, "03_bank_conflicts: 1.001x the calibration's time over 3 timed case(s): ok\n");
    cml_fmt(other, sizeof other, "%s/other.log", out);
    test_write(other, "calibrate: 1 reference run(s), 2x faster than last time\n");
    const char *const logs[] = { log }, *const none[] = { "/nonexistent/drift.log" },
                      *const bogus[] = { other };
    struct { const char *summary; int touched; } c[] = {
        { SPEED("03_bank_conflicts", "3.2", "1.60", "1.2"), 1 },  /* partial credit */
        { SPEED("03_bank_conflicts", "3.2", "1.20", "1.2"), 1 },  /* at the bound */
        { SPEED("03_bank_conflicts", "3.2", "1.17", "1.2"), 0 },  /* clear of it */
        { SPEED("04_float4", "4.1", "0.90", "1.2"), 0 },          /* 04 takes 03's factor */
        { SPEED("04_float4", "4.1", "1.60", "1.2"), 1 },
        { "03_bank_conflicts\t3.1\twrong\t0\t5\tcase n=4: 2 of 4 wrong\n", 0 },
        /* a failed technique check leads the detail; its speed part may be cut off */
        { "03_bank_conflicts\t3.3b\ttechnique\t9\t11\ttechnique check ncu failed (it "
          "proves: one tile): 8192 bytes of shared memory per block\n", 1 } };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        summary_of("t", c[i].summary);
        cml_fmt(dir, sizeof dir, "%s/students/t", out);
        ck_assert_msg(cml_drift_touches(dir, logs, 1) == c[i].touched, "case %zu: %s", i,
                      c[i].summary);
    }
    ck_assert_int_eq(cml_drift_touches(dir, none, 1), 1);
    ck_assert_int_eq(cml_drift_touches(dir, bogus, 1), 1);
}
END_TEST

/* Whether every lab of student `name` in the batch's output had its reference from `source`
 * ("calibration" or "measured in this grading"). */
static int reference_from(const char *name, const char *source)
{
    char rec[CML_PATH], want[80];
    cml_fmt(rec, sizeof rec, "%s/students/%s/record.json", out, name);
    snprintf(want, sizeof want, "\"source\": \"%s\"", source);
    char *json = cml_read_text(rec, 1 << 22, NULL), *p = json;
    int n = 0;
    for (; p && (p = strstr(p, "\"source\": ")); p++)
        n += strncmp(p, want, strlen(want)) == 0 ? 1 : -100;
    free(json);
    return n == 2; /* the fake repository's two labs */
}

/* Without a calibration the batch makes one beside the first gradings' builds, holding their
 * places on the GPU meanwhile: the gradings then read it (their records name it), and no run
 * of theirs meets one of the calibration's (each fake run holds a marker 0.3 s and fails when
 * another holds it). When it fails, they measure the reference themselves. */
START_TEST(batch_calibrates_beside_the_first_builds)
{
    char excl[64], path[CML_PATH];
    student("a1", NULL);
    student("a2", NULL);
    snprintf(excl, sizeof excl, "/dev/shm/cml-one-run-%d", (int)getpid()); /* the lab reads /dev */
    FILE *f = fopen(excl, "w");
    ck_assert(f && fclose(f) == 0);
    setenv("FAKE_EXCLUSIVE", excl, 1);
    setenv("CML_BATCH_STAGGER", "0", 1);
    const char *args[] = { "batch", "--root", root, "--submissions", sub, "--out", out,
                           "--gpus", "0", NULL };
    int rc = cli(args);
    unsetenv("FAKE_EXCLUSIVE");
    unlink(excl);
    ck_assert_msg(rc == 0 && strstr(output, "being made on the first GPU") &&
                  strstr(output, "calibration.cal written") && !strstr(output, "another run"),
                  "exit %d:\n%s", rc, output);
    for (int i = 1; i <= 2; i++) {
        char name[8];
        snprintf(name, sizeof name, "a%d", i);
        cml_student_status st = status_of(name);
        ck_assert_msg(strcmp(st.state, "graded") == 0 && st.score == st.max &&
                      reference_from(name, "calibration"), "%s: %s %g/%g, its reference "
                      "not from the calibration", name, st.state, st.score, st.max);
    }
    sh("rm -rf %s%s", out, ""); /* again, with a calibration that fails: a reference is missing */
    cml_fmt(path, sizeof path, "%s/solutions/02_fake/other.cu", root);
    sh("mv %s %s.away", path, path);
    rc = cli(args);
    sh("mv %s.away %s", path, path);
    unsetenv("CML_BATCH_STAGGER");
    cml_student_status st = status_of("a1");
    char log[CML_PATH];
    cml_fmt(log, sizeof log, "%s/students/a1/grade.log", out);
    char *text = cml_read_text(log, 1 << 22, NULL);
    ck_assert_msg(strstr(output, "calibration failed") && strcmp(st.state, "graded") == 0 &&
                  text && strstr(text, "calibration.cal cannot be used") &&
                  reference_from("a1", "measured in this grading"), "exit %d, a1 %s, its "
                  "log:\n%s\nthe batch's:\n%s", rc, st.state, text ? text : "none", output);
    free(text);
}
END_TEST

/* A place already held (a grading of another batch writing into the same folder) is never
 * waited for by the batch itself: it calibrates first, as before, and grades. */
START_TEST(batch_calibrates_first_when_a_place_is_held)
{
    char hold[2 * CML_PATH + 64];
    student("a1", NULL);
    sh("mkdir -p %s%s", out, "");
    snprintf(hold, sizeof hold, "flock '%s/.gpu-0.lock.place0' sleep 60 & echo $! > '%s/h.pid'",
             out, root);
    ck_assert(system(hold) == 0);
    nanosleep(&(struct timespec){ 0, 300000000 }, NULL);
    setenv("CML_BATCH_STAGGER", "0", 1);
    const char *args[] = { "batch", "--root", root, "--submissions", sub, "--out", out,
                           "--gpus", "0", NULL };
    double t0 = cml_now();
    int rc = cli(args);
    double took = cml_now() - t0;
    unsetenv("CML_BATCH_STAGGER");
    sh("kill $(cat %s/h.pid)%s", root, "");
    cml_student_status st = status_of("a1");
    ck_assert_msg(rc == 0 && took < 50 && !strstr(output, "being made") &&
                  strstr(output, "calibration.cal written") && strcmp(st.state, "graded") == 0 &&
                  reference_from("a1", "calibration"), "exit %d in %.0f s, a1 %s:\n%s", rc,
                  took, st.state, output);
}
END_TEST

/* Processes other than this test's whose command line names the fake root: the batch's
 * calibration and what it ran. */
static int left_running(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        char path[300], line[8192];
        if (atoi(e->d_name) <= 0 || atoi(e->d_name) == (int)getpid())
            continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(path, "r");
        size_t got = f ? fread(line, 1, sizeof line - 1, f) : 0;
        if (f)
            fclose(f);
        for (size_t i = 0; i < got; i++)
            line[i] = line[i] ? line[i] : ' ';
        line[got] = '\0';
        n += strstr(line, root) != NULL;
    }
    if (d)
        closedir(d);
    return d ? n : -1;
}

/* A batch killed outright while its calibration runs beside the first builds takes the
 * calibration and the reference run it started with it (PR_SET_PDEATHSIG, then calibrate's
 * own signal handler), so that a re-run never meets a calibration left over on the GPU. */
START_TEST(batch_killed_while_calibrating_leaves_nothing_running)
{
    char log[CML_PATH], cal_log[CML_PATH];
    student("k1", NULL);
    setenv("FAKE_REF_MODE", "hang", 1); /* the calibration's reference run never ends */
    cml_fmt(log, sizeof log, "%s/batch.log", root);
    cml_fmt(cal_log, sizeof cal_log, "%s/calibration.log", out);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(log, "w", stderr))
            _exit(126);
        execl(test_path("build/cml-grade"), "cml-grade", "batch", "--root", root,
              "--submissions", sub, "--out", out, "--gpus", "0", (char *)NULL);
        _exit(127);
    }
    char *text = NULL;
    for (int i = 0; i < 600 && !(text && strstr(text, "timed case(s)")); i++) {
        free(text);
        nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
        text = cml_read_text(cal_log, 1 << 20, NULL);
    }
    unsetenv("FAKE_REF_MODE");
    int running = text && strstr(text, "timed case(s)");
    free(text);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    ck_assert_msg(running, "the calibration's reference run never started");
    int left = -1;
    for (int i = 0; i < 100 && (left = left_running()) != 0; i++)
        nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
    ck_assert_msg(left == 0, "%d process(es) of the batch outlived it by 10 s", left);
}
END_TEST

/* The nice values nvcc ran at in folders under `where`, from FAKE_NVCC_NICE_LOG's lines
 * ("folder nice"): how many lines, and whether every one had `want` (the probe's build, the
 * grader's own, is not a lab's). */
static int nvcc_nice(const char *log, const char *where, int want, int *all)
{
    FILE *f = fopen(log, "r");
    char line[CML_PATH + 32];
    int n = 0;
    *all = 1;
    while (f && fgets(line, sizeof line, f)) {
        const char *sp = strrchr(line, ' ');
        if (!strstr(line, where))
            continue;
        *all &= sp && atoi(sp + 1) == want;
        n++;
    }
    if (f)
        fclose(f);
    return n;
}

/* A batch sets CML_BUILD_NICE=10 so that its gradings' compilers yield to the labs another
 * grading is timing. The calibration it makes beside the first builds, which every grading
 * waits for and which nothing timed meets, builds at nice 0; the gradings' builds at 10; so
 * does a drift check (`calibrate --check` with the batch's environment). The fake nvcc takes
 * 0.3 s a call, so that the calibration, which probes before any grading can (it holds the
 * GPU lock), looks its references up before a grading has stored one: it compiles them. */
START_TEST(calibration_builds_never_yield_gradings_builds_do)
{
    char cal[CML_PATH], log[CML_PATH], cache[CML_PATH];
    int all, all2;
    cml_fmt(log, sizeof log, "%s/nice.log", root);
    student("a1", NULL);
    setenv("CML_BATCH_STAGGER", "0", 1);
    setenv("FAKE_NVCC_SLEEP", "0.3", 1);
    setenv("FAKE_NVCC_NICE_LOG", log, 1);
    const char *args[] = { "batch", "--root", root, "--submissions", sub, "--out", out,
                           "--gpus", "0", NULL };
    int rc = cli(args);
    unsetenv("CML_BATCH_STAGGER");
    unsetenv("FAKE_NVCC_SLEEP");
    int n = nvcc_nice(log, "/build/calibrate/", 0, &all);
    int n2 = nvcc_nice(log, "/students/", 10, &all2);
    char *text = cml_read_text(log, 1 << 20, NULL);
    ck_assert_msg(rc == 0 && strstr(output, "being made on the first GPU") && n > 0 && all &&
                  n2 > 0 && all2, "batch (exit %d): the calibration's %d nvcc run(s) %s at "
                  "nice 0, the grading's %d %s at nice 10\n%s\n%s", rc, n, all ? "all" : "not all",
                  n2, all2 ? "all" : "not all", text, output);
    free(text);
    unlink(log);
    cml_fmt(cal, sizeof cal, "%s/calibration.cal", out);
    cml_fmt(cache, sizeof cache, "%s/build/cache", root);
    sh("rm -rf '%s'%s", cache, ""); /* the check builds its references again */
    setenv("CML_BUILD_NICE", "10", 1); /* as the batch starts it */
    const char *check[] = { "calibrate", "--root", root, "--check", cal, NULL };
    rc = cli(check);
    unsetenv("CML_BUILD_NICE");
    unsetenv("FAKE_NVCC_NICE_LOG");
    n = nvcc_nice(log, "/build/calibrate/", 10, &all);
    ck_assert_msg(n > 0 && all, "calibrate --check (exit %d): %d nvcc run(s), %s at nice 10"
                  "\n%s", rc, n, all ? "all" : "not all", output);
}
END_TEST

/* Contract in suites.h. */
void batch_calibration_add(Suite *s)
{
    TCase *tc = tcase_create("batch calibration");
    tcase_add_checked_fixture(tc, batch_setup, batch_teardown);
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, batch_drift_regrades_with_live_reference_runs);
    tcase_add_test(tc, drift_is_acted_on_when_a_second_check_finds_it_too);
    tcase_add_test(tc, drift_spares_students_whose_points_it_cannot_change);
    tcase_add_test(tc, drift_touches_partial_credit_bounds_and_the_unknown);
    tcase_add_test(tc, batch_calibrates_beside_the_first_builds);
    tcase_add_test(tc, batch_calibrates_first_when_a_place_is_held);
    tcase_add_test(tc, batch_killed_while_calibrating_leaves_nothing_running);
    tcase_add_test(tc, calibration_builds_never_yield_gradings_builds_do);
    suite_add_tcase(s, tc);
}
