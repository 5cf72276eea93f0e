/* The grader's shared types: a lab's grading spec, what one run of a lab binary reported,
 * and the graded result of each task: the findings the stages record and the verdict the
 * judge publishes (docs/ARCHITECTURE.md). Each step has its own folder and its own header.
 * The grader never calls CUDA: the only CUDA processes are the lab binaries it execs.
 * Depends on status.h only. The steps' functions live in their own headers (spec.h, records.h,
 * verify.h, speed.h, report.h, ...), which include this one; it includes none of them back. */
#ifndef CML_H
#define CML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "status.h"

#define CML_MAX_TASKS 16
#define CML_MAX_CASES 32     /* cases of one task (4.1: every alignment pair, 26 with its draws) */
/* --case arguments of one lab run: two tasks' cases or more, so that a lab of 25 cases runs
 * once (a run's start costs the GPU 0.2-0.4 s, grade_shared.c); the harness takes 64 */
#define CML_MAX_RUN_CASES 32
/* a task alone in a run (a crash in a shared one sends each task alone) takes all its cases */
_Static_assert(CML_MAX_CASES <= CML_MAX_RUN_CASES, "a task's cases must fit one lab run");
#define CML_MAX_DRAWS 6
#define CML_MAX_FILES 8
#define CML_MAX_MISMATCH 5 /* first mismatches kept for the report */
#define CML_MAX_TECH 8     /* technique checks per task */
#define CML_MAX_TASK_API 6 /* `api` names per task */
#define CML_SANITIZERS 4   /* compute-sanitizer's tools: memcheck, racecheck, synccheck,
                              initcheck, in that order (spec_sanitize.c names them) */
#define CML_MEMCHECK 0
#define CML_RACECHECK 1
#define CML_SYNCCHECK 2
#define CML_MAX_SANITIZE_CASES 6 /* `sanitize_case` lines per task */
#define CML_MAX_NCU_CASES 5      /* `ncu_case` lines per task (4.1: four bases and its timed n) */
#define CML_MAX_TRACE_CASES 4    /* cases a task's trace checks hold at: the one its ncu follows
                                    and up to 3 `trace_case` lines (issue 44) */

/* ---- the spec (grader/specs/NN_name.spec), see docs/SPEC.md ---- */
typedef struct {
    char text[128];      /* the case as passed to --case, e.g. "rows=8191,cols=8193" */
    int timed;           /* the spec line ended in "time" */
    /* parsed parameters; 0 when absent */
    uint64_t n, rows, cols, offset, stride;
} cml_case_spec;

/* A technique check (technique.c): proves how the task was solved, not only that it is right. */
enum cml_tech_kind { CML_TECH_PTX, CML_TECH_SASS, CML_TECH_FORBID, CML_TECH_NCU, CML_TECH_TRACE,
                     CML_TECH_PROBE };

typedef struct {
    enum cml_tech_kind kind;
    char scope[64];      /* ptx, sass: only inside kernels whose (mangled) name contains this;
                            calls: the host function whose references are checked */
    char file[64];       /* forbid, probe: the student file */
    char pattern[160];   /* ptx, sass, forbid: POSIX ERE; ncu: kernel-name regex; probe: the
                            C++ constant expression that must hold after the file */
    int task_kernels;    /* ncu `*`: every kernel the task's case launched, nothing else (the
                            harness's profiling window around the task's call; pattern ".*") */
    char metric[128];    /* ncu: the metric (or a sum, "a+b") read from the profiled kernels;
                            trace: what the student's calls did (trace_run.c's names) */
    int per_launch;      /* ncu: launch__ metrics, a property of each launch: the largest
                            launch's value, not a sum over launches (spec_ncu decides) */
    double min, max;     /* ncu, trace: the range of values that pass (-HUGE_VAL, HUGE_VAL:
                            none) */
    char min_per[16], max_per[16]; /* trace: a bound written `<k>*<param>` ("8*n"): min (max)
                            is k, times the param of each traced case ("": a plain number) */
    char what[160];      /* what the check proves, for the report */
} cml_tech_spec;

