/* Grade one lab from built binaries: the reference's timings (reference_runs.c), a student run per
 * task or per group of tasks (grade_shared.c), verification of every case, scores, and what the
 * sandbox saw when a run did not finish. */
#include "grade.h"
#include "lab_run.h"
#include "time_runs.h"
#include "records.h"
#include "run.h"
#include "sandbox.h"
#include "findings.h"
#include "judge.h"
#include "technique_phase.h"
#include "util.h"
#include "verify.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A run that wrote no `done` and left cases without a record: those cases fail with what the
 * sandbox saw, and the task is a timeout, or a crash unless the harness reported a CUDA error
 * first (then it is an error, as cml_score_task finds). Returns 1 when it set crash or timeout
 * (with no credit: scored 0, and kept, by cml_score_task), 0 when the verdicts stand. */
static int apply_unfinished(const cml_task_spec *t, const lab_run *lr, double timeout_s,
                            cml_task_result *r)
{
    char how[300], tail[320], during[200];
    cml_run_unfinished_how(lr, timeout_s, how, sizeof how);
    int first = -1, harness_error = 0;
    for (int c = 0; c < t->ncases; c++) {
        harness_error |= lr->rec.cases[c].status == CML_CASE_ERROR;
        if (lr->rec.cases[c].status == CML_CASE_MISSING) {
            snprintf(r->cases[c].reason, sizeof r->cases[c].reason,
                     "no result: the lab binary %.300s before this case", how);
            if (first < 0)
                first = c;
        }
    }
    if (first < 0 || (harness_error && !lr->proc.timed_out))
        return 0;
    snprintf(during, sizeof during, " during case %d of %d (%.120s)", first + 1, t->ncases,
             t->cases[first].text);
    cml_proc_tail(&lr->proc, 300, tail, sizeof tail);
    char why[sizeof r->found.why];
    snprintf(why, sizeof why, "the lab binary %s%s%s%s", how, lr->proc.started ? during : "",
             tail[0] ? "; its output ended: " : "", tail);
    cml_found_stopped(r, lr->proc.timed_out ? CML_STOP_TIMED_OUT : CML_STOP_CRASHED, why);
    return 1;
}

/* After scoring a run that wrote no `done` but kept its verdicts: say how it ended. */
static void note_ending(const lab_run *lr, double timeout_s, cml_task_result *r)
{
    char how[300];
    cml_run_unfinished_how(lr, timeout_s, how, sizeof how);
    snprintf(r->found.note, sizeof r->found.note, "then the lab binary %s", how);
}

/* Run the student's binary on task ti's cases in a fresh out-dir, verify and score. */
static int grade_task(const cml_lab_spec *spec, int ti, const char *bin, const char *ref_bin,
                      const cml_run_record *ref, const cml_run_opts *o, cml_task_result *r)
{
    const cml_task_spec *t = &spec->tasks[ti];
    char dir[CML_PATH];
    memset(r, 0, sizeof *r);
    r->spec = t;
    case_list cl = { .n = t->ncases };
    for (int c = 0; c < t->ncases; c++) {
        cl.task[c] = ti;
        cl.tcase[c] = c;
    }
    char name[96], err[1024];
    snprintf(name, sizeof name, "%s-%s-out", spec->lab, t->id);
    if (cml_sandbox_scratch(o->work_dir, name, bin, dir, sizeof dir, err, sizeof err) < 0) {
        cml_found_stopped(r, CML_STOP_NOT_RUN, err); /* nothing ran: no credit, 0 points */
        return -1;
    }
    if (o->progress)
        fprintf(o->progress, "[%s] task %s: %d case(s)\n", spec->lab, t->id, t->ncases);
    lab_run *lr = malloc(sizeof *lr);
    if (!lr) {
        cml_found_stopped(r, CML_STOP_NOT_RUN, "grader error: out of memory: not run");
        return -1;
    }
    cml_rep_check *reps[CML_MAX_RUN_CASES]; /* timed repetitions, verified beside the run */
    for (int c = 0; c < t->ncases; c++)
        reps[c] = cml_reps_begin(t, &t->cases[c], o->seed, c);
    const double t_run = cml_now();
    cml_lab_run(bin, o->student_sha, spec, &cl, dir, o, lr);
    const double t_verify = cml_now();
    cml_task_cases_verified(t, dir, 0, o->seed, lr->rec.cases, reps, r);
    int cut_short = !lr->rec.done && apply_unfinished(t, lr, spec->timeout_s, r);
    cml_time_task(spec, ti, bin, lr->rec.done ? ref_bin : NULL, &lr->rec, ref, o, r);
    if (!lr->rec.done && !cut_short && !lr->rec.tampered)
        note_ending(lr, spec->timeout_s, r);
    if (o->progress)
        fprintf(o->progress, "[%s] task %s: %.1f s (run %.1f s)\n", spec->lab, t->id,
                cml_now() - t_run, t_verify - t_run);
    r->output_len = lr->proc.output_len;
    r->output_dropped = lr->proc.output_dropped;
    cml_proc_result_free(&lr->proc);
    free(lr);
    if (!o->keep)
        cml_rmtree(dir);
    return 0;
}

/* Whether task t calls API function api (its `api` list; none listed: every one). */
static int task_calls(const cml_task_spec *t, const char *api, size_t len)
{
    for (int i = 0; i < t->napi; i++)
        if (strlen(t->api[i]) == len && strncmp(t->api[i], api, len) == 0)
            return 1;
    return t->napi == 0;
}

