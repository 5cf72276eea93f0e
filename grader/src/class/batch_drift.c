/* The batch's calibration (batch_run.h): one `cml-grade calibrate` on the first GPU when the
 * batch has none, then on every GPU, every check_every students graded with it, a short
 * `calibrate --check` under that GPU's lock. Two checks in a row that find the GPU timing the
 * reference differently (clocks, heat, another job) switch that GPU to live reference runs and
 * put what it graded since its last good check back on the queue: re-timed, not failed. */
#include "batch_run.h"
#include "batch_child.h"
#include "gpu_lock.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The calibration's log, named in one place. */
static void cal_log(const cml_batch *b, char *log, size_t len)
{
    cml_fmt(log, len, "%s/calibration.log", b->out_abs);
}

/* The calibration's end: b->cal_path kept or cleared, one progress line. */
static void cal_ended(cml_batch *b, const char *path, int ws, double t0)
{
    char line[CML_PATH + 200], log[CML_PATH];
    cal_log(b, log, sizeof log);
    int ok = ws >= 0 && WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
    snprintf(b->cal_path, sizeof b->cal_path, "%s", ok ? path : "");
    snprintf(line, sizeof line, ok ? "calibration: %s written in %.1f s on GPU %s"
             : "calibration failed (%s, %.1f s on GPU %s): every grading measures the "
             "reference itself", ok ? path : log, cml_now() - t0, b->gpu[0]);
    cml_progress_note(&b->progress, line);
}

/* Every GPU's places taken by the batch (gpu_lock.h), or none: 0 when all were (a place held
 * already, by a grading of another batch writing here, means calibrating first, as before). */
static int take_places(cml_batch *b)
{
    char lock[CML_PATH];
    int all = 1;
    for (int g = 0; g < b->ngpus; g++) {
        cml_batch_lock_path(b, g, lock, sizeof lock);
        all &= cml_gpu_places_take(lock, b->per_gpu, b->cal_places[g]) == b->per_gpu;
    }
    for (int g = 0; !all && g < b->ngpus; g++)
        cml_gpu_places_give(b->per_gpu, b->cal_places[g]);
    return all ? 0 : -1;
}

/* The calibration beside the first builds, its own builds at the batch's nice (batch.c sets
 * CML_BUILD_NICE=10 for its gradings' builds) taken off: every grading waits for it, and
 * nothing timed runs beside it, since the batch holds every place of the GPU until it ends. On
 * an H100's host a cold calibration's 7 builds took 21.7 s at nice 10 beside three gradings'
 * builds, where one grading's 14 alone take 7.7-9.5 s (docs/bench/2026-11-28-cold-class).
 * Calibrating first, or a drift check (whose builds are rare: the references are cached),
 * keeps the nice: another grading may be timing then. */
static pid_t start_first(char *const args[], const char *gpu, const char *log)
{
    char nice[16] = "";
    const char *was = getenv("CML_BUILD_NICE");
    snprintf(nice, sizeof nice, "%s", was ? was : "");
    unsetenv("CML_BUILD_NICE"); /* the batch has one thread: no other child starts meanwhile */
    pid_t pid = cml_child_start(args, gpu, log);
    if (nice[0])
        setenv("CML_BUILD_NICE", nice, 1);
    return pid;
}

/* Contract in batch_run.h. */
void cml_batch_calibrate(cml_batch *b)
{
    char log[CML_PATH], path[CML_PATH], lock[CML_PATH];
    if (b->no_calibration)
        return;
    if (b->calibration) {
        snprintf(b->cal_path, sizeof b->cal_path, "%s", b->calibration);
        return;
    }
    if (cml_fmt(path, sizeof path, "%s/calibration.cal", b->out_abs) < 0)
        return;
    if (access(path, R_OK) == 0) { /* a resumed batch keeps its calibration */
        snprintf(b->cal_path, sizeof b->cal_path, "%s", path);
        return;
    }
    if (!b->gpu[0][0])
        return; /* no GPU: nothing to calibrate, gradings build and check only */
    cal_log(b, log, sizeof log);
    cml_batch_lock_path(b, 0, lock, sizeof lock); /* a grading's probe never meets its runs */
    char *args[] = { "calibrate", "--out", path, "--gpu-lock", lock,
                     b->root ? "--root" : NULL, (char *)b->root, NULL };
    double t0 = cml_now();
    /* beside the first gradings' builds, which wait for a place until it ends: 6 to 10 s of
     * a class's start during which the GPU idled (docs/bench/2026-11-28-lab-pipeline) */
    if (b->ahead && take_places(b) == 0) {
        b->cal_pid = start_first(args, b->gpu[0], log);
        if (b->cal_pid > 0) {
            b->cal_t0 = t0;
            snprintf(b->cal_path, sizeof b->cal_path, "%s", path);
            cml_progress_note(&b->progress, "calibration: being made on the first GPU while "
                              "the first gradings build");
            return;
        }
        b->cal_pid = 0;
        for (int g = 0; g < b->ngpus; g++)
            cml_gpu_places_give(b->per_gpu, b->cal_places[g]);
    }
    cal_ended(b, path, cml_child_run(args, b->gpu[0], log), t0);
}

