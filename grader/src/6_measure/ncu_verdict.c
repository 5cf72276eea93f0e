/* An ncu check's verdict from the CSV rows of a run: the lab's shared run or the task's own.
 * A check holds at every case its task names (`ncu_case` lines, up to CML_MAX_NCU_CASES): a
 * technique measured at one alignment only is kept by code that takes it only there (issue 44:
 * 4.1 copied as floats at every misaligned base, float4 only at offset 0, the one ncu case).
 * Several cases, and `*` checks, read each case's window of the run (the rows after its case
 * marker); one case of a named kernel reads every row of that kernel, as before. */
#include "technique_run.h"
#include "run.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Contract in technique_run.h. */
int cml_tech_range_words(const cml_tech_spec *c, double v, char *buf, size_t len)
{
    int low = v < c->min, high = v > c->max;
    if (low)
        snprintf(buf, len, "< minimum %.17g", c->min);
    else if (high)
        snprintf(buf, len, "> limit %.17g", c->max);
    else if (c->max == HUGE_VAL)
        snprintf(buf, len, ">= %.17g", c->min);
    else if (c->min > -HUGE_VAL)
        snprintf(buf, len, "within %.17g..%.17g", c->min, c->max);
    else
        snprintf(buf, len, "<= %.17g", c->max);
    return low || high;
}

/* c's verdict on the value v read from n rows (launches, when c is per launch) of case `one`:
 * out's state and detail ("<metric> = v <= max over n launches of kernels matching p (case
 * ...<where>)"). */
static void range_verdict(const cml_tech_spec *c, double v, int n, const char *one,
                          const char *where, cml_tech_result *out)
{
    char range[96];
    out->state = cml_tech_range_words(c, v, range, sizeof range) ? CML_TECH_FAILED
                                                                 : CML_TECH_PASSED;
    char whose[64] = "the task's kernels";
    if (!c->task_kernels)
        snprintf(whose, sizeof whose, "kernels matching %.40s", c->pattern);
    snprintf(out->detail, sizeof out->detail, "%.80s = %.17g %s %s %d launch%s of %s (case "
             "%.60s%.110s)", c->metric, v, range, c->per_launch ? "in the largest of" : "over", n,
             n == 1 ? "" : "es", whose, one, where);
}

/* How far v lies inside c's range: the distance to the nearer limit (negative outside). */
static double margin(const cml_tech_spec *c, double v)
{
    double up = c->max - v, down = v - c->min;
    return up < down ? up : down;
}

/* c judged at each of t's n cases in csv, case k from window seg0 + k when segmented, else
 * (one case) from every row: the verdict of the case nearest its limit (the first outside it)
 * into out, and -1; or the index of the first case with no row of c (out untouched). */
static int judge_cases(const cml_tech_spec *c, const char *csv, char cases[][200], int n,
                       int seg0, int segmented, const char *where, cml_tech_result *out)
{
    int worst = -1, worst_rows = 0;
    double worst_v = 0;
    cml_tech_spec at = *c, worst_at = *c; /* the bounds at each case (8*n: scaled by its n) */
    for (int k = 0; k < n; k++) {
        double v = 0;
        int rows = cml_ncu_value(csv, c->metric, c->task_kernels ? NULL : c->pattern,
                                 c->per_launch, segmented ? seg0 + k : -1, &v, NULL);
        if (rows == 0)
            return k;
        if (cml_tech_bounds_at(c, cases[k], &at.min, &at.max) != 0) {
            if (cml_tech_timed_bound(c))
                continue; /* a case with no time of the student's: judged at the others */
            at.min = c->min, at.max = c->max; /* the spec's check keeps this from happening */
        }
        if (worst < 0 || margin(&at, v) < margin(&worst_at, worst_v))
            worst = k, worst_v = v, worst_rows = rows, worst_at = at;
    }
    if (worst < 0) { /* only with timed_ns, when no profiled case had a time */
        out->state = CML_TECH_NOT_CHECKED;
        snprintf(out->detail, sizeof out->detail, "not checked (no timed run of the task at "
                 "its profiled cases: %.80s)", cases[0]);
        return -1;
    }
    char text[200] = "";
    if (n > 1) /* each case's own value, in order */
        for (int k = 0; k < n; k++) {
            double v = 0;
            cml_ncu_value(csv, c->metric, c->task_kernels ? NULL : c->pattern, c->per_launch,
                          seg0 + k, &v, NULL);
            size_t used = strlen(text);
            snprintf(text + used, sizeof text - used, "%s%.17g",
                     k ? ", " : "; nearest its limit of the task's cases ", v);
        }
    size_t used = strlen(text);
    snprintf(text + used, sizeof text - used, "%s", where);
    range_verdict(&worst_at, worst_v, worst_rows, cases[worst], text, out);
    return -1;
}

