/* Trace checks (spec `trace`, technique_run.h): what the student's own calls did in a real run
 * of the task's case, from the grader's CUPTI injection library (grader/trace/cml_trace.c),
 * never from the text. Copies made through Thrust, a helper of any name, a graph or a macro
 * all go through the driver, where the library sees each call and the bytes the copy engines
 * moved for it. */
#include "technique_run.h"
#include "gpu_lock.h"
#include "linkrules_obj.h" /* lr_find_tools: nm */
#include "records.h"
#include "run.h"
#include "sandbox.h"
#include "util.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRACE_CAP ((size_t)16 << 20)

/* The library and libcupti beside it (build/trace/, next to the grader's binary), into lib;
 * 0, or -1 when the grader was built without CUPTI. CML_TRACE_LIB names another. */
static int trace_library(char *lib, size_t len)
{
    return cml_beside_self("CML_TRACE_LIB", "trace/libcml-trace.so", lib, len) == 0 &&
           access(lib, R_OK) == 0 ? 0 : -1;
}

/* Copies the library and every file beside it (libcupti, by its soname) into the run folder
 * dir: all of them the lab's sandbox may read there. 0 with the injection variable in inject,
 * or -1 with err. */
static int stage_library(const char *lib, const char *dir, char *inject, size_t ilen,
                         char *err, size_t elen)
{
    char from[CML_PATH];
    snprintf(from, sizeof from, "%.*s", (int)(strrchr(lib, '/') - lib), lib);
    DIR *d = opendir(from);
    int rc = d ? 0 : -1;
    if (!d)
        snprintf(err, elen, "cannot list %.200s", from);
    for (struct dirent *e; rc == 0 && d && (e = readdir(d));) {
        char src[CML_PATH], dst[CML_PATH];
        if (e->d_name[0] == '.')
            continue;
        rc = cml_fmt(src, sizeof src, "%s/%s", from, e->d_name) != 0 ||
             cml_fmt(dst, sizeof dst, "%s/%s", dir, e->d_name) != 0 ||
             cml_copy_file(src, dst, (size_t)256 << 20, err, elen) != 0 ? -1 : 0;
    }
    if (d)
        closedir(d);
    return rc ? rc : cml_fmt(inject, ilen, "CUDA_INJECTION64_PATH=%s/%s", dir,
                             strrchr(lib, '/') + 1);
}

/* The lab binary on case `one` with the library `lib` injected, its trace into *text (malloc'd).
 * 0; -1 with out filled: not checked (no library, no run folder: the machine's), or FAILED (the
 * lab said hello and did not reach done: the lab's doing, as under ncu). */
static int trace_exec(const char *lib, const char *one, const cml_technique_env *env,
                      char **text, cml_tech_result *out)
{
    char dir[CML_PATH], inject[CML_PATH + 40], where[CML_PATH + 20], err[300];
    *text = NULL;
    out->state = CML_TECH_NOT_CHECKED;
    if (cml_sandbox_scratch(env->work_dir, "trace", env->bin, dir, sizeof dir, err,
                            sizeof err) != 0) {
        snprintf(out->detail, sizeof out->detail, "not checked (%.300s)", err);
        return -1;
    }
    int rc = stage_library(lib, dir, inject, sizeof inject, err, sizeof err);
    rc = rc ? rc : cml_fmt(where, sizeof where, "CML_TRACE_OUT=%s/cml-trace.txt", dir);
    char *argv[] = {"./lab", "--no-output", "--case", (char *)one, NULL};
    char *extra[] = {inject, where, NULL};
    cml_proc_result r = {0};
    int fd = rc == 0 ? cml_result_fd_open() : -1;
    const double limit = 3 * (env->timeout_s > 0 ? env->timeout_s : 60);
    if (rc == 0) {
        cml_gpu_hold(); /* it uses the GPU, so no other grading's timing may meet it (made
                           ahead, it nests in the sanitizer phase's hold) */
        cml_run_sandboxed(argv, extra, dir, NULL, fd, &env->seed, limit, 1 << 16, &r);
        cml_gpu_release();
    }
    char *said = fd >= 0 ? cml_result_fd_read(fd, NULL) : NULL;
    const cml_channel_progress got = cml_records_progress(said);
    free(said);
    if (fd >= 0)
        close(fd);
    where[0] = '\0';
    if (rc == 0 && cml_fmt(where, sizeof where, "%s/cml-trace.txt", dir) == 0)
        *text = cml_read_text(where, TRACE_CAP, NULL);
    char how[200];
    cml_proc_describe(&r, limit, how, sizeof how);
    cml_proc_result_free(&r);
    cml_rmtree(dir);
    if (rc != 0) {
        snprintf(out->detail, sizeof out->detail, "not checked (staging the trace library: "
                 "%.300s)", err);
        return -1;
    }
    if (!got.hello || !got.done || got.cases < 1 || r.timed_out) {
        out->state = got.hello ? CML_TECH_FAILED : CML_TECH_NOT_CHECKED;
        snprintf(out->detail, sizeof out->detail, "%sthe lab binary %s in its traced run of "
                 "case %.80s (%.120s): the case must run to its end", got.hello ? "" :
                 "not checked (", got.hello ? "stopped short" : "did not start", one, how);
        if (!got.hello)
            strncat(out->detail, ")", sizeof out->detail - strlen(out->detail) - 1);
        free(*text);
        *text = NULL;
        return -1;
    }
    return 0;
}

