/* Tasks of a lab that share one run of the student's binary (on by default since measured on
 * an H100; CML_SHARED_RUNS=0: a run per task). A lab process's start costs 0.17-0.36 s of the
 * GPU on an H100 (scripts/exp/fixed-costs.sh) and a grading starts one per task; consecutive
 * tasks whose cases fit one run (CML_MAX_RUN_CASES) can share one, as the reference's timed cases
 * always do.
 * A shared run counts only when it ended cleanly: `done`, no tampering, exit 0, every case
 * answered. Anything else (a crash, a hang, a sticky CUDA error in one task) throws it away and
 * its tasks run alone as before, so one task's failure still costs that task only; and a task
 * that failed in a clean shared run is graded again alone (cml_shared_verdict_stands). */
#include "grade.h"
#include "lab_run.h"
#include "time_runs.h"
#include "run.h"
#include "sandbox.h"
#include "findings.h"
#include "judge.h"
#include "util.h"
#include "verify.h"

#include <stdlib.h>
#include <string.h>

/* Contract in grade.h. */
int cml_shared_runs_on(void)
{
    const char *on = getenv("CML_SHARED_RUNS");
    return !(on && strcmp(on, "0") == 0);
}

/* Contract in grade.h. A failure in a shared run is the old path's only when the task's code
 * alone caused it; what another task's code left in the process (a static buffer, a device
 * setting, a leak) could cause it too, so the task runs alone and that verdict stands. A slow
 * task was measured again alone already, and a TODO is the harness's own word. */
int cml_shared_verdict_stands(const cml_task_result *r)
{
    return cml_found_cases_passed(r) || cml_found_todo(r);
}

/* Contract in grade.h. */
const char *cml_shared_failure(const cml_task_result *r)
{
    return r->found.tampered[0] ? "tampered"
           : cml_status_name(r->found.stopped ? cml_stop_status(r->found.stopped)
                                              : cml_fault_status(r->found.faults));
}

/* Contract in grade.h. */
int cml_shared_group_end(const cml_lab_spec *spec, int t0, const int *skip)
{
    int end = t0, n = 0;
    while (end < spec->ntasks && !skip[end] && n + spec->tasks[end].ncases <= CML_MAX_RUN_CASES)
        n += spec->tasks[end++].ncases;
    return end > t0 ? end : t0 + 1;
}

static int clean(const lab_run *lr, const case_list *cl)
{
    const cml_proc_result *p = &lr->proc;
    int ok = lr->rec.done && !lr->rec.tampered && p->started && !p->timed_out && !p->signaled &&
             p->exit_code == 0;
    for (int k = 0; ok && k < cl->n; k++)
        ok = lr->rec.cases[k].status != CML_CASE_MISSING;
    return ok;
}

/* Task ti's share of the run: its cases verified (output file and sampled repetitions, by their
 * index in the run), scored, a slow task measured again alone. */
static void task_share(const cml_lab_spec *spec, int ti, int k0, const char *dir, const lab_run *lr,
                  const cml_run_record *mine, cml_rep_check **reps, const char *bin,
                  const char *ref_bin, const cml_run_record *ref, const cml_run_opts *o,
                  cml_task_result *r)
{
    const cml_task_spec *t = &spec->tasks[ti];
    memset(r, 0, sizeof *r);
    r->spec = t;
    cml_task_cases_verified(t, dir, k0, o->seed, mine->cases, reps + k0, r);
    cml_time_task(spec, ti, bin, ref_bin, mine, ref, o, r);
    r->output_len = lr->proc.output_len; /* the run's, which its tasks shared */
    r->output_dropped = lr->proc.output_dropped;
}

/* Contract in grade.h. */
int cml_grade_tasks_shared(const cml_lab_spec *spec, int t0, int t1, const char *bin,
                           const char *ref_bin, const cml_run_record *ref,
                           const cml_run_opts *o, cml_task_result *out)
{
    char dir[CML_PATH], name[96], err[1024];
    case_list cl = { .n = 0 };
    int k0[CML_MAX_TASKS];
    for (int ti = t0; ti < t1; ti++) {
        k0[ti] = cl.n;
        for (int c = 0; c < spec->tasks[ti].ncases && cl.n < CML_MAX_RUN_CASES; c++) {
            cl.task[cl.n] = ti;
            cl.tcase[cl.n++] = c;
        }
    }
    snprintf(name, sizeof name, "%s-%s-to-%s-out", spec->lab, spec->tasks[t0].id,
             spec->tasks[t1 - 1].id);
    lab_run *lr = malloc(sizeof *lr);
    cml_run_record *per = calloc((size_t)spec->ntasks, sizeof *per);
    if (!lr || !per || cml_sandbox_scratch(o->work_dir, name, bin, dir, sizeof dir, err,
                                           sizeof err) < 0) {
        free(lr);
        free(per);
        return 0; /* each task alone, which says why if it fails too */
    }
    if (o->progress)
        fprintf(o->progress, "[%s] tasks %s to %s: %d case(s) in one run\n", spec->lab,
                spec->tasks[t0].id, spec->tasks[t1 - 1].id, cl.n);
    cml_rep_check *reps[CML_MAX_RUN_CASES];
    for (int k = 0; k < cl.n; k++)
        reps[k] = cml_reps_begin(&spec->tasks[cl.task[k]],
                                 &spec->tasks[cl.task[k]].cases[cl.tcase[k]], o->seed, k);
    const double t_run = cml_now();
    cml_lab_run(bin, o->student_sha, spec, &cl, dir, o, lr);
    int ok = clean(lr, &cl);
    if (ok) {
        cml_spread_records(&lr->rec, &cl, per);
        for (int ti = t0; ti < t1; ti++)
            task_share(spec, ti, k0[ti], dir, lr, &per[ti], reps, bin, ref_bin, &ref[ti], o,
                       &out[ti]);
    } else {
        for (int k = 0; k < cl.n; k++)
            cml_reps_end(reps[k], &(cml_case_record){0}, NULL);
    }
    if (o->progress)
        fprintf(o->progress, "[%s] tasks %s to %s: %.1f s%s\n", spec->lab, spec->tasks[t0].id,
                spec->tasks[t1 - 1].id, cml_now() - t_run,
                ok ? "" : "; the run did not end cleanly: each task runs alone");
    cml_proc_result_free(&lr->proc);
    free(lr);
    free(per);
    if (!o->keep)
        cml_rmtree(dir);
    return ok;
}