typedef struct {
    char id[16];         /* "1.1" */
    char title[160];
    char check[32];      /* CPU reference name: copy, transpose, offset, stride, ... */
    double rel_tol;      /* 0 = bit-exact */
    double points;       /* correctness points */
    double perf_points;  /* 0 = not timed for points */
    double full_ratio, zero_ratio;
    /* practice mode (no reference solution, docs/ARCHITECTURE.md "Practice grade"): the
     * reference's fraction of the bound (copy or pinned-link bandwidth), geometric mean over
     * the timed cases, measured on the course GPUs; 0 = none given: speed not judged */
    double practice_fraction;
    char hint[512];
    int ncases;
    cml_case_spec cases[CML_MAX_CASES];
    int ntech;           /* technique checks (ptx, sass, forbid, ncu, trace) */
    cml_tech_spec tech[CML_MAX_TECH];
    double technique_points; /* awarded when every check passes or could not be checked */
    char ncu_case[128];  /* the case ncu profiles and the trace follows ("" = the first
                            case), without "time" */
    /* further `ncu_case` lines: every ncu check of the task must hold at each of these too, in
     * the same ncu run (4.1's misaligned bases, issue 44: a copy that took float4 only at offset
     * 0 kept its points while only offset 0 was profiled) */
    int nncu_also;
    char ncu_also[CML_MAX_NCU_CASES - 1][128];
    /* `trace_case` lines: further cases every trace check of the task must hold at, each its
     * own traced run (issue 44: a 6.2 that skipped its copy out from two passes on, a 6.3 that
     * fused its passes above 2^20, passed the one small case traced) */
    int ntrace_also;
    char trace_also[CML_MAX_TRACE_CASES - 1][128];
    int ndraws;          /* `draw` lines: one more untimed case each, drawn from the seed */
    char draws[CML_MAX_DRAWS][128]; /* "rows=1..3000,cols=1..3000", "n=1024..1048576/1024" */
    int drawn;           /* cases[ncases - drawn ..] were drawn (cml_spec_draw) */
    unsigned sanitize_off; /* bit k: compute-sanitizer tool k is not run (`sanitize`); 0: all */
    int nsanitize_cases; /* `sanitize_case` lines: the cases the tools run (0: chosen) */
    char sanitize_cases[CML_MAX_SANITIZE_CASES][128];
    int sanitize_drawn;  /* `sanitize_drawn`: the drawn cases go to the tools too, any size */
    /* `api`: the lab's API functions (link_api) the harness calls for this task. A link rule
     * broken in code that only some API functions reach costs the tasks that call them
     * (linkrules.h); 0 names: every API function, so such a break costs this task too. */
    int napi;
    char api[CML_MAX_TASK_API][64];
} cml_task_spec;

/* Link rules (linkrules.h): the names a student object may define and call. The lab's own
 * names come from its spec (`link_api`, `link_calls`), the shared ones from
 * grader/specs/link.rules; patterns are fnmatch(3) globs ("cudaMemcpy*"). */
#define CML_LINK_NAMES 640
enum cml_link_list {
    CML_LINK_API,       /* spec link_api: functions the harness calls (top-level name) */
    CML_LINK_CALLS,     /* spec link_calls: extra undefined symbols this lab may reference */
    CML_LINK_COMMON,    /* link.rules calls: undefined symbols every lab may reference */
    CML_LINK_INTERNAL,  /* link.rules internal: definitions nvcc and the C++ runtime emit */
    CML_LINK_DENY,      /* link.rules deny: refused calls, with their own rule name */
    CML_LINK_HOOK,      /* link.rules hooks: exit-handler registrations (atexit ...) */
    CML_LINK_REGISTRAR, /* link.rules registrar: the only code allowed to register hooks or
                           sit in .init_array (nvcc's __sti____cudaRegisterAll) */
    CML_LINK_INITIALIZER, /* link.rules initializer: all that a library's static initializer
                             in .init_array may reference (<iostream>'s std::ios_base::Init) */
    CML_LINK_RUNTIME,   /* link.rules runtime: the CUDA runtime API, judged by effect: every
                           call allowed but what a deny (here or the spec's link_deny) names */
    CML_LINK_LESSON     /* spec link_deny: calls that would skip this lab's lesson, each with
                           the spec's reason (cml_link_rules.reasons) */
};