/* The lab binary's symbols (nm -n --defined-only) and the student objects' .symbols evidence,
 * one after another; 0, or -1 with why. */
static int symbols_of(const cml_lab_spec *spec, const cml_technique_env *env, char **nm,
                      char **student, char *why, size_t wlen)
{
    char tool[CML_PATH], objdump[CML_PATH];
    size_t len = 0;
    *nm = *student = NULL;
    for (int i = 0; i < spec->nfiles; i++) {
        char *one = cml_is_cu(spec->files[i])
                    ? cml_tech_evidence(env, spec->files[i], ".symbols", why, wlen) : NULL;
        if (cml_is_cu(spec->files[i]) && !one)
            return -1;
        if (one && cml_appendf(student, &len, "%s\n", one) != 0)
            return free(one), snprintf(why, wlen, "out of memory"), -1;
        free(one);
    }
    if (lr_find_tools(tool, objdump, sizeof tool, why, wlen) != 0)
        return -1;
    char *argv[] = {tool, "-n", "--defined-only", (char *)env->bin, NULL};
    cml_proc_result r = {0};
    cml_run(argv, NULL, NULL, -1, 60, (size_t)64 << 20, &r);
    if (!r.exited || r.exit_code != 0 || !r.output) {
        snprintf(why, wlen, "nm could not read the lab binary");
        cml_proc_result_free(&r);
        return -1;
    }
    *nm = r.output; /* owned by the caller now */
    return 0;
}

/* The bytes of `__device__` variables in the student's .cu files' PTX evidence into t (the
 * build's, digest checked; a file without it counts nothing: its other checks say so). */
static void symbol_bytes(const cml_lab_spec *spec, const cml_technique_env *env,
                         cml_trace_tally *t)
{
    for (int i = 0; i < spec->nfiles; i++) {
        char why[200], first[160];
        char *ptx = cml_is_cu(spec->files[i])
                    ? cml_tech_evidence(env, spec->files[i], ".ptx", why, sizeof why) : NULL;
        double b = ptx ? cml_ptx_global_bytes(ptx, first, sizeof first) : 0;
        if (b > 0 && t->v[CML_TRACE_SYMBOLS] == 0)
            snprintf(t->first[CML_TRACE_SYMBOLS], sizeof t->first[0], "%.60s: %.90s",
                     spec->files[i], first);
        t->v[CML_TRACE_SYMBOLS] += b;
        free(ptx);
    }
}

/* Check c's verdict from the tally of case one, in the words a student reads (not checked when
 * the case lacks a scaled bound's parameter: the spec refuses that). */
