/* The sanitizer phase of a grading: compute-sanitizer's four tools on every task whose cases all
 * passed, all jobs of all labs at once in a pool (sanitize.h), after every lab's timed runs so
 * that no tool shares the GPU with a timing. A tool's error costs the task every point (status
 * sanitizer: its right output was luck); a tool that is missing or fails on its own is "not
 * checked" and costs nothing. Until the phase has run, the reports say it has not. */
#include "gpu_lock.h"
#include "sanitize.h"
#include "findings.h"
#include "spec.h"
#include "util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Whether tool k is to run on task r: its cases all passed (or, for memcheck, a guard region
 * found an access outside the buffers: memcheck names the kernel and the line), its spec
 * leaves k on, and no verdict was given yet (nothing_to_check gives some before the runs). */
static int waits(const cml_task_result *r, int k)
{
    return r->spec &&
           (cml_found_cases_passed(r) || (cml_found_guard_fault(r) && k == CML_MEMCHECK)) &&
           !(r->spec->sanitize_off & (1u << k)) && r->sanitizers[k].state == CML_TECH_NOT_RUN;
}

/* Lab l's tools that its student code gives nothing to check (needed[l], sanitize_need.c):
 * passed, with why, without a run. */
static void nothing_to_check(cml_grading *g, int l, unsigned needed)
{
    static const char *const WHY[CML_SANITIZERS] = {
        [CML_RACECHECK] = "no shared memory in the lab's PTX",
        [CML_SYNCCHECK] = "no barrier or warp-synchronous instruction in the lab's PTX" };
    for (int k = 0; k < CML_SANITIZERS; k++)
        for (int i = 0; WHY[k] && !(needed & (1u << k)) && i < g->labs[l].ntasks; i++)
            if (waits(&g->labs[l].tasks[i], k)) {
                cml_tech_result *s = &g->labs[l].tasks[i].sanitizers[k];
                s->state = CML_TECH_PASSED;
                snprintf(s->detail, sizeof s->detail, "%s: nothing to check (%s)",
                         cml_sanitizer_name(k), WHY[k]);
            }
}

/* Contract in sanitize.h. */
void cml_sanitize_mark(cml_lab_result *lab)
{
    for (int i = 0; i < lab->ntasks; i++) {
        cml_task_result *r = &lab->tasks[i];
        for (int k = 0; r->spec && k < CML_SANITIZERS; k++) {
            r->sanitizers[k].state = CML_TECH_NOT_RUN;
            snprintf(r->sanitizers[k].detail, sizeof r->sanitizers[k].detail, "%s",
                     r->spec->sanitize_off & (1u << k) ? "off for this task (its spec)"
                     : !cml_found_ran(r) ? "not run: the task did not run here"
                     : !cml_found_cases_passed(r) ? "not run: not every case of the task passed"
                     : "not run: the grading ended before its sanitizer phase");
        }
    }
}

/* Every tool that waits gets "not checked (why)": counted as passed, as a missing tool is. */
static void skip_all(cml_grading *g, const char *why)
{
    g->sanitize_phase = CML_SANITIZE_SKIPPED;
    snprintf(g->sanitize_note, sizeof g->sanitize_note, "%s", why);
    for (int l = 0; l < g->nlabs; l++)
        for (int i = 0; i < g->labs[l].ntasks; i++)
            for (int k = 0; k < CML_SANITIZERS; k++)
                if (waits(&g->labs[l].tasks[i], k)) {
                    cml_tech_result *s = &g->labs[l].tasks[i].sanitizers[k];
                    s->state = CML_TECH_NOT_CHECKED;
                    snprintf(s->detail, sizeof s->detail, "not checked (%s)", why);
                }
}

/* The cases task t gives the tools (sanitize_run.c chooses them). */
static int ncases(const cml_task_spec *t)
{
    char cases[CML_MAX_CASES][200];
    return cml_sanitize_cases(t, cases, CML_MAX_CASES);
}

/* The order in which the tools' jobs start: racecheck first. Its runs are the longest (5.7-6 s
 * each on an H100, the others' at most about 2 s), and 28 jobs on 16 workers run in two waves:
 * made lab by lab, three racecheck jobs fell into the second wave and the phase took 8.0 s. */
static const int TOOL_ORDER[CML_SANITIZERS] = { 1, 0, 3, 2 };

/* One job per lab and tool over every task waiting for that tool, as many as its cases need
 * (CML_MAX_CASES per run): clean submissions, the usual case, then pay each process's start
 * (the tool's and CUDA's) once per lab and tool, as in the H100 measurements. Racecheck one job
 * per task was tried (H100, 2026-11-27): lab 03's two longest then took 11.2 and 11.1 s each,
 * as its one job had taken 10.8 s: the jobs share one GPU, so splitting them does not shorten
 * the phase. Into jobs, in TOOL_ORDER; how many. */