/* Contract in technique_run.h. */
int cml_ncu_from_lab_run(const cml_tech_spec *c, const cml_task_spec *t, char cases[][200],
                         const cml_ncu_runs *runs, cml_tech_result *out)
{
    int in = -1, marks = 0;
    for (int i = 0; i < runs->lab.ntasks; i++)
        in = runs->lab.tasks[i] == t ? i : in;
    if (in < 0 || runs->lab.rc != 0 || !runs->lab.r.output)
        return 0;
    const int n = runs->lab.count[in], segmented = n > 1 || c->task_kernels;
    double v = 0;
    cml_ncu_value(runs->lab.r.output, c->metric, NULL, c->per_launch, -1, &v, &marks);
    if (segmented && marks != runs->lab.ncases)
        return 0; /* windows not one per case: the task's own run tells them apart */
    char where[96];
    snprintf(where, sizeof where, ", in one ncu run for %d tasks", runs->lab.ntasks);
    return judge_cases(c, runs->lab.r.output, cases, n, runs->lab.first[in], segmented, where,
                       out) < 0;
}

/* Contract in technique_run.h. */
void cml_ncu_judge_rows(const cml_tech_spec *c, const cml_proc_result *r, char cases[][200],
                        int n, cml_tech_result *out)
{
    char tail[200];
    const int segmented = n > 1 || c->task_kernels;
    double any = 0;
    int marks = 0, all = r->output ? cml_ncu_value(r->output, c->metric, NULL, c->per_launch, -1,
                                                   &any, &marks) : 0;
    cml_proc_tail(r, 150, tail, sizeof tail);
    if (r->output && strstr(r->output, "ERR_NVGPUCTRPERM")) {
        snprintf(out->detail, sizeof out->detail, "not checked (no permission to read the "
                 "GPU's performance counters: ERR_NVGPUCTRPERM)");
        return;
    }
    if (segmented && marks != n && all > 0) {
        /* kernels were profiled, but not in one window per case that the harness's marker
         * opened */
        out->state = CML_TECH_FAILED;
        snprintf(out->detail, sizeof out->detail, "%d launches of a kernel named cml_case_mark "
                 "in the task's %d case(s) (%.80s...), where the harness launches one a case to "
                 "tell cases apart: name your kernels differently, and leave the harness's "
                 "stream alone", marks, n, cases[0]);
        return;
    }
    int k = r->output ? judge_cases(c, r->output, cases, n, 0, segmented, "", out) : 0;
    if (k < 0)
        return;
    if (r->output && ((segmented && marks == n) || all > 0 ||
                      strstr(r->output, "No kernels were profiled") ||
                      strstr(r->output, "application returned an error"))) {
        /* the lab ran under ncu (cml-confine started it) and launched no kernel of that exact
         * name in case k (its marker ran, or other kernels were profiled: ncu's filter matches
         * within names): a renamed or unlaunched kernel, work done on the host, a path taken
         * only at some alignments or sizes, or a lab that behaves differently when profiled */
        char which[80] = "of the task";
        if (!c->task_kernels)
            snprintf(which, sizeof which, "matching '%.60s'", c->pattern);
        out->state = CML_TECH_FAILED;
        snprintf(out->detail, sizeof out->detail, "no kernel %s ran under ncu (case %.80s): "
                 "%.80s", which, cases[k], tail);
    } else
        snprintf(out->detail, sizeof out->detail, "not checked (ncu reported no %.80s for "
                 "a kernel matching %.60s in case %.80s: %.80s)", c->metric, c->pattern,
                 cases[k], tail);
}
