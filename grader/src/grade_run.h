/* One confined run of a lab binary for grade_lab.c: the cases it is asked, its records read as
 * claims, its binary checked against the SHA-256 of its build first. */
#ifndef CML_GRADE_RUN_H
#define CML_GRADE_RUN_H

#include "grade.h"
#include "records.h"

/* The cases of one run: which task and which of its cases each --case is. */
typedef struct {
    int n;
    int task[CML_MAX_CASES], tcase[CML_MAX_CASES];
} case_list;

typedef struct {
    cml_proc_result proc;
    cml_run_record rec;
} lab_run;

/* Run bin (whose build gave it SHA-256 `sha`; NULL: not checked) on the cases in cl, confined,
 * in the run folder `dir` (made by cml_sandbox_scratch, holding bin's copy `lab`): outputs land
 * there, or with --no-output when dir is NULL, in a scratch folder of its own, removed after.
 * A copy whose SHA-256 changed is not run: lr->proc says why. */
void cml_lab_run(const char *bin, const char *sha, const cml_lab_spec *spec,
                 const case_list *cl, const char *dir, const cml_run_opts *o, lab_run *lr);

#endif /* CML_GRADE_RUN_H */