static int lab_jobs(const cml_grading *g, const char *const bins[], const cml_run_opts *o,
                    cml_sanitize_job *jobs)
{
    int n = 0;
    for (int kk = 0; kk < CML_SANITIZERS; kk++)
        for (int l = 0, k = TOOL_ORDER[kk]; l < g->nlabs; l++) {
            int used = CML_MAX_CASES + 1; /* no open job yet */
            for (int i = 0; bins[l] && i < g->labs[l].ntasks; i++) {
                const cml_task_result *r = &g->labs[l].tasks[i];
                int c = waits(r, k) ? ncases(r->spec) : 0;
                if (c == 0 && !waits(r, k))
                    continue;
                if (used + c > CML_MAX_CASES) {
                    jobs[n++] = (cml_sanitize_job){ .lab = g->labs[l].spec, .bin = bins[l],
                                                    .tool = k, .seed = o->seed,
                                                    .work_dir = o->work_dir,
                                                    .timeout_s = g->labs[l].spec->timeout_s };
                    used = 0;
                }
                cml_sanitize_job *j = &jobs[n - 1];
                j->tasks[j->ntasks++] = r->spec;
                used += c;
            }
        }
    return n;
}

/* The result of task spec t of g, or NULL. */
static cml_task_result *result_of(cml_grading *g, const cml_task_spec *t)
{
    for (int l = 0; l < g->nlabs; l++)
        for (int i = 0; i < g->labs[l].ntasks; i++)
            if (g->labs[l].tasks[i].spec == t)
                return &g->labs[l].tasks[i];
    return NULL;
}

/* Each finished job's verdict to its tasks; a job to split becomes one job per task in again
 * (they run next). How many jobs it added to again. */
static int take(cml_grading *g, const cml_sanitize_job *jobs, int n, cml_sanitize_job *again)
{
    int m = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < jobs[j].ntasks; i++) {
            cml_task_result *r = result_of(g, jobs[j].tasks[i]);
            if (jobs[j].split) {
                again[m] = jobs[j];
                again[m].ntasks = 1;
                again[m++].tasks[0] = jobs[j].tasks[i];
            } else if (r)
                r->sanitizers[jobs[j].tool] = jobs[j].out;
        }
    return m;
}

/* The three longest of the n first-round jobs, as one progress line. */
static void slowest(const cml_sanitize_job *jobs, int n, FILE *progress)
{
    int top[3] = { -1, -1, -1 };
    double wall[3] = { 0, 0, 0 };
    for (int j = 0; j < n; j++)
        cml_top3(top, wall, j, jobs[j].wall_s);
    if (!progress || top[0] < 0)
        return;
    fprintf(progress, "sanitizers: longest runs");
    for (int k = 0; k < 3 && top[k] >= 0; k++)
        fprintf(progress, "%s %s %s %.1f s", k ? "," : "", jobs[top[k]].lab->lab,
                cml_sanitizer_name(jobs[top[k]].tool), jobs[top[k]].wall_s);
    fprintf(progress, "\n");
}

static void *beside_thread(void *b)
{
    ((const cml_beside *)b)->fn(((const cml_beside *)b)->arg);
    return NULL;
}

/* Contract in sanitize.h. */
void cml_sanitize_phase(cml_grading *g, const char *const bins[], const unsigned needed[],
                        const cml_run_opts *o, const cml_beside *beside)
{
    const char *off = getenv("CML_SANITIZE");
    if (!g->have_gpu)
        return skip_all(g, "no GPU");
    if (off && strcmp(off, "off") == 0)
        return skip_all(g, "turned off by CML_SANITIZE=off");
    const size_t most = (size_t)g->nlabs * CML_MAX_TASKS * CML_SANITIZERS;
    cml_sanitize_job *jobs = calloc(most, sizeof *jobs), *again = calloc(most, sizeof *again);
    if (!jobs || !again) {
        free(jobs);
        free(again);
        return skip_all(g, "out of memory");
    }
    const double t0 = cml_now();
    g->sanitize_workers = cml_sanitize_workers();
    for (int l = 0; needed && l < g->nlabs; l++)
        nothing_to_check(g, l, needed[l]);
    int n = lab_jobs(g, bins, o, jobs);
    cml_gpu_hold(); /* the whole phase: its jobs run at once, from the pool's threads */
    pthread_t th;
    int threaded = beside && beside->fn && pthread_create(&th, NULL, beside_thread,
                                                          (void *)beside) == 0;
    cml_sanitize_pool(jobs, n, g->sanitize_workers);
    int m = take(g, jobs, n, again); /* an error in a lab's run: which task's is it? */
    for (int j = 0; j < n && o->progress; j++)
        if (jobs[j].split)
            fprintf(o->progress, "sanitizers: %s %s over %d tasks, again task by task: %s\n",
                    jobs[j].lab->lab, cml_sanitizer_name(jobs[j].tool), jobs[j].ntasks,
                    jobs[j].out.detail);
    cml_sanitize_pool(again, m, g->sanitize_workers);
    if (threaded)
        pthread_join(th, NULL);
    else if (beside && beside->fn) /* no thread: after the tools, still inside the hold */
        beside->fn(beside->arg);
    cml_gpu_release();
    take(g, again, m, jobs);
    g->sanitize_s = cml_now() - t0;
    g->sanitize_runs = n + m;
    slowest(jobs, n, o->progress); /* where the phase's time goes, for whoever tunes it */
    free(jobs);
    free(again);
    g->sanitize_phase = CML_SANITIZE_DONE;
    if (o->progress)
        fprintf(o->progress, "sanitizers: %d runs in %.1f s (%d at a time%s)\n", n + m,
                g->sanitize_s, g->sanitize_workers, m ? ", some again task by task" : "");
}
