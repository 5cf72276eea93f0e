/* speed: what a task's verified cases and the times of the student's and the reference's runs
 * say, as findings. Correctness is shared equally by a task's cases; speed counts only when
 * every case passed, as the ratio of the student's time to the reference solution's time
 * measured in the same grading on the same GPU. Whatever goes wrong on the grader's side (no
 * reference time) never costs the student points; a practice grade (no reference solution at
 * all) judges speed as speed_practice.c says. The judge (7_judge/judge.c) decides from these
 * findings when the results are published. */
#include "speed.h"
#include "findings.h"
#include "verify.h"

#include <math.h>
#include <string.h>

/* What the time records of both runs say about one task's timed cases. */
typedef struct {
    int ntimed;                 /* cases the spec marks `time` */
    int student_missing, ref_missing;
    int first_missing;          /* spec index of the first timed case without a student time */
    double log_fraction;        /* sum of log(fraction of the bound) over the timed cases */
    int nfraction;              /* timed cases whose fraction is known (practice grade) */
} timing;

static int task_matches(const cml_case_record *c, const char *id)
{
    return c->task[0] == '\0' || strcmp(c->task, id) == 0;
}

/* The student's time for spec case i: its run holds the task's cases in spec order. */
static const cml_case_record *student_time(const cml_run_record *run, const cml_task_spec *t,
                                           int i)
{
    if (!run || i >= run->ncases)
        return NULL;
    const cml_case_record *c = &run->cases[i];
    return c->has_time && c->ms > 0 && task_matches(c, t->id) ? c : NULL;
}

/* The reference's time for spec case i. Its run may hold every case of the task in spec order,
 * or (the usual, one run per lab) only the timed cases of each task in spec order. */
static const cml_case_record *reference_time(const cml_run_record *run, const cml_task_spec *t,
                                             int i)
{
    int mine = 0, ntimed = 0, ordinal = 0, seen = 0;
    for (int k = 0; run && k < run->ncases; k++)
        mine += run->cases[k].status != CML_CASE_MISSING && strcmp(run->cases[k].task, t->id) == 0;
    for (int j = 0; j < t->ncases; j++) {
        ordinal += j < i && t->cases[j].timed;
        ntimed += t->cases[j].timed;
    }
    int want = mine > ntimed ? i : ordinal; /* all cases, or timed cases only */
    for (int k = 0; run && k < run->ncases; k++) {
        const cml_case_record *c = &run->cases[k];
        if (c->status == CML_CASE_MISSING || strcmp(c->task, t->id) != 0)
            continue;
        if (seen++ == want)
            return c->has_time && c->ms > 0 ? c : NULL;
    }
    return NULL;
}

/* The run whose bandwidths bound a time: the reference solution's, which no student code
 * touched, measured in this grading on this GPU; the student's own only when there is none
 * (then no performance points are judged anyway). */
static const cml_run_record *trusted(const cml_run_record *reference,
                                     const cml_run_record *student)
{
    return reference && reference->copy_gbps > 0 ? reference : student;
}

/* Fills ms, ref_ms, gbps, copy_fraction (first timed case) and ratio (geometric mean over
 * the timed cases) from whatever times exist; returns what was missing. */
static timing measure(cml_task_result *r, const cml_run_record *student,
                      const cml_run_record *reference)
{
    const cml_task_spec *t = r->spec;
    timing tm = {0, 0, 0, -1, 0, 0};
    double log_sum = 0;
    for (int i = 0; i < t->ncases; i++) {
        if (!t->cases[i].timed)
            continue;
        const cml_case_record *s = student_time(student, t, i);
        const cml_case_record *ref = reference_time(reference, t, i);
        r->case_ms[i] = s ? s->ms : 0;
        if (tm.ntimed++ == 0) {
            r->ms = s ? s->ms : 0;
            r->ref_ms = ref ? ref->ms : 0;
            uint64_t bytes = cml_case_bytes(t, &t->cases[i]); /* never the lab's claim */
            r->gbps = s && bytes ? (double)bytes / (s->ms * 1e6) : 0;
            r->copy_fraction = s ? cml_bound_fraction(t, &t->cases[i], s->ms, r->gbps,
                                                      trusted(reference, student)) : 0;
        }
        if (!s && tm.student_missing++ == 0)
            tm.first_missing = i;
        uint64_t bytes = cml_case_bytes(t, &t->cases[i]);
        double f = s && bytes ? cml_bound_fraction(t, &t->cases[i], s->ms, bytes / (s->ms * 1e6),
                                                   trusted(reference, student)) : 0;
        if (f > 0)
            tm.log_fraction += log(f), tm.nfraction++;
        tm.ref_missing += !ref;
        if (s && ref)
            log_sum += log(s->ms / ref->ms);
    }
    r->implausible = r->copy_fraction > 1.05;
    r->timed = tm.ntimed > 0 && !tm.student_missing && !tm.ref_missing;
    r->ratio = r->timed ? exp(log_sum / tm.ntimed) : 0;
    return tm;
}