typedef struct {
    char pattern[72];
    char group[24];      /* deny: the rule's name ("process-control"); else "" */
    int list;            /* enum cml_link_list */
    int reason;          /* CML_LINK_LESSON: its reason, reasons[reason] */
} cml_link_name;

#define CML_LINK_REASONS 8
typedef struct {
    int common_loaded;   /* link.rules was read: without it the rules are not enforced */
    int n;
    cml_link_name names[CML_LINK_NAMES];
    int nreasons;        /* the spec's link_deny lines: why each refuses its names */
    char reasons[CML_LINK_REASONS][200];
} cml_link_rules;

typedef struct {
    char lab[64];        /* "01_coalescing" */
    char title[128];
    int nfiles;
    char files[CML_MAX_FILES][64];    /* whitelisted student files */
    int nharness;
    char harness[CML_MAX_FILES][64];  /* pristine files from labs/<lab>/ */
    int nreference_files;
    char reference_files[CML_MAX_FILES][64]; /* from solutions/<lab>/, staged beside the
                                                reference only (bench code a student's file
                                                must not be able to include) */
    char note[128];      /* lecture note path, relative to the repo root */
    double timeout_s;
    cml_link_rules link; /* link_api, link_calls, plus link.rules (cml_load_specs) */
    int ntasks;
    cml_task_spec tasks[CML_MAX_TASKS];
} cml_lab_spec;

/* ---- what one run of a lab binary reported (parsed from the CML_RESULT_FD file) ---- */
enum cml_case_status { CML_CASE_MISSING = 0, CML_CASE_OK, CML_CASE_TODO, CML_CASE_ERROR };

/* What one timed repetition left in its output (common/cml_rand.h, cml_evidence_term and
 * cml_evidence_weight): the grader recomputes it for a sample of repetitions (verify_reps.c). */
#define CML_MAX_REPS 50
typedef struct {
    uint64_t hash;      /* sum mod 2^64 of the exact terms */
    double wsum, wabs;  /* weighted sums of out and |out| */
} cml_rep_evidence;

typedef struct {
    enum cml_case_status status;
    char task[16];
    char file[256];      /* output file name, relative to the run's out-dir */
    uint64_t elems;
    int elem_bytes;
    char msg[512];
    int has_time;
    double ms, host_ms, spread;
    int reps;
    uint64_t bytes;
    int nrep;                          /* rep records read: one per timed repetition */
    cml_rep_evidence rep[CML_MAX_REPS];
} cml_case_record;

typedef struct {
    int hello, done;
    int nodevice;              /* the probe found no usable GPU */
    char nodevice_msg[256];    /* why: "cudaErrorNoDevice: no CUDA-capable device is detected" */
    char device_name[128];
    int cc, sms;
    uint64_t l2_bytes, mem_bytes;
    int driver, runtime, clock_mhz;
    double copy_gbps;
    double link_h2d_gbps, link_d2h_gbps; /* pinned cudaMemcpy each way (linkbw), 0: not measured */
    int ncases;
    cml_case_record cases[CML_MAX_RUN_CASES];
    int ntodos;
    char todos[CML_MAX_TASKS][256];   /* "1.1: write the coalesced copy kernel" */
    int nnotes;
    char notes[64][256];
    int tampered;              /* a record no honest harness writes (records_claims.c) */
    char tamper[320];          /* the first one: "wrote a 'case' record after 'done' (line 14)" */
} cml_run_record;

