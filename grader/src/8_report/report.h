/* The reports (report_term.c, report_json.c, report_tech.c, report_feedback.c, report_html.c,
 * report_junit.c): the outputs a grading is read from, then the small helpers they share.
 * Depends on cml.h (the grading), json_write.h (the JSON writer) and speed.h (a task's hint);
 * none of them includes a report header. */
#ifndef CML_REPORT_H
#define CML_REPORT_H

#include <stdio.h>

#include "cml.h"
#include "json_write.h"
#include "speed.h"

/* The outputs. Colour only when `color` is set (a terminal). */
void cml_report_terminal(FILE *f, const cml_grading *g, int color);
int cml_report_json(const char *path, const cml_grading *g);       /* the full record */
int cml_report_gradescope(const char *path, const cml_grading *g); /* results.json */
int cml_report_tsv(const char *path, const cml_grading *g); /* lab task status score max detail */
/* The student's feedback: Markdown (feedback.md) and one self-contained HTML page with a
 * bandwidth chart per lab (feedback.html); JUnit XML for CI dashboards (junit.xml), a
 * testsuite per lab and a testcase per task. Atomic; 0 on success. */
int cml_report_feedback_md(const char *path, const cml_grading *g);
int cml_report_html(const char *path, const cml_grading *g);
int cml_report_junit(const char *path, const cml_grading *g);

/* report_paths.c: the student's reports (results.json, feedback.md, feedback.html,
 * junit.xml) name files relative to the submission or the lab, never by the server's paths.
 * cml_student_text returns s (malloc'd; NULL when s is NULL or memory runs out) with every
 * path token rewritten: a staged build folder ("<lab>-student-XXXXXX/", wherever it lies) and
 * g's submission, out_dir, root and others folders followed by '/' are dropped
 * ("/srv/out/work/01_coalescing-student-Ab12Cd/coalescing.cu:12" becomes "coalescing.cu:12",
 * "/srv/subs/alice/01_coalescing/x.cu" "01_coalescing/x.cu"); such a folder named alone
 * becomes words ("your submission", "the grader's folder", "the build folder"). The longest
 * folder wins; a folder's name inside a longer name is left alone. cml_student_view returns a
 * copy of g (malloc'd, NULL when out of memory) with every text a report shows rewritten so
 * (build logs, details, case reasons, technique and sanitizer details, notes) and the
 * submission as its folder's own name; free it with cml_student_view_free. The one place
 * that decides what a student sees of the server's folders. */
char *cml_student_text(const cml_grading *g, const char *s);
cml_grading *cml_student_view(const cml_grading *g);
void cml_student_view_free(cml_grading *v);

/* ---- shared by the report files ---- */

/* Whether the lab was not handed in: a student file was nowhere (its tasks are `missing`). */
int cml_lab_missing(const cml_lab_result *lab);
/* What every report shows under a lab whose student side was not built: a heading and its
 * text. "Nothing to build:" and the tasks' detail when the lab is missing; "Not built: the submission's files were refused:" and why when staging refused
 * them; else "Build failed. The compiler said:" and the compiler's output ("(no output)").
 * 0 with both set, or -1 when the lab was built (nothing to show). */
int cml_lab_unbuilt(const cml_lab_result *lab, const char **heading, const char **text);

/* Points with up to 2 decimals, trailing zeros trimmed: 38.5, 40, 6.67. */
void cml_format_points(double v, char *buf, size_t len);

/* What every report says of a practice grade (g->practice: no reference solution), one
 * paragraph: that speed is judged against this GPU's copy bandwidth, not the reference, so
 * the course grader's speed points can differ, and which parts can. */
const char *cml_practice_note(void);

/* report_markup.c: writes text that came from a student's process or compiler output:
 * control characters (escape sequences included) become '?', except newlines and tabs when
 * keep_lines is set, which are otherwise replaced by spaces. */
void cml_put_clean(FILE *f, const char *s, int keep_lines);

/* report_markup.c: untrusted text in markup. cml_put_xml escapes & < > " ' as entities for
 * XML, HTML and SVG (text and attribute values); cml_put_md makes it one line of literal text
 * in Markdown (table cells included): the characters Markdown gives a meaning (` * _ [ ] | ~
 * # ! \ and & < >) backslash-escaped, never an HTML entity. All three write control characters
 * as '?' (newlines and tabs as spaces unless keep_lines) and invalid UTF-8 as U+FFFD, so the
 * output is valid UTF-8 and well-formed XML 1.0 whatever s holds. cml_put_md_code writes s
 * verbatim but so cleaned, as a fenced code block whose fence is longer than any run of
 * backticks in s. */
void cml_put_xml(FILE *f, const char *s, int keep_lines);
void cml_put_md(FILE *f, const char *s);
void cml_put_md_code(FILE *f, const char *s);

/* report_svg.c: the bandwidth chart. Its fills, fixed so that a screenshot test can find the
 * bars (Okabe-Ito colours, told apart with colour blindness too; nothing else on the page uses
 * them): the student blue, the reference orange, the bound green. */
#define CML_CHART_STUDENT "#0072b2"   /* rgb(0, 114, 178) */
#define CML_CHART_REFERENCE "#e69f00" /* rgb(230, 159, 0) */
#define CML_CHART_BOUND "#009e73"     /* rgb(0, 158, 115) */
/* Whether r has a bar group: timed with a known bandwidth. */
int cml_chart_timed(const cml_task_result *r);
/* Why r has none, for the text under the chart ("no timed case in the spec"). */
const char *cml_chart_missing(const cml_task_result *r);
/* A timed task's GB/s: v[0] the student's, v[1] the reference's (the same bytes in ref_ms),
 * v[2] the bound, named by *bound_name ("device copy", "host link"); 0 where unknown. */
void cml_chart_values(const cml_lab_result *lab, const cml_task_result *r, double v[3],
                      const char **bound_name);
/* Writes the lab's chart, `<svg class="bw-chart" ...>`, when a task has timings; returns how
 * many tasks it shows (0: nothing written). */
int cml_report_svg_chart(FILE *f, const cml_lab_result *lab);

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

/* report_hint.c: the hint a report shows for r: where it points (the lecture note) and what it
 * says; for a tampered task, what the grader verifies instead of the spec's hint. *text may be
 * "". */
void cml_task_hint(const cml_task_result *r, const char *note, const char **where,
                   const char **text);

/* report_write.c: write record.json, summary.tsv, feedback.md, feedback.html and, with a GPU,
 * results.json (Gradescope) and junit.xml for g into out_dir; without a GPU those two are removed,
 * since a grade they would show is none. The student's files (results.json, feedback.md,
 * feedback.html, junit.xml) come from cml_student_view (report.h): paths relative to the submission
 * or the lab, none of the server's folders; record.json and summary.tsv keep them. 0 on success. */
int cml_write_reports(const char *out_dir, const cml_grading *g);

#endif /* CML_REPORT_H */
