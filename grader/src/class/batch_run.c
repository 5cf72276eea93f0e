/* The batch's scheduler (batch_run.h): per_gpu gradings per GPU and one building ahead (each
 * past its builds waits for one of per_gpu places: cml_gpu_enter), reaped as they end,
 * each student's status written at once; progress; the gradebook at the end. */
#include "args.h"
#include "batch_run.h"
#include "batch_child.h"
#include "util.h"

#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Contract in batch_run.h. */
void cml_batch_grade_args(const cml_batch *b, int i, int g, char *store[], char buf[][4096])
{
    int a = 0, k = 0;
    const cml_plan_entry *e = &b->plan.e[i];
#define ARG(...) (cml_fmt(buf[k], 4096, __VA_ARGS__), store[a++] = buf[k++])
    ARG("grade");
    ARG("--submission"), ARG("%s", e->path);
    ARG("--out"), ARG("%s/students/%s", b->out_abs, e->name);
    ARG("--seed"), ARG("%" PRIu64, e->seed);
    ARG("--student"), ARG("%s", e->display[0] ? e->display : e->name);
    ARG("--no-color");
    if (g >= 0)
        ARG("--gpu-lock"), cml_batch_lock_path(b, g, buf[k], 4096), store[a++] = buf[k++];
    if (g >= 0 && b->ahead) /* per_gpu of them past their builds, the others waiting */
        ARG("--gpu-share"), ARG("%d", b->per_gpu);
    if (b->cal_path[0] && (g < 0 || !b->live[g]))
        ARG(b->cal_pid > 0 ? "--calibration-pending" : "--calibration"), ARG("%s", b->cal_path);
    if (b->lab)
        ARG("--lab"), ARG("%s", b->lab);
    if (b->root)
        ARG("--root"), ARG("%s", b->root);
    /* the other students: every folder, and the archives unpacked under the output */
    ARG("--protect"), ARG("%s", b->out_abs);
    const char *from = e->from[0] ? e->from : e->path; /* the download's folder of students */
    if (strncmp(from, b->out_abs, strlen(b->out_abs)) != 0 && strrchr(from, '/'))
        ARG("--protect"), ARG("%.*s", (int)(strrchr(from, '/') - from), from);
#undef ARG
    store[a] = NULL;
}

/* Whether a student with status st is graded (again) by this run: one without a status, or
 * whose status is no grade that a rerun could change: stopped by the batch's own --timeout,
 * or only built (--builds-only) when this run grades. */
static int to_grade(const cml_batch *b, const char *name)
{
    cml_student_status st;
    return cml_status_read(b->out_abs, name, &st) < 0 || strcmp(st.state, "timeout") == 0 ||
           (!b->builds_only && strcmp(st.state, "builds-only") == 0);
}

/* A grading of a --builds-only batch: its builds were checked, nothing graded (unless the
 * batch stopped it or it died: that stays). */
static void builds_only(const cml_batch *b, cml_student_status *st)
{
    if (!b->builds_only || strcmp(st->state, "timeout") == 0 || strcmp(st->state, "killed") == 0)
        return;
    snprintf(st->state, sizeof st->state, "builds-only");
    snprintf(st->why, sizeof st->why, "only the builds were checked (batch --builds-only): "
             "run the same batch without it on a GPU machine to grade");
    st->score = 0;
}

/* Start entry i on GPU g in slot s. */
static void start(cml_batch *b, int g, cml_slot *s, int i)
{
    char *args[CML_GRADE_ARGS + 1], buf[CML_GRADE_ARGS][4096], dir[CML_PATH], log[CML_PATH];
    cml_fmt(dir, sizeof dir, "%s/students/%s", b->out_abs, b->plan.e[i].name);
    cml_mkdirs(dir);
    cml_fmt(log, sizeof log, "%s/grade.log", dir);
    cml_batch_grade_args(b, i, g, args, buf);
    *s = (cml_slot){ .entry = i, .t0 = cml_now(), .used_cal = b->cal_path[0] && !b->live[g] };
    s->pid = cml_child_start(args, b->gpu[g], log);
    if (s->pid < 0) { /* no process: this student waits for the next pass */
        s->pid = 0;
        b->queue[b->nqueue++] = i;
    }
}

/* A grading in slot s of GPU g ended with wstatus: its status, or back on the queue when
 * its GPU drifted while it ran with the calibration and that could change its points. */
