/* The batch's progress display (batch_progress.c). */
#ifndef CML_BATCH_PROGRESS_H
#define CML_BATCH_PROGRESS_H

#include <stdio.h>

#include "batch.h"

typedef struct {
    FILE *f;
    int tty;             /* a terminal: a status line rewritten in place */
    int total, already;  /* students in the plan; those done before this run (resumed) */
    int done, failed;    /* finished in this run; of them, not graded */
    double t0;
} cml_progress;

void cml_progress_init(cml_progress *p, FILE *f, int total, int already, double now);
/* A student finished: one line with the result, the rate and the time left. */
void cml_progress_finished(cml_progress *p, double now, const char *name,
                           const cml_student_status *s);
/* Every second or so: on a terminal, the status line again (nothing elsewhere). */
void cml_progress_tick(cml_progress *p, double now, int running);
/* Any other line (calibration, drift), kept clear of the status line. */
void cml_progress_note(cml_progress *p, const char *line);

#endif /* CML_BATCH_PROGRESS_H */