/* What the grader asked one run of a lab binary for: the task and `time` flag of each
 * --case, in order. Records about anything else are forged. */
typedef struct {
    int n;
    char task[CML_MAX_RUN_CASES][16];
    int timed[CML_MAX_RUN_CASES];
} cml_run_asked;

/* ---- how a process ended (filled by the sandbox, run.c) ---- */
typedef struct {
    int started;          /* exec succeeded */
    int exited, exit_code;
    int signaled, signal;
    int timed_out;
    int watch_stopped;    /* killed because the caller's watch said so (cml_run_watched) */
    double wall_s;
    char *output;         /* captured stdout+stderr, NUL-terminated, at most the cap */
    size_t output_len;
    size_t output_dropped;/* bytes read beyond the cap and discarded */
    /* filled by cml_run_sandboxed (sandbox.h) */
    int confined;         /* ran inside the sandbox's Landlock domain */
    int mem_exceeded;     /* killed: its processes passed their resident-memory cap */
    int strays;           /* descendants alive after it ended (killed by the supervisor) */
    uint64_t peak_rss;    /* the process tree's largest resident size seen, bytes */
    uint64_t mem_cap;     /* the cap it ran under (resident bytes of its tree) */
    char unconfined[160]; /* why it ran without Landlock, "" when confined */
} cml_proc_result;

/* ---- the verdict of one task ---- */
typedef struct {
    uint64_t index;
    double expected, got;
} cml_mismatch;

typedef struct {
    int passed;
    char reason[512];           /* why it failed: "3 of 4097 elements differ", "TODO(1.1): ..." */
    uint64_t nbad;
    int nmis;
    cml_mismatch mis[CML_MAX_MISMATCH];
} cml_case_verdict;

/* The outcome of one technique check. NOT_CHECKED (the grader's environment could not check
 * it: no GPU, no ncu, no permission) counts as passed; NOT_RUN (a case failed) does not. */
enum cml_tech_state { CML_TECH_NOT_RUN = 0, CML_TECH_PASSED, CML_TECH_FAILED,
                      CML_TECH_NOT_CHECKED };

typedef struct {
    enum cml_tech_state state;
    char detail[448];           /* "found: ld.global.v4.f32 ...", "not checked (ncu not found)" */
} cml_tech_result;

/* What a task's evidence earned of each part of its points, before its status decides which
 * parts count (cml_judge, judge.c). */
typedef struct {
    int cases;                  /* cases whose correctness points count: those that passed,
                                   none for a run the pipeline found cut short */
    double perf;                /* fraction of the performance points */
    int technique;              /* every technique check passed or could not be checked */
} cml_credit;

/* Why a task got no verdict of its own cases: facts a stage records; the judge's table
 * (judge.c) names the status each one gives. */
enum cml_stop {
    CML_STOP_NONE = 0,       /* its cases ran and were verified */
    CML_STOP_NOT_BUILT,      /* the student's side did not stage or build, or a link rule
                                refused code the task calls */
    CML_STOP_NOT_HANDED_IN,  /* the lab's student file is not in the submission */
    CML_STOP_NO_GPU,         /* compiled, not run: no GPU here */
    CML_STOP_NOT_RUN,        /* the grader could not run it (a run folder, memory) */
    CML_STOP_CRASHED,        /* its run ended without results for its cases */
    CML_STOP_TIMED_OUT       /* its run was killed at the lab's timeout */
};

/* What a task's failed cases showed (bits): facts a stage records; the judge's table names the
 * status of the first that holds. */
enum cml_fault {
    CML_FAULT_TODO = 1,      /* its run reached a TODO stub of the task (the harness's word) */
    CML_FAULT_GUARD = 2,     /* a failed case touched memory outside its buffers (a guard
                                region's fault or changed canary) */
    CML_FAULT_ERROR = 4,     /* the harness reported another CUDA error for a failed case */
    CML_FAULT_NO_RESULT = 8, /* a failed case has no result, from a run that never said done */
    CML_FAULT_WRONG = 16     /* a case failed (set whenever any case failed) */
};