static void finish(cml_batch *b, int g, cml_slot *s, int wstatus)
{
    cml_student_status st = { 0 };
    char log[CML_PATH], line[300];
    const cml_plan_entry *e = &b->plan.e[s->entry];
    if (s->used_cal && b->live[g] && cml_drift_regrades(b, g, e->name)) {
        b->queue[b->nqueue++] = s->entry;
        snprintf(line, sizeof line, "%s: graded while GPU %s drifted: graded again", e->name,
                 b->gpu[g]);
        cml_progress_note(&b->progress, line);
        s->pid = 0;
        return;
    }
    cml_fmt(log, sizeof log, "%s/students/%s/grade.log", b->out_abs, e->name);
    cml_child_status(wstatus, s->timed_out, log, b->timeout_s, &st);
    builds_only(b, &st);
    st.seconds = cml_now() - s->t0;
    st.gpu = atoi(b->gpu[g]);
    if (s->used_cal)
        snprintf(st.calibration, sizeof st.calibration, "%s", b->cal_path[0] ? "yes" : "-");
    if (cml_status_write(b->out_abs, e->name, &st) < 0)
        cml_progress_note(&b->progress, "warning: cannot write a status file: is the output "
                          "folder writable?");
    if (strcmp(st.state, "graded") == 0 && s->used_cal) {
        b->graded_on[s->entry] = g;
        b->since[g]++;
    }
    cml_progress_finished(&b->progress, cml_now(), e->name, &st);
    s->pid = 0;
}

/* Contract in batch_run.h. */
int cml_batch_may_start(const cml_batch *b, int g, double now, double stagger)
{
    for (int k = 0; k < cml_batch_procs(b); k++) {
        const cml_slot *s = &b->slot[g][k];
        if (s->pid && s->entry >= 0 && now - s->t0 < stagger)
            return 0;
    }
    return 1;
}

/* CML_BATCH_STAGGER's seconds (0 to 600), else the default. */
static double stagger_setting(void)
{
    const char *e = getenv("CML_BATCH_STAGGER");
    char *end;
    double v = e && *e ? strtod(e, &end) : -1;
    return e && *e && !*end && v >= 0 && v <= 600 ? v : CML_BATCH_STAGGER_S;
}

/* Fill every free slot: a due drift check first, else the next student (staggered). */
static int fill(cml_batch *b)
{
    int running = 0;
    for (int g = 0; g < b->ngpus; g++)
        for (int k = 0; k < cml_batch_procs(b); k++) {
            cml_slot *s = &b->slot[g][k];
            if (!s->pid && cml_drift_due(b, g)) {
                *s = (cml_slot){ .entry = -1, .t0 = cml_now() };
                s->pid = cml_drift_start(b, g);
                s->pid = s->pid > 0 ? s->pid : 0;
            }
            if (!s->pid && b->nqueue > 0 && cml_batch_may_start(b, g, cml_now(), b->stagger_s)) {
                int i = b->queue[0];
                memmove(b->queue, b->queue + 1, (size_t)--b->nqueue * sizeof *b->queue);
                start(b, g, s, i);
            }
            running += s->pid != 0;
        }
    return running;
}

/* A grading past the timeout: SIGTERM first (it kills its own builds and labs, each in a
 * group of its own, and dies), SIGKILL to its group when it is still there 5 s later. */
static void stop(cml_slot *s, double timeout_s)
{
    if (!s->timed_out) {
        s->timed_out = 1;
        kill(-s->pid, SIGTERM);
    } else if (cml_now() - s->t0 > timeout_s + 5) {
        kill(-s->pid, SIGKILL);
    }
}

/* Reap what ended (waiting up to ~0.5 s), kill what ran past the timeout. */
static void reap(cml_batch *b)
{
    int ws;
    pid_t pid = 0;
    for (int i = 0; i < 50 && (pid = waitpid(-1, &ws, WNOHANG)) == 0; i++)
        nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
    if (pid > 0 && pid == b->cal_pid)
        cml_batch_calibrated(b, ws);
    for (int g = 0; g < b->ngpus; g++)
        for (int k = 0; k < cml_batch_procs(b); k++) {
            cml_slot *s = &b->slot[g][k];
            if (pid > 0 && s->pid == pid)
                s->entry >= 0 ? finish(b, g, s, ws) : (cml_drift_done(b, g, ws), s->pid = 0);
            else if (s->pid && s->entry >= 0 && cml_now() - s->t0 > b->timeout_s)
                stop(s, b->timeout_s);
        }
}

