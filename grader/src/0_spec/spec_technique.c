/* spec, technique directives: checks that prove how a task was solved (PTX/SASS patterns,
 * forbidden calls in a source file, Nsight Compute counters, the grader's CUPTI trace of the
 * student's calls) and the points they are worth.
 * compute-sanitizer is no technique check: it runs on every solved task (spec_sanitize.c). Each pattern is compiled here, so a bad regex is a spec error, never a
 * silently failing check. Syntax in docs/SPEC.md. */
#include "spec_parse.h"

#include <regex.h>
#include <math.h>
#include <string.h>

/* A new check of `kind` in the open task, or NULL (with p->err) when the task is full. */
static cml_tech_spec *new_check(spec_parser *p, enum cml_tech_kind kind, const char *name)
{
    cml_task_spec *t = p->task;
    if (t->ntech == CML_MAX_TECH) {
        spec_fail(p, "'%s': at most %d technique checks per task", name, CML_MAX_TECH);
        return NULL;
    }
    cml_tech_spec *c = &t->tech[t->ntech++];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    return c;
}

/* One word into dst, refusing what does not fit. */
static int word_into(spec_parser *p, const char *name, const char *field, const char *w,
                     char *dst, size_t len)
{
    if (!w)
        return spec_fail(p, "'%s' needs %s", name, field);
    if (strlen(w) >= len)
        return spec_fail(p, "'%s': %s is too long (at most %zu characters)", name, field,
                         len - 1);
    strcpy(dst, w);
    return 0;
}

/* A POSIX extended regular expression that compiles. */
static int regex_into(spec_parser *p, const char *name, const char *w, char *dst, size_t len)
{
    if (word_into(p, name, "a regular expression", w, dst, len) != 0)
        return -1;
    regex_t re;
    int rc = regcomp(&re, dst, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char why[128];
        regerror(rc, &re, why, sizeof why);
        return spec_fail(p, "'%s': '%s' is not a POSIX extended regex: %s", name, dst, why);
    }
    regfree(&re);
    return 0;
}

/* The rest of the line: what the check proves (required). */
static int what_into(spec_parser *p, const char *name, char *args, cml_tech_spec *c)
{
    char *what = spec_trim(args);
    if (*what == '\0')
        return spec_fail(p, "'%s' ends with what the check proves, e.g. '128-bit loads'", name);
    return word_into(p, name, "its text", what, c->what, sizeof c->what);
}

/* `ptx [in=<kernel>] <regex> <what>` and `sass ...` alike. */
static int pattern_check(spec_parser *p, char *args, enum cml_tech_kind kind, const char *name)
{
    cml_tech_spec *c = new_check(p, kind, name);
    if (!c)
        return -1;
    char *w = spec_word(&args);
    if (w && strncmp(w, "in=", 3) == 0) {
        if (w[3] == '\0')
            return spec_fail(p, "'%s': in= needs a kernel name", name);
        if (word_into(p, name, "the kernel name", w + 3, c->scope, sizeof c->scope) != 0)
            return -1;
        w = spec_word(&args);
    }
    if (regex_into(p, name, w, c->pattern, sizeof c->pattern) != 0)
        return -1;
    return what_into(p, name, args, c);
}

int spec_ptx(spec_parser *p, char *args)
{
    return pattern_check(p, args, CML_TECH_PTX, "ptx");
}

int spec_sass(spec_parser *p, char *args)
{
    return pattern_check(p, args, CML_TECH_SASS, "sass");
}

/* `forbid <file> <regex> <what>`: the file must be one of the lab's `files`. */
int spec_forbid(spec_parser *p, char *args)
{
    cml_tech_spec *c = new_check(p, CML_TECH_FORBID, "forbid");
    if (!c)
        return -1;
    char *file = spec_word(&args);
    if (word_into(p, "forbid", "a student file", file, c->file, sizeof c->file) != 0)
        return -1;
    int listed = 0;
    for (int i = 0; i < p->spec->nfiles; i++)
        listed |= strcmp(p->spec->files[i], file) == 0;
    if (!listed)
        return spec_fail(p, "'forbid': '%s' is not one of the lab's 'files'", file);
    if (regex_into(p, "forbid", spec_word(&args), c->pattern, sizeof c->pattern) != 0)
        return -1;
    return what_into(p, "forbid", args, c);
}

