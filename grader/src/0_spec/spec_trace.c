/* spec, the trace's cases (issue 44): `trace_case` lines, further cases a task's trace checks
 * must hold at, and the bounds that scale with a case parameter (`copy_htod 8*n..`). Syntax in
 * docs/SPEC.md; the runs in 6_measure/trace_run.c. */
#include "spec_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `trace_case <params>`: a further case every trace check of the task holds at, in the syntax
 * of `case` (never timed: the run is timed when a check compares timed calls). Up to
 * CML_MAX_TRACE_CASES - 1 lines; each is its own traced run, cheap beside ncu (issue 44). */
int spec_trace_case(spec_parser *p, char *args)
{
    cml_case_spec c;
    memset(&c, 0, sizeof c);
    char *params = spec_word(&args), *more = spec_word(&args);
    if (more && strcmp(more, "time") == 0)
        c.timed = 1;
    else if (!params || more)
        return spec_fail(p, "'trace_case' takes one case, e.g. 'trace_case n=4194304,passes=3'");
    if (spec_case_params(p, &c, params) != 0)
        return -1;
    if (c.timed)
        return spec_fail(p, "'trace_case': drop 'time' (a trace is timed when a check needs it)");
    cml_task_spec *t = p->task;
    if (t->ntrace_also == CML_MAX_TRACE_CASES - 1)
        return spec_fail(p, "too many 'trace_case' lines in task %s (at most %d)", t->id,
                         CML_MAX_TRACE_CASES - 1);
    snprintf(t->trace_also[t->ntrace_also++], sizeof t->trace_also[0], "%s", c.text);
    return 0;
}

/* Contract in spec.h. */
int cml_case_param(const char *text, const char *name, double *v)
{
    const size_t k = strlen(name);
    for (const char *q = text; q && *q; q += strcspn(q, ","), q += *q == ',')
        if (strncmp(q, name, k) == 0 && q[k] == '=') {
            char *end = NULL;
            *v = strtod(q + k + 1, &end);
            return end != q + k + 1 && (*end == ',' || *end == '\0') ? 0 : -1;
        }
    return -1;
}

/* Contract in spec.h. */
int cml_tech_timed_bound(const cml_tech_spec *c)
{
    return strcmp(c->min_per, CML_TIMED_NS) == 0 || strcmp(c->max_per, CML_TIMED_NS) == 0;
}

/* Contract in spec.h. */
int cml_timed_case(const cml_task_spec *t, const char *params)
{
    for (int i = 0; i < t->ncases; i++)
        if (t->cases[i].timed && strcmp(t->cases[i].text, params) == 0)
            return i;
    return -1;
}

/* Contract in spec.h. */
int cml_tech_bounds_at(const cml_tech_spec *c, const char *one, double *min, double *max)
{
    double a = 1, b = 1;
    if ((c->min_per[0] && cml_case_param(one, c->min_per, &a) != 0) ||
        (c->max_per[0] && cml_case_param(one, c->max_per, &b) != 0))
        return -1;
    *min = c->min_per[0] ? c->min * a : c->min;
    *max = c->max_per[0] ? c->max * b : c->max;
    return 0;
}
