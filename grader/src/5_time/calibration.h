/* Calibration: the reference solution's timed runs on one GPU model, measured once
 * (`cml-grade calibrate`) and reused by every grading of a batch instead of a reference run per
 * lab per submission (docs/ARCHITECTURE.md, "Class scale"). A run is stored as the result
 * protocol text the reference lab wrote, and read back through the same claims parser a live
 * run goes through, keyed by the reference binary's SHA-256 and the exact --case list: a
 * changed solution, harness, spec or toolkit gives another key, and that lab is measured live. */
#ifndef CML_CALIBRATION_H
#define CML_CALIBRATION_H

#include <stddef.h>

#include "cml.h"

#define CML_CAL_RUNS 32

typedef struct {
    char lab[64];
    char ref_sha[65];   /* the reference binary's SHA-256 at its build */
    char cases[2048];   /* the run's --case arguments, joined by ' ' */
    char *text;         /* what the reference wrote through CML_RESULT_FD; owned */
    size_t len;
} cml_cal_run;

typedef struct cml_calibration {
    char path[4096];
    char id[17];         /* first 16 hex digits of the file's SHA-256: the records name it */
    char gpu[128];
    int cc, driver;
    char nvcc[64];
    char created[32];    /* ISO 8601 UTC */
    int nruns;
    cml_cal_run runs[CML_CAL_RUNS];
} cml_calibration;

/* Read a calibration file. 0, or -1 with a message in err (missing, malformed, truncated). */
int cml_cal_load(const char *path, cml_calibration *c, char *err, size_t errlen);

/* Write c to path (through a temporary file and rename, so a reader never sees half of it);
 * sets c->id and c->path. 0, or -1 with a message. */
int cml_cal_save(const char *path, cml_calibration *c, char *err, size_t errlen);

/* Whether c was measured on this GPU (name, compute capability, driver): 1, else 0 with why. */
int cml_cal_matches_gpu(const cml_calibration *c, const cml_grading *g, char *why, size_t len);

/* The stored run of lab with this reference SHA-256 and --case list, or NULL. */
const cml_cal_run *cml_cal_find(const cml_calibration *c, const char *lab, const char *ref_sha,
                                const char *cases);

/* Add (or replace) a run; the text is copied. 0, or -1 when full or out of memory. */
int cml_cal_put(cml_calibration *c, const char *lab, const char *ref_sha, const char *cases,
                const char *text, size_t len);

/* Free the stored texts. */
void cml_cal_free(cml_calibration *c);

#endif /* CML_CALIBRATION_H */
