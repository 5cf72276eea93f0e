/* compute-sanitizer jobs and their pool (sanitize.h). Each job is one cml_tool_run: a fresh run
 * folder, cml-confine between the tool and the lab, the verdict from the tool's log, so a pool
 * of them is as confined as one. Workers are threads (cml_parallel): cml_run forks from any
 * thread (the builds do the same) and each job owns its folders. */
#include "sanitize.h"
#include "records.h"
#include "run.h"
#include "spec.h"
#include "technique.h"
#include "tool_run.h"
#include "util.h"
#include "checks.h"
#include "verify.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_WORKERS 64 /* cml_parallel's limit */

/* Output elements of case c of t; 0 when its check cannot say (then it counts as small). */
static uint64_t out_elems(const cml_task_spec *t, const cml_case_spec *c)
{
    char err[200];
    const cml_check *k = cml_check_find(t->check);
    return k && k->out_elems ? k->out_elems(c, err, sizeof err) : 0;
}

/* With `sanitize_drawn`, the drawn cases (the last t->drawn) not yet among the n chosen. */
static int sanitize_drawn(const cml_task_spec *t, char cases[][200], int n, int max)
{
    for (int i = t->ncases - t->drawn; t->sanitize_drawn && i < t->ncases && n < max; i++) {
        int seen = t->cases[i].timed;
        cml_case_arg(t, t->cases[i].text, 0, cases[n], 200);
        for (int k = 0; k < n && !seen; k++)
            seen = strcmp(cases[k], cases[n]) == 0; /* chosen already */
        n += !seen;
    }
    return n;
}

/* Contract in sanitize.h. */
int cml_sanitize_cases(const cml_task_spec *t, char cases[][200], int max)
{
    int n = 0, smallest = -1, small = 0;
    for (int i = 0; i < t->nsanitize_cases && n < max; i++, n++)
        cml_case_arg(t, t->sanitize_cases[i], 0, cases[n], 200);
    if (n > 0)
        return sanitize_drawn(t, cases, n, max);
    for (int i = 0; i < t->ncases; i++) {
        if (t->cases[i].timed)
            continue;
        uint64_t e = out_elems(t, &t->cases[i]);
        small |= e <= CML_SANITIZE_SMALL;
        if (smallest < 0 || e < out_elems(t, &t->cases[smallest]))
            smallest = i;
    }
    for (int i = 0; i < t->ncases && n < max; i++) {
        const cml_case_spec *c = &t->cases[i];
        if (c->timed || (small ? out_elems(t, c) > CML_SANITIZE_SMALL : i != smallest))
            continue;
        cml_case_arg(t, c->text, 0, cases[n++], 200);
    }
    return sanitize_drawn(t, cases, n, max);
}

/* The verdict of a run that ended on its own: exit 99 with an error located in a student file
 * is the student's (a lab exiting 99 itself and printing nothing gets nowhere); exit 99 with
 * errors in the harness alone, or any status but 0 and 99, is the tool's or the harness's
 * business: not checked. 0: no error. */
static void judge(cml_sanitize_job *j, const cml_proc_result *r, int ncases)
{
    j->split = j->ntasks > 1 && r->exit_code != 0;
    const char *tool = cml_sanitizer_name(j->tool);
    char text[300];
    const char *files[CML_MAX_FILES];
    for (int i = 0; i < j->lab->nfiles && i < CML_MAX_FILES; i++)
        files[i] = j->lab->files[i];
    if (r->exit_code == atoi(CML_SANITIZE_ERROR_EXIT) &&
        cml_sanitizer_errors(r->output, files, j->lab->nfiles, text, sizeof text)) {
        j->out.state = CML_TECH_FAILED;
        snprintf(j->out.detail, sizeof j->out.detail, "%s: %s", tool, text);
    } else if (r->exit_code == atoi(CML_SANITIZE_ERROR_EXIT)) {
        snprintf(j->out.detail, sizeof j->out.detail, "not checked (%s found an error in no "
                 "student file: %.200s)", tool, text[0] ? text : "no message logged");
    } else if (r->exit_code == 0) {
        j->out.state = CML_TECH_PASSED;
        snprintf(j->out.detail, sizeof j->out.detail, "%s: no error in %d case(s)%s", tool, ncases,
                 j->ntasks > 1 ? " of the lab's run" : "");
    } else {
        cml_proc_tail(r, 150, text, sizeof text);
        snprintf(j->out.detail, sizeof j->out.detail, "not checked (compute-sanitizer exited "
                 "with status %d: %.150s)", r->exit_code, text);
    }
}

