/* findings: the pipeline's questions about a task's findings (contracts in findings.h). */
#include "findings.h"

#include <stdio.h>

/* Contract in findings.h. */
int cml_found_cases_passed(const cml_task_result *r)
{
    const cml_findings *f = &r->found;
    return !f->tampered[0] && f->stopped == CML_STOP_NONE && f->faults == 0;
}

/* Whether a sanitizer tool of r found an error. */
static int tool_error(const cml_task_result *r)
{
    for (int k = 0; k < CML_SANITIZERS; k++)
        if (r->sanitizers[k].state == CML_TECH_FAILED)
            return 1;
    return 0;
}

/* Contract in findings.h. */
int cml_found_solved(const cml_task_result *r)
{
    return cml_found_cases_passed(r) && !tool_error(r);
}

/* Contract in findings.h. */
int cml_found_slow(const cml_task_result *r)
{
    return cml_found_solved(r) && cml_failed_check(r) < 0 && r->timed && r->credit.perf < 1;
}

/* Contract in findings.h. */
int cml_found_memory_error(const cml_task_result *r)
{
    return cml_found_guard_fault(r) || (tool_error(r) && r->found.faults == 0);
}

/* Contract in findings.h. */
int cml_found_guard_fault(const cml_task_result *r)
{
    return (r->found.faults & CML_FAULT_GUARD) && !(r->found.faults & CML_FAULT_TODO);
}

/* Contract in findings.h. */
int cml_found_ran(const cml_task_result *r)
{
    const enum cml_stop s = r->found.stopped;
    return r->found.tampered[0] || (s != CML_STOP_NOT_BUILT && s != CML_STOP_NOT_HANDED_IN &&
                                    s != CML_STOP_NO_GPU);
}

/* Contract in findings.h. */
int cml_found_todo(const cml_task_result *r)
{
    const cml_findings *f = &r->found;
    return !f->tampered[0] && f->stopped == CML_STOP_NONE && (f->faults & CML_FAULT_TODO);
}

/* Contract in findings.h. */
int cml_failed_check(const cml_task_result *r)
{
    for (int k = 0; r->found.checked && r->spec && k < r->spec->ntech; k++)
        if (r->tech[k].state != CML_TECH_PASSED && r->tech[k].state != CML_TECH_NOT_CHECKED)
            return k;
    return -1;
}

/* Contract in findings.h. */
int cml_unchecked(const cml_task_result *r)
{
    int n = 0;
    for (int k = 0; r->found.checked && r->spec && k < r->spec->ntech; k++)
        n += r->tech[k].state == CML_TECH_NOT_CHECKED;
    for (int k = 0; cml_found_cases_passed(r) && k < CML_SANITIZERS; k++)
        n += r->sanitizers[k].state == CML_TECH_NOT_CHECKED;
    return n;
}

/* Contract in findings.h. */
int cml_course_unchecked(const cml_grading *g)
{
    int n = 0;
    for (int i = 0; i < g->nlabs && i < CML_MAX_LABS; i++)
        for (int t = 0; !g->labs[i].practice && t < g->labs[i].ntasks; t++)
            n += cml_unchecked(&g->labs[i].tasks[t]);
    return n;
}

/* Contract in findings.h. */
void cml_found_stopped(cml_task_result *r, enum cml_stop s, const char *why)
{
    r->found.stopped = s;
    snprintf(r->found.why, sizeof r->found.why, "%s", why);
}

/* Contract in findings.h. */
void cml_found_tampered(cml_task_result *r, const cml_run_record *run)
{
    snprintf(r->found.tampered, sizeof r->found.tampered, "%s",
             run->tamper[0] ? run->tamper : "forged a record");
}
