/* status: the one table of task statuses. A row holds everything the grader decides by a
 * status alone: its name in the reports, whether the task is solved, whether its cases ran,
 * which parts of the points it can earn, and its colour in the terminal. */
#include "status.h"

#include <string.h>

#define ALL_PARTS (CML_PART_CORRECTNESS | CML_PART_PERF | CML_PART_TECHNIQUE)

typedef struct {
    const char *name;      /* written to record.json, results.json, summary.tsv: never change */
    int solved;            /* every case passed */
    int ran;               /* its cases ran here */
    unsigned earns;        /* enum cml_part bits */
    enum cml_shade shade;
} status_row;

/* Crash earns the cases that passed before it when scored from the run's own records; a run
 * the pipeline itself found cut short (grade_lab.c) gets no credit, so it scores 0 (speed.c).
 * Timeout, tampered, build-error, missing and no-gpu earn nothing whatever their cases say; nor does
 * sanitizer: its output was right by luck (an out-of-bounds write that hit nothing, a race
 * that went the right way on this GPU), so not even its correctness points count. */
static const status_row STATUS[CML_STATUS_COUNT] = {
    [CML_STATUS_NONE]        = {"",            0, 1, 0, CML_SHADE_BAD},
    [CML_STATUS_PASSED]      = {"passed",      1, 1, ALL_PARTS, CML_SHADE_GOOD},
    [CML_STATUS_SLOW]        = {"slow",        1, 1, ALL_PARTS, CML_SHADE_PARTIAL},
    [CML_STATUS_TECHNIQUE]   = {"technique",   1, 1, CML_PART_CORRECTNESS | CML_PART_PERF,
                                CML_SHADE_BAD},
    [CML_STATUS_WRONG]       = {"wrong",       0, 1, CML_PART_CORRECTNESS, CML_SHADE_BAD},
    [CML_STATUS_TODO]        = {"todo",        0, 1, CML_PART_CORRECTNESS, CML_SHADE_BAD},
    [CML_STATUS_ERROR]       = {"error",       0, 1, CML_PART_CORRECTNESS, CML_SHADE_BAD},
    [CML_STATUS_CRASH]       = {"crash",       0, 1, CML_PART_CORRECTNESS, CML_SHADE_BAD},
    [CML_STATUS_TIMEOUT]     = {"timeout",     0, 1, 0, CML_SHADE_BAD},
    [CML_STATUS_TAMPERED]    = {"tampered",    0, 1, 0, CML_SHADE_BAD},
    [CML_STATUS_BUILD_ERROR] = {"build-error", 0, 0, 0, CML_SHADE_BAD},
    [CML_STATUS_NO_GPU]      = {"no-gpu",      0, 0, 0, CML_SHADE_BAD},
    [CML_STATUS_SANITIZER]   = {"sanitizer",   0, 1, 0, CML_SHADE_BAD},
    [CML_STATUS_MISSING]     = {"missing",     0, 0, 0, CML_SHADE_BAD},
};

/* The row of s; NONE's for a value outside the enum (a zeroed or corrupted result). */
static const status_row *row(enum cml_status s)
{
    return (unsigned)s < CML_STATUS_COUNT ? &STATUS[s] : &STATUS[CML_STATUS_NONE];
}

/* Contract in status.h. */
const char *cml_status_name(enum cml_status s)
{
    return (unsigned)s < CML_STATUS_COUNT ? STATUS[s].name : "?";
}

/* Contract in status.h. NONE has no name to parse: "" is rejected like any unknown name. */
int cml_status_from_name(const char *name, enum cml_status *out)
{
    for (int s = CML_STATUS_NONE + 1; name && s < CML_STATUS_COUNT; s++)
        if (strcmp(name, STATUS[s].name) == 0) {
            *out = (enum cml_status)s;
            return 0;
        }
    return -1;
}

int cml_status_solved(enum cml_status s)
{
    return row(s)->solved;
}

int cml_status_ran(enum cml_status s)
{
    return row(s)->ran;
}

unsigned cml_status_earns(enum cml_status s)
{
    return row(s)->earns;
}

enum cml_shade cml_status_shade(enum cml_status s)
{
    return row(s)->shade;
}
