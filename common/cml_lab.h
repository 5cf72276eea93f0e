/* The harness library every lab binary uses. A lab's harness.cu declares a table of tasks, each
 * with a run function that allocates, fills inputs and hands the student's launch to
 * cml_run_case(); the library parses the command line, drives the cases, poisons, checks,
 * writes outputs, times, and speaks the result protocol (docs/PROTOCOL.md). */
#ifndef CML_LAB_H
#define CML_LAB_H

#include "cml_check.h"
#include "cml_rand.h"

#include <stddef.h>
#include <stdint.h>

/* ---- the TODO mechanism: every unfinished wrapper in a skeleton calls this, then returns ---- */
void cml_todo(const char *task, const char *what);
#define CML_TODO(task, what) cml_todo((task), (what))

/* ---- a lab: its tasks and the cases they run ---- */
struct cml_task;

#define CML_MAX_KEYS 8
typedef struct cml_case {
    int k;                      /* index among the --case options: names DIR/case<k>.bin */
    const struct cml_task *task;
    char text[128];             /* the spec as given, e.g. "1.1,n=4097,time" */
    uint64_t n, rows, cols;     /* the task's sizes, each >= 1 when the task takes it */
    uint64_t offset, stride;    /* default 0 and 1 */
    int timed;                  /* "time" was given */
    int nkeys;                  /* every key=value as given, for keys a lab adds */
    char keys[CML_MAX_KEYS][16];
    uint64_t values[CML_MAX_KEYS];
} cml_case;

typedef struct cml_task {
    const char *id;             /* "1.1": the TODO(1.1) in the skeleton, the task in the spec */
    const char *kernel;         /* short name for tables: "copyCoalesced" */
    const char *keys;           /* keys a case may give, comma-separated: "n" or "rows,cols" */
    const char *defaults;       /* self-learner cases, space-separated: "rows=8192,cols=8192" */
    void (*run)(const cml_case *c); /* allocates, fills inputs, calls cml_run_case() */
    /* element i of the right output, for self-checks (never used under the grader) */
    float (*expect)(const cml_case *c, uint64_t seed, uint64_t i);
} cml_task;

typedef struct cml_lab {
    const char *name;           /* "01_coalescing": the hello record */
    const char *title;
    const cml_task *tasks;      /* the graded tasks, in order */
    int ntasks;
    void (*bench)(void);        /* --bench: the lab's table, through cml_table_run() */
    void (*extras)(void);       /* self-learner mode, after the task table (NULL: none) */
} cml_lab;

/* The whole main() of a lab binary: `return cml_main(argc, argv, &lab);`. */
int cml_main(int argc, char **argv, const cml_lab *lab);

/* A case's value of a key a lab adds (not n/rows/cols/offset/stride), or `fallback`. */
uint64_t cml_case_key(const cml_case *c, const char *key, uint64_t fallback);

/* ---- helpers for a task's run function ---- */
cudaStream_t cml_stream(void);  /* the stream every launch and every timer uses */
uint64_t cml_seed(void);
int cml_sm_count(void);

/* Device floats, freed when the case ends. When memory is short the case is reported (error in
 * a graded case, a skipped row in a table) and NULL comes back: the run function returns. */
float *cml_alloc(size_t elems);
/* The same in pinned host memory (flags: cudaHostAllocDefault or cudaHostAllocMapped), between
 * pages no one may touch, so that a kernel's access past either end faults. */
float *cml_alloc_host(size_t elems, unsigned flags);
/* The task is given exactly `elems` floats from p, which lies inside a buffer of cml_alloc or
 * cml_input: under compute-sanitizer, memcheck reports any access to the rest of that buffer
 * at byte precision, before p as after its end (cml_exact.cpp). Elsewhere it does nothing. */
void cml_exact(const float *p, size_t elems);
/* Ends the case in progress with an error (a graded case) or skips its row (a table). */
__attribute__((format(printf, 1, 2))) void cml_case_fail(const char *fmt, ...);
/* cml_alloc, then element i = cml_rand_f32(seed, stream, i), generated on the GPU. */
float *cml_input(size_t elems, uint32_t stream);
/* The same over a task's wider value domain (issue 44), each the generator of cml_rand.h that
 * the grader's check of the task calls: CML_VALUES_EVERY_BIT, every float bit pattern (-0,
 * infinities, NaNs with payloads, subnormals: a move compared bit for bit, cml_rand_f32_all);
 * CML_VALUES_FINITE, every kind of finite float (signed zeros, subnormals, the top binade:
 * arithmetic compared bit for bit, cml_rand_f32_any). */
typedef enum { CML_VALUES_NORMAL, CML_VALUES_EVERY_BIT, CML_VALUES_FINITE } cml_values;
float *cml_input_of(size_t elems, uint32_t stream, cml_values kind);
/* An input made by a fill of the lab's own: fill(p, elems, seed, arg, stream) writes p from
 * the seed. Every input is filled again from its own seed before each timed repetition of a
 * graded case, so that every repetition computes something new (and is verified). */
typedef void (*cml_fill_fn)(float *p, size_t elems, uint64_t seed, uint64_t arg,
                            cudaStream_t stream);