/* What the stages found about one task, beside its case verdicts (cases), its credit, its
 * timings, its technique checks (tech) and its sanitizer runs (sanitizers). Stages only record
 * here (and ask findings.h what to run next); cml_judge (judge.h) turns a task's findings into
 * its status, points and detail by one precedence table, and publish.c alone writes those. */
typedef struct {
    enum cml_stop stopped;      /* why the task got no verdict of its own cases; NONE: it did */
    char tampered[320];         /* how the lab process forged a record; "": it did not */
    unsigned faults;            /* what its failed cases showed (enum cml_fault bits); 0:
                                   every case passed */
    char why[1024];             /* the words of `stopped`, of `faults`, or of the speed */
    char note[400];             /* what happened after the verdict ("measured twice, ...",
                                   "then the lab binary ..."), said after why */
    int checked;                /* the technique checks ran (the task was solved): tech[]
                                   counts */
} cml_findings;

typedef struct {
    const cml_task_spec *spec;
    cml_findings found;         /* what the stages found: the judge reads it */
    int cases_passed;
    cml_case_verdict cases[CML_MAX_CASES];
    int timed;                  /* a timed case passed and both times are known */
    double ms, ref_ms, ratio;   /* student, reference, student/reference */
    double case_ms[CML_MAX_CASES]; /* the student's time of each timed case (the spec's order;
                                      0: not timed), for ncu's `timed_ns` bounds */
    double gbps, copy_fraction; /* achieved bandwidth and its fraction of copybw */
    int implausible;            /* faster than the copy bandwidth allows: flagged */
    double correctness_score, perf_score, technique_score, score, max_score;
    cml_tech_result tech[CML_MAX_TECH]; /* one per spec->tech, filled by technique.c */
    cml_tech_result sanitizers[CML_SANITIZERS]; /* one per tool (sanitize_phase.c) */
    enum cml_status status;     /* published with the points and the detail (publish.c) */
    cml_credit credit;          /* what the evidence earned; the status decides what counts */
    char detail[1024];          /* one line for the report (reason of the first failure) */
    size_t output_len;          /* the task's run: stdout+stderr bytes kept (at most the cap) */
    size_t output_dropped;      /* and bytes beyond the cap, drained and discarded */
} cml_task_result;

typedef struct {
    const cml_lab_spec *spec;
    int built;                  /* student build succeeded */
    int stage_refused;          /* the student's files were refused before any build (a link,
                                   two candidates): build_log says why, no compiler ran */
    char *build_log;            /* compiler output (capped), NULL if none */
    int ref_built;
    int practice;               /* no reference solution: speed judged in practice mode */
    int ref_calibrated;         /* reference runs taken from the calibration, not run here */
    cml_run_record ref_run;     /* the reference solution's timings, same GPU, same grading */
    int ntasks;
    cml_task_result tasks[CML_MAX_TASKS];
    unsigned char ran[CML_MAX_TASKS]; /* the task's cases ran here: its technique checks are due */
    double score, max_score;
    double wall_s;
} cml_lab_result;