/* A run that said hello on its result channel but not done after its n cases ended early, or
 * reached its time limit: the tool saw only part of the work, so the tasks fail with why
 * (a lab that leaves early when it finds itself under a tool must not keep its points). No
 * hello at all: the channel never reached the lab, the grader's business, judged as before.
 * Asked only when the tool found no error of the student's (an error ends the run early too:
 * its own message says more). 1 when it set the verdict. */
static int unfinished(cml_sanitize_job *j, const cml_proc_result *r, const char *said, int n,
                      double limit_s)
{
    const cml_channel_progress got = cml_records_progress(said);
    const int done = got.done, cases = got.cases;
    if (!got.hello || (done && cases >= n && !r->timed_out))
        return 0;
    const char *tool = cml_sanitizer_name(j->tool);
    j->out.state = CML_TECH_FAILED;
    j->split = j->ntasks > 1;
    if (r->timed_out)
        snprintf(j->out.detail, sizeof j->out.detail, "%s: the run under the tool reached its "
                 "time limit (%.0f s) after %d of %d case(s)", tool, limit_s, cases, n);
    else
        snprintf(j->out.detail, sizeof j->out.detail, "%s: the lab binary ended under the tool "
                 "after %d of %d case(s)%s: every case must run to its end (your process ended "
                 "on its own: the tool reported no error and no failure of its own)", tool, cases,
                 n, done ? "" : ", without its done record");
    return 1;
}

/* Who ended a run that did not reach its end, when the tool found no error of the student's:
 * the tool, when its log says it failed on its own (an internal error, something it does not
 * support: synccheck on a cuda::barrier tile, say) or it was killed by a signal, or when it
 * stopped the run on an error it reported outside the student's files: then the task is "not
 * checked: <the tool's message>", its points kept, and the instructor sees it (course mode);
 * else the student's process ended on its own (unfinished: a dodge). 1 when the tool did. */
static int tool_ended_it(cml_sanitize_job *j, const cml_proc_result *r, int ran)
{
    char own[300];
    const char *tool = cml_sanitizer_name(j->tool);
    if (r->output && cml_sanitizer_tool_failure(r->output, own, sizeof own)) {
        j->out.state = CML_TECH_NOT_CHECKED;
        snprintf(j->out.detail, sizeof j->out.detail, "not checked: %s: %.250s (the tool's own "
                 "failure, not your code's)", tool, own);
    } else if (!(ran || !r->signaled || r->timed_out)) {
        j->out.state = CML_TECH_NOT_CHECKED; /* tool_run said how it was killed */
    } else if (!(ran && r->exit_code == atoi(CML_SANITIZE_ERROR_EXIT))) {
        return 0;
    } /* else judge's "not checked (... found an error in no student file ...)" stands */
    j->split = j->ntasks > 1; /* the failure may be one task's code: each task on its own */
    return 1;
}

