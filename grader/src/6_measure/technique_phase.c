/* The technique phase (technique_phase.h): every check of a task through its kind's row
 * (technique_kinds.c), the text checks of the build's evidence and the ncu and trace runs, and
 * the technique credit they earn, as findings. */
#include "technique_phase.h"
#include "evidence.h"
#include "gpu_lock.h"
#include "sandbox.h"
#include "findings.h"
#include "util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether the evidence still has the digest taken at build time (no digest: nothing to hold it
 * to, as in the tests that write evidence by hand). */
static int evidence_intact(const cml_technique_env *env)
{
    return !env->ev_dir || !env->ev_digest || !env->ev_digest[0] ||
           cml_evidence_unchanged(env->ev_dir, env->ev_digest);
}

/* Contract in technique_phase.h. */
void cml_technique_task(const cml_lab_spec *spec, const cml_task_spec *t,
                        const cml_technique_env *env, cml_task_result *r)
{
    int solved = cml_found_solved(r); /* the judge would say passed or slow */
    int intact = evidence_intact(env);
    cml_technique_env task_env = *env; /* with the task's times, for ncu's timed_ns bounds */
    task_env.case_ms = r->case_ms;
    env = &task_env;
    if (env->ncu)
        cml_ncu_task_forget(env->ncu);
    for (int i = 0; i < t->ntech && i < CML_MAX_TECH; i++) {
        const cml_tech_spec *c = &t->tech[i];
        cml_tech_result *out = &r->tech[i];
        memset(out, 0, sizeof *out);
        const cml_tech_kind_row *kind = cml_tech_kind(c->kind);
        int text = kind->reads == CML_TECH_READS_BUILD;
        if (!kind->check)
            snprintf(out->detail, sizeof out->detail, "not checked (a kind this grader does "
                     "not know)"), out->state = CML_TECH_NOT_CHECKED;
        else if (text && !intact)
            out->state = CML_TECH_FAILED,
                snprintf(out->detail, sizeof out->detail, "the build's evidence (PTX, SASS, "
                         "sources) changed after the build: refused");
        else if (text)
            kind->check(spec, t, c, env, out);
        else if (!env->bin)
            snprintf(out->detail, sizeof out->detail, "not checked (no GPU)"),
                out->state = CML_TECH_NOT_CHECKED;
        else if (!solved)
            snprintf(out->detail, sizeof out->detail, "not run: %s",
                     cml_found_memory_error(r) ? "a sanitizer found an error in the task"
                                                       : "a case of the task failed");
        else
            kind->check(spec, t, c, env, out);
    }
    if (env->ncu)
        cml_ncu_task_forget(env->ncu);
    if (!solved || t->ntech == 0)
        return;
    r->found.checked = 1;
    r->credit.technique = cml_failed_check(r) < 0; /* a failed check makes it `technique` */
}

/* One lab's shared ncu run, from a thread of cml_technique_labs. */
typedef struct {
    cml_tech_lab *lab;
    int solved[CML_MAX_TASKS];
    int shared; /* how many tasks the run took (0: none) */
} lab_profile;

static void *profile_lab(void *arg)
{
    lab_profile *p = arg;
    p->shared = cml_tech_ncu_lab(p->lab->spec, p->solved, &p->lab->env);
    return NULL;
}

