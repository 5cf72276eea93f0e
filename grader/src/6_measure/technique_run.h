/* The technique checks that run the lab binary: ncu, its CSV and the runs the checks of one lab
 * share, and the CUPTI trace. The checks' common types (cml_technique_env, cml_tech_result) are
 * technique.h's, beside it; these are the checks that need a GPU.
 * Depends on technique.h. */
#ifndef CML_TECHNIQUE_RUN_H
#define CML_TECHNIQUE_RUN_H

#include "spec.h"
#include "technique.h"

/* ncu_csv.c: the value of `metric` in ncu's --csv output (rows whose "Metric Name" is metric;
 * thousands separators allowed), with `kernel` (a POSIX ERE, NULL: any) only the rows whose
 * "Kernel Name" before its parameters matches it. metric may be a sum of up to 4 terms, "a+b".
 * A count adds up over the launches: the value is the sum of every row of every term, and the
 * return the fewest rows of any term. A per-launch property (per_launch: the spec's launch__
 * metrics, shared memory per block, block size) does not: the value is the largest launch's
 * (the rows of one "ID") sum of its terms, and the return the number of launches. 0, and a
 * value of 0, when a term has no row: a sum with a term unmeasured is not measured.
 * The harness's case marker (an empty kernel, first in each case's profiling window) is never
 * counted; its launches go to *marks (may be NULL). segment -1: every row; k >= 0: only the
 * rows after the k-th marker launch (0-based) and before the next, one case's kernels. */
int cml_ncu_value(const char *csv, const char *metric, const char *kernel, int per_launch,
                  int segment, double *value, int *marks);


/* trace_tally.c: what a trace says of the student's own calls. A call is the student's when a
 * frame of its stack lies in a function one of the student's objects defines (their .symbols
 * evidence): the harness's copies and allocations (inputs, guard regions, canaries, the copy
 * bandwidth) never are. v[m] per cml_trace_measure; first[m]: the first such call and where
 * ("cuMemcpyHtoDAsync_v2 in um_add"). */
typedef struct {
    double v[CML_TRACE_NMEASURES];
    char first[CML_TRACE_NMEASURES][160];
    int calls;           /* memory calls of the student's the trace saw */
    int windows;         /* the harness's checked calls of the task's function (profiling
                            windows that hold its case marker) */
    int later_calls;     /* the other windows after one: its warm-ups and timed repetitions */
} cml_trace_tally;

/* The tally of `trace` (the library's file, grader/trace/cml_trace.c), with `nm` (nm -n
 * --defined-only of the lab binary) and `student` (the student objects' .symbols evidence, one
 * after another). 0; -1 with why when the trace is not whole (no header, no `end`, an error
 * CUPTI reported). A copy or allocation whose call the trace did not see counts as the
 * student's: the library follows every driver call, so only lost callbacks leave one. */
int cml_trace_tally_of(const char *trace, const char *nm, const char *student,
                       cml_trace_tally *t, char *why, size_t wlen);

/* ptx_globals.c: the bytes of the module-scope `.global` variables (`__device__` and
 * `__managed__` variables, static or not; `extern` declarations hold none) that a PTX text
 * declares, the first one's name and size into first. */
double cml_ptx_global_bytes(const char *ptx, char *first, size_t flen);

/* The traced runs of a task, one per traced case (its ncu case, then each `trace_case`, issue
 * 44): what the trace checks of the task judge, each check at every case. */
typedef struct cml_trace_run {
    char key[CML_PATH + 1024]; /* binary, seed and cases: "" when never run */
    int n;                     /* cases traced */
    struct {
        char one[200];         /* "6.2,n=4194304,passes=3,time" */
        int rc;                /* 0: tally holds it; else failed says why */
        cml_trace_tally tally;
        cml_tech_result failed;
        double wall_s;         /* the run's wall time: where a grading's time goes */
    } c[CML_MAX_TRACE_CASES];
} cml_trace_run;

/* Prepares out for t's traced cases (their key, count and words, nothing run); how many.
 * Then cml_trace_collect_case runs case k (0 <= k < that count) alone: the cases of one task
 * are independent runs, so the sanitizer phase spreads them over its trace workers one by one
 * (a task's three timed cases in a row were the phase's longest path on an H200). */
int cml_trace_cases(const cml_task_spec *t, const cml_technique_env *env, cml_trace_run *out);
void cml_trace_collect_case(const cml_lab_spec *spec, const cml_technique_env *env,
                            cml_trace_run *out, int k);

