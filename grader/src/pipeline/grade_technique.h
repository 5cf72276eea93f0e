/* The technique verdict on one task (grade_technique.c), above the checks that read text
 * (2_static/technique.h) and the ncu runs (4_run/technique_run.c) it combines. */
#ifndef CML_GRADE_TECHNIQUE_H
#define CML_GRADE_TECHNIQUE_H

#include "technique_run.h" /* the ncu runs a lab's checks share, and technique.h */

/* Run task t's checks into r->tech[], then, when every case passed (status passed or slow),
 * award t->technique_points if every check passed or was not checked, else set status
 * "technique" and say in the detail which check failed and what it proves. ncu runs only
 * when every case passed. Other statuses (wrong, no-gpu, ...) keep their score 0. */
void cml_technique_task(const cml_lab_spec *spec, const cml_task_spec *t,
                        const cml_technique_env *env, cml_task_result *r);

#endif /* CML_GRADE_TECHNIQUE_H */