/* Contract in technique_phase.h. The labs' ncu runs start together: on an H100 (2026-11-27,
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
void cml_technique_labs(cml_tech_lab *labs, int n, FILE *progress)
{
    lab_profile p[CML_MAX_LABS] = {0};
    pthread_t th[CML_MAX_LABS];
    int started[CML_MAX_LABS] = {0}, shared = 0;
    const double t0 = cml_now();
    n = n < CML_MAX_LABS ? n : CML_MAX_LABS;
    char tmp[] = "/tmp/cml-ncu-XXXXXX"; /* the tool domain may write /tmp; the labs this */
    const cml_sandbox_caps *caps = cml_sandbox_caps_get();
    int have_tmp = mkdtemp(tmp) != NULL;
    if (have_tmp && caps->drop_user && chown(tmp, caps->uid, caps->gid) < 0) {
        rmdir(tmp); /* the tools could not write it: each run keeps its own TMPDIR */
        have_tmp = 0;
    }
    for (int l = 0; l < n; l++) {
        labs[l].env.tool_tmp = have_tmp ? tmp : NULL;
        labs[l].env.ncu = calloc(1, sizeof *labs[l].env.ncu); /* NULL: each check alone */
        p[l].lab = &labs[l];
        for (int t = 0; t < labs[l].spec->ntasks; t++)
            p[l].solved[t] = labs[l].out->ran[t] && cml_found_solved(&labs[l].out->tasks[t]);
    }
    cml_gpu_hold(); /* a batch's other grading stays off the GPU while ncu profiles */
    for (int l = 0; l < n; l++)
        started[l] = pthread_create(&th[l], NULL, profile_lab, &p[l]) == 0;
    for (int l = 0; l < n; l++) {
        if (started[l])
            pthread_join(th[l], NULL);
        else /* no thread: this lab's run after the others */
            profile_lab(&p[l]);
        shared += p[l].shared > 0 && labs[l].env.ncu->lab.rc == 0;
    }
    cml_gpu_release();
    for (int l = 0; l < n; l++) {
        cml_lab_result *out = labs[l].out;
        if (progress && p[l].shared && labs[l].env.ncu->lab.rc != 0)
            fprintf(progress, "[%s] the shared ncu run failed, its tasks are profiled alone: "
                    "%s\n", labs[l].spec->lab, labs[l].env.ncu->lab.why);
        labs[l].env.tool_tmp = NULL; /* a task's own run: a TMPDIR of its own, as alone */
        for (int t = 0; t < labs[l].spec->ntasks; t++)
            if (out->ran[t]) /* a task's own ncu run, where the shared one did not serve */
                cml_technique_task(labs[l].spec, &labs[l].spec->tasks[t], &labs[l].env,
                                   &out->tasks[t]);
        if (labs[l].env.ncu)
            cml_ncu_runs_free(labs[l].env.ncu);
        free(labs[l].env.ncu);
        labs[l].env.ncu = NULL;
    }
    if (have_tmp)
        cml_rmtree(tmp);
    if (progress && n == 1)
        fprintf(progress, "[%s] technique checks: %.1f s%s\n", labs[0].spec->lab,
                cml_now() - t0, shared ? " (the solved tasks' ncu cases in one run)" : "");
    else if (progress)
        fprintf(progress, "technique checks of %d labs: %.1f s (%d labs' shared ncu runs at "
                "once)\n", n, cml_now() - t0, shared);
}

typedef struct {
    const cml_tech_lab *lab;
    cml_trace_run *out;
    int k; /* the case of out this job runs */
} trace_job;

static void trace_one(void *jobs, int i)
{
    trace_job *j = &((trace_job *)jobs)[i];
    cml_trace_collect_case(j->lab->spec, &j->lab->env, j->out, j->k);
}

/* How many trace runs go at once: CML_TRACE_JOBS, else 4. */
static int trace_workers(void)
{
    const char *e = getenv("CML_TRACE_JOBS");
    const int n = e ? atoi(e) : 0;
    return n >= 1 && n <= 64 ? n : 4;
}

/* Contract in technique_phase.h. */
void cml_trace_ahead(const cml_tech_lab *labs, int n, cml_trace_run *traced, FILE *progress)
{
    trace_job jobs[CML_MAX_LABS * CML_MAX_TASKS * CML_MAX_TRACE_CASES];
    int m = 0, tasks = 0;
    for (int l = 0; l < n && l < CML_MAX_LABS; l++) {
        const cml_lab_result *out = labs[l].out;
        for (int t = 0; labs[l].env.bin && t < labs[l].spec->ntasks; t++) {
            const cml_task_spec *ts = &labs[l].spec->tasks[t];
            int traces = 0;
            for (int i = 0; i < ts->ntech && i < CML_MAX_TECH; i++)
                traces |= ts->tech[i].kind == CML_TECH_TRACE;
            cml_trace_run *run = &traced[l * CML_MAX_TASKS + t];
            if (!traces || !out->ran[t] || !cml_found_cases_passed(&out->tasks[t]))
                continue;
            tasks++; /* each case its own job, so that one task's cases run side by side */
            for (int k = 0, n = cml_trace_cases(ts, &labs[l].env, run); k < n; k++)
                jobs[m++] = (trace_job){ &labs[l], run, k };
        }
    }
    const double t0 = cml_now();
    const int workers = trace_workers();
    cml_parallel(m, workers, trace_one, jobs);
    int top[3] = { -1, -1, -1 };
    double wall[3] = { 0, 0, 0 };
    for (int j = 0; j < m; j++) /* the three longest runs */
        cml_top3(top, wall, j, jobs[j].out->c[jobs[j].k].wall_s);
    if (!progress || !m) /* where the phase's time goes, for whoever tunes it */
        return;
    fprintf(progress, "traces: %d runs of %d tasks in %.1f s (%d at a time), the longest",
            m, tasks, cml_now() - t0, workers);
    for (int r = 0; r < 3 && top[r] >= 0; r++)
        fprintf(progress, "%s %s %.1f s", r ? "," : "", jobs[top[r]].out->c[jobs[top[r]].k].one,
                wall[r]);
    fprintf(progress, "\n");
}