/* Contract in batch_run.h. */
int cml_batch_all(cml_batch *b)
{
    char err[1024];
    b->queue = calloc((size_t)b->plan.n + 1, sizeof *b->queue);
    b->graded_on = calloc((size_t)b->plan.n + 1, sizeof *b->graded_on);
    for (int i = 0; b->queue && b->graded_on && i < b->plan.n; i++) {
        cml_student_status st = { 0 };
        b->graded_on[i] = -1;
        if (!to_grade(b, b->plan.e[i].name))
            continue;
        if (b->plan.e[i].unusable[0]) { /* nothing to grade: say why, once */
            snprintf(st.state, sizeof st.state, "unusable");
            snprintf(st.why, sizeof st.why, "%s", b->plan.e[i].unusable);
            cml_status_write(b->out_abs, b->plan.e[i].name, &st);
            continue;
        }
        b->queue[b->nqueue++] = i;
    }
    cml_progress_init(&b->progress, stderr, b->plan.n, b->plan.n - b->nqueue, cml_now());
    char limit[32];
    cml_duration_text(b->timeout_s, limit, sizeof limit);
    snprintf(err, sizeof err, "batch: %d submission(s), %d to grade, on %d GPU(s) x %d%s, at "
             "most %s each", b->plan.n, b->nqueue, b->ngpus, b->per_gpu,
             b->ahead ? " (and one building ahead)" : "", limit);
    cml_progress_note(&b->progress, err);
    b->stagger_s = stagger_setting();
    if (b->nqueue > 0)
        cml_batch_calibrate(b);
    double tick = 0;
    while (b->queue && b->graded_on) {
        int running = fill(b) + (b->cal_pid > 0);
        if (running == 0 && b->nqueue == 0)
            break;
        reap(b);
        if (cml_now() - tick >= 1.0) {
            cml_progress_tick(&b->progress, cml_now(), running);
            tick = cml_now();
        }
    }
    int missing = cml_collect(b->out_abs, &b->plan, err, sizeof err);
    if (missing < 0)
        fprintf(stderr, "cml-grade batch: %s\n", err);
    else
        fprintf(stderr, "batch: %d graded in this run (%d not graded) in %.1f s; gradebook: "
                "%s/gradebook.csv\n", b->progress.done - b->progress.failed, b->progress.failed,
                cml_now() - b->progress.t0, b->out_abs);
    free(b->queue);
    free(b->graded_on);
    return missing == 0 && b->progress.failed == 0 ? 0 : 1;
}

/* Contract in batch_run.h. */
int cml_batch_one(cml_batch *b)
{
    char *args[CML_GRADE_ARGS + 1], buf[CML_GRADE_ARGS][4096], dir[CML_PATH], log[CML_PATH];
    cml_student_status st = { 0 };
    if (b->index >= b->plan.n) {
        fprintf(stderr, "cml-grade batch: --index %d: the plan has %d entries\n", b->index,
                b->plan.n);
        return 2;
    }
    const cml_plan_entry *e = &b->plan.e[b->index];
    if (!to_grade(b, e->name) && cml_status_read(b->out_abs, e->name, &st) == 0) {
        fprintf(stderr, "%s: already %s\n", e->name, st.state);
        return strcmp(st.state, "graded") == 0 ? 0 : 1;
    }
    if (e->unusable[0]) {
        snprintf(st.state, sizeof st.state, "unusable");
        snprintf(st.why, sizeof st.why, "%s", e->unusable);
    } else {
        if (b->calibration)
            snprintf(b->cal_path, sizeof b->cal_path, "%s", b->calibration);
        cml_fmt(dir, sizeof dir, "%s/students/%s", b->out_abs, e->name);
        cml_fmt(log, sizeof log, "%s/grade.log", dir);
        cml_batch_grade_args(b, b->index, -1, args, buf);
        double t0 = cml_now();
        int ws = cml_mkdirs(dir) == 0 ? cml_child_run(args, "", log) : -1;
        cml_child_status(ws >= 0 ? ws : 2 << 8, 0, log, b->timeout_s, &st);
        builds_only(b, &st);
        st.seconds = cml_now() - t0;
    }
    const char *gpu = getenv("CUDA_VISIBLE_DEVICES"); /* the one Slurm gave this task */
    st.gpu = gpu ? atoi(gpu) : 0;
    if (cml_status_write(b->out_abs, e->name, &st) < 0)
        fprintf(stderr, "cml-grade batch: cannot write %s's status\n", e->name);
    fprintf(stderr, "%s: %s %g/%g on GPU %s %s\n", e->name, st.state, st.score, st.max,
            gpu && gpu[0] ? gpu : "(none)", st.why);
    return strcmp(st.state, "graded") == 0 ? 0 : 1;
}
