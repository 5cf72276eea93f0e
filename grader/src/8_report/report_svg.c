/* report_svg: a lab's bandwidth chart, drawn by the grader as inline SVG (no script, no font
 * file, no network): per timed task three bars, the student's GB/s, the reference's GB/s on
 * the same GPU in the same grading, and the bound the task is held to (device copy bandwidth,
 * or the pinned host link for a host-involved task). */
#include "report.h"
#include "verify.h"

#include <math.h>

#define BAR_W 22      /* one bar */
#define GROUP_GAP 34  /* between two tasks' groups */
#define LEFT 64       /* room for the axis labels */
#define TOP 46        /* room for the title and the legend */
#define PLOT_H 220
#define BOTTOM 40     /* room for the task ids */
#define MIN_W 520

/* Contract in report.h. */
int cml_chart_timed(const cml_task_result *r)
{
    return r->spec && r->timed && isfinite(r->gbps) && r->gbps > 0;
}

/* The bound of a host-involved task in its own bytes: what speed.c compared (copy_fraction is
 * gbps / bound); without a fraction, the slower direction of the link. */
static double link_bound(const cml_lab_result *lab, const cml_task_result *r)
{
    if (r->copy_fraction > 0 && isfinite(r->copy_fraction))
        return r->gbps / r->copy_fraction;
    double up = lab->ref_run.link_h2d_gbps, down = lab->ref_run.link_d2h_gbps;
    return up > 0 && down > 0 ? fmin(up, down) : up > 0 ? up : down > 0 ? down : 0;
}

/* Contract in report.h. */
void cml_chart_values(const cml_lab_result *lab, const cml_task_result *r, double v[3],
                      const char **bound_name)
{
    const cml_check *chk = cml_check_find(r->spec->check);
    /* same bytes for both sides: the reference moved them in ref_ms instead of ms */
    double speedup = r->ms > 0 && r->ref_ms > 0 ? r->ms / r->ref_ms : r->ratio;
    v[0] = r->gbps;
    v[1] = isfinite(speedup) && speedup > 0 ? r->gbps * speedup : 0;
    *bound_name = chk && chk->link ? "host link" : "device copy";
    /* a practice grade has no reference run: the copy bandwidth is the student run's own */
    v[2] = chk && chk->link ? link_bound(lab, r)
           : lab->ref_run.copy_gbps > 0 ? lab->ref_run.copy_gbps
           : r->copy_fraction > 0 && isfinite(r->copy_fraction) ? r->gbps / r->copy_fraction : 0;
    for (int i = 0; i < 3; i++)
        v[i] = isfinite(v[i]) && v[i] > 0 ? v[i] : 0;
}

/* The top of the axis: the largest value rounded up to 1, 2 or 5 times a power of ten. */
static double axis_top(double max)
{
    if (max <= 0)
        return 1;
    double p = pow(10, floor(log10(max)));
    return max <= p ? p : max <= 2 * p ? 2 * p : max <= 5 * p ? 5 * p : 10 * p;
}

static void format_gbps(double v, char *buf, size_t len)
{
    snprintf(buf, len, v >= 100 || v == 0 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
}

/* The title, the legend (top right) and the y axis with five ticks and grid lines. */
static void draw_frame(FILE *f, const cml_lab_result *lab, int width, double top)
{
    static const char *const names[3] = {"student", "reference", "bound"};
    static const char *const fills[3] = {CML_CHART_STUDENT, CML_CHART_REFERENCE, CML_CHART_BOUND};
    char label[32];
    fprintf(f, "<text x=\"%d\" y=\"18\" font-size=\"14\" font-weight=\"bold\">", LEFT);
    cml_put_xml(f, lab->spec->lab, 0);
    fputs(": bandwidth (GB/s)</text>\n", f);
    for (int i = 0; i < 3; i++) {
        int x = width - 290 + i * 95;
        fprintf(f, "<rect class=\"legend\" x=\"%d\" y=\"26\" width=\"12\" height=\"12\" "
                "fill=\"%s\"/><text x=\"%d\" y=\"37\" font-size=\"12\">%s</text>\n",
                x, fills[i], x + 16, names[i]);
    }
    for (int t = 0; t <= 5; t++) {
        double y = TOP + PLOT_H - PLOT_H * t / 5.0;
        format_gbps(top * t / 5, label, sizeof label);
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#dddddd\"/>"
                "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>\n",
                LEFT, y, width - 10, y, LEFT - 6, y + 4, label);
    }
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>\n"
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>\n",
            LEFT, TOP, LEFT, TOP + PLOT_H, LEFT, TOP + PLOT_H, width - 10, TOP + PLOT_H);
}

