/* The batch's plan and per-student state, shared by `batch`, `slurm`, `collect` and the
 * progress display. Layout of a batch's output folder OUT:
 *   OUT/plan.tsv                 index, name, submission folder, seed: written once, so a
 *                                re-run (or a Slurm array task) grades the same thing
 *   OUT/extracted/NAME/          an archive's contents (zip, tar, tar.gz)
 *   OUT/students/NAME/           the grading's reports, grade.log, and `status` last
 *   OUT/gradebook.csv, .md       written by collect (and at the end of batch)
 * A student is done when students/NAME/status exists, unless its state is timeout (the
 * batch's own --timeout stopped it: the next run of the batch grades it again) or builds-only
 * (a --builds-only batch: the next batch that grades grades it). One line
 * "state<TAB>score<TAB>max<TAB>seconds<TAB>gpu<TAB>calibration<TAB>why". */
#ifndef CML_BATCH_H
#define CML_BATCH_H

#include <stdint.h>
#include <stdio.h>

#define CML_BATCH_MAX 4096

typedef struct {
    char name[128];      /* [A-Za-z0-9._-] only: a folder name under students/ */
    char path[4096];     /* the submission folder to grade */
    uint64_t seed;
    char unusable[256];  /* why it cannot be graded (archive would not extract), "" if ok */
} cml_plan_entry;

typedef struct {
    int n;
    cml_plan_entry *e;   /* n entries, malloc'd */
} cml_plan;

/* The plan of out: read from out/plan.tsv when it exists (a resumed batch), else made from
 * the submissions folder (each subfolder a student; each .zip/.tar/.tar.gz/.tgz extracted into
 * out/extracted/) with a fresh seed each, and written. 0, or -1 with a message. */
int cml_plan_make(const char *submissions, const char *out, cml_plan *p, char *err,
                  size_t errlen);
int cml_plan_load(const char *out, cml_plan *p, char *err, size_t errlen);
void cml_plan_free(cml_plan *p);

/* A finished student's status line, parsed; 0 when out/students/NAME/status exists. */
typedef struct {
    char state[32];      /* graded, error, killed, timeout, unusable, builds-only */
    double score, max, seconds;
    int gpu;
    char calibration[32], why[512];
} cml_student_status;
int cml_status_read(const char *out, const char *name, cml_student_status *s);
int cml_status_write(const char *out, const char *name, const cml_student_status *s);

/* Write out/gradebook.csv and out/gradebook.md from the plan and every student's status.
 * Returns how many students have no result yet; -1 with a message on a write error. */
int cml_collect(const char *out, const cml_plan *p, char *err, size_t errlen);

/* A random 53-bit seed (main.c's, shared). */
uint64_t cml_random_seed(void);

#endif /* CML_BATCH_H */
