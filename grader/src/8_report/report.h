/* The reports (report_term.c, report_json.c, report_tech.c): the outputs a grading is read
 * from, then the small formatting helpers they share.
 * Depends on cml.h (the grading), json_write.h (the JSON writer) and score.h (a task's hint);
 * none of them includes a report header. */
#ifndef CML_REPORT_H
#define CML_REPORT_H

#include <stdio.h>

#include "cml.h"
#include "json_write.h"
#include "score.h"

/* The outputs. Colour only when `color` is set (a terminal). */
void cml_report_terminal(FILE *f, const cml_grading *g, int color);
int cml_report_json(const char *path, const cml_grading *g);       /* the full record */
int cml_report_gradescope(const char *path, const cml_grading *g); /* results.json */
int cml_report_tsv(const char *path, const cml_grading *g); /* lab task status score max detail */

/* ---- shared by the report files ---- */

/* Points with up to 2 decimals, trailing zeros trimmed: 38.5, 40, 6.67. */
void cml_format_points(double v, char *buf, size_t len);

/* Writes text that came from a student's process or compiler output: control characters
 * (escape sequences included) become '?', except newlines and tabs when keep_lines is set,
 * which are otherwise replaced by spaces. */
void cml_put_clean(FILE *f, const char *s, int keep_lines);

/* A CUDA version integer (13000) as "13.0". */
void cml_format_cuda_version(int v, char *buf, size_t len);

/* "index 5: expected 1.2345678, got nan" (9 significant digits, any NaN as "nan"). */
void cml_format_mismatch(const cml_mismatch *m, char *buf, size_t len);

/* The first failing case of r that kept mismatches, or NULL. */
const cml_case_verdict *cml_first_mismatches(const cml_task_result *r);

/* report_tech.c: technique checks. The lab's block in the terminal report (nothing when no
 * task has checks), one line per check for a Gradescope test, and the JSON members of a task
 * (technique_score, technique_points, and the array "technique"). */
void cml_report_tech_term(FILE *f, const cml_lab_result *lab, int color);
void cml_report_tech_text(FILE *f, const cml_task_result *r);
void cml_report_tech_json(json_w *w, const cml_task_result *r);

/* report_sanitize.c: compute-sanitizer's verdicts. The phase in one line (runs and time, or
 * why nothing ran), the lab's block in the terminal report, one line per tool for a Gradescope
 * test, a task's JSON array "sanitizers" and the record's object "sanitizer_phase". */
void cml_report_san_phase(FILE *f, const cml_grading *g);
void cml_report_san_term(FILE *f, const cml_lab_result *lab, int color);
void cml_report_san_text(FILE *f, const cml_task_result *r);
void cml_report_san_task_json(json_w *w, const cml_task_result *r);
void cml_report_san_phase_json(json_w *w, const cml_grading *g);

#endif /* CML_REPORT_H */
