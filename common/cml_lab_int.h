/* Internal to the harness library (the files of common/ that implement cml_lab.h); a lab never
 * includes it. Each file keeps its state file-local (static); what the others need of a file is
 * declared here under that file's name, so a reader sees who owns what. Host-only files are .cpp:
 * nvcc hands them straight to the host compiler, where a .cu costs ~0.6 s more for device passes
 * in every lab build. The Makefile and grader/src/2_build/build_common.c (CML_COMMON_SOURCES)
 * list them all. */
#ifndef CML_LAB_INT_H
#define CML_LAB_INT_H

#include "cml_lab.h"

/* ---- cml_lab.cpp: cml_main and the case drivers (graded cases, table rows); it sets the case
 * in progress (cml_current_* in cml_check.h) and owns no other state ---- */

/* ---- cml_args.cpp: the command line and case specs; owns the options ---- */
#define CML_MAX_CASES 64
typedef struct {
    uint64_t seed;                     /* --seed, default 1 */
    const char *out_dir;               /* --out-dir, default "." */
    int no_output, bench, list;        /* --no-output, --bench, --list */
    int link_bw;                       /* --link-bw: measure the pinned link in this run too */
    int no_guard;                      /* --no-guard: cudaMalloc, no guard regions (tools) */
    int ncases;
    const char *cases[CML_MAX_CASES];  /* the --case specs, in order */
} cml_options;

/* Parses argv into the options: 0; 1 for --help; -1 for an error, said on stderr. The caller
 * prints the usage unless 0. */
int cml_parse_args(int argc, char **argv);
int cml_seed_from_grader(void);       /* the seed came through CML_SEED_FD, not --seed */
void cml_early_cuda_release(void);    /* once the runtime holds the context (cml_args.cpp) */
void cml_usage(const char *prog);
const cml_options *cml_opts(void);    /* read-only once parsed */
/* Whether this run times any case: no --case (a table), or a case with the `time` token. A run
 * that times nothing (the sanitizers', the profiler's, an untimed task's) skips the copy
 * bandwidth: a 1 GiB copy repeated costs seconds under initcheck, for a figure nothing reads. */
int cml_times_anything(void);
/* cml_seed() answers `seed` until cml_use_case_seed(): a timed repetition's inputs. */
void cml_use_seed(uint64_t seed);
void cml_use_case_seed(void);
/* Parses the part of a spec after the task id ("n=4097,time") into c (c->task and c->text set).
 * 0, or -1 with the reason in err. */
int cml_parse_case(cml_case *c, const char *params, char *err, size_t errlen);

/* ---- cml_gpu.cu: the GPU session (properties, stream), the case's device memory, measured
 * bandwidths ---- */
void cml_gpu_open(void);              /* after cml_gpu_usable(): properties and the stream */
void cml_gpu_close(void);
void cml_mark_case(void);            /* the case marker kernel, first in a profiling window */
int cml_l2_cache_bytes(void);
void cml_measure_copy_bandwidth(void); /* sets cml_copy_gbps() and writes the copybw record */
/* How many of the n device bytes at p are not v (0 for n == 0); waits for the answer. */
unsigned long long cml_count_not(const void *p, size_t n, unsigned char v);
/* After the GPU is idle: 0 when every canary around the case's buffers is intact, else -1 and
 * what changed in why. */
int cml_case_canaries(char *why, size_t len);
void cml_free_case_allocs(void);      /* synchronizes, then frees what cml_alloc gave the case */
/* part(ctx, t, b, e) for t in [0, nt): items [b, e) of n, on nt host threads (one per `per`
 * items, at most the cores and CML_MAX_HOST_THREADS; the caller is thread 0). nt is returned. */
#define CML_MAX_HOST_THREADS 16
size_t cml_host_parts(size_t n, size_t per, void (*part)(void *ctx, size_t t, size_t b, size_t e),
                      void *ctx);
/* When p lies in a pinned host buffer of the case's own (cml_alloc_host, guarded layout): the
 * pages of its mapping, which hold nothing else, into *start and *bytes, and 0; else -1. */
int cml_case_host_pages(const void *p, void **start, size_t *bytes);

