/* Every report of one grading into its output folder, as the pipeline publishes them: after each
 * lab, and once more at the end. */
#include "report.h"
#include "util.h"

#include <errno.h>
#include <unistd.h>

/* Contract in report.h. The instructor's files (record.json, summary.tsv) as graded; the
 * student's from the student view (report_paths.c), which names no server folder. */
int cml_write_reports(const char *out_dir, const cml_grading *g)
{
    char path[CML_PATH];
    int rc = 0;
    cml_grading *s = cml_student_view(g);
    rc |= cml_fmt(path, sizeof path, "%s/record.json", out_dir) < 0 || cml_report_json(path, g);
    rc |= cml_fmt(path, sizeof path, "%s/summary.tsv", out_dir) < 0 || cml_report_tsv(path, g);
    if (!s)
        return -1; /* out of memory: better no feedback than one with the server's paths */
    rc |= cml_fmt(path, sizeof path, "%s/feedback.md", out_dir) < 0 ||
          cml_report_feedback_md(path, s);
    rc |= cml_fmt(path, sizeof path, "%s/feedback.html", out_dir) < 0 || cml_report_html(path, s);
    /* Gradescope and CI read these as a grade: without a GPU there is none, so none is left
     * there (not a 0, nor "skipped" as if that were a pass) */
    rc |= cml_fmt(path, sizeof path, "%s/results.json", out_dir) < 0 ||
          (g->have_gpu ? cml_report_gradescope(path, s) : unlink(path) < 0 && errno != ENOENT);
    rc |= cml_fmt(path, sizeof path, "%s/junit.xml", out_dir) < 0 ||
          (g->have_gpu ? cml_report_junit(path, s) : unlink(path) < 0 && errno != ENOENT);
    cml_student_view_free(s);
    return rc ? -1 : 0;
}
