/* The shape of each call of a task's function in a traced run (trace_calls.c), for the measure
 * `calls_unlike_checked` (issue 44: the checked call was told apart from the timed ones by call
 * order). trace_tally.c feeds it what it attributes to the student, window by window; it is
 * internal to those two files. */
#ifndef CML_TRACE_CALLS_H
#define CML_TRACE_CALLS_H

#include "technique_run.h"

/* What one call (one of the harness's profiling windows) did for the student: the kernels that
 * ran ("name grid=X,Y,Z block=X,Y,Z smem=B", one each) and the bytes copied by direction. */
typedef struct {
    char **kernels;
    unsigned long long *ns; /* each kernel's run time (CUPTI's end - start; 0: not recorded) */
    int nkernels;
    unsigned long long in, out, other; /* host to device, device to host, the rest + memsets */
    char **placed;                     /* the student's advice and prefetch calls, by name */
    int nplaced;
} cml_call_shape;

typedef struct {
    cml_call_shape *s;
    int n;
} cml_call_shapes;

/* Room for n calls: 0, or -1 when out of memory. */
int cml_shapes_init(cml_call_shapes *cs, int n);
void cml_shapes_free(cml_call_shapes *cs);
/* A kernel line of the trace (the `kernel` record's fields) into call w. 0, or -1 (memory). */
int cml_shape_kernel(cml_call_shapes *cs, int w, const char *kernel_line);
/* A call of the student's that places managed memory (cuMemAdvise*, cuMemPrefetch*,
 * cuMemDiscard*: `name`) in call w. 0, or -1 (memory); 0 and nothing kept for another name. */
int cml_shape_placement(cml_call_shapes *cs, int w, const char *name);
/* Bytes a copy (kind: CUPTI's copy kind, 1 in, 2 out) or a memset (kind -1) moved in call w. */
void cml_shape_bytes(cml_call_shapes *cs, int w, int kind, unsigned long long bytes);
/* launches_per_call's count: the kernels of the checked calls that each ran at least an eighth
 * of their call's longest kernel, a pass's share of the work (all of them when no run time was
 * recorded); each kernel's time the shortest over the calls that ran the same kernels (the
 * checked call and its repetitions), since sharing the GPU only ever lengthens one. */
int cml_shapes_pass_kernels(const cml_call_shapes *cs, const int *checked);
/* The measure: every call that is not checked[i] is held to the last checked call before it
 * (its kernels and bytes at least; its placement calls at most, by name);
 * into t->v[CML_TRACE_UNLIKE_CHECKED] the number that did less, t->first[...] the first. */
void cml_shapes_judge(const cml_call_shapes *cs, const int *checked, cml_trace_tally *t);

/* trace_streams.c, ops_not_on_stream: whether the call with correlation id corr is the
 * student's (1, its name into who) or the harness's (0); a call the trace did not see is. */
typedef int (*cml_trace_mine)(void *ctx, unsigned corr, char *who, size_t wlen);
/* The student's kernels, copies, memsets and prefetches inside the harness's windows
 * (start[i] .. stop[i], correlation ids) that are neither on the harness's stream (its case
 * marker's) nor joined back to it by an event, into t->v[CML_TRACE_OPS_OFF_STREAM], the first
 * into t->first[...]. 0, or -1 (memory). */
int cml_ops_off_stream(const char *trace, const char *end, const unsigned *start,
                       const unsigned *stop, int nw, cml_trace_mine mine, void *ctx,
                       cml_trace_tally *t);

#endif /* CML_TRACE_CALLS_H */