/* ---- one grading: what every report is written from ---- */
#define CML_MAX_LABS 8
#define CML_MAX_OTHERS 2 /* other students' folders a grading protects (`grade --protect`) */
typedef struct {
    uint64_t seed;
    char submission[512];
    char others[CML_MAX_OTHERS][512]; /* those folders, "" for none: a regrade protects them too */
    char student[256];          /* the student's name as given (grade --student), "" if none */
    char root[512], out_dir[512]; /* the repository and --out, real paths: the student's
                                     reports name nothing under them (report_paths.c) */
    char started_at[32];        /* ISO 8601 UTC */
    int have_gpu;
    char no_gpu_reason[256];
    char gpu_name[128];
    int cc, sms, driver, runtime;
    uint64_t l2_bytes, mem_bytes;
    char nvcc_version[64];
    char host[64];
    char sandbox_missing[256];  /* protections this machine could not enforce, "" for none */
    double wall_s;
    int nlabs;
    cml_lab_result labs[CML_MAX_LABS];
    cml_lab_spec *specs; /* this grading's copy of the specs, drawn cases added; owned */
    /* the sanitizer phase, after every lab's timed runs (sanitize_phase.c) */
    enum { CML_SANITIZE_PENDING = 0, CML_SANITIZE_DONE, CML_SANITIZE_SKIPPED } sanitize_phase;
    char sanitize_note[160];    /* why it was skipped ("no GPU", "CML_SANITIZE=off") */
    int sanitize_runs, sanitize_workers;
    double sanitize_s;          /* the phase's wall time */
    /* the calibration the reference timings came from (calibration.h); "" when measured
     * live; calibration_note says why a given calibration was not used */
    char calibration_id[17];
    char calibration[512];
    char calibration_note[320];
    int practice;               /* a lab was graded in practice mode (no reference solution) */
    double score, max_score;
} cml_grading;

/* ---- the pipeline's steps: each has its own header (spec.h, records.h, verify.h, speed.h,
 * report.h, grade.h, ...). Only the sandbox's entry points are still declared here: most
 * steps run processes through them, and run.h and sandbox.h build on this header. ---- */

/* run.c: the sandbox. Fork, new process group, rlimits, exec argv with extra environment
 * entries (NULL-terminated "K=V" list), stdout+stderr captured up to output_cap bytes,
 * result_fd (or -1) passed to the child under the same number, wall-clock timeout. */
int cml_run(char *const argv[], char *const extra_env[], const char *cwd, int result_fd,
            double timeout_s, size_t output_cap, cml_proc_result *out);
/* The same for a program that runs student code: confined by the sandbox (sandbox.h) in the
 * fresh folder `scratch` (its working folder and the only place it may write), watched by a
 * supervisor that kills every descendant when it ends. A relative argv[0] is taken from
 * scratch. tool: NULL, or the folders of a tool it runs under (ncu, compute-sanitizer). */
typedef struct {
    const char *root;   /* the tool's install folder: readable and executable */
    const char *report; /* NULL, or a fresh folder for the tool's own output (its log): the
                           tool may write it, the lab it starts (cml-confine) may not */
    const char *tmp;    /* NULL, or the tool's TMPDIR (under /tmp, which the tool may write),
                           shared by runs that must see each other's files: ncu's library in
                           each lab takes its profiling lock there, so cml-confine (--tmp) lets
                           the lab write it and keep it as TMPDIR */
} cml_tool_dirs;
int cml_run_sandboxed(char *const argv[], char *const extra_env[], const char *scratch,
                      const cml_tool_dirs *tool, int result_fd, const uint64_t *seed,
                      double timeout_s, size_t output_cap, cml_proc_result *out);
/* A lab run that waits for its turn: cml_run_sandboxed with a seed, but the lab is started at
 * once and starts CUDA (CML_SEED_WAIT) while take(arg) waits for the GPU; then its seed is
 * passed and its time limit starts (wall_s counts from there). turn NULL: the seed is there
 * from the start, as cml_run_sandboxed gives it. A lab process spends about
 * 0.13 s of its start beside the run before it instead of in its turn (H100,
 * scripts/exp/turn-start.sh). */
typedef struct {
    void (*take)(void *arg);
    void *arg;
} cml_run_turn;
int cml_run_sandboxed_turn(char *const argv[], const char *scratch, int result_fd,
                           uint64_t seed, const cml_run_turn *turn, double timeout_s,
                           size_t output_cap, cml_proc_result *out);
void cml_proc_result_free(cml_proc_result *r);

#endif /* CML_H */
