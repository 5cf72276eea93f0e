/* A task's time findings from a run (cml_time_task), and the second measurement of a task whose
 * speed is short of full credit (cml_confirm_slow). */
#include "lab_run.h"
#include "time_runs.h"
#include "run.h"
#include "sandbox.h"
#include "findings.h"
#include "speed.h"
#include "util.h"
#include "verify.h"

#include <stdlib.h>
#include <string.h>

/* What the second measurement of a slow task found (measure_again). */
typedef struct {
    int ran;              /* both runs happened (scratch folder, memory) */
    int tampered;         /* the student's second run forged a record: tampered wins */
    int wrong;            /* its outputs failed verification: its time does not count */
    cml_task_result again; /* the task's findings from the second run's times */
} second_look;

/* The task's timed cases again, the reference first and then the student (into a scratch
 * out-dir, as the first time, its outputs verified again), scored into out->again. */
static void measure_again(const cml_lab_spec *spec, int ti, const char *bin,
                          const char *ref_bin, const cml_run_record *student,
                          const cml_run_opts *o, const cml_task_result *r, second_look *out)
{
    const cml_task_spec *t = &spec->tasks[ti];
    char dir[CML_PATH], name[96], err[1024];
    case_list cl = { .n = 0 };
    for (int c = 0; c < t->ncases && cl.n < CML_MAX_CASES; c++)
        if (t->cases[c].timed) {
            cl.task[cl.n] = ti;
            cl.tcase[cl.n++] = c;
        }
    lab_run *lr = calloc(2, sizeof *lr);
    cml_run_record *ref = calloc((size_t)spec->ntasks, sizeof *ref);
    cml_run_record *stu = malloc(sizeof *stu);
    snprintf(name, sizeof name, "%s-%s-again", spec->lab, t->id);
    out->ran = lr && ref && stu &&
               cml_sandbox_scratch(o->work_dir, name, bin, dir, sizeof dir, err, sizeof err) == 0;
    if (out->ran) {
        cml_lab_run(ref_bin, o->ref_sha, spec, &cl, NULL, o, &lr[0]);
        if (!lr[0].rec.tampered)
            cml_spread_records(&lr[0].rec, &cl, ref);
        cml_rep_check *reps[CML_MAX_RUN_CASES];
        for (int j = 0; j < cl.n; j++)
            reps[j] = cml_reps_begin(t, &t->cases[cl.tcase[j]], o->seed, j);
        cml_lab_run(bin, o->student_sha, spec, &cl, dir, o, &lr[1]);
        out->tampered = lr[1].rec.tampered;
        *stu = *student; /* the student record holds the task's cases in spec order */
        for (int j = 0; j < cl.n; j++) {
            char file[CML_PATH];
            cml_case_verdict cv;
            cml_fmt(file, sizeof file, "%s/case%d.bin", dir, j);
            out->wrong |= out->tampered
                          ? !cml_reps_end(reps[j], &(cml_case_record){0}, NULL)
                          : !cml_case_verified(t, cl.tcase[j], o->seed, file,
                                               &lr[1].rec.cases[j], reps[j], &cv);
            stu->cases[cl.tcase[j]] = lr[1].rec.cases[j];
        }
        out->again = *r;
        out->again.found = (cml_findings){0}; /* the second run's findings alone */
        if (out->tampered)
            cml_found_tampered(&out->again, &lr[1].rec);
        else
            cml_score_task(&out->again, stu, &ref[ti]);
        cml_proc_result_free(&lr[0].proc);
        cml_proc_result_free(&lr[1].proc);
        if (!o->keep)
            cml_rmtree(dir);
    }
    free(lr);
    free(ref);
    free(stu);
}

/* The speed findings of the second run (src, every case passed again) in place of r's: its
 * timings, its speed credit and their words. r's cases, notes and other findings stay. */
static void take_speed(cml_task_result *r, const cml_task_result *src)
{
    r->timed = src->timed;
    r->ms = src->ms, r->ref_ms = src->ref_ms, r->ratio = src->ratio;
    memcpy(r->case_ms, src->case_ms, sizeof r->case_ms);
    r->gbps = src->gbps, r->copy_fraction = src->copy_fraction;
    r->implausible = src->implausible;
    r->credit.perf = src->credit.perf;
    memcpy(r->found.why, src->found.why, sizeof r->found.why);
}

/* Contract in time_runs.h. */
void cml_time_task(const cml_lab_spec *spec, int ti, const char *bin, const char *ref_bin,
                   const cml_run_record *student, const cml_run_record *ref,
                   const cml_run_opts *o, cml_task_result *r)
{
    if (o->practice) /* no reference solution: speed against this GPU's bandwidths */
        cml_score_task_practice(r, student);
    else
        cml_score_task(r, student, ref);
    if (ref_bin && r->timed && cml_found_slow(r))
        cml_confirm_slow(spec, ti, bin, ref_bin, student, o, r);
}

/* Speed short of full credit costs points only once a second measurement agrees: the task keeps the
 * timings of the better of the two ratios (measure_again). Host-involved tasks vary more between
 * processes than within one: lab 07's 7.2, identical code on both sides, measured 0.87x in one
 * grading and 1.33x in another on an H200. A false "slow" is the error that costs a student points;
 * a second chance for a truly slow submission costs it nothing but a few seconds. */
void cml_confirm_slow(const cml_lab_spec *spec, int ti, const char *bin, const char *ref_bin,
                      const cml_run_record *student, const cml_run_opts *o, cml_task_result *r)
{
    second_look *s = calloc(1, sizeof *s);
    if (!s)
        return;
    if (o->progress)
        fprintf(o->progress, "[%s] task %s: %.2fx the reference: measuring both again\n",
                spec->lab, spec->tasks[ti].id, r->ratio);
    measure_again(spec, ti, bin, ref_bin, student, o, r, s);
    const double first = r->ratio;
    if (!s->ran)
        ; /* nothing measured: the first verdict stands */
    else if (s->tampered) /* the second run is a claim too */
        memcpy(r->found.tampered, s->again.found.tampered, sizeof r->found.tampered);
    else if (s->wrong)
        snprintf(r->found.note, sizeof r->found.note, "measured twice, but the second run's "
                 "output was wrong or missing: the first time counts");
    else if (!s->again.timed)
        snprintf(r->found.note, sizeof r->found.note, "a second measurement gave no time: the "
                 "first counts");
    else {
        if (s->again.ratio < first)
            take_speed(r, &s->again);
        snprintf(r->found.note, sizeof r->found.note, "measured twice, %.2fx then %.2fx: the "
                 "better counts", first, s->again.ratio);
    }
    free(s);
}
