/* One confined run of a lab binary for grade_lab.c: the cases it is asked, its records read as
 * claims, its binary checked against the SHA-256 of its build first. */
#ifndef CML_GRADE_RUN_H
#define CML_GRADE_RUN_H

#include "grade.h"
#include "records.h"
#include "verify.h"

/* The cases of one run: which task and which of its cases each --case is. */
typedef struct {
    int n;
    int task[CML_MAX_RUN_CASES], tcase[CML_MAX_RUN_CASES];
} case_list;

typedef struct {
    cml_proc_result proc;
    cml_run_record rec;
    char *text;      /* the result protocol text, kept only when o->cal_out is set; owned */
    size_t text_len;
} lab_run;

/* Run bin (whose build gave it SHA-256 `sha`; NULL: not checked) on the cases in cl, confined,
 * in the run folder `dir` (made by cml_sandbox_scratch, holding bin's copy `lab`): outputs land
 * there, or with --no-output when dir is NULL, in a scratch folder of its own, removed after.
 * A copy whose SHA-256 changed is not run: lr->proc says why. */
void cml_lab_run(const char *bin, const char *sha, const cml_lab_spec *spec,
                 const case_list *cl, const char *dir, const cml_run_opts *o, lab_run *lr);

/* How a run that wrote no `done` ended, as a phrase: "was killed by SIGSEGV (...)". */
void cml_run_unfinished_how(const lab_run *lr, double timeout_s, char *buf, size_t len);

/* The --case arguments of cl, joined by ' ' (a calibration's key). */
void cml_case_list_text(const cml_lab_spec *spec, const case_list *cl, char *buf, size_t len);

/* What a stored run's text says, read exactly as cml_lab_run reads a live run's (claims
 * checked against cl); lr->proc says it did not run here. */
void cml_lab_run_replay(const cml_lab_spec *spec, const case_list *cl, const char *text,
                        size_t len, lab_run *lr);

/* Spread one reference run's records back into one record per task (per_task, indexed by
 * task), whose case indexes match the student's run of that task; the header records (device,
 * bandwidths) go to every task named in cl. */
void cml_spread_records(const cml_run_record *rec, const case_list *cl,
                        cml_run_record *per_task);

/* grade_again.c: case ci of task t (index k of its run, here ci) verified from its output file
 * and from the sample of its timed repetitions `reps` drew (cml_reps_begin; ended here either
 * way): 1 when both hold, else v says why. */
int cml_case_verified(const cml_task_spec *t, int ci, uint64_t seed, const char *file,
                      const cml_case_record *rec, cml_rep_check *reps, cml_case_verdict *v);

/* grade_again.c: every case c of task t, its output dir/case<k0 + c>.bin, its record cases[c]
 * and its repetitions reps[c], verified into r->cases; r->cases_passed counts the passes. */
void cml_task_cases_verified(const cml_task_spec *t, const char *dir, int k0, uint64_t seed,
                             const cml_case_record *cases, cml_rep_check **reps,
                             cml_task_result *r);

/* grade_again.c: speed short of full credit (cml_found_slow) costs points only once a second
 * measurement agrees: the task's timed cases run again, the reference first, then the student
 * (outputs and sampled repetitions verified again); the task keeps the timings of the better
 * of the two ratios, and its note says both. A forged record in the second run is recorded. */
void cml_confirm_slow(const cml_lab_spec *spec, int ti, const char *bin, const char *ref_bin,
                      const cml_run_record *student, const cml_run_opts *o, cml_task_result *r);

#endif /* CML_GRADE_RUN_H */
