/* The judge: the one place where a task's status, points and detail are decided, from what the
 * stages found (cml_findings in cml.h, the case verdicts, the credit, the technique checks and
 * the sanitizer runs), by the precedence table below. A pure function: it reads the findings
 * and returns the verdict; publish.c alone writes it into the result. */
#include "judge.h"
#include "findings.h"
#include "technique.h" /* cml_tech_kind_name */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* What a guard region's finding means, before the case's own words. */
#define GUARD_SAYS "memory outside the case's buffers (the grader maps nothing right after " \
                   "each device buffer, and in odd cases right before it, so such an access " \
                   "faults at any size; compute-sanitizer memcheck names the kernel): "

/* printf into buf, cut at its end: a detail is one line of a report, and its parts are long. */
__attribute__((format(printf, 3, 4))) static void say(char *buf, size_t len, const char *fmt,
                                                      ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* The findings that decide a status, highest first: the first that holds decides. */
enum finding { TAMPERED, STOPPED, SANITIZER_RUN, CASE_FAILED, TECHNIQUE_FAILED, SPEED };

/* The status each reason for a stop gives. */
static const enum cml_status STOP_STATUS[] = {
    [CML_STOP_NONE] = CML_STATUS_NONE,           [CML_STOP_NOT_BUILT] = CML_STATUS_BUILD_ERROR,
    [CML_STOP_NOT_HANDED_IN] = CML_STATUS_MISSING, [CML_STOP_NO_GPU] = CML_STATUS_NO_GPU,
    [CML_STOP_NOT_RUN] = CML_STATUS_ERROR,       [CML_STOP_CRASHED] = CML_STATUS_CRASH,
    [CML_STOP_TIMED_OUT] = CML_STATUS_TIMEOUT,
};

/* How failed cases name the status: the first fault that holds, highest first (a TODO is the
 * harness's own word; a memory error outranks the CUDA error it raised; a missing result is a
 * crash only where no other fault explains it). */
static const struct {
    unsigned fault;
    enum cml_status status;
} FAULT_STATUS[] = {
    { CML_FAULT_TODO, CML_STATUS_TODO },       { CML_FAULT_GUARD, CML_STATUS_SANITIZER },
    { CML_FAULT_ERROR, CML_STATUS_ERROR },     { CML_FAULT_NO_RESULT, CML_STATUS_CRASH },
    { CML_FAULT_WRONG, CML_STATUS_WRONG },
};

/* Contract in judge.h. */
enum cml_status cml_stop_status(enum cml_stop s)
{
    return (unsigned)s < sizeof STOP_STATUS / sizeof STOP_STATUS[0] ? STOP_STATUS[s]
                                                                     : CML_STATUS_ERROR;
}

/* Contract in judge.h. */
enum cml_status cml_fault_status(unsigned faults)
{
    for (size_t i = 0; i < sizeof FAULT_STATUS / sizeof FAULT_STATUS[0]; i++)
        if (faults & FAULT_STATUS[i].fault)
            return FAULT_STATUS[i].status;
    return faults ? CML_STATUS_WRONG : CML_STATUS_NONE;
}

/* Which finding decides r's status. A sanitizer run's error outranks a case failure only where
 * that failure is itself a memory error (a guard region's finding): the tools ran only on
 * tasks whose cases all passed, or to name such a kernel. */
static enum finding leading(const cml_task_result *r, int tool, int tech)
{
    const cml_findings *f = &r->found;
    const enum cml_status failed = cml_fault_status(f->faults);
    if (f->tampered[0])
        return TAMPERED;
    if (f->stopped != CML_STOP_NONE)
        return STOPPED;
    if (tool && (failed == CML_STATUS_NONE || failed == CML_STATUS_SANITIZER))
        return SANITIZER_RUN;
    if (failed != CML_STATUS_NONE)
        return CASE_FAILED;
    return tech >= 0 ? TECHNIQUE_FAILED : SPEED;
}

/* The sanitizer tools' errors, in tool order, "; " between, into buf; how many tools failed
 * (as findings.h counts them: by their state, whatever their words). */
static int tool_errors(const cml_task_result *r, char *buf, size_t len)
{
    size_t used = 0;
    int n = 0;
    buf[0] = '\0';
    for (int k = 0; k < CML_SANITIZERS; k++)
        if (r->sanitizers[k].state == CML_TECH_FAILED) {
            int w = used + 1 < len ? snprintf(buf + used, len - used, "%s%s", n ? "; " : "",
                                              r->sanitizers[k].detail) : 0;
            used += w > 0 ? (size_t)w : 0;
            used = used < len ? used : len - 1;
            n++;
        }
    return n;
}

/* The one rule for a task's points: each part counts only when status s earns it
 * (cml_status_earns) and as far as the credit goes; max_score is always the spec's total. */
static void award(const cml_task_result *r, enum cml_status s, cml_verdict *v)
{
    const cml_task_spec *t = r->spec;
    const unsigned earns = cml_status_earns(s);
    v->status = s;
    v->max_score = t->points + t->perf_points + t->technique_points;
    v->correctness_score = (earns & CML_PART_CORRECTNESS) && t->ncases > 0
                           ? t->points * r->credit.cases / t->ncases : 0;
    v->perf_score = (earns & CML_PART_PERF) ? t->perf_points * r->credit.perf : 0;
    v->technique_score = (earns & CML_PART_TECHNIQUE) && r->credit.technique
                         ? t->technique_points : 0;
    v->score = v->correctness_score + v->perf_score + v->technique_score;
}

/* Contract in judge.h. */
cml_verdict cml_judge(const cml_task_result *r)
{
    const cml_findings *f = &r->found;
    cml_verdict v;
    char base[sizeof r->detail], tools[sizeof r->detail];
    char *d = v.detail;
    const size_t n = sizeof v.detail;
    int tech = cml_failed_check(r), tool = tool_errors(r, tools, sizeof tools);
    const enum cml_status failed = cml_fault_status(f->faults);
    say(base, sizeof base, "%s%s%s", f->why, f->why[0] && f->note[0] ? "; " : "", f->note);
    enum cml_status s = CML_STATUS_NONE;
    switch (leading(r, tool, tech)) {
    case TAMPERED:
        s = CML_STATUS_TAMPERED;
        say(d, n, "the lab process %s: results from the lab process are claims, and "
            "this one was forged", f->tampered);
        break;
    case STOPPED:
        s = cml_stop_status(f->stopped);
        say(d, n, "%s", base[0] ? base : cml_status_name(s));
        break;
    case SANITIZER_RUN: /* a guard region's finding stays after the tools' */
        s = CML_STATUS_SANITIZER;
        say(d, n, "%s%s%s%s", tools, failed ? "; " : "", failed ? GUARD_SAYS : "",
            failed ? base : "");
        break;
    case CASE_FAILED:
        s = failed;
        say(d, n, "%s%s", s == CML_STATUS_SANITIZER ? GUARD_SAYS : "", base);
        break;
    case TECHNIQUE_FAILED:
        s = CML_STATUS_TECHNIQUE;
        say(d, n, "technique check %s failed (it proves: %.160s): %.320s%s%.400s",
            cml_tech_kind_name(r->spec->tech[tech].kind), r->spec->tech[tech].what,
            r->tech[tech].detail, base[0] ? "; " : "", base);
        break;
    case SPEED:
        s = r->credit.perf >= 1 ? CML_STATUS_PASSED : CML_STATUS_SLOW;
        say(d, n, "%s", base);
        break;
    }
    award(r, s, &v);
    return v;
}
