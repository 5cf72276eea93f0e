/* One confined run of a lab binary (lab_run.c): how the binaries of a lab are run, the cases
 * a run is asked, its records read as claims, its binary checked against the SHA-256 of its
 * build first. */
#ifndef CML_LAB_RUN_H
#define CML_LAB_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "cml.h"
#include "records.h"

#define CML_RUN_OUTPUT_CAP (64u << 10) /* a lab binary's stdout+stderr kept for the report */

struct cml_calibration; /* calibration.h */
/* How the lab binaries of one lab are run. */
typedef struct {
    uint64_t seed;
    const char *work_dir; /* run folders (out-dirs) are created here */
    int keep;             /* keep the output files after verification */
    FILE *progress;       /* one line per step; NULL: quiet */
    const char *ev_dir, *ev_digest; /* the student build's evidence (evidence.h); NULL: none */
    int cc;               /* compute capability the binaries were built for */
    /* SHA-256 of each binary when built: the copy in every run folder must still have it, so
     * a binary changed after its build (the reference above all) is never run. NULL: as given */
    const char *student_sha, *ref_sha;
    /* a calibration whose stored reference runs stand in for live ones where their key (lab,
     * ref_sha, --case list) matches; NULL: the reference is always measured live */
    const struct cml_calibration *cal;
    struct cml_calibration *cal_out; /* `calibrate`: every live reference run is stored here */
    /* a practice grade (no reference solution: docs/ARCHITECTURE.md, "Practice grade"): the
     * student's runs also measure the pinned link (--link-bw), and speed is scored against
     * the spec's practice_fraction (cml_score_task_practice) */
    int practice;
    /* the build's link-rule lines held by code some API functions reach (cml_build.refused):
     * the tasks that call those functions are build errors and never run; NULL: none */
    const char *refused;
    /* the technique checks wait for cml_technique_labs, which the pipeline calls once for every
     * lab after their runs; 0: cml_grade_lab_with_binaries runs them for its lab */
    int technique_later;
} cml_run_opts;


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


#endif /* CML_LAB_RUN_H */