/* Contract in sanitize.h. */
void cml_sanitize_job_run(cml_sanitize_job *j)
{
    char cs[CML_PATH], cases[CML_MAX_CASES][200];
    char *argv[15 + 2 * CML_MAX_CASES];
    double t0 = cml_now();
    int a = 0, n = 0;
    memset(&j->out, 0, sizeof j->out);
    j->out.state = CML_TECH_NOT_CHECKED;
    j->split = 0;
    for (int i = 0; i < j->ntasks; i++)
        n += cml_sanitize_cases(j->tasks[i], cases + n, CML_MAX_CASES - n);
    if (cml_find_tool("CML_SANITIZER", "compute-sanitizer", cs, sizeof cs) != 0) {
        snprintf(j->out.detail, sizeof j->out.detail, "not checked (compute-sanitizer not found)");
        return;
    }
    if (n == 0) {
        snprintf(j->out.detail, sizeof j->out.detail, "not checked (every case is timed)");
        return;
    }
    /* `all`: cml-confine is the tool's application and the lab its exec; with
     * `application-only` every run failed "before first instrumented API call" (H100).
     * --no-guard: cudaMalloc's buffers, whose exact bounds the tools know (memcheck finds a
     * read one float past the end, which a guard region's 256-byte rounding would hide);
     * --nvtx yes, memcheck alone: the harness names each task's exact bytes through NVTX's
     * memory API (common/cml_exact.cpp), so memcheck also sees an access before an interior
     * pointer. Not for initcheck: a region registered after its buffer was filled counts as
     * never written there, and the solution's own reads of 4.1's input failed (H200). */
    const char *nvtx = j->tool == CML_MEMCHECK ? "yes" : "no";
    const char *head[] = {cs, "--tool", cml_sanitizer_name(j->tool), "--target-processes", "all",
                          "--error-exitcode", CML_SANITIZE_ERROR_EXIT, "--nvtx", nvtx, "./lab",
                          "--no-output", "--no-guard"}; /* the seed: a pipe (cml_run_sandboxed) */
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
        argv[a++] = (char *)head[i];
    for (int i = 0; i < n; i++) {
        argv[a++] = "--case";
        argv[a++] = cases[i];
    }
    argv[a] = NULL;
    cml_technique_env env = { .bin = j->bin, .seed = j->seed, .work_dir = j->work_dir,
                              .timeout_s = j->timeout_s };
    cml_proc_result r = {0};
    int fd = cml_result_fd_open(); /* the graded runs' channel: the lab cannot tell them apart */
    int ran = cml_tool_run(argv, "--log-file", &env, fd, "compute-sanitizer", &r,
                           j->out.detail, sizeof j->out.detail) == 0;
    size_t len = 0;
    char *said = fd >= 0 ? cml_result_fd_read(fd, &len) : NULL;
    if (fd >= 0)
        close(fd);
    if (ran) /* an error the tool found in a student file comes first: it says what is wrong */
        judge(j, &r, n);
    else
        j->split = j->ntasks > 1; /* a timeout may be one task's doing */
    const cml_channel_progress got = cml_records_progress(said);
    int whole = !got.hello || (got.done && got.cases >= n && !r.timed_out);
    if (j->out.state != CML_TECH_FAILED && (whole || !tool_ended_it(j, &r, ran)))
        unfinished(j, &r, said, n, 3 * (j->timeout_s > 0 ? j->timeout_s : 60));
    free(said);
    cml_proc_result_free(&r);
    j->wall_s = cml_now() - t0;
}

/* The tools' nice: CML_SANITIZE_NICE (0 to 19), else 10. The phase's trace runs (beside the
 * tools, at the grader's own priority) are its longest path: on an H200 they took 17.8 s
 * beside 16 tools whose longest job took 9.8 s, against 0.4 s for a small case alone. Nothing
 * is timed in the phase, so the tools lose nothing but the CPU the traces take first. */
static int tools_nice(void)
{
    const char *e = getenv("CML_SANITIZE_NICE");
    const int n = e && *e ? atoi(e) : 10;
    return n < 0 ? 0 : n > 19 ? 19 : n;
}

static pid_t pool_caller; /* the thread that called the pool: never niced (it could not undo) */

static void run_one(void *jobs, int i)
{
    static _Thread_local int niced;
    if (!niced && (pid_t)syscall(SYS_gettid) != pool_caller) { /* a worker, ending with the pool */
        cml_thread_yield(tools_nice()); /* inherited by the tool's processes */
        niced = 1;
    }
    cml_sanitize_job_run(&((cml_sanitize_job *)jobs)[i]);
}

/* Contract in sanitize.h. */
void cml_sanitize_pool(cml_sanitize_job *jobs, int n, int workers)
{
    pool_caller = (pid_t)syscall(SYS_gettid);
    cml_parallel(n, workers, run_one, jobs);
}

/* Contract in sanitize.h. */
int cml_sanitize_workers(void)
{
    const char *env = getenv("CML_SANITIZE_JOBS");
    int n = env && *env ? atoi(env) : 0;
    if (n >= 1 && n <= MAX_WORKERS)
        return n;
    n = cml_ncpus(); /* nothing is timed meanwhile: every core (the tools are CPU-bound) */
    return n < 1 ? 1 : n > 16 ? 16 : n;
}