/* `probe <file> <condition> <what>`: a C++ constant expression (one word) that must hold for
 * the file as compiled: the build compiles `#include "<file>"` and a static_assert of it
 * (2_build/evidence_probe.c). For what the compiler alone can tell, such as a declared
 * alignment (4.2b's alignof(Point4)==16), in any spelling. */
int spec_probe(spec_parser *p, char *args)
{
    cml_tech_spec *c = new_check(p, CML_TECH_PROBE, "probe");
    if (!c)
        return -1;
    char *file = spec_word(&args);
    if (word_into(p, "probe", "a student file", file, c->file, sizeof c->file) != 0)
        return -1;
    int listed = 0;
    for (int i = 0; i < p->spec->nfiles; i++)
        listed |= strcmp(p->spec->files[i], file) == 0;
    if (!listed)
        return spec_fail(p, "'probe': '%s' is not one of the lab's 'files'", file);
    char *cond = spec_word(&args);
    if (word_into(p, "probe", "a condition", cond, c->pattern, sizeof c->pattern) != 0)
        return -1;
    if (strpbrk(cond, "\"\\;{}#"))
        return spec_fail(p, "'probe': the condition '%s' is one expression (no quotes, ';', "
                         "braces or '#')", cond);
    return what_into(p, "probe", args, c);
}

/* Whether m is a metric name, or a sum of up to 4 (`a+b`): no empty term, and either every
 * term a per-launch property (launch__...) or none: *per_launch says which. */
static int metric_sum(const char *m, int *per_launch)
{
    const char *name = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.";
    int launch = 0;
    for (int terms = 1; terms <= 4; terms++) {
        size_t n = strspn(m, name);
        if (n == 0 || (m[n] != '+' && m[n] != '\0'))
            return 0;
        launch += strncmp(m, "launch__", 8) == 0;
        if (m[n] == '\0') {
            *per_launch = launch == terms;
            return launch == 0 || launch == terms;
        }
        m += n + 1;
    }
    return 0;
}

/* One bound: a number, or for a trace or ncu check `<k>*<param>` (k times a parameter of each
 * traced or profiled case: "8*n"), k into *v and the parameter into per. */
static int bound(spec_parser *p, const char *name, const char *w, const char *field, double *v,
                 char *per, size_t plen)
{
    const char *star = w && (strcmp(name, "trace") == 0 || strcmp(name, "ncu") == 0)
                       ? strchr(w, '*') : NULL;
    char k[64];
    if (!star)
        return spec_number(p, w, field, v);
    snprintf(k, sizeof k, "%.*s", (int)(star - w < 63 ? star - w : 63), w);
    if (star[1] == '\0' || strlen(star + 1) >= plen ||
        strspn(star + 1, "abcdefghijklmnopqrstuvwxyz_") != strlen(star + 1))
        return spec_fail(p, "'%s': '%s' is not <number>*<case parameter>, e.g. 8*n", name, w);
    snprintf(per, plen, "%s", star + 1);
    return spec_number(p, k, field, v);
}

/* `<max>`, `<min>..<max>` or `<min>..` (no maximum) into c, for directive `name`. */
static int value_range(spec_parser *p, const char *name, const char *w, cml_tech_spec *c)
{
    const char *dots = w ? strstr(w, "..") : NULL;
    char lo[64], min[40], max[40];
    snprintf(min, sizeof min, "%s's minimum", name);
    snprintf(max, sizeof max, "%s's maximum", name);
    c->min = -HUGE_VAL;
    if (!dots)
        return bound(p, name, w, max, &c->max, c->max_per, sizeof c->max_per);
    snprintf(lo, sizeof lo, "%.*s", (int)(dots - w < 63 ? dots - w : 63), w);
    c->max = HUGE_VAL;
    if (bound(p, name, lo, min, &c->min, c->min_per, sizeof c->min_per) != 0 ||
        (dots[2] && bound(p, name, dots + 2, max, &c->max, c->max_per,
                          sizeof c->max_per) != 0))
        return -1;
    if (c->min > c->max && !c->min_per[0] && !c->max_per[0])
        return spec_fail(p, "'%s': the range %s is empty (its minimum is above its maximum)",
                         name, w);
    return 0;
}

