/* The judge: the one place where a task's status, points and detail are decided, from what the
 * stages found (cml_findings in cml.h, the case verdicts, the credit, the technique checks and
 * the sanitizer runs). Every stage records its finding and calls cml_judge; a later finding
 * changes the verdict only as far as the precedence table below lets it. */
#include "score.h"
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

/* Which finding decides r's status. A sanitizer run's error outranks a case failure only where
 * that failure is itself a memory error (a guard region's finding): the tools ran only on
 * tasks whose cases all passed, or to name such a kernel. */
static enum finding leading(const cml_task_result *r, int tool, int tech)
{
    const cml_findings *f = &r->found;
    if (f->tampered[0])
        return TAMPERED;
    if (f->stopped != CML_STATUS_NONE)
        return STOPPED;
    if (tool && (f->failed == CML_STATUS_NONE || f->failed == CML_STATUS_SANITIZER))
        return SANITIZER_RUN;
    if (f->failed != CML_STATUS_NONE)
        return CASE_FAILED;
    return tech >= 0 ? TECHNIQUE_FAILED : SPEED;
}

/* Contract in score.h. */
int cml_failed_check(const cml_task_result *r)
{
    for (int k = 0; r->found.checked && r->spec && k < r->spec->ntech; k++)
        if (r->tech[k].state != CML_TECH_PASSED && r->tech[k].state != CML_TECH_NOT_CHECKED)
            return k;
    return -1;
}

/* The sanitizer tools' errors, in tool order, "; " between, into buf; whether there were any. */
static int tool_errors(const cml_task_result *r, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < CML_SANITIZERS && used + 1 < len; k++)
        if (r->sanitizers[k].state == CML_TECH_FAILED) {
            int w = snprintf(buf + used, len - used, "%s%s", used ? "; " : "",
                             r->sanitizers[k].detail);
            used += w > 0 ? (size_t)w : 0;
        }
    return buf[0] != '\0';
}

/* The one rule for a task's points: each part counts only when status s earns it
 * (cml_status_earns) and as far as the credit goes; max_score is always the spec's total. */
static void award(cml_task_result *r, enum cml_status s)
{
    const cml_task_spec *t = r->spec;
    const unsigned earns = cml_status_earns(s);
    r->status = s;
    r->max_score = t->points + t->perf_points + t->technique_points;
    r->correctness_score = (earns & CML_PART_CORRECTNESS) && t->ncases > 0
                           ? t->points * r->credit.cases / t->ncases : 0;
    r->perf_score = (earns & CML_PART_PERF) ? t->perf_points * r->credit.perf : 0;
    r->technique_score = (earns & CML_PART_TECHNIQUE) && r->credit.technique
                         ? t->technique_points : 0;
    r->score = r->correctness_score + r->perf_score + r->technique_score;
}

/* Contract in score.h. */
void cml_judge(cml_task_result *r)
{
    const cml_findings *f = &r->found;
    char base[sizeof r->detail], tools[sizeof r->detail], d[sizeof r->detail];
    int tech = cml_failed_check(r), tool = tool_errors(r, tools, sizeof tools);
    say(base, sizeof base, "%s%s%s", f->why, f->why[0] && f->note[0] ? "; " : "", f->note);
    enum cml_status s = CML_STATUS_NONE;
    switch (leading(r, tool, tech)) {
    case TAMPERED:
        s = CML_STATUS_TAMPERED;
        say(d, sizeof d, "the lab process %s: results from the lab process are claims, and "
            "this one was forged", f->tampered);
        break;
    case STOPPED:
        s = f->stopped;
        say(d, sizeof d, "%s", base[0] ? base : cml_status_name(s));
        break;
    case SANITIZER_RUN: /* a guard region's finding stays after the tools' */
        s = CML_STATUS_SANITIZER;
        say(d, sizeof d, "%s%s%s%s", tools, f->failed ? "; " : "", f->failed ? GUARD_SAYS : "",
            f->failed ? base : "");
        break;
    case CASE_FAILED:
        s = f->failed;
        say(d, sizeof d, "%s%s", s == CML_STATUS_SANITIZER ? GUARD_SAYS : "", base);
        break;
    case TECHNIQUE_FAILED:
        s = CML_STATUS_TECHNIQUE;
        say(d, sizeof d, "technique check %s failed (it proves: %.160s): %.320s%s%.400s",
            cml_tech_kind_name(r->spec->tech[tech].kind), r->spec->tech[tech].what,
            r->tech[tech].detail, base[0] ? "; " : "", base);
        break;
    case SPEED:
        s = r->credit.perf >= 1 ? CML_STATUS_PASSED : CML_STATUS_SLOW;
        say(d, sizeof d, "%s", base);
        break;
    }
    memcpy(r->detail, d, sizeof r->detail);
    award(r, s);
}

/* Contract in score.h. */
void cml_judge_stopped(cml_task_result *r, enum cml_status s, const char *why)
{
    r->found.stopped = s;
    snprintf(r->found.why, sizeof r->found.why, "%s", why);
    cml_judge(r);
}
