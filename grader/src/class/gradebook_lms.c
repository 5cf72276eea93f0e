/* The files a course platform imports (gradebook.h, cml_lms_write): Canvas's gradebook import
 * CSV, Moodle's offline grading worksheet, and the feedback files named so each platform (or
 * the instructor, for Canvas, which has no bulk feedback upload) finds their student. Column
 * names and formats: CLASS_GUIDE.md, "Importing grades". */
#include "gradebook.h"
#include "json_write.h"
#include "report.h"
#include "run.h"
#include "stage.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CANVAS_DEFAULT_COLUMN "CUDA memory labs"
#define FEEDBACK_MAX (64u << 20)

typedef struct {
    const cml_book_entry *e;
    cml_book_row *rows;
    int n;
    const char *platform;    /* whose rows this file holds */
    char column[256];        /* Canvas: the assignment column */
    char when[64];           /* Moodle: "Last modified (grade)" */
} lms_book;

/* Total and max of a graded row; 0 when it has no grade. */
static int row_points(const cml_book_row *r, double *total, double *max)
{
    *total = *max = 0;
    for (int l = 0; r->graded && l < r->nlabs; l++)
        *total += r->labs[l].score, *max += r->labs[l].max;
    return r->graded;
}

static void points(FILE *f, int have, double v, char after)
{
    char buf[32] = "";
    if (have)
        cml_format_points(v, buf, sizeof buf);
    cml_csv_cell(f, buf, after);
}

/* The largest max of the graded rows: the assignment's points possible. */
static double points_possible(const lms_book *b)
{
    double best = 0, t, m;
    for (int i = 0; i < b->n; i++)
        if (row_points(&b->rows[i], &t, &m) && m > best)
            best = m;
    return best;
}

/* Canvas's import: Student, ID, SIS User ID, SIS Login ID, Section, the assignment, then
 * a "Points Possible" row; Canvas matches a row by its ID (the user id in the download). */
static void write_canvas(FILE *f, const void *ctx)
{
    const lms_book *b = ctx;
    double t, m;
    fputs("Student,ID,SIS User ID,SIS Login ID,Section,", f);
    cml_csv_cell(f, b->column, '\r');
    fputs("\nPoints Possible,,,,,", f);
    points(f, 1, points_possible(b), '\r');
    fputc('\n', f);
    for (int i = 0; i < b->n; i++) {
        if (strcmp(b->e[i].who.platform, "canvas") != 0)
            continue;
        cml_csv_cell(f, b->e[i].who.display, ',');
        cml_csv_cell(f, b->e[i].who.id, ',');
        fputs(",,,", f);
        int have = row_points(&b->rows[i], &t, &m);
        points(f, have, t, '\r');
        fputc('\n', f);
    }
}

/* The feedback comment: "cml-grade: 38.5/40 (ok)", or why there is no grade. */
static void comment(FILE *f, const cml_book_row *r, int have, double total, double max)
{
    char t[32], m[32], text[1200];
    cml_format_points(total, t, sizeof t);
    cml_format_points(max, m, sizeof m);
    if (have)
        snprintf(text, sizeof text, "cml-grade: %s/%s (%s)", t, m, r->status);
    else
        snprintf(text, sizeof text, "cml-grade: %s", r->status);
    cml_csv_cell(f, text, '\r');
}

/* Moodle's worksheet: the columns its export has; its upload reads Identifier ("Participant
 * N"), Grade, Last modified (grade) and Feedback comments, by these English names. */
static void write_moodle(FILE *f, const void *ctx)
{
    const lms_book *b = ctx;
    double t, m;
    char id[96];
    fputs("Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
          "Last modified (submission),Last modified (grade),Feedback comments\r\n", f);
    for (int i = 0; i < b->n; i++) {
        if (strcmp(b->e[i].who.platform, "moodle") != 0)
            continue;
        int have = row_points(&b->rows[i], &t, &m);
        snprintf(id, sizeof id, "Participant %s", b->e[i].who.id);
        cml_csv_cell(f, id, ',');
        cml_csv_cell(f, b->e[i].who.display, ',');
        fputs(",Submitted for grading,", f);
        points(f, have, t, ',');
        points(f, have, m, ',');
        fputs("Yes,,", f);
        cml_csv_cell(f, b->when, ',');
        comment(f, &b->rows[i], have, t, m);
        fputc('\n', f);
    }
}

