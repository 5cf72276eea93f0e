/* report_term: what a student reads after `make grade`. A header (submission, seed, GPU), a
 * table per lab, under it what went wrong with each task not passed and where the lecture note
 * explains it, and `Score: x/y` as the very last line. Colour only when asked for. */
#include "report.h"
#include "verify.h"

#include <math.h>
#include <string.h>

#define RED "\033[31m"
#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define BOLD "\033[1m"
#define RESET "\033[0m"
#define TITLE_WIDTH 30

typedef struct {
    FILE *f;
    int color;
} term;

/* Points with up to 2 decimals, trailing zeros trimmed: 38.5, 40, 6.67. */
void cml_format_points(double v, char *buf, size_t len)
{
    snprintf(buf, len, "%.2f", isfinite(v) ? v : 0.0);
    char *dot = strchr(buf, '.');
    if (dot) {
        char *end = buf + strlen(buf);
        while (end > dot && (end[-1] == '0' || end[-1] == '.'))
            *--end = '\0';
    }
    if (strcmp(buf, "-0") == 0)
        snprintf(buf, len, "0");
}

/* Contract in report.h. */
const char *cml_practice_note(void)
{
    return "practice grade: speed is judged against this GPU's copy bandwidth, not the "
           "reference solution; the course grader's speed points can differ. What can differ: "
           "each timed task's speed points and its status (passed or slow), judged here from "
           "the fraction of this GPU's copy bandwidth (pinned host link for labs 06 and 07) "
           "the reference reaches on the course GPUs (the spec's practice_fraction), without "
           "the second measurement of a slow task; and the cases drawn from the seed. "
           "Correctness, technique and sanitizer checks are the course grader's own.";
}