static void judge(const cml_tech_spec *c, const cml_trace_tally *t, const char *one,
                  cml_tech_result *out)
{
    int m = cml_trace_measure_of(c->metric);
    double v = m >= 0 ? t->v[m] : 0;
    char range[96], over[120];
    cml_tech_spec at = *c; /* the bounds at this case (8*n at n = 2^22: 33554432) */
    if (cml_tech_bounds_at(c, strchr(one, ',') ? strchr(one, ',') + 1 : "", &at.min,
                           &at.max) != 0) {
        out->state = CML_TECH_NOT_CHECKED;
        snprintf(out->detail, sizeof out->detail, "not checked (case %.60s has no parameter "
                 "for the bound of %.40s)", one, c->metric);
        return;
    }
    int fails = cml_tech_range_words(&at, v, range, sizeof range), high = v > at.max;
    out->state = fails ? CML_TECH_FAILED : CML_TECH_PASSED;
    /* launches are counted, the rest are bytes; a structure measure says what it counted */
    const int launches = m == CML_TRACE_LAUNCHES_PER_CALL || m == CML_TRACE_OFF_STREAM ||
                         m == CML_TRACE_UNLIKE_CHECKED || m == CML_TRACE_OPS_OFF_STREAM ||
                         m == CML_TRACE_PREFETCHES;
    if (m == CML_TRACE_UNLIKE_CHECKED)
        snprintf(over, sizeof over, "of %d warm-up and timed call%s of the task's function, "
                 "each held to the checked call", t->later_calls,
                 t->later_calls == 1 ? "" : "s");
    else if (m == CML_TRACE_LAUNCHES_PER_CALL)
        snprintf(over, sizeof over, "your kernels that each ran 1/8 of their call's longest "
                 "or more, over %d call%s", t->windows, t->windows == 1 ? "" : "s");
    else if (m == CML_TRACE_OPS_OFF_STREAM)
        snprintf(over, sizeof over, "kernels, copies, memsets and prefetches your code "
                 "enqueued off the stream it was given and never joined back to it");
    else if (m == CML_TRACE_PREFETCHES)
        snprintf(over, sizeof over, "prefetch calls of your code (cudaMemPrefetchAsync, its "
                 "batch and discard forms)");
    else if (m == CML_TRACE_SYMBOLS)
        snprintf(over, sizeof over, "__device__ variables in your code's PTX");
    else
        snprintf(over, sizeof over, "traced over %d memory call%s of your code", t->calls,
                 t->calls == 1 ? "" : "s");
    snprintf(out->detail, sizeof out->detail,
             "%.40s = %.17g%s %.80s, %.100s (case %.50s)%s%.120s",
             c->metric, v, launches ? "" : " bytes", range, over, one,
             (high || m == CML_TRACE_LAUNCHES_PER_CALL) && m >= 0 && t->first[m][0]
             ? m == CML_TRACE_LAUNCHES_PER_CALL ? ": the first " : ": first " : "",
             (high || m == CML_TRACE_LAUNCHES_PER_CALL) && m >= 0 ? t->first[m] : "");
}

/* Whether t has a calls_unlike_checked check: its traced cases are then timed, so that each run
 * holds warm-up and timed calls to compare with the checked one (trace_calls.c). */
static int times_its_trace(const cml_task_spec *t)
{
    for (int i = 0; i < t->ntech; i++)
        if (t->tech[i].kind == CML_TECH_TRACE &&
            cml_trace_measure_of(t->tech[i].metric) == CML_TRACE_UNLIKE_CHECKED)
            return 1;
    return 0;
}

/* t's traced cases into one ("6.2,n=1048576,passes=1", with ",time" when the runs must time
 * them): the case its ncu follows, then each `trace_case`; how many. */
static int cases_of(const cml_task_spec *t, char one[][200])
{
    int n = 0;
    cml_tech_case_of(t, one[n++], 200);
    for (int k = 0; k < t->ntrace_also && n < CML_MAX_TRACE_CASES; k++)
        cml_case_arg(t, t->trace_also[k], 0, one[n++], 200);
    for (int k = 0; k < n && times_its_trace(t); k++)
        if (strlen(one[k]) + 6 < 200)
            strcat(one[k], ",time");
    return n;
}

/* The key of t's traced runs: binary, seed and cases. */
static void key_of(const cml_task_spec *t, const cml_technique_env *env, char *key, size_t klen)
{
    char one[CML_MAX_TRACE_CASES][200];
    const int n = cases_of(t, one);
    snprintf(key, klen, "%s|%llu", env->bin, (unsigned long long)env->seed);
    for (int k = 0; k < n; k++)
        if (strlen(key) + strlen(one[k]) + 2 < klen)
            strcat(strcat(key, "|"), one[k]);
}

/* Contract in technique_run.h. */
int cml_trace_cases(const cml_task_spec *t, const cml_technique_env *env, cml_trace_run *out)
{
    char one[CML_MAX_TRACE_CASES][200];
    memset(out, 0, sizeof *out);
    key_of(t, env, out->key, sizeof out->key);
    out->n = cases_of(t, one);
    for (int k = 0; k < out->n; k++)
        snprintf(out->c[k].one, sizeof out->c[k].one, "%.199s", one[k]);
    return out->n;
}

