/* Scoring (score.c): a task's status, points and detail from its verdicts and the times of the
 * student's and the reference's runs.
 * Depends on cml.h (the result types). */
#ifndef CML_SCORE_H
#define CML_SCORE_H

#include "cml.h"

/* The status of a task whose run wrote forged records: scored 0 in every part. */
#define CML_STATUS_TAMPERED "tampered"

/* Fraction of the performance points for a time ratio: 1 at ratio <= full, 0 at ratio >= zero,
 * linear between; 0 for a ratio that is not a positive finite number. */
double cml_perf_fraction(double ratio, double full_ratio, double zero_ratio);

/* Fills r's scores, status and detail from r->cases (already verified) and the `time` records of
 * both runs: ratio = geometric mean over the timed cases of student ms / reference ms. A
 * tampered student run makes the task `tampered`, scored 0 (cml_task_tampered). */
void cml_score_task(cml_task_result *r, const cml_run_record *student,
                    const cml_run_record *reference);
/* Marks r tampered by the forged record of run: status, detail, every score 0. */
void cml_task_tampered(cml_task_result *r, const cml_run_record *run);
/* The hint a report shows for r: where it points (the lecture note) and what it says; for a
 * tampered task, what the grader verifies instead of the spec's hint. *text may be "". */
void cml_task_hint(const cml_task_result *r, const char *note, const char **where,
                   const char **text);

#endif /* CML_SCORE_H */
