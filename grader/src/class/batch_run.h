/* The batch's state while it runs (batch.c parses, batch_run.c schedules, batch_drift.c
 * checks the calibration). */
#ifndef CML_BATCH_RUN_H
#define CML_BATCH_RUN_H

#include <sys/types.h>

#include "batch.h"
#include "batch_progress.h"

#define CML_BATCH_GPUS 16
#define CML_BATCH_SLOTS 8

typedef struct {
    pid_t pid;           /* 0: free */
    int entry;           /* plan index; -1 for a drift check */
    double t0;
    int used_cal;        /* the grading was given the calibration */
    int timed_out;       /* the batch killed it for passing --timeout */
} cml_slot;

typedef struct {
    /* options */
    const char *submissions, *out, *calibration, *lab, *root;
    int per_gpu, check_every, no_calibration, index;
    int ahead;           /* gradings per GPU that build ahead and wait for one of the per_gpu
                            places (CML_BATCH_AHEAD=0: none, else 1): without one, the GPU
                            idled while a new grading built (86 s of a class of 20 on an
                            H100, 46 s with it: docs/bench/2026-11-27-batch-ahead) */
    int platform;                  /* cml_platform (platform.h), -1 for an unknown name */
    const char *canvas_assignment; /* the Canvas gradebook column, NULL: the default */
    int builds_only;     /* --builds-only: no GPU wanted; every student ends `builds-only` */
    double timeout_s;
    double stagger_s;    /* CML_BATCH_STAGGER, read once when the batch starts */
    /* state */
    char out_abs[4096], cal_path[4096];
    cml_plan plan;
    int ngpus;
    char gpu[CML_BATCH_GPUS][16];
    cml_slot slot[CML_BATCH_GPUS][CML_BATCH_SLOTS];
    int live[CML_BATCH_GPUS];      /* drift found: this GPU measures the reference live */
    int doubt[CML_BATCH_GPUS];     /* its last check found drift: the next one decides */
    int since[CML_BATCH_GPUS];     /* graded on it since its last good check */
    int *graded_on;                /* plan index -> GPU it was graded on since that check */
    int *queue, nqueue;            /* plan indexes still to grade, in order */
    pid_t cal_pid;                 /* the calibration being made beside the first builds */
    double cal_t0;
    int cal_places[CML_BATCH_GPUS][CML_BATCH_SLOTS]; /* every GPU's places, held meanwhile */
    cml_progress progress;
} cml_batch;

/* batch_run.c: every student without a status, or whose status is timeout (stopped by the
 * batch's own --timeout, which is no grade), on every GPU; the gradebook last. The exit
 * status: 0 when every student was graded (whatever their scores), 1 otherwise. */
int cml_batch_all(cml_batch *b);
/* batch_run.c: plan entry b->index alone, in the foreground (a Slurm array task). 0 when it
 * was graded, 1 otherwise. */
int cml_batch_one(cml_batch *b);
/* batch_run.c: the arguments of `cml-grade grade` for entry i on GPU g (NULL-terminated, in
 * static storage of `store`): at most CML_GRADE_ARGS, each in one buf[k]. */
#define CML_GRADE_ARGS 28
void cml_batch_grade_args(const cml_batch *b, int i, int g, char *store[], char buf[][4096]);

/* The processes a GPU runs at once: per_gpu gradings past their builds, ahead building. */
static inline int cml_batch_procs(const cml_batch *b)
{
    return b->per_gpu + b->ahead;
}

/* batch_run.c: whether a grading may start on GPU g at time `now` (cml_now()): not while
 * another grading of g started less than `stagger` seconds ago and still runs. Two gradings
 * started together build together, share the GPU evenly and end together, so the GPU idled
 * through every pair's builds (73 s of a 539 s class on an H100); started apart, one builds while
 * the other runs. CML_BATCH_STAGGER sets the seconds (default CML_BATCH_STAGGER_S, 0: off). */
#define CML_BATCH_STAGGER_S 10.0
int cml_batch_may_start(const cml_batch *b, int g, double now, double stagger);

/* batch_drift.c: the calibration to use (b->cal_path; "" for none), made once when missing.
 * With gradings building ahead it is made beside the first gradings' builds: b->cal_pid runs
 * it while the batch holds every GPU's places (no grading passes its builds), and
 * cml_batch_calibrated, when that child ends, says so, lets the places go, and on failure
 * clears b->cal_path (the gradings then measure the reference live). */
void cml_batch_calibrate(cml_batch *b);
void cml_batch_calibrated(cml_batch *b, int wstatus);
/* batch_lock.c: GPU g's lock file, which its gradings and drift checks share. */
void cml_batch_lock_path(const cml_batch *b, int g, char *buf, size_t len);
/* batch_drift.c: whether GPU g is due a drift check; start it in a free slot. */
int cml_drift_due(const cml_batch *b, int g);
pid_t cml_drift_start(cml_batch *b, int g);
/* batch_drift.c: a drift check on GPU g ended with wstatus. A first finding of drift only
 * makes the next check due at once; on drift found twice in a row, g measures live from now on
 * and what it graded since its last good check goes back on the queue, but for the students
 * whose points the drift cannot change (cml_drift_regrades). */
void cml_drift_done(cml_batch *b, int g, int wstatus);
/* batch_drift_spare.c: whether the grade of the student whose output folder is dir could change
 * by the drift the checks' logs measured (each "<lab>: <f>x the calibration's time" line; a
 * lab's factor farthest from 1 over the logs; a lab the checks do not measure, the measured
 * labs' factor farthest from 1): 0 when every task's speed credit is the same at its graded
 * ratio and at that ratio over f (the reference's time at its grading lay between the
 * calibration's and the check's), the rounding of both figures allowed for; 1 otherwise, and
 * when the summary or a log cannot be read or names no factor. */
int cml_drift_touches(const char *dir, const char *const logs[], int nlogs);
/* batch_drift.c: whether student `name`, graded on GPU g with the calibration, is graded again
 * now that g drifted: cml_drift_touches on its output and g's two drift logs. */
int cml_drift_regrades(const cml_batch *b, int g, const char *name);

#endif /* CML_BATCH_RUN_H */
