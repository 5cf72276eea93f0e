/* The technique check that runs the student's lab binary: under Nsight Compute (ncu) to read a
 * counter, in the sandbox with a timeout; whatever the grader's machine cannot do is "not
 * checked". */
#include "technique_run.h"
#include "gpu_lock.h"
#include "records.h"
#include "run.h"
#include "tool_run.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether the list (items separated by sep) holds item. */
static int list_has(const char *list, const char *item, char sep)
{
    size_t n = strlen(item);
    for (const char *p = list; *p; p += strcspn(p, (char[]){sep, 0}), p += *p == sep)
        if (strncmp(p, item, n) == 0 && (p[n] == sep || p[n] == '\0'))
            return 1;
    return 0;
}

/* Contract in technique_run.h. */
void cml_ncu_task_forget(cml_ncu_runs *runs)
{
    cml_proc_result_free(&runs->task.r);
    memset(&runs->task, 0, sizeof runs->task);
    memset(&runs->trace, 0, sizeof runs->trace);
}

/* Contract in technique_run.h. */
void cml_ncu_runs_free(cml_ncu_runs *runs)
{
    cml_ncu_task_forget(runs);
    cml_proc_result_free(&runs->lab.r);
    memset(&runs->lab, 0, sizeof runs->lab);
}

/* Appends to the comma-separated list buf each metric of t's ncu checks whose pattern is
 * `pattern` (NULL: any) and that buf does not hold yet; each term of a sum ("a+b") apart. */
static void task_metrics(const cml_task_spec *t, const char *pattern, char *buf, size_t len)
{
    for (int i = 0; i < t->ntech && i < CML_MAX_TECH; i++) {
        const cml_tech_spec *c = &t->tech[i];
        if (c->kind != CML_TECH_NCU || (pattern && strcmp(c->pattern, pattern)))
            continue;
        for (const char *m = c->metric; *m; m += strcspn(m, "+"), m += *m == '+') {
            char one[sizeof c->metric];
            snprintf(one, sizeof one, "%.*s", (int)strcspn(m, "+"), m);
            size_t used = strlen(buf);
            if (!list_has(buf, one, ','))
                snprintf(buf + used, len - used, "%s%s", used ? "," : "", one);
        }
    }
}

/* Contract in technique_run.h. */
void cml_tech_case_of(const cml_task_spec *t, char *buf, size_t len)
{
    const char *text = t->ncu_case[0] ? t->ncu_case : t->cases[0].text;
    cml_case_arg(t, text, 0, buf, len);
}

/* Contract in technique_run.h. */
int cml_tech_cases_of(const cml_task_spec *t, char cases[][200], int max)
{
    int n = 0;
    if (max > 0)
        cml_tech_case_of(t, cases[n++], 200);
    for (int k = 0; k < t->nncu_also && n < max; k++)
        cml_case_arg(t, t->ncu_also[k], 0, cases[n++], 200);
    return n;
}

/* ncu_exec's result for a lab that said hello on its result channel but stopped short of its
 * cases and done, or ran into the time limit: it was not profiled doing the task's work. */
#define NCU_CUT_SHORT (-2)

/* What ncu's own log says when the GPU's profiling resources are taken (another profiler, such
 * as DCGM, or a second ncu session): the lab then exits (status 9) after hello, through no
 * doing of its own (seen on an H100 with two sessions whose locks lay apart). The log is
 * ncu's file, which the lab cannot write. */
static const char COUNTERS_BUSY[] = "a driver resource was unavailable";

/* ncu on the lab binary: `--case` each of cases[0..n-1], profiling kernels matching the ERE
 * `kernels` for `metrics`. The lab gets the graded runs' result channel, so that nothing in
 * its environment says it is profiled rather than graded (a lab that took its technique's path
 * only under ncu kept the points), and must then run every case to `done`. cml_tool_run's
 * result (0: ncu ran to an end, its log in r), or NCU_CUT_SHORT with why in detail. */
