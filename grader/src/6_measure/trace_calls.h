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
    int nkernels;
    unsigned long long in, out, other; /* host to device, device to host, the rest + memsets */
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
/* Bytes a copy (kind: CUPTI's copy kind, 1 in, 2 out) or a memset (kind -1) moved in call w. */
void cml_shape_bytes(cml_call_shapes *cs, int w, int kind, unsigned long long bytes);
/* The measure: every call that is not checked[i] is held to the last checked call before it;
 * into t->v[CML_TRACE_UNLIKE_CHECKED] the number that did less, t->first[...] the first. */
void cml_shapes_judge(const cml_call_shapes *cs, const int *checked, cml_trace_tally *t);

#endif /* CML_TRACE_CALLS_H */