/* `ncu <kernel-regex>|* <metric>[+<metric>...] <max>|<min>..[<max>] <what>`; `*`: every
 * kernel the task's case launched, whatever its name (a template, a lambda, a namespace). */
int spec_ncu(spec_parser *p, char *args)
{
    cml_tech_spec *c = new_check(p, CML_TECH_NCU, "ncu");
    if (!c)
        return -1;
    char *metric, *kernels = spec_word(&args);
    c->task_kernels = kernels && strcmp(kernels, "*") == 0;
    if (regex_into(p, "ncu", c->task_kernels ? ".*" : kernels, c->pattern,
                   sizeof c->pattern) != 0 ||
        word_into(p, "ncu", "a metric name", metric = spec_word(&args), c->metric,
                  sizeof c->metric) != 0)
        return -1;
    if (!metric_sum(metric, &c->per_launch))
        return spec_fail(p, "'ncu': '%s' is not a metric name, nor a sum of up to 4 (a+b) that "
                         "are all per-launch properties (launch__) or all counts", metric);
    if (value_range(p, "ncu", spec_word(&args), c) != 0)
        return -1;
    return what_into(p, "ncu", args, c);
}

/* Contract in spec.h. */
int cml_trace_measure_of(const char *name)
{
    static const char *const NAMES[CML_TRACE_NMEASURES] = {"copy_bytes", "copy_htod",
        "copy_dtoh", "alloc_unmanaged", "alloc_device", "launches_per_call",
        "launches_not_on_stream", "device_symbol_bytes", "calls_unlike_checked",
        "ops_not_on_stream", "prefetches"};
    for (int i = 0; name && i < CML_TRACE_NMEASURES; i++)
        if (strcmp(name, NAMES[i]) == 0)
            return i;
    return -1;
}

/* `trace <metric> <max>|<min>..[<max>] <what>`: what the student's own calls did in the task's
 * case (ncu_case, else its first), from the grader's CUPTI trace (6_measure/trace_run.c). */
int spec_trace(spec_parser *p, char *args)
{
    cml_tech_spec *c = new_check(p, CML_TECH_TRACE, "trace");
    char *metric = c ? spec_word(&args) : NULL;
    if (!c || word_into(p, "trace", "a measure", metric, c->metric, sizeof c->metric) != 0)
        return -1;
    if (cml_trace_measure_of(metric) < 0)
        return spec_fail(p, "'trace': '%s' is not a measure (copy_bytes, copy_htod, copy_dtoh, "
                         "alloc_unmanaged, alloc_device, launches_per_call, "
                         "launches_not_on_stream, device_symbol_bytes, calls_unlike_checked, "
                         "ops_not_on_stream, prefetches)",
                         metric);
    if (value_range(p, "trace", spec_word(&args), c) != 0)
        return -1;
    return what_into(p, "trace", args, c);
}

/* `ncu_case <params>`: the case ncu profiles, in the syntax of `case` (never timed). Up to
 * CML_MAX_NCU_CASES lines: the first is the one the trace follows, and every ncu check holds at
 * each, read case by case from one ncu run. */
