/* The grading spec reader (spec.c, spec_task.c, spec_technique.c,
 * spec_sanitize.c, spec_draw.c, spec_words.c, spec_params.c): a lab's spec file into a
 * cml_lab_spec. Format in docs/SPEC.md.
 * Depends on cml.h (the spec types). spec_parse.h, the reader's internals, builds on it. */
#ifndef CML_SPEC_H
#define CML_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "cml.h"

/* Parse a spec file; 0 on success, else -1 with a message "file:line: what" in err. */
int cml_spec_load(const char *path, cml_lab_spec *out, char *err, size_t errlen);
/* Add each task's drawn cases for this grading (spec_draw.c): one untimed case per `draw`
 * line, its values drawn from `seed` within the line's ranges, so a submission cannot know
 * every size it will be graded on, and a re-grade with the same seed draws the same ones.
 * Call once per loaded spec. 0, or -1 with why in err (no valid case in 64 draws). */
int cml_spec_draw(cml_lab_spec *s, uint64_t seed, char *err, size_t errlen);
/* compute-sanitizer's tool k (0 .. CML_SANITIZERS - 1): "memcheck", "racecheck", "synccheck",
 * "initcheck"; "?" outside. */
const char *cml_sanitizer_name(int k);
/* The task whose id is `id`, or NULL. */
const cml_task_spec *cml_spec_task(const cml_lab_spec *s, const char *id);
/* A lab binary's --case argument for a case of t with these parameters ("n=4097", "" for
 * none), timed or not: "1.1,n=4097,time". Every run of a lab writes its cases so. */
void cml_case_arg(const cml_task_spec *t, const char *params, int timed, char *buf, size_t len);

/* What a `trace` check measures of the student's own calls (6_measure/trace_run.c): the bytes the
 * copy engines moved for them (all, host to device, device to host), the bytes they allocated
 * that are not managed memory (device, pinned host, registered host), and of those device
 * memory alone; and the structure (issue 44): the kernels that ran from the student's launches
 * per call of the task's API function, the student's launches on a stream other than the one
 * the harness passed, the bytes of `__device__` variables in the student's PTX, and the
 * warm-up and timed calls that did less than the checked call (kernels, bytes each way:
 * 6_measure/trace_calls.c; the traced case is then timed), and every operation the student's
 * code enqueued in a call (kernel, copy, memset, prefetch) on a stream that is neither the
 * harness's nor joined back to it with an event (6_measure/trace_streams.c). */
enum cml_trace_measure { CML_TRACE_COPY, CML_TRACE_HTOD, CML_TRACE_DTOH, CML_TRACE_ALLOC,
                         CML_TRACE_ALLOC_DEVICE, CML_TRACE_LAUNCHES_PER_CALL,
                         CML_TRACE_OFF_STREAM, CML_TRACE_SYMBOLS, CML_TRACE_UNLIKE_CHECKED,
                         CML_TRACE_OPS_OFF_STREAM, CML_TRACE_PREFETCHES, CML_TRACE_NMEASURES };
/* The measure named `name` ("copy_bytes", "copy_htod", "copy_dtoh", "alloc_unmanaged",
 * "alloc_device", "launches_per_call", "launches_not_on_stream", "device_symbol_bytes",
 * "calls_unlike_checked", "ops_not_on_stream", "prefetches"), or -1. */
int cml_trace_measure_of(const char *name);
/* The value of parameter `name` in a case's text ("n=4194304,passes=3": n is 4194304) into
 * *v; 0, or -1 when the case has no such parameter (spec_technique.c). */
int cml_case_param(const char *text, const char *name, double *v);
/* Check c's range at the case `one` (a trace check's scaled bounds, `8*n`, times the case's
 * parameter; a plain bound as written) into *min, *max; 0, or -1 when the case lacks the
 * parameter. */
int cml_tech_bounds_at(const cml_tech_spec *c, const char *one, double *min, double *max);
/* `timed_ns`, the parameter of an ncu bound in times of the task's own time (`0.5*timed_ns..
 * 2*timed_ns`): the student's median time of the profiled case in this grading's timed runs, in
 * ns. Only a timed case has one: the ncu check appends it to the case's text to judge it. */
#define CML_TIMED_NS "timed_ns"
/* Whether c has a bound in CML_TIMED_NS. */
int cml_tech_timed_bound(const cml_tech_spec *c);
/* The index in t->cases of the timed case whose parameters are `params` ("rows=8192,cols=8192"),
 * or -1. */
int cml_timed_case(const cml_task_spec *t, const char *params);

#endif /* CML_SPEC_H */
