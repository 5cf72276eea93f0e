/* The technique verdict on one task (technique_phase.c), above the checks that read text
 * (6_measure/technique.h) and the ncu runs (6_measure/technique_run.c) it combines. */
#ifndef CML_TECHNIQUE_PHASE_H
#define CML_TECHNIQUE_PHASE_H

#include "technique_run.h" /* the ncu runs a lab's checks share, and technique.h */

#include <stdio.h>

/* Run task t's checks into r->tech[], then, when the task is solved (cml_found_solved), record
 * that they ran (found.checked) and the technique credit: every check passed or was not
 * checked. The judge makes a failed check `technique` and says which check failed and what it
 * proves. ncu and trace checks run only on a solved task. */
void cml_technique_task(const cml_lab_spec *spec, const cml_task_spec *t,
                        const cml_technique_env *env, cml_task_result *r);

/* One lab's technique checks, for cml_technique_labs: its tasks' verdicts in out (out->ran
 * says which tasks ran), the binary and evidence in env (env.ncu is set there). */
typedef struct {
    const cml_lab_spec *spec;
    cml_technique_env env;
    cml_lab_result *out;
} cml_tech_lab;

/* The technique checks of every task that ran, in labs[0..n), after all were scored (a check
 * may award or withhold a task's points, once published). The tasks of a lab
 * solved by then share one ncu run (technique_run.h), and those runs of all n labs go at once,
 * under one hold of the GPU lock (technique_phase.c says why that is safe). */
void cml_technique_labs(cml_tech_lab *labs, int n, FILE *progress);

/* The trace runs the technique phase will need, made ahead: one per task of labs[0..n) that
 * ran, has a trace check and passed every case, into traced[l * CML_MAX_TASKS + t] (zeroed by
 * the caller; a task without one keeps an empty key), two at a time. The pipeline runs it
 * beside the sanitizer phase's tools, under their hold of the GPU lock: a traced run measures
 * calls and bytes, nothing that sharing the GPU changes, so it costs the grading no GPU time of
 * its own. The technique phase finds them through each lab's env.traced (its row). Says on
 * progress (may be NULL) how long they took; CML_TRACE_JOBS=N runs N at a time. */
void cml_trace_ahead(const cml_tech_lab *labs, int n, cml_trace_run *traced, FILE *progress);

#endif /* CML_TECHNIQUE_PHASE_H */
