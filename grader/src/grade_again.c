/* A second measurement of a "slow" task (cml_confirm_slow), and the verification of one case
 * that both measurements share: its output file and its sampled timed repetitions. */
#include "grade_run.h"
#include "run.h"
#include "sandbox.h"
#include "score.h"
#include "util.h"
#include "verify.h"

#include <stdlib.h>

/* Contract in grade_run.h. */
int cml_case_verified(const cml_task_spec *t, int ci, uint64_t seed, const char *file,
                    const cml_case_record *rec, cml_rep_check *reps, cml_case_verdict *v)
{
    cml_case_verdict ignored;
    const int ok = cml_verify_case(t, &t->cases[ci], seed, file, rec, v);
    return cml_reps_end(reps, rec, ok ? v : &ignored) && ok;
}

/* Contract in grade_run.h. */
void cml_task_cases_verified(const cml_task_spec *t, const char *dir, int k0, uint64_t seed,
                             const cml_case_record *cases, cml_rep_check **reps,
                             cml_task_result *r)
{
    char file[CML_PATH];
    for (int c = 0; c < t->ncases; c++) {
        cml_fmt(file, sizeof file, "%s/case%d.bin", dir, k0 + c);
        r->cases_passed += cml_case_verified(t, c, seed, file, &cases[c], reps[c], &r->cases[c]);
    }
}

/* A "slow" verdict costs points only once a second measurement agrees. The task's timed cases
 * run again, the reference first and then the student (into a scratch out-dir, as the first
 * time, and its outputs verified again: a wrong output's time never counts), and the task keeps
 * the better of the two ratios. Host-involved tasks vary more between processes than within one:
 * lab 07's 7.2, identical code on both sides, measured 0.87x in one grading and 1.33x in another
 * on an H200. A false "slow" is the error that costs a student points; a second chance for a
 * truly slow submission costs it nothing but a few seconds. */
void cml_confirm_slow(const cml_lab_spec *spec, int ti, const char *bin, const char *ref_bin,
                         const cml_run_record *student, const cml_run_opts *o,
                         cml_task_result *r)
{
    const cml_task_spec *t = &spec->tasks[ti];
    char dir[CML_PATH];
    case_list cl = { .n = 0 };
    for (int c = 0; c < t->ncases && cl.n < CML_MAX_CASES; c++)
        if (t->cases[c].timed) {
            cl.task[cl.n] = ti;
            cl.tcase[cl.n++] = c;
        }
    lab_run *lr = malloc(2 * sizeof *lr);
    cml_run_record *ref = calloc((size_t)spec->ntasks, sizeof *ref);
    cml_run_record *stu = malloc(sizeof *stu);
    cml_task_result *again = malloc(sizeof *again);
    char name[96], err[1024];
    snprintf(name, sizeof name, "%s-%s-again", spec->lab, t->id);
    if (!lr || !ref || !stu || !again ||
        cml_sandbox_scratch(o->work_dir, name, bin, dir, sizeof dir, err, sizeof err) < 0)
        goto out;
    if (o->progress)
        fprintf(o->progress, "[%s] task %s: %.2fx the reference: measuring both again\n",
                spec->lab, t->id, r->ratio);
    cml_lab_run(ref_bin, o->ref_sha, spec, &cl, NULL, o, &lr[0]);
    if (!lr[0].rec.tampered)
        cml_spread_records(&lr[0].rec, &cl, ref);
    cml_rep_check *reps[CML_MAX_CASES];
    for (int j = 0; j < cl.n; j++)
        reps[j] = cml_reps_begin(t, &t->cases[cl.tcase[j]], o->seed, j);
    cml_lab_run(bin, o->student_sha, spec, &cl, dir, o, &lr[1]);
    if (lr[1].rec.tampered) { /* the second run is a claim too */
        for (int j = 0; j < cl.n; j++)
            cml_reps_end(reps[j], &(cml_case_record){0}, NULL);
        cml_task_tampered(r, &lr[1].rec);
        goto done;
    }
    *stu = *student;
    int wrong = 0; /* the second run's outputs are verified too: its time counts only if right */
    for (int j = 0; j < cl.n; j++) { /* the student record holds the task's cases in spec order */
        char file[CML_PATH];
        cml_case_verdict cv;
        cml_fmt(file, sizeof file, "%s/case%d.bin", dir, j);
        wrong |= !cml_case_verified(t, cl.tcase[j], o->seed, file, &lr[1].rec.cases[j], reps[j], &cv);
        stu->cases[cl.tcase[j]] = lr[1].rec.cases[j];
    }
    *again = *r;
    again->status = CML_STATUS_NONE;
    again->detail[0] = '\0';
    cml_score_task(again, stu, &ref[ti]);
    const double first = r->ratio;
    if (again->timed && !wrong && again->ratio < first)
        *r = *again;
    if (wrong)
        cml_award(r, r->status, "%s; measured twice, but the second run's output was wrong or "
                  "missing: the first time counts", r->detail);
    else if (!again->timed)
        cml_award(r, r->status, "%s; a second measurement gave no time: the first counts",
                  r->detail);
    else
        cml_award(r, r->status, "%s; measured twice, %.2fx then %.2fx: the better counts",
                  r->detail, first, again->ratio);
done:
    cml_proc_result_free(&lr[0].proc);
    cml_proc_result_free(&lr[1].proc);
    if (!o->keep)
        cml_rmtree(dir);
out:
    free(lr);
    free(ref);
    free(stu);
    free(again);
}
