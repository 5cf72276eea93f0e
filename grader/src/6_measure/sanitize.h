/* compute-sanitizer on solved tasks (sanitize_run.c): a job is one tool on the small untimed
 * cases of one or more tasks of a lab (one process: each run pays the tool's and CUDA's start),
 * run through cml_tool_run (tool_run.h: the lab confined again by
 * cml-confine, the verdict read from the tool's own log). Jobs run concurrently in a pool, in one
 * phase after every lab's timed runs (sanitize_phase.c): they share the GPU, so none may run
 * while anything is timed. */
#ifndef CML_SANITIZE_H
#define CML_SANITIZE_H

#include <stddef.h>
#include <stdint.h>

#include "cml.h"
#include "lab_run.h" /* cml_run_opts */

#define CML_SANITIZE_SMALL (1u << 16) /* output elements of a case the tools run, when the task
                                         has one this small: racecheck costs ~2300x a kernel */
#define CML_SANITIZE_ERROR_EXIT "99"  /* --error-exitcode: without it the tool exits 0 on errors */

/* One run of one tool on the cases of some tasks of one lab. */
typedef struct {
    const cml_lab_spec *lab; /* its student files: only an error located in one costs points */
    const char *bin;       /* the student's lab binary (copied into a fresh run folder) */
    const cml_task_spec *tasks[CML_MAX_TASKS]; /* whose cases it runs, in this order */
    int ntasks;
    int tool;              /* 0 .. CML_SANITIZERS - 1 (cml_sanitizer_name) */
    uint64_t seed;
    const char *work_dir;  /* where run folders are made */
    double timeout_s;      /* one run of the lab binary; the tool gets 3x (tool_run.c) */
    cml_tech_result out;   /* PASSED, FAILED ("memcheck: <first error> at file.cu:23 in k"),
                              or NOT_CHECKED when the tool is missing or failed on its own */
    int split;             /* with several tasks: the verdict may be one task's doing (an error,
                              or the tool or lab failing), so run them again one by one */
    double wall_s;
} cml_sanitize_job;

/* The cases the tools run for t ("1.1,n=4097", never timed), into cases: its `sanitize_case`
 * lines when it has any; else its untimed cases (drawn ones included) whose output has at most
 * CML_SANITIZE_SMALL elements, or, when none is that small, the smallest untimed case; with
 * `sanitize_drawn`, every drawn case after those, whatever its size. How many (0: every case
 * is timed). */
int cml_sanitize_cases(const cml_task_spec *t, char cases[][200], int max);

/* Runs job j: `compute-sanitizer --tool T --error-exitcode 99 ./lab --seed S --no-output
 * --case ...` with every case of its tasks (at most CML_MAX_CASES: the caller groups tasks so
 * that they fit). Thread-safe: the pool calls it from its workers. */
void cml_sanitize_job_run(cml_sanitize_job *j);

/* Runs jobs[0..n-1] on `workers` threads at once (1: one after another). */
void cml_sanitize_pool(cml_sanitize_job *jobs, int n, int workers);

/* How many jobs run at once: $CML_SANITIZE_JOBS (1..64) when set, else one per core, at
 * least 1 and at most 16 (H100, 16 cores: 28 runs one after another ~65 s, 8 at a time 17.4 s;
 * nothing is timed while they run). */
int cml_sanitize_workers(void);

/* The first error of a compute-sanitizer log located in one of `files` (the lab's student
 * files), as one line with its location tidied: "Invalid __global__ write of size 4 bytes at
 * coalescing.cu:23 in copyCoalesced"; 1. When no error lies in those files, the log's first
 * error ("" when none) and 0: an error in the harness is not the student's, and costs nothing. */
int cml_sanitizer_errors(const char *log, const char *const *files, int nfiles, char *buf,
                         size_t len);

/* The tool's own failure in a compute-sanitizer log, as the line it printed ("Internal
 * Sanitizer Error: ...", "... not supported ...", an "Error: " of its own); 1 when there is one.
 * A run that ended early with such a line is the tool's failure, "not checked", never a dodge;
 * the lab's own early end (its exit, nonzero or not) prints none. */
int cml_sanitizer_tool_failure(const char *log, char *buf, size_t len);

/* sanitize_phase.c: compute-sanitizer after every lab's timed runs, one run per lab and tool (task
 * by task again when a run with several tasks finds an error). cml_sanitize_mark, as a lab's result
 * is filled: each task's tools "not run" and why (a case failed, off in its spec, or waiting for
 * the phase: what the reports say when the grading ends before it). cml_sanitize_phase: every tool
 * on every solved task, bins[l] being lab l's student binary (NULL: none), all at once in a pool; a
 * tool left out of needed[l] (cml_sanitizers_needed; needed NULL: all) passes without a run, as
 * having nothing to check; an error makes the task `sanitizer` with no points once published
 * (cml_publish_grading, after the phase), a tool missing or failing on its own is "not checked";
 * prints "sanitizers: N runs in X s" to o->progress. Without a GPU, or with CML_SANITIZE=off,
 * nothing runs and the report says so. beside (NULL: nothing) is work that runs on a thread of its
 * own while the tools run, under the same hold of the GPU lock, and has ended when the phase
 * returns; it runs only when the tools do. */
typedef struct {
    void (*fn)(void *arg);
    void *arg;
} cml_beside;
void cml_sanitize_mark(cml_lab_result *lab);
void cml_sanitize_phase(cml_grading *g, const char *const bins[], const unsigned needed[],
                        const cml_run_opts *o, const cml_beside *beside);

#endif /* CML_SANITIZE_H */
