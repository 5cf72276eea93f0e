/* Verify: a lab's output file against what its task's check (checks.h, 0_spec) says it must
 * hold, and a sample of the timed repetitions recomputed from their own seeds.
 * Depends on cml.h (the spec, record and verdict types) and checks.h. */
#ifndef CML_VERIFY_H
#define CML_VERIFY_H

#include "checks.h"
#include "cml.h"

/* verify.c: regenerate the inputs from the seed, compute the expected output of task `t`'s
 * case `c` on the CPU and compare it with the file the lab wrote. Fills v; returns v->passed. */
int cml_verify_case(const cml_task_spec *t, const cml_case_spec *c, uint64_t seed,
                    const char *out_file, const cml_case_record *rec, cml_case_verdict *v);

/* verify_reps.c: a sample of the timed repetitions of case c (index k in its run), each
 * recomputed from its own seed (cml_rep_seed(seed, k, r)) and compared with the evidence the
 * harness reported. cml_reps_begin, before the run, draws repetitions among the first ten from
 * the grader's own random source and computes them on low-priority threads beside the run
 * (NULL for an untimed case); cml_reps_end, after it, draws more where fewer of those ran or
 * more ran, computes them, compares, and frees h: 1 when all sampled match, else 0 with v
 * failed and why. */
typedef struct cml_rep_check cml_rep_check;
cml_rep_check *cml_reps_begin(const cml_task_spec *t, const cml_case_spec *c, uint64_t seed,
                              int k);
int cml_reps_end(cml_rep_check *h, const cml_case_record *rec, cml_case_verdict *v);
/* How many repetitions of a timed case are verified: $CML_VERIFY_REPS (1..50), default 6
 * (all of them when fewer ran). */
int cml_verify_reps_sample(void);

/* The nice value (0 to 19) of the threads that verify a lab's outputs after its run, which the
 * pipeline sets while another lab of the grading runs meanwhile (grade_labs.c): the CPU then
 * goes to that lab's process first. 0, the default: no thread yields, and the calling thread
 * takes a share of the work; otherwise only threads started for it do the work. */
void cml_verify_yield(int nice);
int cml_verify_yield_level(void);
/* This thread's nice value raised to nice (nothing for 0): a thread only ever yields more. */
void cml_thread_yield(int nice);

/* verify.c: a float for a message (a mismatch, in the verdict and the reports): 9 significant
 * digits, which round-trip, "nan" for any NaN. */
void cml_format_value(double x, char *buf, size_t len);

/* verify_task.c: case ci of task t (index k of its run, here ci) verified from its output file
 * and from the sample of its timed repetitions `reps` drew (cml_reps_begin; ended here either
 * way): 1 when both hold, else v says why. */
int cml_case_verified(const cml_task_spec *t, int ci, uint64_t seed, const char *file,
                      const cml_case_record *rec, cml_rep_check *reps, cml_case_verdict *v);

/* verify_task.c: every case c of task t, its output dir/case<k0 + c>.bin, its record cases[c]
 * and its repetitions reps[c], verified into r->cases; r->cases_passed counts the passes. */
void cml_task_cases_verified(const cml_task_spec *t, const char *dir, int k0, uint64_t seed,
                             const cml_case_record *cases, cml_rep_check **reps,
                             cml_task_result *r);

/* case_faults.c: the enum cml_fault bits r's verified cases show, read with the student's run
 * record (NULL: none): CML_FAULT_WRONG always (call it when a case failed), TODO when the run
 * reached a TODO of the task, GUARD where a failed case touched memory outside its buffers,
 * ERROR for another CUDA error, NO_RESULT for a failed case without a result from a run that
 * never said `done`. */
unsigned cml_case_faults(const cml_task_result *r, const cml_run_record *run);
/* case_faults.c: the first failing case's reason into buf ("case n=4097: ...", a TODO's own
 * words); "" when every case passed. */
void cml_failure_words(const cml_task_result *r, char *buf, size_t len);

#endif /* CML_VERIFY_H */