/* Contract in technique_run.h. */
void cml_trace_collect_case(const cml_lab_spec *spec, const cml_technique_env *env,
                            cml_trace_run *out, int k)
{
    char *nm = NULL, *student = NULL, *trace = NULL, why[300] = "", lib[CML_PATH], one[200];
    cml_tech_result *failed = &out->c[k].failed;
    snprintf(one, sizeof one, "%s", out->c[k].one); /* the details below are written into out */
    if (trace_library(lib, sizeof lib) != 0)
        snprintf(why, sizeof why, "the grader was built without its CUPTI trace library, "
                 "build/trace/libcml-trace.so");
    const int rc = why[0] ? -1 : symbols_of(spec, env, &nm, &student, why, sizeof why);
    failed->state = CML_TECH_NOT_CHECKED;
    out->c[k].rc = rc;
    if (rc != 0)
        snprintf(failed->detail, sizeof failed->detail, "not checked (%.300s)", why);
    else {
        const double t0 = cml_now();
        out->c[k].rc = trace_exec(lib, one, env, &trace, failed);
        out->c[k].wall_s = cml_now() - t0;
    }
    if (out->c[k].rc == 0 &&
        cml_trace_tally_of(trace, nm, student, &out->c[k].tally, why, sizeof why) != 0) {
        out->c[k].rc = -1; /* a lab that reached done and left no whole trace */
        failed->state = CML_TECH_FAILED;
        snprintf(failed->detail, sizeof failed->detail, "the trace of your code's calls "
                 "in case %.60s is not whole: %.300s", one, why);
    }
    if (out->c[k].rc == 0)
        symbol_bytes(spec, env, &out->c[k].tally);
    free(trace);
    free(nm);
    free(student);
}

/* Contract in technique_run.h. */
void cml_trace_collect(const cml_lab_spec *spec, const cml_task_spec *t,
                       const cml_technique_env *env, cml_trace_run *out)
{
    const int n = cml_trace_cases(t, env, out);
    for (int k = 0; k < n; k++) /* one run per case: each tallied alone */
        cml_trace_collect_case(spec, env, out, k);
}

/* Contract in technique_run.h. A failed case decides (the first); else a case not checked;
 * else the verdict of the first case, with every other case's value after it. */
void cml_tech_trace(const cml_lab_spec *spec, const cml_task_spec *t, const cml_tech_spec *c,
                    const cml_technique_env *env, cml_tech_result *out)
{
    char key[CML_PATH + 1024];
    cml_ncu_runs alone = {0}, *runs = env->ncu ? env->ncu : &alone;
    const cml_trace_run *run = NULL;
    key_of(t, env, key, sizeof key);
    for (int i = 0; env->traced && i < env->ntraced && !run; i++)
        if (strcmp(key, env->traced[i].key) == 0)
            run = &env->traced[i];
    if (!run && (!runs->trace.key[0] || strcmp(key, runs->trace.key) != 0))
        cml_trace_collect(spec, t, env, &runs->trace);
    run = run ? run : &runs->trace;
    cml_tech_result each[CML_MAX_TRACE_CASES];
    int pick = -1;
    if (run->n < 1) { /* never made: nothing to judge */
        out->state = CML_TECH_NOT_CHECKED;
        snprintf(out->detail, sizeof out->detail, "not checked (no traced run)");
        return;
    }
    for (int k = 0; k < run->n; k++) {
        if (run->c[k].rc != 0)
            each[k] = run->c[k].failed;
        else
            judge(c, &run->c[k].tally, run->c[k].one, &each[k]);
        if (each[k].state == CML_TECH_FAILED && (pick < 0 || each[pick].state != CML_TECH_FAILED))
            pick = k;
        else if (each[k].state == CML_TECH_NOT_CHECKED && pick < 0)
            pick = k;
    }
    *out = each[pick < 0 ? 0 : pick];
    if (pick >= 0 || run->n < 2)
        return;
    const int m = cml_trace_measure_of(c->metric);
    for (int k = 1; k < run->n && m >= 0; k++) {
        const size_t used = strlen(out->detail);
        snprintf(out->detail + used, sizeof out->detail - used, "%s%.50s: %.17g",
                 k == 1 ? "; held also at " : ", ", strchr(run->c[k].one, ',') ?
                 strchr(run->c[k].one, ',') + 1 : run->c[k].one, run->c[k].tally.v[m]);
    }
}