/* ---- cml_guard.cpp: guard regions around the case's device buffers (the file says how) ---- */
typedef struct {
    void *p;              /* the buffer cml_alloc returns */
    size_t bytes;
    void *va, *map;       /* the reserved range, and its mapped part (va NULL: cudaMalloc, or
                             for host memory cudaHostAlloc) */
    size_t va_bytes, map_bytes;
    unsigned long long handle;
    int host;             /* pinned host memory (cml_guard_alloc_host) */
    void *heap;           /* under a sanitizer: the NVTX pool the buffer is (cml_exact.cpp) */
    const void *exact_p;  /* the pool's one region as registered now */
    size_t exact_bytes;
    const void *task_p;   /* what the task was given (cml_exact); NULL: the whole buffer */
    size_t task_bytes;
} cml_guarded;
/* A buffer of `bytes` in a range of its own: its end, or with start_aligned its start, meets
 * unmapped memory; the mapped bytes around it hold the canary. cudaMalloc's error codes. */
cudaError_t cml_guard_alloc(size_t bytes, int start_aligned, cml_guarded *g);
/* The same for pinned host memory registered with cudaHostRegister `flags` (the values of
 * cudaHostAlloc's: Default, Mapped), between pages no one may touch. */
cudaError_t cml_guard_alloc_host(size_t bytes, int start_aligned, unsigned flags,
                                 cml_guarded *g);
/* The bytes around g's buffer no longer the canary (after the GPU is idle); *after: some were
 * past its end. */
unsigned long long cml_guard_changed(const cml_guarded *g, int *after);
void cml_guard_free(cml_guarded *g);

/* ---- cml_exact.cpp: exact bounds for compute-sanitizer (the file says how) ---- */
/* Under --no-guard, g's cudaMalloc buffer becomes an NVTX pool whose one region is all of it. */
void cml_exact_open(cml_guarded *g);
/* The pool's region becomes [p, p + bytes) (after the device is idle); no-op without a pool. */
void cml_exact_set(cml_guarded *g, const void *p, size_t bytes);
void cml_exact_close(cml_guarded *g); /* before the buffer is freed */

/* ---- cml_inputs.cu: the case's inputs, their fills and their digests (the file says why);
 * owns the input table and the digest key ---- */
/* Fills every input of the case again (cml_input, cml_input_with) from cml_seed(), on the
 * stream: a timed repetition's fresh inputs. */
void cml_refill_inputs(void);
/* After the checked launch, its kernels finished: 0 when every input of the case, and every
 * host copy of one (cml_input_copy), holds what its fill wrote, bit for bit (digests, taken
 * on the GPU, or by the host's threads for managed memory); else -1, the first changed input
 * named in why. Under compute-sanitizer its reads are allowed (regions widened, cml_exact). */
int cml_case_inputs_intact(char *why, size_t len);
void cml_inputs_forget(void);         /* the case ended: its inputs are gone (cml_gpu.cu) */

/* ---- cml_gpu.cu, continued: the case's buffers; what the harness reads of its outputs ---- */
/* The case's buffer that starts at p (cml_alloc's or cml_input's), or NULL. */
cml_guarded *cml_case_buffer(const void *p);
/* The evidence of n floats of output (device memory, or host-visible when on_host): the sum
 * (mod 2^64) of cml_evidence_term over the elements, and the weighted sums of out and |out|. */
typedef struct {
    uint64_t hash;
    double wsum, wabs;
} cml_evidence;
cml_evidence cml_output_evidence(const float *out, size_t n, int on_host);

/* ---- cml_timing.cpp: host clock, L2 flush, the repetition loop; owns the flush buffer ---- */
double cml_now_ms(void);              /* CLOCK_MONOTONIC */
void cml_timing_open(void);           /* the flush buffer: 2x L2 (after cml_gpu_open) */
void cml_timing_close(void);

/* What a timing loop measured: the medians of both clocks, and (p75 - p25) / median of the one
 * that counts (events for a device output, the host clock end to end for a host-visible one). */