/* One task's three bars at x, its id under them and each value above its bar. */
static void draw_group(FILE *f, const cml_task_result *r, const double v[3],
                       const char *bound_name, int x, double top)
{
    static const char *const fills[3] = {CML_CHART_STUDENT, CML_CHART_REFERENCE, CML_CHART_BOUND};
    static const char *const kinds[3] = {"student", "reference", "bound"};
    char label[32];
    for (int i = 0; i < 3; i++) {
        double h = PLOT_H * fmin(v[i] / top, 1.0), bx = x + i * BAR_W;
        format_gbps(v[i], label, sizeof label);
        fprintf(f, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" "
                "fill=\"%s\"><title>", kinds[i], bx, TOP + PLOT_H - h, BAR_W - 2, h, fills[i]);
        cml_put_xml(f, r->spec->id, 0);
        fprintf(f, " %s%s%s: %s GB/s</title></rect>\n", kinds[i], i == 2 ? ", " : "",
                i == 2 ? bound_name : "", label);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\" text-anchor=\"middle\">%s</text>\n",
                bx + (BAR_W - 2) / 2.0, TOP + PLOT_H - h - 3, label);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">",
            x + 1.5 * BAR_W, TOP + PLOT_H + 18);
    cml_put_xml(f, r->spec->id, 0);
    fputs("</text>\n", f);
}

/* Contract in report.h. */
int cml_report_svg_chart(FILE *f, const cml_lab_result *lab)
{
    double v[CML_MAX_TASKS][3], max = 0;
    const char *bound[CML_MAX_TASKS];
    int n = 0;
    for (int k = 0; k < lab->ntasks && k < CML_MAX_TASKS; k++)
        if (cml_chart_timed(&lab->tasks[k])) {
            cml_chart_values(lab, &lab->tasks[k], v[k], &bound[k]);
            max = fmax(max, fmax(v[k][0], fmax(v[k][1], v[k][2])));
            n++;
        }
    if (n == 0)
        return 0;
    double top = axis_top(max);
    int width = LEFT + n * (3 * BAR_W + GROUP_GAP) + 20;
    width = width < MIN_W ? MIN_W : width;
    fprintf(f, "<svg class=\"bw-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" font-family=\"sans-serif\">\n",
            width, TOP + PLOT_H + BOTTOM, width, TOP + PLOT_H + BOTTOM);
    draw_frame(f, lab, width, top);
    for (int k = 0, g = 0; k < lab->ntasks && k < CML_MAX_TASKS; k++)
        if (cml_chart_timed(&lab->tasks[k]))
            draw_group(f, &lab->tasks[k], v[k], bound[k],
                       LEFT + GROUP_GAP / 2 + g++ * (3 * BAR_W + GROUP_GAP), top);
    fputs("</svg>\n", f);
    return n;
}

/* Contract in report.h. */
const char *cml_chart_missing(const cml_task_result *r)
{
    int timed_case = 0;
    for (int i = 0; r->spec && i < r->spec->ncases && i < CML_MAX_CASES; i++)
        timed_case |= r->spec->cases[i].timed;
    if (!timed_case)
        return "no timed case";
    if (!cml_status_ran(r->status))
        return "not run";
    return cml_status_solved(r->status) ? "no time for both sides" : "not timed: a case failed";
}