/* Contract in batch_run.h. */
void cml_batch_calibrated(cml_batch *b, int wstatus)
{
    char path[CML_PATH];
    snprintf(path, sizeof path, "%s", b->cal_path);
    b->cal_pid = 0; /* before the note: gradings started from now on get --calibration */
    cal_ended(b, path, wstatus, b->cal_t0);
    for (int g = 0; g < b->ngpus; g++) {
        for (int k = 0; !b->cal_path[0] && k < cml_batch_procs(b); k++)
            b->slot[g][k].used_cal = 0; /* they measure the reference live (grade.c) */
        cml_gpu_places_give(b->per_gpu, b->cal_places[g]);
    }
}

/* Whether a grading (not a check) runs on GPU g; and whether a check does. */
static int busy(const cml_batch *b, int g, int checks)
{
    for (int k = 0; k < cml_batch_procs(b); k++)
        if (b->slot[g][k].pid && (b->slot[g][k].entry < 0) == checks)
            return 1;
    return 0;
}

/* Contract in batch_run.h. */
int cml_drift_due(const cml_batch *b, int g)
{
    if (!b->cal_path[0] || b->live[g] || b->check_every == 0 || b->since[g] == 0 ||
        busy(b, g, 1))
        return 0;
    /* every check_every students, and once more for the last ones */
    return b->since[g] >= b->check_every || (b->nqueue == 0 && !busy(b, g, 0));
}

/* <out>/drift-gpu<g>.log, or <out>/drift-gpu<g>-again.log for the check that confirms. */
static void drift_log(const cml_batch *b, int g, int again, char *path, size_t len)
{
    cml_fmt(path, len, "%s/drift-gpu%s%s.log", b->out_abs, b->gpu[g], again ? "-again" : "");
}

/* Contract in batch_run.h. */
pid_t cml_drift_start(cml_batch *b, int g)
{
    char lock[CML_PATH], log[CML_PATH];
    cml_batch_lock_path(b, g, lock, sizeof lock);
    drift_log(b, g, b->doubt[g], log, sizeof log);
    char *args[] = { "calibrate", "--check", b->cal_path, "--gpu-lock", lock,
                     b->root ? "--root" : NULL, (char *)b->root, NULL };
    return cml_child_start(args, b->gpu[g], log);
}

/* Contract in batch_run.h. */
int cml_drift_regrades(const cml_batch *b, int g, const char *name)
{
    char dir[CML_PATH], logs[2][CML_PATH];
    const char *const logp[2] = { logs[0], logs[1] };
    cml_fmt(dir, sizeof dir, "%s/students/%s", b->out_abs, name);
    for (int again = 0; again < 2; again++)
        drift_log(b, g, again, logs[again], sizeof logs[again]);
    return cml_drift_touches(dir, logp, 2);
}

/* Contract in batch_run.h. A check that finds drift is made once more before anyone is graded
 * again: acting on it costs the students since the last good check a grading each and makes
 * every later grading of the GPU time the reference live (about 10 s more of the GPU each),
 * while one check can be off by its own noise (in the class batches of docs/bench, on H100s,
 * 31 checks passed and one found drift, docs/bench/2026-11-28-session2). Only a second finding
 * acts; a second check within the tolerance, or one that cannot compare, clears the first. The
 * check is due again at once: `since` stays as it was. */
void cml_drift_done(cml_batch *b, int g, int wstatus)
{
    char line[400];
    int drift = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 3;
    int requeued = 0, doubted = b->doubt[g];
    b->doubt[g] = drift && !doubted;
    if (b->doubt[g]) {
        snprintf(line, sizeof line, "drift check on GPU %s found drift (drift-gpu%s.log): "
                 "checking once more before grading anyone again", b->gpu[g], b->gpu[g]);
        cml_progress_note(&b->progress, line);
        return;
    }
    int kept = 0;
    for (int i = 0; i < b->plan.n; i++) {
        if (b->graded_on[i] != g)
            continue;
        b->graded_on[i] = -1;
        if (!drift)
            continue;
        if (!cml_drift_regrades(b, g, b->plan.e[i].name)) { /* its points stand either way */
            kept++;
            continue;
        }
        char path[CML_PATH], old[CML_PATH];
        cml_fmt(path, sizeof path, "%s/students/%s/status", b->out_abs, b->plan.e[i].name);
        cml_fmt(old, sizeof old, "%s.drifted", path);
        rename(path, old); /* kept for the record; the student is graded again */
        b->queue[b->nqueue++] = i;
        requeued++;
    }
    b->since[g] = 0;
    if (drift) {
        b->live[g] = 1;
        snprintf(line, sizeof line, "drift on GPU %s (drift-gpu%s.log, drift-gpu%s-again.log): "
                 "it measures the reference live from now on; %d student(s) graded since its "
                 "last check are graded again, %d kept (no speed point of theirs can change by "
                 "it)", b->gpu[g], b->gpu[g], b->gpu[g], requeued, kept);
    } else {
        snprintf(line, sizeof line, "drift check on GPU %s%s: %s", b->gpu[g],
                 doubted ? " again" : "", WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0
                 ? (doubted ? "ok, so the first finding was the check's own noise" : "ok")
                 : "could not compare (see its log): the calibration stays");
    }
    cml_progress_note(&b->progress, line);
}
