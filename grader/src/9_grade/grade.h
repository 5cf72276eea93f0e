/* Grade: the conductor of one submission through the steps (docs/ARCHITECTURE.md, "The path
 * of a submission"). Stage and build every selected lab (in parallel); run the labs two at a time
 * (one on the GPU while the one before is verified), publishing each and rewriting the reports
 * as it ends; then the sanitizer and technique phases, and the final publication. */
#ifndef CML_GRADE_H
#define CML_GRADE_H

#include <stdint.h>
#include <stdio.h>

#include "cml.h"
#include "lab_run.h"   /* cml_run_opts */
#include "technique.h" /* cml_technique_env */



/* Grade one lab from built binaries: the reference's timed cases with --no-output (its own
 * timings), then the student's runs (consecutive tasks that fit one run share it, a task whose
 * shared verdict does not stand runs alone), each into a fresh out-dir; every case verified and
 * every task's findings recorded into out (spec, tasks, ref_run, wall_s; built set, ref_built
 * when ref_bin is not NULL: without it, no reference timings). Unless o->technique_later, the
 * technique checks run and the lab is published (judged, totalled); else the pipeline does both
 * later. A crash, a timeout or a missing `done` costs only that task. Returns 0, or -1 when a
 * run folder could not be made (out still filled). */
int cml_grade_lab_with_binaries(const cml_lab_spec *spec, const char *student_bin,
                                const char *ref_bin, const cml_run_opts *o, cml_lab_result *out);

/* The tasks of spec that call an API function named in `refused` (cml_run_opts.refused) are
 * recorded stopped as build-error with that line (0 points of the same maximum, once
 * published), and skip[t] = 1 (else 0). The number of such tasks. */
int cml_refuse_tasks(const cml_lab_spec *spec, const char *refused, cml_lab_result *out,
                     int *skip);

/* grade_shared.c, tasks that share one run of the student's binary: cml_shared_runs_on says
 * whether it is on (the default; CML_SHARED_RUNS=0 turns it off); cml_shared_group_end the
 * first task after the group that starts at t0 (its cases fit one run; t0 + 1 at least);
 * skip[t] marks tasks that are not run (a group ends before one);
 * cml_grade_tasks_shared runs tasks [t0, t1) once and fills out[t0..t1) as per-task runs would,
 * 1; or 0 with nothing filled when the run did not end cleanly (then each task is run alone);
 * cml_shared_verdict_stands whether a task's findings from a shared run stand (every case
 * passed, or the run reached its TODO), else the task is graded again in a run of its own, and
 * cml_shared_failure names what it found then ("wrong", "tampered"), for the progress line. */
int cml_shared_runs_on(void);
int cml_shared_verdict_stands(const cml_task_result *r);
const char *cml_shared_failure(const cml_task_result *r);
int cml_shared_group_end(const cml_lab_spec *spec, int t0, const int *skip);
int cml_grade_tasks_shared(const cml_lab_spec *spec, int t0, int t1, const char *bin,
                           const char *ref_bin, const cml_run_record *ref,
                           const cml_run_opts *o, cml_task_result *out);

/* Fill out for a lab that could not run: every task is recorded stopped by `stop` (not built,
 * not handed in, no GPU, not run) with `detail`: 0 of its full points once published. */
void cml_lab_not_run(const cml_lab_spec *spec, enum cml_stop stop, const char *detail,
                     cml_lab_result *out);

/* What the technique checks of lab spec need, from its run options and its student binary
 * (grade_lab.c): one lab's alone, or the pipeline's phase for every lab. */
cml_technique_env cml_lab_tech_env(const cml_lab_spec *spec, const char *bin,
                                   const cml_run_opts *o);

/* Free what a lab result owns (its build log). */
void cml_lab_result_free(cml_lab_result *r);

/* What a whole grading needs. */
typedef struct {
    const char *root;        /* the repository: grader/specs, common, labs, solutions */
    const char *submission;  /* a folder or an archive of student files, any shape (find.h) */
    const char *out_dir;     /* record.json, results.json, summary.tsv; work/ for builds */
    uint64_t seed;
    int keep;                /* keep build folders and outputs under out_dir/work */
    FILE *progress;          /* progress lines; NULL: quiet */
    /* tests: these binaries for every lab instead of staging and building (no nvcc, no probe) */
    const char *student_bin, *ref_bin;
    const char *calibration; /* a calibration file (calibration.h) for the reference; NULL */
    /* a lock file held (flock) while this grading uses the GPU: the probe, then everything
     * after the builds. A batch runs two gradings per GPU with the same lock, so one builds
     * while the other is timed, and no two are ever timed together. NULL: no lock */
    const char *gpu_lock;
    /* other students' folders, protected like this one's submission and output (the include
     * rule refuses them, no lab run reads them): a batch's submissions and output folders */
    const char *others[CML_MAX_OTHERS];
    const char *student; /* the student's name (UTF-8) for the reports; NULL: none given */
    /* `calibration` is the batch's, still being made: read once the builds are done and a
     * place on the GPU is had (cml_gpu_enter); not there then, the reference is measured live */
    int calibration_pending;
} cml_grade_opts;

/* Load root/grader/specs/ *.spec in name order, keeping those whose lab name starts with
 * `prefix` (NULL: all). Returns how many (0 with a message when none match), -1 with a message
 * in err on a spec error. */
int cml_load_specs(const char *root, const char *prefix, cml_lab_spec *specs, int max,
                   char *err, size_t errlen);

/* Grade a submission: probe (or, with test binaries, assume a GPU), then every spec in specs.
 * Fills g (seed, GPU, labs, scores, wall_s) and writes the reports after every lab. Without a GPU
 * it only compiles each lab and marks its tasks no-gpu (or build-error). *build_s gets the
 * wall time of the build phase. 0 on success; -1 with a message in err when grading could not
 * happen at all (no nvcc, unwritable --out). */
int cml_grade(const cml_grade_opts *o, const cml_lab_spec *specs, int nspecs, cml_grading *g,
              double *build_s, char *err, size_t errlen);

/* Free what g's lab results own. */
void cml_grading_free(cml_grading *g);



/* `cml-grade contract` (contract_cmd.c): each task's contract (0_spec/contract.h), printed or
 * written into the labs' sheets. Exit status: 0; 1 when a sheet differs and --write was not
 * given; 2 on a bad option or spec. */
int cml_cmd_contract(int argc, char **argv);

#endif /* CML_GRADE_H */
