/* The class's gradebook: one row per student from the summary.tsv each grading wrote, as CSV
 * for a spreadsheet or an LMS import (gradebook.csv) and as Markdown for a person
 * (gradebook.md). The batch and Slurm drivers call these after grading every submission.
 * Depends on cml.h (limits) and the report helpers (report.h) for Markdown and points. */
#ifndef CML_GRADEBOOK_H
#define CML_GRADEBOOK_H

#include <stddef.h>
#include <stdio.h>

#include "platform.h"

typedef struct {
    char name[256];        /* the student as submitted (folder or archive name, UTF-8) */
    char dir[4096];        /* that student's output folder (holds summary.tsv), "" if none */
    char status[256];      /* "" when the grading ran; else why it did not ("not graded: the
                              grading process was killed by SIGKILL") */
    cml_identity who;      /* who the platform said it is (platform.h); zeroed: plain */
} cml_book_entry;

/* Write a CSV gradebook: header `student,<lab1>,...,<labN>,total,max,status`; one row per
 * entry, lab columns the sum of that lab's task scores read from dir/summary.tsv, total and
 * max over all labs, and status: "ok" when every task got full points, else a short summary of
 * what went wrong ("02_transpose: 2.2 slow; 06_zerocopy: build-error"), or the entry's own
 * status when it has one (then lab columns empty). Labs = the union of labs found in all
 * summaries, in name order. RFC 4180 quoting; a cell starting with = + - @ gets a leading '
 * (CSV injection into spreadsheets). 0, or -1 with a message in err. */
int cml_gradebook_write(const char *csv_path, const cml_book_entry *e, int n, char *err,
                        size_t errlen);

/* The same table as Markdown, then per lab the mean score and how many got full marks.
 * 0, or -1 with a message in err. */
int cml_gradebook_write_md(const char *md_path, const cml_book_entry *e, int n, char *err,
                           size_t errlen);

/* ---- gradebook_lms.c: the files a course platform imports ---- */

/* Beside the gradebook in folder out, for the entries whose identity names a platform:
 * Canvas: canvas-grades.csv (a gradebook import: Student, ID, SIS User ID, SIS Login ID,
 * Section, one assignment column named by out/canvas-assignment, else "CUDA memory labs",
 * and a "Points Possible" row) and feedback-canvas/NAME_USERID.html; Moodle:
 * moodle-grading-worksheet.csv (the columns of the assignment's offline grading worksheet)
 * and feedback-upload/<Full Name>_<id>_assignsubmission_file_/feedback.html, zipped into
 * feedback-upload.zip when zip is installed. A student without a grade gets an empty grade
 * cell (the platform then leaves theirs alone). Each feedback file is the student's
 * out/students/NAME/feedback.html. 0, or -1 with a message. */
int cml_lms_write(const char *out, const cml_book_entry *e, int n, char *err, size_t errlen);

/* One CSV cell as the gradebook writes them (RFC 4180, formula guard), then `after`. */
void cml_csv_cell(FILE *f, const char *s, char after);

/* ---- gradebook_read.c: one student's summary.tsv, shared by the two writers ---- */
#define CML_BOOK_LABS 32

typedef struct {
    char lab[64];
    double score, max;
    int tasks, full;         /* tasks read, and how many got full points */
    char problems[256];      /* the tasks that lost points: "2.2 slow, 2.3 wrong" */
    char one_status[32];     /* their status when they all share one ("build-error") */
    int mixed;               /* they do not */
} cml_book_lab;

typedef struct {
    int graded;              /* a summary was read: the lab columns hold its scores */
    char status[1024];       /* "ok", what went wrong, or why there is no summary */
    int nlabs;
    cml_book_lab labs[CML_BOOK_LABS];
} cml_book_row;

/* Reads e's summary (dir/summary.tsv) into row. A missing, empty or truncated file, or an
 * entry whose status is set, leaves graded 0 and says why in status; never fails. */
void cml_book_read(const cml_book_entry *e, cml_book_row *row);

/* The labs of rows[0..n) that were graded, each name once, in strcmp order, into names
 * (at most CML_BOOK_LABS); how many. */
int cml_book_labs(const cml_book_row *rows, int n, char names[][64]);

/* The row's lab named `lab`, or NULL. */
const cml_book_lab *cml_book_find(const cml_book_row *row, const char *lab);

#endif /* CML_GRADEBOOK_H */