/* Runs the lab binary on each of t's traced cases with the grader's CUPTI library injected,
 * holding the GPU lock, into out. Thread-safe: the sanitizer phase runs the traces beside its tools (its runs
 * measure nothing that depends on the GPU being shared), so that the technique phase after it
 * finds them made (env->traced). */
void cml_trace_collect(const cml_lab_spec *spec, const cml_task_spec *t,
                       const cml_technique_env *env, cml_trace_run *out);

/* Check c (kind trace) of task t, into out: it must hold at each traced case (a scaled bound
 * at that case's parameter); from the runs in env->traced for t's cases when there are some,
 * else from runs made now (once per task while env->ncu keeps them, in runs->trace). */
cml_tech_check cml_tech_trace;

/* technique_run.c: "1.1,n=4097" (never "time"), the case an ncu or trace check of t runs: its
 * ncu_case, else its first. */
void cml_tech_case_of(const cml_task_spec *t, char *buf, size_t len);
/* Every case t's ncu checks hold at (its first, then its further ncu_case lines), as --case
 * arguments, into cases (at most max); how many. */
int cml_tech_cases_of(const cml_task_spec *t, char cases[][200], int max);

/* The harness's case marker (common/cml_gpu.cu): an empty kernel first in each case's
 * profiling window; ncu profiles it when a run's rows must split into cases. */
#define CML_NCU_CASE_MARK "cml_case_mark"
/* The words for value v against check c's range ("<= 4096", "> limit 0", ...) into buf; 1
 * when v lies outside the range (the check fails), else 0. */
int cml_tech_range_words(const cml_tech_spec *c, double v, char *buf, size_t len);

/* technique_run.c: the checks that run the lab binary, and the ncu runs they share: plain data
 * the caller owns (zeroed to start, cml_ncu_runs_free after the lab), handed in through
 * cml_technique_env.ncu. cml_tech_ncu_lab profiles once for the ncu checks of every task of
 * spec with solved[i] set, when there are two or more (each run pays ncu's and CUDA's start),
 * into runs->lab; how many tasks it took (0: none). A check reads the rows of its own kernel
 * pattern there; when it finds none (or that run failed), cml_tech_ncu profiles the task alone,
 * once for all of its metrics on one kernel pattern, into runs->task, which the task's next
 * checks reuse (cml_ncu_task_forget drops it; cml_technique_task does, before and after a
 * task). Without runs (env->ncu NULL) every check profiles alone. */
typedef struct cml_ncu_runs {
    struct {
        char key[CML_PATH + 1024]; /* what the run was: binary, seed, kernels, metrics, case */
        int rc;
        cml_tech_result failed;    /* what the tool run said when rc != 0 */
        cml_proc_result r;
    } task;
    struct {
        const cml_task_spec *tasks[CML_MAX_TASKS]; /* whose cases the run took */
        int first[CML_MAX_TASKS], count[CML_MAX_TASKS]; /* task k's cases: --case first[k]
                                                           .. first[k] + count[k] - 1 */
        int ncases;
        int ntasks, rc;
        char why[400];             /* rc != 0: why, with ncu's first error line */
        cml_proc_result r;
    } lab;
    cml_trace_run trace; /* the task's trace run (trace_run.c), forgotten with task */
} cml_ncu_runs;
void cml_ncu_task_forget(cml_ncu_runs *runs);
void cml_ncu_runs_free(cml_ncu_runs *runs);
int cml_tech_ncu_lab(const cml_lab_spec *spec, const int *solved, const cml_technique_env *env);
cml_tech_check cml_tech_ncu;

/* ncu_verdict.c: an ncu check's verdict from the rows of a run. A check holds at every one of
 * its task's cases (cases[0..n-1], cml_tech_cases_of), each read from its own window of the
 * run (the rows after its case marker) when there are several or the check is `*`; a single
 * case of a named kernel reads every row of that kernel, as before markers were profiled.
 * cml_ncu_from_lab_run: from the lab's shared run when it holds a row of c for each of t's
 * cases: 1 with out filled, else 0 (the task's own run decides). cml_ncu_judge_rows: from the
 * task's own run r, every outcome into out (not checked when the rows cannot say). */
int cml_ncu_from_lab_run(const cml_tech_spec *c, const cml_task_spec *t, char cases[][200],
                         const cml_ncu_runs *runs, cml_tech_result *out);
void cml_ncu_judge_rows(const cml_tech_spec *c, const cml_proc_result *r, char cases[][200],
                        int n, cml_tech_result *out);

#endif /* CML_TECHNIQUE_RUN_H */