/* Contract in grade.h. */
int cml_refuse_tasks(const cml_lab_spec *spec, const char *refused, cml_lab_result *out,
                     int *skip)
{
    int n = 0;
    for (int t = 0; t < spec->ntasks; t++) {
        const char *line = NULL;
        size_t len = 0;
        for (const char *l = refused ? refused : ""; *l && !line; l += strcspn(l, "\n"),
             l += *l == '\n') {
            size_t api = strcspn(l, " \n");
            if (l[api] == ' ' && task_calls(&spec->tasks[t], l, api))
                line = l, len = strcspn(l, "\n");
        }
        skip[t] = line != NULL;
        if (!line)
            continue;
        cml_task_result *r = &out->tasks[t];
        memset(r, 0, sizeof *r);
        r->spec = &spec->tasks[t];
        size_t api = strcspn(line, " ");
        char why[sizeof r->found.why];
        snprintf(why, sizeof why, "%.*s (in code that %.*s reaches, which this task calls: "
                 "not run; the lab's other tasks are graded)", (int)(len - api - 1),
                 line + api + 1, (int)api, line);
        cml_found_stopped(r, CML_STOP_NOT_BUILT, why);
        for (int c = 0; c < r->spec->ncases; c++)
            snprintf(r->cases[c].reason, sizeof r->cases[c].reason, "build-error");
        n++;
    }
    return n;
}

/* Contract in grade.h. */
int cml_grade_lab_with_binaries(const cml_lab_spec *spec, const char *student_bin,
                                const char *ref_bin, const cml_run_opts *o, cml_lab_result *out)
{
    double t0 = cml_now();
    memset(out, 0, sizeof *out);
    out->spec = spec;
    out->built = 1;
    out->ref_built = ref_bin != NULL;
    out->practice = o->practice;
    out->ntasks = spec->ntasks;
    cml_run_record *ref = calloc((size_t)spec->ntasks + 1, sizeof *ref);
    if (!ref || cml_mkdirs(o->work_dir) < 0) {
        char why[1024];
        snprintf(why, sizeof why, "grader error: cannot create the run folder %.900s: choose a "
                 "writable --out", o->work_dir);
        cml_lab_not_run(spec, CML_STOP_NOT_RUN, why, out);
        if (!o->technique_later) /* else the pipeline publishes it with the others */
            cml_publish_lab(out);
        free(ref);
        return -1;
    }
    if (ref_bin) /* else no reference timings: no performance points can be computed */
        cml_reference_runs(spec, ref_bin, o, out, ref);
    int rc = 0, skip[CML_MAX_TASKS], shared = cml_shared_runs_on();
    cml_refuse_tasks(spec, o->refused, out, skip);
    for (int t = 0; t < spec->ntasks;) {
        if (skip[t]) { /* a link rule its code broke: a build error, never run */
            t++;
            continue;
        }
        int end = shared ? cml_shared_group_end(spec, t, skip) : t + 1;
        int done = end > t + 1 && cml_grade_tasks_shared(spec, t, end, student_bin, ref_bin,
                                                         ref, o, out->tasks);
        for (; t < end; t++) { /* a task the shared run did not settle runs alone */
            if (done && cml_shared_verdict_stands(&out->tasks[t])) {
                out->ran[t] = 1;
                continue;
            }
            if (done && o->progress)
                fprintf(o->progress, "[%s] task %s: %s in the shared run: graded again alone\n",
                        spec->lab, spec->tasks[t].id, cml_shared_failure(&out->tasks[t]));
            out->ran[t] = grade_task(spec, t, student_bin, ref_bin, &ref[t], o,
                                     &out->tasks[t]) == 0;
            rc |= !out->ran[t];
        }
    }
    if (!o->technique_later) { /* else the pipeline's phase, then its publication */
        cml_tech_lab one = { spec, cml_lab_tech_env(spec, student_bin, o), out };
        cml_technique_labs(&one, 1, o->progress);
        cml_publish_lab(out);
    }
    free(ref);
    out->wall_s = cml_now() - t0;
    return rc ? -1 : 0;
}

/* Contract in grade.h. */
cml_technique_env cml_lab_tech_env(const cml_lab_spec *spec, const char *bin,
                                   const cml_run_opts *o)
{
    return (cml_technique_env){ .ev_dir = o->ev_dir, .ev_digest = o->ev_digest, .bin = bin,
                                .cc = o->cc, .seed = o->seed, .work_dir = o->work_dir,
                                .timeout_s = spec->timeout_s };
}

/* Contract in grade.h. */
void cml_lab_not_run(const cml_lab_spec *spec, enum cml_stop stop, const char *detail,
                     cml_lab_result *out)
{
    out->spec = spec;
    out->ntasks = spec->ntasks;
    for (int t = 0; t < spec->ntasks; t++) {
        cml_task_result *r = &out->tasks[t];
        memset(r, 0, sizeof *r);
        r->spec = &spec->tasks[t];
        cml_found_stopped(r, stop, detail); /* no credit: 0 of the full points */
        for (int c = 0; c < r->spec->ncases; c++)
            snprintf(r->cases[c].reason, sizeof r->cases[c].reason, "%s",
                     cml_status_name(cml_stop_status(stop)));
    }
}

/* Contract in grade.h. */
void cml_lab_result_free(cml_lab_result *r)
{
    free(r->build_log);
    r->build_log = NULL;
}
