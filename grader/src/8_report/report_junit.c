/* report_junit: junit.xml, the grading as JUnit XML for CI dashboards (GitLab, Jenkins, GitHub
 * test reporters): a <testsuite> per lab, a <testcase> per task; a task without full points is a
 * <failure>, one not run for lack of a GPU is <skipped>. Every string goes through cml_put_xml,
 * which also drops what XML 1.0 forbids (most control characters, invalid UTF-8). */
#include "report.h"

#include <math.h>

/* Whether the task counts as skipped: compiled, never run, because there is no GPU. */
static int skipped(const cml_task_result *r)
{
    return r->status == CML_STATUS_NO_GPU;
}

/* Whether the task counts as failed: it ran (or should have) and lost points. */
static int failed(const cml_task_result *r)
{
    return !skipped(r) && (r->status != CML_STATUS_PASSED || r->score < r->max_score - 1e-9);
}

/* The failure's body: detail, technique and sanitizer lines, and the hint. */
static void write_failure(FILE *f, const cml_task_result *r, const char *note)
{
    char got[16], max[16];
    const char *where, *hint;
    cml_format_points(r->score, got, sizeof got);
    cml_format_points(r->max_score, max, sizeof max);
    fprintf(f, "      <failure type=\"%s\" message=\"%s, %s/%s points: ",
            r->status ? cml_status_name(r->status) : "not-graded",
            r->status ? cml_status_name(r->status) : "not graded", got, max);
    cml_put_xml(f, r->detail, 0);
    fputs("\">", f);
    cml_put_xml(f, r->detail, 1);
    cml_task_hint(r, note, &where, &hint);
    if (hint[0]) {
        fputs("\nHint (", f);
        cml_put_xml(f, where, 0);
        fputs("): ", f);
        cml_put_xml(f, hint, 1);
    }
    fputs("</failure>\n", f);
}

static void write_case(FILE *f, const cml_lab_result *lab, const cml_task_result *r)
{
    fputs("    <testcase classname=\"", f);
    cml_put_xml(f, lab->spec->lab, 0);
    fputs("\" name=\"", f);
    cml_put_xml(f, r->spec->id, 0);
    fputs(": ", f);
    cml_put_xml(f, r->spec->title, 0);
    fputs("\">\n", f);
    if (skipped(r)) {
        fputs("      <skipped message=\"no-gpu: ", f);
        cml_put_xml(f, r->detail, 0);
        fputs("\"/>\n", f);
    } else if (failed(r)) {
        write_failure(f, r, lab->spec->note);
    }
    fputs("    </testcase>\n", f);
}

static void write_suite(FILE *f, const cml_lab_result *lab)
{
    int n = 0, nfailed = 0, nskipped = 0;
    for (int k = 0; k < lab->ntasks && k < CML_MAX_TASKS; k++)
        if (lab->tasks[k].spec) {
            n++;
            nfailed += failed(&lab->tasks[k]);
            nskipped += skipped(&lab->tasks[k]);
        }
    fputs("  <testsuite name=\"", f);
    cml_put_xml(f, lab->spec->lab, 0);
    fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\" time=\"%.3f\">\n",
            n, nfailed, nskipped, isfinite(lab->wall_s) ? lab->wall_s : 0.0);
    const char *heading, *text;
    if (cml_lab_unbuilt(lab, &heading, &text) == 0) {
        fputs("    <system-out>", f); /* why it was not built, kept where CI tools show it */
        cml_put_xml(f, heading, 0);
        fputc('\n', f);
        cml_put_xml(f, text, 1);
        fputs("</system-out>\n", f);
    }
    for (int k = 0; k < lab->ntasks && k < CML_MAX_TASKS; k++)
        if (lab->tasks[k].spec)
            write_case(f, lab, &lab->tasks[k]);
    fputs("  </testsuite>\n", f);
}

static void write_junit(FILE *f, const void *ctx)
{
    const cml_grading *g = ctx;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"cml-grade\" time=\"%.3f\">\n", isfinite(g->wall_s) ? g->wall_s : 0.0);
    for (int i = 0; i < g->nlabs && i < CML_MAX_LABS; i++)
        if (g->labs[i].spec)
            write_suite(f, &g->labs[i]);
    fputs("</testsuites>\n", f);
}

/* Contract in report.h. */
int cml_report_junit(const char *path, const cml_grading *g)
{
    return cml_write_atomic(path, write_junit, g);
}