static int ncu_exec(const char *ncu, const char *kernels, int mark, const char *metrics,
                    char cases[][200], int n, const cml_technique_env *env, cml_proc_result *r,
                    char *detail, size_t dlen)
{
    char kernel[1200];
    /* mark: the harness's case marker is profiled too, so that rows split into cases (a task
     * with several ncu cases); its rows never count (ncu_csv.c) */
    snprintf(kernel, sizeof kernel, "regex:%s%s", kernels, mark ? "|" CML_NCU_CASE_MARK : "");
    /* --profile-from-start off: only what runs inside the harness's window (cudaProfilerStart
     * and Stop around a case's checked launch, common/cml_run_case.cpp) is profiled, so the
     * harness's own kernels (inputs, guards) never count; students may not call cudaProfiler* */
    char *argv[22 + 2 * CML_MAX_RUN_CASES] = {(char *)ncu, "--clock-control", "none",
        "--target-processes", "all", "--profile-from-start", "off", "--kernel-name", kernel,
        "--metrics", (char *)metrics, "--csv", "--print-units", "base", "./lab", "--no-output"};
    int a = 16; /* the seed: a pipe */
    for (int i = 0; i < n && i < CML_MAX_RUN_CASES; i++) {
        argv[a++] = "--case";
        argv[a++] = cases[i];
    }
    argv[a] = NULL;
    int fd = cml_result_fd_open();
    cml_gpu_hold(); /* a batch's other grading stays off the GPU while ncu profiles */
    int rc = cml_tool_run(argv, "--log-file", env, fd, "ncu", r, detail, dlen);
    cml_gpu_release();
    size_t len = 0;
    char *said = fd >= 0 ? cml_result_fd_read(fd, &len) : NULL;
    if (fd >= 0)
        close(fd);
    const cml_channel_progress got = cml_records_progress(said);
    free(said);
    const char *busy = r->output ? strstr(r->output, COUNTERS_BUSY) : NULL;
    if (got.hello && busy && !r->timed_out) {
        snprintf(detail, dlen, "not checked (the GPU's profiling counters were taken by "
                 "another profiler, such as DCGM: ncu said \"%s\")", COUNTERS_BUSY);
        return -1;
    }
    if (got.hello && (!got.done || got.cases < n || r->timed_out)) {
        snprintf(detail, dlen, "the lab binary %s under ncu after %d of %d case(s)%s: every case "
                 "must run to its end", r->timed_out ? "reached its time limit" : "ended",
                 got.cases, n, got.done || r->timed_out ? "" : ", without its done record");
        return NCU_CUT_SHORT;
    }
    return rc;
}

/* ncu for t's cases (n of them) on kernels matching c->pattern, collecting every metric t asks
 * of them; reuses the last run when it was the same. 0 when ncu ran to an end (its output in
 * runs->task.r), else -1 with out filled by cml_tool_run. */
static int run_ncu(const char *ncu, const cml_tech_spec *c, const cml_task_spec *t,
                   const cml_technique_env *env, char cases[][200], int n, cml_ncu_runs *runs,
                   cml_tech_result *out)
{
    char metrics[1024] = "", key[sizeof runs->task.key];
    task_metrics(t, c->pattern, metrics, sizeof metrics);
    int used = snprintf(key, sizeof key, "%s|%llu|%s|%s", env->bin,
                        (unsigned long long)env->seed, c->pattern, metrics);
    for (int k = 0; k < n && used > 0 && (size_t)used < sizeof key; k++)
        used += snprintf(key + used, sizeof key - (size_t)used, "|%s", cases[k]);
    if (runs->task.key[0] && strcmp(key, runs->task.key) == 0) {
        if (runs->task.rc != 0)
            *out = runs->task.failed;
        return runs->task.rc;
    }
    cml_ncu_task_forget(runs);
    runs->task.rc = ncu_exec(ncu, c->pattern, n > 1, metrics, cases, n, env, &runs->task.r,
                             out->detail, sizeof out->detail);
    if (runs->task.rc != 0) /* cut short: the lab's doing; else the machine's, not checked */
        out->state = runs->task.rc == NCU_CUT_SHORT ? CML_TECH_FAILED : CML_TECH_NOT_CHECKED;
    runs->task.failed = *out;
    snprintf(runs->task.key, sizeof runs->task.key, "%s", key);
    return runs->task.rc;
}

