/* report_feedback: feedback.md, the student's feedback as Markdown (for a repository's issue,
 * an LMS comment, a terminal pager). The same content as feedback.html, with the bandwidth
 * chart as a table of the same numbers: Markdown renderers strip inline SVG. Student text goes
 * through cml_put_md (one line, `|` escaped) or cml_put_md_code (the compiler's log). */
#include "report.h"

#include <inttypes.h>

static void write_top(FILE *f, const cml_grading *g)
{
    char got[16], max[16];
    cml_format_points(g->score, got, sizeof got);
    cml_format_points(g->max_score, max, sizeof max);
    fprintf(f, "# Grading feedback\n\n**Score: %s/%s**\n\n", got, max);
    if (g->student[0]) {
        fputs("Student: ", f);
        cml_put_md(f, g->student);
        fputs(".  \n", f);
    }
    fputs("Submission: ", f);
    cml_put_md(f, g->submission);
    fputs(", graded ", f);
    cml_put_md(f, g->started_at);
    fprintf(f, ", seed %" PRIu64 ".  \n", g->seed);
    if (g->have_gpu) {
        fputs("GPU: ", f);
        cml_put_md(f, g->gpu_name);
        fprintf(f, " (compute capability %d.%d).\n\n", g->cc / 10, g->cc % 10);
        if (g->practice)
            fprintf(f, "**Note, %s**\n\n", cml_practice_note());
    } else {
        fputs("No GPU found: ", f);
        cml_put_md(f, g->no_gpu_reason);
        fputs(". Only the builds were checked.\n\n", f);
    }
}

static void write_table(FILE *f, const cml_lab_result *lab)
{
    char got[16], max[16];
    fputs("| Task | Status | Points | Detail |\n|---|---|---|---|\n", f);
    for (int k = 0; k < lab->ntasks && k < CML_MAX_TASKS; k++) {
        const cml_task_result *r = &lab->tasks[k];
        if (!r->spec)
            continue;
        cml_format_points(r->score, got, sizeof got);
        cml_format_points(r->max_score, max, sizeof max);
        fputs("| ", f);
        cml_put_md(f, r->spec->id);
        fputs(" ", f);
        cml_put_md(f, r->spec->title);
        fprintf(f, " | %s | %s/%s | ", r->status ? cml_status_name(r->status) : "-", got, max);
        cml_put_md(f, r->detail);
        fputs(" |\n", f);
    }
    fputs("\n", f);
}

/* One bullet per task not passed: its first mismatch and where the note explains it. */
static void write_hints(FILE *f, const cml_lab_result *lab)
{
    char line[160];
    int n = 0;
    for (int k = 0; k < lab->ntasks && k < CML_MAX_TASKS; k++) {
        const cml_task_result *r = &lab->tasks[k];
        const char *where, *hint;
        if (!r->spec || r->status == CML_STATUS_PASSED)
            continue;
        n++;
        cml_task_hint(r, lab->spec->note, &where, &hint);
        fputs("- **", f);
        cml_put_md(f, r->spec->id);
        fprintf(f, "** (%s)", cml_status_name(r->status));
        const cml_case_verdict *v = cml_first_mismatches(r);
        if (v && v->nmis > 0) {
            cml_format_mismatch(&v->mis[0], line, sizeof line);
            fputs(": first mismatch ", f);
            cml_put_md(f, line);
        }
        if (hint[0]) {
            fputs(". Read ", f);
            cml_put_md(f, where);
            fputs(": ", f);
            cml_put_md(f, hint);
        }
        fputs("\n", f);
    }
    fputs(n ? "\n" : "", f);
}

/* The chart's numbers: one row per timed task, then the tasks without timings and why. */
static void write_bandwidth(FILE *f, const cml_lab_result *lab)
{
    double v[3];
    const char *bound;
    int rows = 0, untimed = 0;
    fputs("### Bandwidth (GB/s)\n\n", f);
    for (int k = 0; k < lab->ntasks && k < CML_MAX_TASKS; k++) {
        const cml_task_result *r = &lab->tasks[k];
        if (!r->spec || !cml_chart_timed(r))
            continue;
        fputs(rows++ ? "" : "| Task | Student | Reference | Bound |\n|---|---|---|---|\n", f);
        cml_chart_values(lab, r, v, &bound);
        fputs("| ", f);
        cml_put_md(f, r->spec->id);
        fprintf(f, " | %.1f | %.1f | %.1f (%s) |\n", v[0], v[1], v[2], bound);
    }
    fputs(rows ? "\n" : "No task of this lab has timings.\n\n", f);
    for (int k = 0; k < lab->ntasks && k < CML_MAX_TASKS; k++) {
        const cml_task_result *r = &lab->tasks[k];
        if (!r->spec || cml_chart_timed(r))
            continue;
        fputs(untimed++ ? "; " : "Without timings: ", f);
        cml_put_md(f, r->spec->id);
        fprintf(f, " (%s)", cml_chart_missing(r));
    }
    fputs(untimed ? ".\n\n" : "", f);
}

static void write_lab(FILE *f, const cml_lab_result *lab)
{
    char got[16], max[16];
    cml_format_points(lab->score, got, sizeof got);
    cml_format_points(lab->max_score, max, sizeof max);
    fputs("## ", f);
    cml_put_md(f, lab->spec->lab);
    fputs(": ", f);
    cml_put_md(f, lab->spec->title);
    fprintf(f, " (%s/%s)\n\n", got, max);
    const char *heading, *text;
    if (cml_lab_unbuilt(lab, &heading, &text) == 0) {
        fprintf(f, "%s\n\n", heading);
        cml_put_md_code(f, text);
        fputs("\n", f);
    }
    write_table(f, lab);
    write_hints(f, lab);
    write_bandwidth(f, lab);
}

static void write_feedback(FILE *f, const void *ctx)
{
    const cml_grading *g = ctx;
    write_top(f, g);
    for (int i = 0; i < g->nlabs && i < CML_MAX_LABS; i++)
        if (g->labs[i].spec)
            write_lab(f, &g->labs[i]);
}

/* Contract in report.h. */
int cml_report_feedback_md(const char *path, const cml_grading *g)
{
    return cml_write_atomic(path, write_feedback, g);
}
