/* A task's contract as its sheet shows it: the inputs it is graded on (the spec's cases and the
 * ranges each grading draws from), how its output is checked, the evidence its technique points
 * need and how its speed is judged, all written from the spec, which stays the one place that
 * decides them (issue 44). `cml-grade contract` prints the blocks or writes them into the
 * sheets; tests/test_sheets_contract.c fails when a sheet's block differs from its spec's. */
#include "contract.h"
#include "checks.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends to buf (len bytes, NUL-terminated), truncating; what fits is kept. */
static void put(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

static void put_range(char *buf, size_t len, double min, double max)
{
    if (min > -1e300 && max < 1e300)
        put(buf, len, "%.15g to %.15g", min, max);
    else if (min > -1e300)
        put(buf, len, "at least %.15g", min);
    else
        put(buf, len, "at most %.15g", max);
}

/* c's range, scaled bounds as "at least 8 x n" (issue 44: trace and ncu checks alike). */
static void put_bounds(char *buf, size_t len, const cml_tech_spec *c)
{
    if (!c->min_per[0] && !c->max_per[0]) {
        put_range(buf, len, c->min, c->max);
        return;
    }
    if (c->min > -1e300)
        put(buf, len, "%s%.15g%s%s", c->max < 1e300 ? "" : "at least ", c->min,
            c->min_per[0] ? " x " : "", c->min_per);
    if (c->max < 1e300)
        put(buf, len, "%s%.15g%s%s", c->min > -1e300 ? " to " : "at most ", c->max,
            c->max_per[0] ? " x " : "", c->max_per);
}

static void put_inputs(char *buf, size_t len, const cml_task_spec *t)
{
    put(buf, len, "- Inputs: ");
    const int own = t->ncases - t->drawn;
    for (int i = 0; i < own; i++)
        put(buf, len, "%s`%s`%s", i == 0 ? "" : i == own - 1 ? " and " : ", ",
            t->cases[i].text, t->cases[i].timed ? " (timed)" : "");
    if (t->ndraws > 0) {
        put(buf, len, "; each grading adds %d case%s drawn from its seed over ", t->ndraws,
            t->ndraws == 1 ? "" : "s");
        for (int i = 0; i < t->ndraws; i++)
            put(buf, len, "%s`%s`", i == 0 ? "" : i == t->ndraws - 1 ? " and " : ", ",
                t->draws[i]);
    }
    put(buf, len, ".\n");
}

static void put_check(char *buf, size_t len, const cml_tech_spec *c)
{
    switch (c->kind) {
    case CML_TECH_PTX:
    case CML_TECH_SASS:
        put(buf, len, "  - %s of %s: %s\n", c->kind == CML_TECH_PTX ? "the PTX" : "the SASS",
            c->scope[0] ? c->scope : "your file", c->what);
        break;
    case CML_TECH_FORBID:
        put(buf, len, "  - not in `%s` as compiled: %s\n", c->file, c->what);
        break;
    case CML_TECH_NCU:
        put(buf, len, "  - measured by ncu on %s: %s, `%s` ",
            c->task_kernels ? "every kernel the case launched" : c->pattern, c->what, c->metric);
        put_bounds(buf, len, c);
        put(buf, len, "\n");
        break;
    case CML_TECH_PROBE:
        put(buf, len, "  - the compiler, on `%s` as you wrote it: %s (`%s` must hold)\n", c->file,
            c->what, c->pattern);
        break;
    case CML_TECH_TRACE:
        put(buf, len, "  - traced from your calls in a real run: %s, `%s` ", c->what, c->metric);
        put_bounds(buf, len, c);
        put(buf, len, "\n");
        break;
    }
}

/* Contract in contract.h. */
void cml_contract_text(const cml_lab_spec *lab, const cml_task_spec *t, char *buf, size_t len)
{
    buf[0] = '\0';
    put(buf, len, "<!-- contract %s: written from grader/specs/%s.spec by `cml-grade contract "
        "--write`; edit the spec, not this -->\n", t->id, lab->lab);
    put(buf, len, "**What %s is graded on.**\n", t->id);
    put_inputs(buf, len, t);
    uint64_t period = 0, lane = 0;
    if (t->rel_tol > 0 && cml_check_passthrough(cml_check_find(t->check), &period, &lane))
        put(buf, len, "- Output: every computed value within a relative %g of the grader's own "
            "computation; every value copied through (floats %llu, %llu, %llu, ...) bit for "
            "bit, whatever it holds: -0, infinities, NaNs with their payloads, subnormals "
            "(%.0f points over the cases).\n", t->rel_tol, (unsigned long long)lane,
            (unsigned long long)(lane + period), (unsigned long long)(lane + 2 * period),
            t->points);
    else if (t->rel_tol > 0)
        put(buf, len, "- Output: every value within a relative %g of the grader's own "
            "computation (%.0f points over the cases).\n", t->rel_tol, t->points);
    else
        put(buf, len, "- Output: bit for bit against the grader's own computation (%.0f points "
            "over the cases).\n", t->points);
    if (t->sanitize_drawn)
        put(buf, len, "- Memory errors: compute-sanitizer also runs every drawn case, at any size: "
            "a read or write one byte past either end of a buffer costs the task its points.\n");
    if (t->ntech > 0) {
        put(buf, len, "- Technique (%.0f points), checked once every case passed",
            t->technique_points);
        if (t->ncu_case[0])
            put(buf, len, " (measured on `%s`", t->ncu_case);
        for (int k = 0; k < t->nncu_also; k++)
            put(buf, len, "%s`%s`", k + 1 == t->nncu_also ? " and " : ", ", t->ncu_also[k]);
        if (!t->ncu_case[0] && t->ntrace_also && t->ncases > 0) /* the trace's first case */
            put(buf, len, " (traced on `%s`", t->cases[0].text);
        for (int k = 0; k < t->ntrace_also; k++) /* issue 44: the trace at larger cases */
            put(buf, len, "%s`%s`", k == 0 && t->ncu_case[0] ? "; traced also on " :
                k + 1 == t->ntrace_also ? " and " : ", ", t->trace_also[k]);
        if (t->ncu_case[0] || t->ntrace_also)
            put(buf, len, "%s)", t->nncu_also || t->ntrace_also ? ", each limit at each" : "");
        put(buf, len, ":\n");
        for (int i = 0; i < t->ntech; i++)
            put_check(buf, len, &t->tech[i]);
    }
    if (t->perf_points > 0)
        put(buf, len, "- Speed (%.0f points): your time over the reference solution's on the "
            "same GPU in the same grading, full points up to %gx, none from %gx.\n",
            t->perf_points, t->full_ratio, t->zero_ratio);
    put(buf, len, "<!-- end contract %s -->\n", t->id);
}