float *cml_input_with(size_t elems, cml_fill_fn fill, uint64_t arg);
/* Every input a task only reads must hold, after the checked launch, exactly what its fill
 * wrote (issue 44; common/cml_inputs.cu), or the case fails naming it. Whole buffers: an
 * input is never an output or updated in place. cml_input_name: the name a failure gives
 * `input` (the task's argument, "p.vx"); unnamed, "the input" or "input 2 of 8".
 * cml_input_copy: `copy`, host memory (pinned, mapped, managed) the task is handed as `name`,
 * holds input's floats (the harness copies them there before every launch): it is held to the
 * same rule. */
void cml_input_name(const float *input, const char *name);
void cml_input_copy(const float *copy, const float *input, const char *name);

/* Something to launch on a stream: a student's wrapper or a harness kernel. */
typedef struct {
    void (*fn)(void *ctx, cudaStream_t s);
    void *ctx;
} cml_launcher;

template <class F> cml_launcher cml_launcher_of(F &f)
{
    return cml_launcher{[](void *ctx, cudaStream_t s) { (*static_cast<F *>(ctx))(s); }, &f};
}

/* Runs one case: poisons d_out, launches once, stops at a TODO, synchronizes and checks, writes
 * DIR/case<k>.bin and the case record; times it when asked (or always in a table), counting
 * `bytes` read + written. */
void cml_run_case_l(const cml_case *c, float *d_out, size_t out_elems, uint64_t bytes,
                    cml_launcher launch);
template <class F>
void cml_run_case(const cml_case *c, float *d_out, size_t out_elems, uint64_t bytes, F launch)
{
    cml_run_case_l(c, d_out, out_elems, bytes, cml_launcher_of(launch));
}

/* ---- tables (self-learner mode and --bench) ---- */
/* Runs `task` (graded or a harness-only baseline) on one case spec as a table row. */
enum cml_row_status { CML_ROW_RAN, CML_ROW_TODO, CML_ROW_SKIPPED };
enum cml_row_status cml_table_run(const cml_task *task, const char *spec);
void cml_table_title(const char *title);   /* a line of its own above the next rows */
double cml_copy_gbps(void);                 /* this run's cudaMemcpy device-to-device GB/s */

/* Timing as the harness does it: 2 warm-ups, then 10 to 50 repetitions, each after poisoning
 * d_poison (if any) and flushing L2, until (p75 - p25) / median < 2%; medians reported. */
typedef struct {
    double ms, host_ms, spread;
    int reps;
} cml_timing;
cml_timing cml_time(cml_launcher launch, void *d_poison, size_t poison_bytes);


/* ==== host-involved tasks (labs 06 zero-copy and 07 unified memory) ====================
 * The data starts and ends in host memory (pinned, mapped or managed), so the time that
 * counts is end to end: the host clock from just before the launch to after a device
 * synchronize (and, when asked, after the host has touched the output), transfers included.
 * Outputs are read by the host directly, never through cudaMemcpy. */
typedef struct {
    uint64_t h2d_bytes, d2h_bytes; /* what the case must carry over the host link, each way */
    int touch_output;              /* timed region ends after the host reads 1 float per 4 KiB */
    cml_launcher reset;            /* run untimed before every launch (restore inputs from the
                                      case's device inputs, cml_input); fn NULL: none */
    /* guard_cpu: the graded checked launch and every timed repetition run with the output
     * read-only for the CPU (pinned or managed, a whole allocation, or a harness buffer at any
     * size), so a task whose result the host's cores wrote fails: the GPU must do the work.
     * For tasks whose work is kernels (and copies) writing that memory. */
    int guard_cpu;
} cml_host_io;

/* Like cml_run_case_l for an output in host-visible memory: poisons h_out on the host, runs
 * `reset` then the launch, stops at a TODO, checks, writes the output from host memory, and
 * times end to end when asked (always in a table). A launch may end the case itself with
 * cml_case_fail() (a technique check). */
void cml_run_case_host_l(const cml_case *c, float *h_out, size_t out_elems, const cml_host_io *io,
                         cml_launcher launch);
template <class F>
void cml_run_case_host(const cml_case *c, float *h_out, size_t out_elems, const cml_host_io *io,
                       F launch)
{
    cml_run_case_host_l(c, h_out, out_elems, io, cml_launcher_of(launch));
}

/* For a run function that calls student code before the launch (an allocator, say): forget any
 * TODO seen so far, then, after the call, report the case as todo if one was reached (1; the
 * report is written once per case, so a launch may ask before the library does). */
void cml_todo_reset(void);
int cml_case_todo(const cml_case *c);

/* memcpy and memset by several host threads, for buffers of hundreds of MiB that the CPU must
 * write itself (a reset's inputs, the poisoned output): the pages end up where the CPU's writes
 * put them, as with memcpy and memset, in a fraction of the time. */
void cml_host_copy(void *dst, const void *src, size_t bytes);
void cml_host_set(void *dst, int byte, size_t bytes);

/* This run's pinned cudaMemcpy bandwidths (GB/s, 256 MiB each way), measured on first use. */
void cml_pinned_gbps(double *h2d, double *d2h);
/* End-to-end ms of the last timed host case or row (0 when it did not run). */
double cml_last_host_ms(void);
/* A table title whose last column is "of link": the pinned-copy bound over the time, where the
 * bound is max(h2d_bytes / H2D GB/s, d2h_bytes / D2H GB/s): both directions at once. */
void cml_table_title_host(const char *title);

#endif /* CML_LAB_H */