int spec_ncu_case(spec_parser *p, char *args)
{
    cml_case_spec c;
    memset(&c, 0, sizeof c);
    char *params = spec_word(&args);
    if (!params || spec_word(&args))
        return spec_fail(p, "'ncu_case' takes one case, e.g. 'ncu_case rows=256,cols=256'");
    if (spec_case_params(p, &c, params) != 0)
        return -1;
    if (c.timed)
        return spec_fail(p, "'ncu_case': nothing is timed under ncu: drop 'time'");
    cml_task_spec *t = p->task;
    if (!t->ncu_case[0]) {
        snprintf(t->ncu_case, sizeof t->ncu_case, "%s", c.text);
        return 0;
    }
    if (t->nncu_also == CML_MAX_NCU_CASES - 1)
        return spec_fail(p, "too many 'ncu_case' lines in task %s (at most %d)", t->id,
                         CML_MAX_NCU_CASES);
    snprintf(t->ncu_also[t->nncu_also++], sizeof t->ncu_also[0], "%s", c.text);
    return 0;
}

/* `technique <points>` */
int spec_technique(spec_parser *p, char *args)
{
    if (spec_number(p, args, "technique points", &p->task->technique_points) != 0)
        return -1;
    if (p->task->technique_points < 0)
        return spec_fail(p, "technique points must be >= 0");
    p->has_technique = 1;
    return 0;
}

/* Whether every check of `kind` ("trace" or "ncu") of t has a bound that holds a range at each
 * of its n cases: a scaled bound (8*n) needs its parameter in every one. 0, or spec_fail. */
static int scaled_bounds_hold(spec_parser *p, const cml_task_spec *t, enum cml_tech_kind kind,
                              const char *name, char one[][128], int n)
{
    for (int i = 0; i < t->ntech; i++) {
        if (t->tech[i].kind == kind && cml_tech_timed_bound(&t->tech[i])) {
            int timed = 0; /* judged at the timed cases among them, from the grading's times */
            for (int k = 0; kind == CML_TECH_NCU && k < n; k++)
                timed += cml_timed_case(t, one[k]) >= 0;
            if (!timed)
                return spec_fail(p, "task %s: %s %s's bound is in times of the task's own time "
                                 "(%s), but none of its %s cases is a timed case", t->id, name,
                                 t->tech[i].metric, CML_TIMED_NS, name);
            continue;
        }
        for (int k = 0; t->tech[i].kind == kind && k < n; k++) {
            double lo, hi;
            if (cml_tech_bounds_at(&t->tech[i], one[k], &lo, &hi) != 0)
                return spec_fail(p, "task %s: %s %s's bound names a parameter that its case "
                                 "'%s' lacks", t->id, name, t->tech[i].metric, one[k]);
            if (lo > hi)
                return spec_fail(p, "task %s: %s %s's range is empty at case '%s'", t->id, name,
                                 t->tech[i].metric, one[k]);
        }
    }
    return 0;
}

/* At the end of a task: checks and their points come together. */
int spec_close_technique(spec_parser *p)
{
    cml_task_spec *t = p->task;
    if (t->ntech > 0 && !p->has_technique)
        return spec_fail(p, "task %s has technique checks but no 'technique <points>'", t->id);
    /* a scaled bound needs its parameter in every traced (profiled) case */
    char one[CML_MAX_TRACE_CASES + CML_MAX_NCU_CASES][128];
    int n = 0;
    snprintf(one[n++], sizeof one[0], "%s", t->ncu_case[0] ? t->ncu_case
                                            : t->ncases > 0 ? t->cases[0].text : "");
    for (int k = 0; k < t->ntrace_also; k++)
        snprintf(one[n++], sizeof one[0], "%s", t->trace_also[k]);
    if (scaled_bounds_hold(p, t, CML_TECH_TRACE, "trace", one, n) != 0)
        return -1;
    n = 1; /* the ncu checks: the ncu case, and each further one */
    for (int k = 0; k < t->nncu_also; k++)
        snprintf(one[n++], sizeof one[0], "%s", t->ncu_also[k]);
    if (scaled_bounds_hold(p, t, CML_TECH_NCU, "ncu", one, n) != 0)
        return -1;
    if (t->ntrace_also > 0 && t->ntech == 0)
        return spec_fail(p, "task %s has 'trace_case' lines but no check", t->id);
    if (p->has_technique && t->ntech == 0)
        return spec_fail(p, "task %s has 'technique' points but no check (ptx, sass, forbid, "
                         "ncu, trace)", t->id);
    return 0;
}
