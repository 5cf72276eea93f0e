/* report_html: feedback.html, one self-contained page a student opens in a browser: the score,
 * per lab a table of tasks, what to read for each task not passed, and the bandwidth chart
 * (report_svg.c). No script, no external file; every student string through cml_put_xml.
 * Void elements are self-closed, so the page is also well-formed XML (the tests parse it). */
#include "report.h"

#include <inttypes.h>

/* Status colours: none of the chart's fills (report.h), so a screenshot's bar colours come
 * from the chart alone. */
static const char STYLE[] =
    "body{font-family:sans-serif;max-width:1100px;margin:1em auto;color:#222222}"
    "table{border-collapse:collapse;margin:0.5em 0}"
    "td,th{border:1px solid #cccccc;padding:4px 8px;text-align:left;vertical-align:top}"
    ".good{color:#1a7f37}.partial{color:#9a6700}.bad{color:#cf222e}"
    "pre{background:#f6f8fa;padding:8px;overflow:auto;white-space:pre-wrap}";

static const char *shade_class(enum cml_status s)
{
    enum cml_shade sh = cml_status_shade(s);
    return sh == CML_SHADE_GOOD ? "good" : sh == CML_SHADE_PARTIAL ? "partial" : "bad";
}

/* The page's head, the score and where the grading ran. */
static void write_top(FILE *f, const cml_grading *g)
{
    char got[16], max[16];
    cml_format_points(g->score, got, sizeof got);
    cml_format_points(g->max_score, max, sizeof max);
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"/>"
            "<title>Feedback: %s/%s</title><style>%s</style></head>\n<body>\n"
            "<h1>Grading feedback</h1>\n<p class=\"score\">Score: <strong>%s/%s</strong></p>\n"
            "<p>", got, max, STYLE, got, max);
    if (g->student[0]) {
        fputs("Student: <strong>", f);
        cml_put_xml(f, g->student, 0);
        fputs("</strong><br/>", f);
    }
    fputs("Submission: <code>", f);
    cml_put_xml(f, g->submission, 0);
    fputs("</code>, graded ", f);
    cml_put_xml(f, g->started_at, 0);
    fprintf(f, ", seed %" PRIu64 ".<br/>", g->seed);
    if (g->have_gpu) {
        fputs("GPU: ", f);
        cml_put_xml(f, g->gpu_name, 0);
        fprintf(f, " (compute capability %d.%d).</p>\n", g->cc / 10, g->cc % 10);
        if (g->practice)
            fprintf(f, "<p class=\"practice\"><strong>Note, %s</strong></p>\n",
                    cml_practice_note());
    } else {
        fputs("No GPU found: ", f);
        cml_put_xml(f, g->no_gpu_reason, 0);
        fputs(". Only the builds were checked.</p>\n", f);
    }
}

static void write_row(FILE *f, const cml_task_result *r)
{
    char got[16], max[16];
    cml_format_points(r->score, got, sizeof got);
    cml_format_points(r->max_score, max, sizeof max);
    fputs("<tr><td>", f);
    cml_put_xml(f, r->spec->id, 0);
    fputs(" ", f);
    cml_put_xml(f, r->spec->title, 0);
    fprintf(f, "</td><td class=\"%s\">%s</td><td>%s/%s</td><td>", shade_class(r->status),
            r->status ? cml_status_name(r->status) : "-", got, max);
    cml_put_xml(f, r->detail, 0);
    fputs("</td></tr>\n", f);
}

/* One item per task not passed: its detail's first mismatch and where the note explains it. */
static void write_hints(FILE *f, const cml_lab_result *lab)
{
    char line[160];
    int open = 0;
    for (int k = 0; k < lab->ntasks && k < CML_MAX_TASKS; k++) {
        const cml_task_result *r = &lab->tasks[k];
        const char *where, *hint;
        if (!r->spec || r->status == CML_STATUS_PASSED)
            continue;
        cml_task_hint(r, lab->spec->note, &where, &hint);
        fputs(open++ ? "" : "<ul class=\"hints\">\n", f);
        fputs("<li><strong>", f);
        cml_put_xml(f, r->spec->id, 0);
        fprintf(f, "</strong> (%s)", cml_status_name(r->status));
        const cml_case_verdict *v = cml_first_mismatches(r);
        if (v && v->nmis > 0) {
            cml_format_mismatch(&v->mis[0], line, sizeof line);
            fprintf(f, ": first mismatch %s", line);
        }
        if (hint[0]) {
            fputs(". Read ", f);
            cml_put_xml(f, where, 0);
            fputs(": ", f);
            cml_put_xml(f, hint, 0);
        }
        fputs("</li>\n", f);
    }
    fputs(open ? "</ul>\n" : "", f);
}

/* The chart, then the tasks it leaves out and why. */
static void write_chart(FILE *f, const cml_lab_result *lab)
{
    fputs("<h3>Bandwidth</h3>\n", f);
    if (cml_report_svg_chart(f, lab) == 0)
        fputs("<p class=\"no-chart\">No task of this lab has timings, so there is no "
              "bandwidth chart.</p>\n", f);
    int open = 0;
    for (int k = 0; k < lab->ntasks && k < CML_MAX_TASKS; k++) {
        const cml_task_result *r = &lab->tasks[k];
        if (!r->spec || cml_chart_timed(r))
            continue;
        fputs(open++ ? "; " : "<p class=\"untimed\">Without timings: ", f);
        cml_put_xml(f, r->spec->id, 0);
        fprintf(f, " (%s)", cml_chart_missing(r));
    }
    fputs(open ? ".</p>\n" : "", f);
}

static void write_lab(FILE *f, const cml_lab_result *lab)
{
    char got[16], max[16];
    cml_format_points(lab->score, got, sizeof got);
    cml_format_points(lab->max_score, max, sizeof max);
    fputs("<section class=\"lab\">\n<h2>", f);
    cml_put_xml(f, lab->spec->lab, 0);
    fputs(": ", f);
    cml_put_xml(f, lab->spec->title, 0);
    fprintf(f, " &#8212; %s/%s</h2>\n", got, max);
    const char *heading, *text;
    if (cml_lab_unbuilt(lab, &heading, &text) == 0) {
        fputs("<p class=\"bad\">", f);
        cml_put_xml(f, heading, 0);
        fputs("</p>\n<pre>", f);
        cml_put_xml(f, text, 1);
        fputs("</pre>\n", f);
    }
    fputs("<table>\n<tr><th>Task</th><th>Status</th><th>Points</th><th>Detail</th></tr>\n", f);
    for (int k = 0; k < lab->ntasks && k < CML_MAX_TASKS; k++)
        if (lab->tasks[k].spec)
            write_row(f, &lab->tasks[k]);
    fputs("</table>\n", f);
    write_hints(f, lab);
    write_chart(f, lab);
    fputs("</section>\n", f);
}

static void write_page(FILE *f, const void *ctx)
{
    const cml_grading *g = ctx;
    write_top(f, g);
    for (int i = 0; i < g->nlabs && i < CML_MAX_LABS; i++)
        if (g->labs[i].spec)
            write_lab(f, &g->labs[i]);
    fputs("<p class=\"legend-note\">Chart colours: the student's GB/s blue, the reference "
          "solution's GB/s on the same GPU orange, the bound green (device copy bandwidth, or "
          "the pinned host link for a task that crosses it).</p>\n</body>\n</html>\n", f);
}

/* Contract in report.h. */
int cml_report_html(const char *path, const cml_grading *g)
{
    return cml_write_atomic(path, write_page, g);
}