/* Once every case passed: the performance credit, then status passed or slow and the detail.
 * practice: no reference solution; speed from the fractions of the bound (speed_practice.c). */
static void score_perf(cml_task_result *r, const timing *tm, int practice)
{
    const cml_task_spec *t = r->spec;
    char detail[sizeof r->detail];
    double frac = 0;
    if (t->perf_points <= 0 || tm->ntimed == 0) {
        frac = 1;
        snprintf(detail, sizeof detail, "all %d cases passed", t->ncases);
    } else if (tm->student_missing) {
        snprintf(detail, sizeof detail, "case %s: no time recorded: performance not judged",
                 t->cases[tm->first_missing].text);
    } else if (tm->ref_missing && !practice) {
        frac = 1;
        snprintf(detail, sizeof detail, "reference time unavailable: performance not judged");
    } else if (r->implausible) {
        snprintf(detail, sizeof detail,
                 "implausible: %.0f GB/s is %.2fx what %s allows on this GPU, measured in this "
                 "grading: no performance points", r->gbps, r->copy_fraction,
                 cml_host_link(t) ? "the pinned host link" : "a device-to-device copy");
    } else if (practice) {
        double mean = tm->nfraction == tm->ntimed ? exp(tm->log_fraction / tm->ntimed) : 0;
        frac = cml_practice_credit(r, mean, detail, sizeof detail);
    } else {
        frac = cml_perf_fraction(r->ratio, t->full_ratio, t->zero_ratio);
        snprintf(detail, sizeof detail,
                 "%.2f" CML_RATIO_WORDS "%gx, none from %gx)", r->ratio,
                 t->full_ratio, t->zero_ratio);
    }
    r->credit.perf = frac;
    memcpy(r->found.why, detail, sizeof r->found.why);
}

/* Records what r->cases (already verified) and the `time` records of both runs (either may be
 * NULL) say, as findings: a tampered student run, else (unless the pipeline found the task
 * stopped: crash, timeout, ...) the first failure or the speed. practice: speed is judged from
 * the student's fractions of the bound instead of the reference's times. */
static void score_task(cml_task_result *r, const cml_run_record *student,
                       const cml_run_record *reference, int practice)
{
    const cml_task_spec *t = r->spec;
    r->credit = (cml_credit){0};
    r->cases_passed = 0;
    r->found.faults = 0;
    r->found.note[0] = '\0'; /* a note follows a verdict: a new one starts without */
    for (int i = 0; i < t->ncases; i++)
        r->cases_passed += r->cases[i].passed != 0;
    timing tm = measure(r, student, reference);
    if (student && student->tampered) {
        cml_found_tampered(r, student);
        return;
    }
    if (r->found.stopped != CML_STOP_NONE) { /* cut short: what passed earns nothing */
        if (r->found.why[0] == '\0')
            cml_failure_words(r, r->found.why, sizeof r->found.why);
        return;
    }
    r->credit.cases = r->cases_passed;
    if (r->cases_passed == t->ncases) {
        score_perf(r, &tm, practice);
        return;
    }
    r->found.faults = cml_case_faults(r, student);
    cml_failure_words(r, r->found.why, sizeof r->found.why);
}

/* Contract in speed.h. */
void cml_score_task(cml_task_result *r, const cml_run_record *student,
                    const cml_run_record *reference)
{
    score_task(r, student, reference, 0);
}

/* Contract in speed.h. */
void cml_score_task_practice(cml_task_result *r, const cml_run_record *student)
{
    score_task(r, student, NULL, 1);
}