enum { CML_MAX_REPS = 50 };
typedef struct {
    double event_ms, host_ms, spread;
    int reps;
    int has_evidence;                    /* evidence[0..reps) below (graded timed cases) */
    int cpu_wrote;                       /* a guarded output was written by the host's cores in
                                            a repetition (the loop stopped there) */
    cml_evidence evidence[CML_MAX_REPS]; /* repetition r's output, inputs of cml_rep_seed */
} cml_reps;
/* cml_time's loop: poisons d_poison (if any) before each launch; events count. With a graded
 * case `fresh` (else NULL), repetition r runs on fresh inputs (cml_rep_seed(seed, fresh->k, r))
 * and the evidence of its output is kept. */
cml_reps cml_time_device(cml_launcher launch, void *d_poison, size_t poison_bytes,
                         const cml_case *fresh);
/* The host-involved loop: poisons h_out on the host and runs io->reset before each launch; the
 * host clock counts, ending after the host touched the output when io->touch_output. */
cml_reps cml_time_host(cml_launcher launch, const cml_host_io *io, float *h_out,
                       size_t out_elems, const cml_case *fresh);

/* ---- cml_output.cpp: reading outputs back, output files, self-checks; owns the staging
 * buffer ---- */
int cml_outputs_open(void);           /* 0, or -1 when out of host memory */
void cml_outputs_close(void);
/* Writes DIR/case<k>.bin (its name into `name`); 0, or -1 with the case failed. */
int cml_write_output(const float *out, int on_device, size_t elems, char *name, size_t len);
/* The number of elements that differ from the task's expect function, bit for bit; the first
 * described in `why`. */
uint64_t cml_self_check(const cml_case *c, const float *out, int on_device, size_t elems,
                        char *why, size_t len);

/* ---- cml_run_case.cpp: the one case runner; owns the last host time and the CPU-write guard
 * ---- */
/* The CPU-write guard of a host-involved output: arm (untimed) makes the output's pages
 * read-only (managed) or inaccessible (pinned) for the CPU; cml_cpu_guarded runs body and
 * returns 1 when the lab binary's own code wrote there (body was cut short, a stream capture
 * it left open ended), else 0; disarm (untimed) gives the pages back. */
void cml_cpu_guard_arm(const float *out, size_t elems);
int cml_cpu_guarded(void (*body)(void *ctx), void *ctx);
void cml_cpu_guard_disarm(void);
/* A case's output and what its launch moves (shared by the runner and the reports). */
typedef struct {
    float *out;              /* device memory (io NULL) or host-visible memory */
    size_t elems;
    const cml_host_io *io;   /* NULL: a device output, timed by events; else host-involved */
    uint64_t bytes;          /* what GB/s counts: read + written, or both ways over the link */
} cml_case_out;

/* ---- cml_report.cpp: how a case or row ends, as records and human lines; owns the mode, the
 * row status, the error count and the TODO state ---- */
enum cml_mode { CML_MODE_GRADE, CML_MODE_TABLE };
void cml_set_mode(enum cml_mode mode);
int cml_graded(void);                 /* graded cases (--case), not tables */
void cml_row_begin(void);             /* a row or case starts: skipped until it says otherwise */
enum cml_row_status cml_last_row_status(void);
int cml_case_errors(void);            /* graded cases that ended in an error */
/* When the launch reached a TODO: reports the case as todo once and returns 1. with_id: the
 * human line says "TODO(<task>):" (device outputs) rather than "TODO:" (host-involved). */
int cml_report_todo(const cml_case *c, int with_id);
/* A graded case that ran: its `case ... status=ok` record and line (self-check verdict when
 * `check`); `file` is the output's name, "" when none was written. */
void cml_report_ok(const cml_case *c, size_t out_elems, const char *file, int check,
                   uint64_t nbad, const char *why);
/* The time record (and its repetitions' evidence); msg: NULL, or what the repetitions did that
 * fails the case ("guard region: ..." around the case's buffers, "host write: ..."). */
void cml_report_time(const cml_case *c, const cml_case_out *o, const cml_reps *t,
                     const char *msg);
void cml_report_row(const cml_case *c, const cml_case_out *o, const cml_reps *t,
                    const char *verdict, uint64_t nbad, const char *why);

#endif /* CML_LAB_INT_H */
