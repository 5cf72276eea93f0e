/* The technique phase of a whole grading (grade_technique.h): every lab's shared ncu run at once,
 * started ahead where the pipeline asks, then each task's verdict; and the trace runs made ahead
 * beside the sanitizers. */
#include "grade_technique.h"
#include "gpu_lock.h"
#include "sandbox.h"
#include "score.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One lab's shared ncu run, from a thread of cml_technique_start. */
static void *profile_lab(void *arg)
{
    cml_lab_profile *p = arg;
    p->shared = cml_tech_ncu_lab(p->lab->spec, p->solved, &p->lab->env);
    return NULL;
}

/* Contract in grade_technique.h. The labs' ncu runs start together: on an H100 (2026-11-27,
 * docs/bench/2026-11-27-ncu-overlap), labs 03, 04 and 06 took 3.6-3.8 s at once against 5.9-7.0
 * s one after another, most of each run being ncu's and CUDA's start. Every counter that is a
 * count (instructions executed, L2 sectors by aperture, shared memory per block) came out the
 * same at once as alone, for the solutions and for the attacks whose counts are not 0: ncu
 * keeps the profiled kernels of its processes apart, and the GPU lock keeps every other run off
 * the GPU meanwhile. Bank conflicts vary from run to run either way. ncu's library in the lab
 * takes its profiling lock in the lab's TMPDIR: with each lab's own (its run folder), two of
 * three runs failed at once ("a driver resource was unavailable", H100), so the runs of one
 * phase share a TMPDIR (tool_tmp) that cml-confine lets their labs write. A check the shared
 * run does not serve profiles its task alone afterwards, with a TMPDIR of its own, so what one
 * lab leaves in the shared folder can cost another only time. */
void cml_technique_start(cml_tech_lab *labs, int n, const cml_run_turn *turn,
                         cml_technique_phase *ph)
{
    memset(ph, 0, sizeof *ph);
    ph->n = n < CML_MAX_LABS ? n : CML_MAX_LABS;
    snprintf(ph->tmp, sizeof ph->tmp, "/tmp/cml-ncu-XXXXXX"); /* the tool domain may write it */
    const cml_sandbox_caps *caps = cml_sandbox_caps_get();
    ph->have_tmp = mkdtemp(ph->tmp) != NULL;
    if (ph->have_tmp && caps->drop_user && chown(ph->tmp, caps->uid, caps->gid) < 0) {
        rmdir(ph->tmp); /* the tools could not write it: each run keeps its own TMPDIR */
        ph->have_tmp = 0;
    }
    for (int l = 0; l < ph->n; l++) {
        labs[l].env.tool_tmp = ph->have_tmp ? ph->tmp : NULL;
        labs[l].env.ncu = calloc(1, sizeof *labs[l].env.ncu); /* NULL: each check alone */
        labs[l].env.turn = turn;
        ph->p[l].lab = &labs[l];
        for (int t = 0; t < labs[l].spec->ntasks; t++)
            ph->p[l].solved[t] = labs[l].out->ran[t] &&
                                 (cml_status_earns(labs[l].out->tasks[t].status) &
                                  CML_PART_TECHNIQUE);
    }
    cml_gpu_hold(); /* a batch's other grading stays off the GPU while ncu profiles */
    for (int l = 0; l < ph->n; l++)
        ph->started[l] = pthread_create(&ph->th[l], NULL, profile_lab, &ph->p[l]) == 0;
}

/* Contract in grade_technique.h. */
void cml_technique_finish(cml_technique_phase *ph, cml_tech_lab *labs, FILE *progress)
{
    const double t0 = cml_now();
    int shared = 0, n = ph->n;
    for (int l = 0; l < n; l++) {
        if (ph->started[l])
            pthread_join(ph->th[l], NULL);
        else /* no thread: this lab's run after the others */
            profile_lab(&ph->p[l]);
        labs[l].env.turn = NULL; /* a task's own run goes at once */
        shared += ph->p[l].shared > 0 && labs[l].env.ncu->lab.rc == 0;
    }
    cml_gpu_release();
    for (int l = 0; l < n; l++) {
        cml_lab_result *out = labs[l].out;
        if (progress && ph->p[l].shared && labs[l].env.ncu->lab.rc != 0)
            fprintf(progress, "[%s] the shared ncu run failed, its tasks are profiled alone: "
                    "%s\n", labs[l].spec->lab, labs[l].env.ncu->lab.why);
        labs[l].env.tool_tmp = NULL; /* a task's own run: a TMPDIR of its own, as alone */
        for (int t = 0; t < labs[l].spec->ntasks; t++)
            if (out->ran[t]) /* a task's own ncu run, where the shared one did not serve */
                cml_technique_task(labs[l].spec, &labs[l].spec->tasks[t], &labs[l].env,
                                   &out->tasks[t]);
        cml_lab_total(out);
        if (labs[l].env.ncu)
            cml_ncu_runs_free(labs[l].env.ncu);
        free(labs[l].env.ncu);
        labs[l].env.ncu = NULL;
    }
    if (ph->have_tmp)
        cml_rmtree(ph->tmp);
    if (progress && n == 1)
        fprintf(progress, "[%s] technique checks: %.1f s%s\n", labs[0].spec->lab,
                cml_now() - t0, shared ? " (the solved tasks' ncu cases in one run)" : "");
    else if (progress)
        fprintf(progress, "technique checks of %d labs: %.1f s (%d labs' shared ncu runs at "
                "once)\n", n, cml_now() - t0, shared);
}

/* Contract in grade_technique.h. */
void cml_technique_labs(cml_tech_lab *labs, int n, FILE *progress)
{
    cml_technique_phase ph;
    cml_technique_start(labs, n, NULL, &ph);
    cml_technique_finish(&ph, labs, progress);
}

typedef struct {
    const cml_tech_lab *lab;
    const cml_task_spec *t;
    cml_trace_run *out;
} trace_job;

static void trace_one(void *jobs, int i)
{
    trace_job *j = &((trace_job *)jobs)[i];
    cml_trace_collect(j->lab->spec, j->t, &j->lab->env, j->out);
}

/* Contract in grade_technique.h. */
void cml_trace_ahead(const cml_tech_lab *labs, int n, cml_trace_run *traced)
{
    trace_job jobs[CML_MAX_LABS * CML_MAX_TASKS];
    int m = 0;
    for (int l = 0; l < n && l < CML_MAX_LABS; l++) {
        const cml_lab_result *out = labs[l].out;
        for (int t = 0; labs[l].env.bin && t < labs[l].spec->ntasks; t++) {
            const cml_task_spec *ts = &labs[l].spec->tasks[t];
            int traces = 0;
            for (int i = 0; i < ts->ntech && i < CML_MAX_TECH; i++)
                traces |= ts->tech[i].kind == CML_TECH_TRACE;
            if (traces && out->ran[t] && cml_status_solved(out->tasks[t].status))
                jobs[m++] = (trace_job){ &labs[l], ts, &traced[l * CML_MAX_TASKS + t] };
        }
    }
    cml_parallel(m, 2, trace_one, jobs);
}