/* Copy the student's feedback.html (when the grading wrote one) to dir/name, dir created. */
static void copy_feedback(const cml_book_entry *e, const char *dir, const char *name)
{
    char src[CML_PATH], dst[CML_PATH], err[256];
    if (e->dir[0] && cml_fmt(src, sizeof src, "%s/feedback.html", e->dir) == 0 &&
        cml_mkdirs(dir) == 0 && cml_fmt(dst, sizeof dst, "%s/%s", dir, name) == 0)
        cml_copy_file(src, dst, FEEDBACK_MAX, err, sizeof err);
}

/* feedback-upload.zip from feedback-upload/ with zip, when installed (the folders at the top
 * of the zip, as Moodle's "Upload multiple feedback files in a zip" reads them). */
static void zip_feedback(const char *out)
{
    char tool[CML_PATH], dir[CML_PATH], zip[CML_PATH];
    cml_proc_result r;
    if (cml_find_tool("CML_ZIP", "zip", tool, sizeof tool) < 0 ||
        cml_fmt(dir, sizeof dir, "%s/feedback-upload", out) < 0 ||
        cml_fmt(zip, sizeof zip, "%s/feedback-upload.zip", out) < 0)
        return;
    remove(zip);
    char *argv[] = { tool, "-q", "-r", "-X", zip, ".", NULL };
    cml_run_watched(argv, dir, 120.0, 4096, NULL, &r);
    cml_proc_result_free(&r);
}

/* The platform's feedback files: Moodle's folders named like its download's, Canvas's one
 * file per student named by their download name and user id. */
static void write_feedback(const char *out, const lms_book *b, int moodle)
{
    char dir[CML_PATH], name[CML_PATH];
    for (int i = 0; i < b->n; i++) {
        const cml_identity *w = &b->e[i].who;
        if (strcmp(w->platform, b->platform) != 0)
            continue;
        if (moodle && cml_fmt(dir, sizeof dir, "%s/feedback-upload/%s_%s_assignsubmission_file_",
                              out, w->display, w->id) == 0)
            copy_feedback(&b->e[i], dir, "feedback.html");
        if (!moodle && cml_fmt(dir, sizeof dir, "%s/feedback-canvas", out) == 0 &&
            cml_fmt(name, sizeof name, "%s_%s.html", w->display, w->id) == 0)
            copy_feedback(&b->e[i], dir, name);
    }
    if (moodle)
        zip_feedback(out);
}

/* The Canvas column: out/canvas-assignment's first line, else the default new column. */
static void canvas_column(const char *out, char *column, size_t len)
{
    char path[CML_PATH];
    char *text = cml_fmt(path, sizeof path, "%s/canvas-assignment", out) == 0
                     ? cml_read_text(path, 4096, NULL) : NULL;
    if (text)
        text[strcspn(text, "\r\n")] = '\0';
    snprintf(column, len, "%s", text && text[0] ? text : CANVAS_DEFAULT_COLUMN);
    free(text);
}

/* Writes one platform's files when some entry came from it; 0, or -1 with a message. */
static int write_platform(const char *out, lms_book *b, const char *platform, char *err,
                          size_t errlen)
{
    char path[CML_PATH];
    int any = 0, moodle = strcmp(platform, "moodle") == 0;
    for (int i = 0; i < b->n; i++)
        any |= strcmp(b->e[i].who.platform, platform) == 0;
    if (!any)
        return 0;
    b->platform = platform;
    if (cml_fmt(path, sizeof path, "%s/%s", out, moodle ? "moodle-grading-worksheet.csv"
                                                        : "canvas-grades.csv") < 0 ||
        cml_write_atomic(path, moodle ? write_moodle : write_canvas, b) < 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    write_feedback(out, b, moodle);
    return 0;
}

/* Contract in gradebook.h. */
int cml_lms_write(const char *out, const cml_book_entry *e, int n, char *err, size_t errlen)
{
    lms_book b = { .e = e, .n = n };
    time_t now = time(NULL);
    struct tm tm;
    b.rows = n > 0 ? calloc((size_t)n, sizeof *b.rows) : NULL;
    if (n > 0 && !b.rows) {
        snprintf(err, errlen, "out of memory for %d students' platform files", n);
        return -1;
    }
    for (int i = 0; i < n; i++)
        cml_book_read(&e[i], &b.rows[i]);
    canvas_column(out, b.column, sizeof b.column);
    /* ISO 8601 in UTC: Moodle parses it, and skips a row whose grade changed after it */
    strftime(b.when, sizeof b.when, "%Y-%m-%dT%H:%M:%S+00:00", gmtime_r(&now, &tm));
    int rc = write_platform(out, &b, "canvas", err, errlen) < 0 ||
             write_platform(out, &b, "moodle", err, errlen) < 0 ? -1 : 0;
    free(b.rows);
    return rc;
}
