/* The batch's plan and per-student state, shared by `batch`, `slurm`, `collect` and the
 * progress display. Layout of a batch's output folder OUT:
 *   OUT/plan.tsv                 index, name (the folder), submission folder, seed, why unusable,
 *                                then platform, id, display name, late, came from: written once,
 *                                so a re-run (or a Slurm array task) grades the same thing
 *   OUT/download/                a platform's download given as one archive, unpacked
 *   OUT/extracted/NAME/          an archive's contents (zip, tar, tar.gz), or a Canvas or
 *                                Moodle student's loose files under their original names
 *   OUT/canvas-assignment        the Canvas gradebook column (batch --canvas-assignment)
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

#include "platform.h"
#include "unpack.h"

#define CML_BATCH_MAX 4096

typedef struct {
    char name[128];      /* [A-Za-z0-9._-] only: a folder name under students/ */
    char display[256];   /* the name as people read it (the platform's, else the folder or
                            archive stem), valid UTF-8: what the gradebook,
                            the feedback and the record show */
    char path[4096];     /* the submission folder to grade */
    uint64_t seed;
    char unusable[256];  /* why it cannot be graded (archive would not extract), "" if ok */
    cml_identity who;    /* the student as the platform named them (platform.h) */
    char from[4096];     /* where it lies in the download; the folder holding it is protected */
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
/* The same for a download of a course platform (platform.h): submissions may also be the
 * download as one archive (unpacked into out/download/ first); forced AUTO detects the layout.
 * Each student's identity goes into the plan and into out/students/NAME/identity.json. */
int cml_plan_make_for(const char *submissions, const char *out, cml_platform forced,
                      cml_plan *p, char *err, size_t errlen);
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

/* batch_names.c, a student's two names. cml_folder_name: name as a folder name of at most
 * len - 1 bytes, ASCII [A-Za-z0-9._-] only: accented Latin letters lose their accents (É E,
 * ü u, ß ss, Æ AE, Ł L: U+00C0..U+017F), every other character (a space, a CJK letter, an
 * invalid byte) becomes '_'; never "", "." or ".." (a leading '.' becomes '_').
 * cml_display_name: name as people read it, valid UTF-8 (an invalid byte becomes U+FFFD,
 * a control character a space), cut at a character boundary to fit len. */
void cml_folder_name(const char *name, char *out, size_t len);
void cml_display_name(const char *name, char *out, size_t len);
/* An archive (kind from cml_archive_kind, unpack.h) unpacked into dir, created afresh, by
 * cml_unpack: 0, or -1 with why as a plan entry's "not graded: ..." reason. Shared with
 * platform_gather.c. */
int cml_plan_extract(const char *archive, enum cml_archive kind, const char *dir, char *why,
                     size_t len);

/* A random 53-bit seed (main.c's, shared). */
uint64_t cml_random_seed(void);

#endif /* CML_BATCH_H */