/* Contract in technique_run.h. */
int cml_tech_ncu_lab(const cml_lab_spec *spec, const int *solved, const cml_technique_env *env)
{
    char ncu[CML_PATH], cases[CML_MAX_RUN_CASES][200], kernels[1024] = "", metrics[1024] = "",
         detail[512];
    int mark = 0;
    cml_ncu_runs *runs = env->ncu;
    if (!runs)
        return 0; /* nowhere to keep it: each task profiles alone */
    cml_ncu_runs_free(runs);
    for (int i = 0; env->bin && i < spec->ntasks; i++) {
        const cml_task_spec *t = &spec->tasks[i];
        int has_ncu = 0;
        if (runs->lab.ncases + 1 + t->nncu_also > CML_MAX_RUN_CASES)
            continue; /* no room: its checks profile alone */
        for (int k = 0; k < t->ntech && k < CML_MAX_TECH && solved[i]; k++)
            if (t->tech[k].kind == CML_TECH_NCU) {
                size_t used = strlen(kernels);
                if (!list_has(kernels, t->tech[k].pattern, '|'))
                    snprintf(kernels + used, sizeof kernels - used, "%s%s", used ? "|" : "",
                             t->tech[k].pattern);
                has_ncu = 1;
            }
        if (!has_ncu)
            continue;
        task_metrics(t, NULL, metrics, sizeof metrics);
        const int k = runs->lab.ntasks++;
        runs->lab.tasks[k] = t;
        runs->lab.first[k] = runs->lab.ncases;
        runs->lab.count[k] = cml_tech_cases_of(t, cases + runs->lab.ncases,
                                               CML_MAX_RUN_CASES - runs->lab.ncases);
        runs->lab.ncases += runs->lab.count[k];
        mark |= runs->lab.count[k] > 1;
    }
    /* one task: its own run is the same run; none: nothing to profile */
    if (runs->lab.ntasks < 2 || cml_find_tool("CML_NCU", "ncu", ncu, sizeof ncu) != 0) {
        runs->lab.ntasks = runs->lab.ncases = 0;
        return 0;
    }
    runs->lab.rc = ncu_exec(ncu, kernels, mark, metrics, cases, runs->lab.ncases, env,
                            &runs->lab.r, detail, sizeof detail);
    const char *err = runs->lab.r.output ? strstr(runs->lab.r.output, "==ERROR==") : NULL;
    if (runs->lab.rc != 0) /* for the progress line: its checks then profile alone */
        snprintf(runs->lab.why, sizeof runs->lab.why, "%.200s%s%.*s", detail, err ? ": " : "",
                 err ? (int)strcspn(err, "\n") : 0, err ? err : "");
    return runs->lab.ntasks;
}

/* The n cases as c judges them (into judged): a `timed_ns` bound reads the student's own time
 * of a timed case from its text (",timed_ns=<ns>", from this grading's timed runs); a case that
 * is not timed gets none, and that bound is judged at the others (ncu_verdict.c). */
static void judged_cases(const cml_task_spec *t, const cml_tech_spec *c,
                         const cml_technique_env *env, char cases[][200], int n,
                         char judged[][200])
{
    for (int k = 0; k < n; k++) {
        snprintf(judged[k], 200, "%s", cases[k]);
        const char *params = strchr(cases[k], ',') ? strchr(cases[k], ',') + 1 : "";
        const int i = cml_tech_timed_bound(c) && env->case_ms ? cml_timed_case(t, params) : -1;
        const size_t used = strlen(judged[k]);
        if (i >= 0 && env->case_ms[i] > 0)
            snprintf(judged[k] + used, 200 - used, ",%s=%.0f", CML_TIMED_NS,
                     env->case_ms[i] * 1e6);
    }
}

/* Contract in technique_run.h. */
void cml_tech_ncu(const cml_lab_spec *spec, const cml_task_spec *t, const cml_tech_spec *c,
                  const cml_technique_env *env, cml_tech_result *out)
{
    (void)spec; /* the task's own cases */
    char ncu[CML_PATH], cases[CML_MAX_NCU_CASES][200], judged[CML_MAX_NCU_CASES][200];
    cml_ncu_runs alone = {0}, *runs = env->ncu ? env->ncu : &alone;
    out->state = CML_TECH_NOT_CHECKED;
    const int n = cml_tech_cases_of(t, cases, CML_MAX_NCU_CASES);
    judged_cases(t, c, env, cases, n, judged);
    if (cml_ncu_from_lab_run(c, t, judged, runs, out))
        return;
    if (cml_find_tool("CML_NCU", "ncu", ncu, sizeof ncu) != 0) {
        snprintf(out->detail, sizeof out->detail, "not checked (ncu not found)");
        return;
    }
    if (run_ncu(ncu, c, t, env, cases, n, runs, out) == 0)
        cml_ncu_judge_rows(c, &runs->task.r, judged, n, out);
    cml_ncu_runs_free(&alone);
}