/* A CUDA version integer (13000) as "13.0". */
void cml_format_cuda_version(int v, char *buf, size_t len)
{
    snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* text in colour `code` when colour is on. */
static void paint(const term *t, const char *code, const char *text)
{
    fprintf(t->f, "%s%s%s", t->color ? code : "", text, t->color ? RESET : "");
}

/* The colour of a status: its shade in the status table (status.c). */
static const char *status_color(enum cml_status status)
{
    switch (cml_status_shade(status)) {
    case CML_SHADE_GOOD: return GREEN;
    case CML_SHADE_PARTIAL: return YELLOW;
    default: return RED;
    }
}

/* Submission, seed and GPU: what a re-grade needs to reproduce this one. */
static void print_header(const term *t, const cml_grading *g)
{
    char drv[16], rt[16];
    fputs("Submission: ", t->f);
    cml_put_clean(t->f, g->submission, 0);
    fprintf(t->f, "   seed %llu", (unsigned long long)g->seed);
    if (g->started_at[0])
        fprintf(t->f, "   %s", g->started_at);
    fputc('\n', t->f);
    if (!g->have_gpu)
        return;
    cml_format_cuda_version(g->driver, drv, sizeof drv);
    cml_format_cuda_version(g->runtime, rt, sizeof rt);
    fputs("GPU: ", t->f);
    cml_put_clean(t->f, g->gpu_name, 0);
    fprintf(t->f, ", compute capability %d.%d, %d SMs, driver %s, runtime %s, nvcc %s\n",
            g->cc / 10, g->cc % 10, g->sms, drv, rt, g->nvcc_version[0] ? g->nvcc_version : "?");
    if (g->practice) {
        paint(t, BOLD YELLOW, "Practice grade");
        fprintf(t->f, ": %s\n", cml_practice_note() + strlen("practice grade: "));
    }
}

/* Contract in report.h. */
int cml_lab_missing(const cml_lab_result *lab)
{
    return lab->ntasks > 0 && lab->tasks[0].status == CML_STATUS_MISSING;
}

/* Contract in report.h. */
int cml_lab_unbuilt(const cml_lab_result *lab, const char **heading, const char **text)
{
    if (lab->built)
        return -1;
    if (cml_lab_missing(lab)) {
        *heading = "Nothing to build:";
        *text = lab->tasks[0].detail;
    } else {
        *heading = lab->stage_refused ? "Not built: the submission's files were refused:"
                                      : "Build failed. The compiler said:";
        *text = lab->build_log && lab->build_log[0] ? lab->build_log : "(no output)";
    }
    return 0;
}

/* Under a lab: why it was not built (cml_lab_unbuilt), else the compiler's warnings. */
static void print_build_log(const term *t, const cml_lab_result *lab)
{
    const char *heading = "Compiler warnings:", *text = lab->build_log;
    if (cml_lab_unbuilt(lab, &heading, &text) < 0 && (!text || !text[0]))
        return;
    paint(t, lab->built ? YELLOW : RED, heading);
    fputc('\n', t->f);
    cml_put_clean(t->f, text, 1);
    if (text[0] && text[strlen(text) - 1] != '\n')
        fputc('\n', t->f);
}

/* No GPU: say so once, and what was still checked (the builds). */
static void print_no_gpu(const term *t, const cml_grading *g)
{
    paint(t, BOLD RED, "No GPU found");
    fputs(": ", t->f);
    cml_put_clean(t->f, g->no_gpu_reason[0] ? g->no_gpu_reason : "no CUDA device", 0);
    fputs("\nNothing could run, so no task was graded. Still checked, the builds:\n", t->f);
    for (int i = 0; i < g->nlabs; i++) {
        const cml_lab_result *lab = &g->labs[i];
        fprintf(t->f, "  %-18s ", lab->spec ? lab->spec->lab : "?");
        paint(t, lab->built ? GREEN : RED, lab->built ? "builds" : cml_lab_missing(lab)
                                                                    ? "not handed in"
                                                                    : "build failed");
        fputc('\n', t->f);
    }
    for (int i = 0; i < g->nlabs; i++)
        if (g->labs[i].spec && g->labs[i].built) /* ptx and forbid need no GPU */
            cml_report_tech_term(t->f, &g->labs[i], t->color);
    for (int i = 0; i < g->nlabs; i++)
        if (!g->labs[i].built) {
            fprintf(t->f, "\n%s: ", g->labs[i].spec ? g->labs[i].spec->lab : "?");
            print_build_log(t, &g->labs[i]);
        }
}

/* A title cut to `width` bytes on a UTF-8 boundary, "..." marking the cut. */
static void short_title(const char *title, char *buf, size_t width)
{
    size_t n = strlen(title);
    if (n <= width) {
        memcpy(buf, title, n + 1);
        return;
    }
    n = width - 3;
    while (n > 0 && ((unsigned char)title[n] & 0xC0) == 0x80)
        n--;
    memcpy(buf, title, n);
    memcpy(buf + n, "...", 4);
}

static void print_table_head(const term *t)
{
    char line[128];
    snprintf(line, sizeof line, "%-5s %-*s %5s %9s %9s %6s %5s %11s  %s\n", "task", TITLE_WIDTH,
             "title", "cases", "ms", "ref ms", "ratio", "%copy", "points", "status");
    paint(t, BOLD, line);
}

/* One row: task, title, cases passed, times, ratio, % of copy bandwidth, points, status. */
static void print_task_row(const term *t, const cml_task_result *r)
{
    char title[TITLE_WIDTH + 1], cases[16] = "-", ms[16] = "-", ref[16] = "-", ratio[16] = "-";
    char copy[16] = "-", got[16], max[16], points[40];
    const cml_task_spec *s = r->spec;
    short_title(s->title, title, TITLE_WIDTH);
    if (cml_status_ran(r->status))
        snprintf(cases, sizeof cases, "%d/%d", r->cases_passed, s->ncases);
    if (r->ms > 0)
        snprintf(ms, sizeof ms, "%.3f", r->ms);
    if (r->ref_ms > 0)
        snprintf(ref, sizeof ref, "%.3f", r->ref_ms);
    if (r->timed)
        snprintf(ratio, sizeof ratio, "%.2fx", r->ratio);
    if (r->copy_fraction > 0)
        snprintf(copy, sizeof copy, "%.0f%%", 100 * r->copy_fraction);
    cml_format_points(r->score, got, sizeof got);
    cml_format_points(r->max_score, max, sizeof max);
    snprintf(points, sizeof points, "%s/%s", got, max);
    fprintf(t->f, "%-5s %-*s %5s %9s %9s %6s %5s %11s  ", s->id, TITLE_WIDTH, title, cases, ms,
            ref, ratio, copy, points);
    const char *status = cml_status_name(r->status);
    paint(t, status_color(r->status), status[0] ? status : "-");
    fputc('\n', t->f);
}

/* "index 5: expected 1.2345678, got nan". */
void cml_format_mismatch(const cml_mismatch *m, char *buf, size_t len)
{
    char exp[32], got[32];
    cml_format_value(m->expected, exp, sizeof exp);
    cml_format_value(m->got, got, sizeof got);
    snprintf(buf, len, "index %llu: expected %s, got %s", (unsigned long long)m->index, exp, got);
}

/* The first failing case of r that kept mismatches, or NULL. */
const cml_case_verdict *cml_first_mismatches(const cml_task_result *r)
{
    for (int i = 0; r->spec && i < r->spec->ncases && i < CML_MAX_CASES; i++)
        if (!r->cases[i].passed && r->cases[i].nmis > 0)
            return &r->cases[i];
    return NULL;
}

/* Under the table, for a task not passed: the detail, its first mismatches, its hint. */
static void print_task_notes(const term *t, const cml_task_result *r, const char *note)
{
    char line[160];
    const cml_case_verdict *v = cml_first_mismatches(r);
    fprintf(t->f, "%-5s ", r->spec->id);
    paint(t, status_color(r->status), cml_status_name(r->status));
    fputs(": ", t->f);
    cml_put_clean(t->f, r->detail, 0);
    fputc('\n', t->f);
    for (int m = 0; v && m < v->nmis && m < CML_MAX_MISMATCH; m++) {
        cml_format_mismatch(&v->mis[m], line, sizeof line);
        fprintf(t->f, "      %s\n", line);
    }
    const char *where, *hint;
    cml_task_hint(r, note, &where, &hint);
    if (hint[0] || (note && note[0]))
        fprintf(t->f, "      hint (%s): %s\n", where, hint[0] ? hint : "see the lecture note");
}

/* One lab: heading with its score, the table, the notes, the compiler's output. */
static void print_lab(const term *t, const cml_lab_result *lab)
{
    char got[16], max[16], head[256];
    cml_format_points(lab->score, got, sizeof got);
    cml_format_points(lab->max_score, max, sizeof max);
    snprintf(head, sizeof head, "\n== %s: %s  (%s/%s)\n", lab->spec->lab, lab->spec->title, got,
             max);
    paint(t, BOLD, head);
    print_table_head(t);
    for (int i = 0; i < lab->ntasks; i++)
        print_task_row(t, &lab->tasks[i]);
    int notes = 0;
    for (int i = 0; i < lab->ntasks; i++) {
        const cml_task_result *r = &lab->tasks[i];
        if (r->status == CML_STATUS_PASSED || r->status == CML_STATUS_BUILD_ERROR ||
            r->status == CML_STATUS_MISSING)
            continue; /* the lab's one note, printed below: the compiler's, or what is missing */
        if (!notes) /* a blank line between the table and the notes */
            fputc('\n', t->f);
        notes = 1;
        print_task_notes(t, r, lab->spec->note);
    }
    cml_report_tech_term(t->f, lab, t->color);
    cml_report_san_term(t->f, lab, t->color);
    print_build_log(t, lab);
}

/* Writes the terminal report; its last line is exactly "Score: x/y". Colour (ANSI) only
 * when `color` is set. Without a GPU, says so once and lists what was still checked. */
void cml_report_terminal(FILE *f, const cml_grading *g, int color)
{
    term t = {f, color};
    char got[16], max[16];
    print_header(&t, g);
    if (!g->have_gpu)
        print_no_gpu(&t, g);
    for (int i = 0; g->have_gpu && i < g->nlabs; i++)
        if (g->labs[i].spec)
            print_lab(&t, &g->labs[i]);
    fputc('\n', f);
    cml_report_san_phase(f, g);
    cml_format_points(g->score, got, sizeof got);
    cml_format_points(g->max_score, max, sizeof max);
    fprintf(f, "\nScore: %s/%s\n", got, max);
}
