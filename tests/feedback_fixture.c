/* The hand-built grading of feedback_fixture.h. */
#include "feedback_fixture.h"

#include <stdlib.h>
#include <string.h>

const char FEEDBACK_HOSTILE[] = "</svg><script>alert(1)</script> ]]> \"q\" 'a' a|b x\ny\r\n"
                                "ctl\x01\x1b[31m\x7f bad\xff\xfe <!-- & &amp; ``` [l](http://x)";

static cml_lab_spec specs[2];

static void task(cml_task_spec *t, const char *id, const char *title, const char *check,
                 int timed)
{
    strcpy(t->id, id);
    strcpy(t->title, title);
    strcpy(t->check, check);
    snprintf(t->hint, sizeof t->hint, "Section %s of the note: what does lane 0 touch?", id);
    t->points = 6, t->perf_points = timed ? 4 : 0, t->ncases = 1;
    strcpy(t->cases[0].text, "n=4096");
    t->cases[0].timed = timed;
}

/* r: a result of `status` with points and times (ms 0: untimed). */
static void result(cml_task_result *r, const cml_task_spec *t, enum cml_status status,
                   double score, double gbps, double ms, double ref_ms, double fraction)
{
    r->spec = t, r->status = status, r->score = score, r->max_score = t->points + t->perf_points;
    r->timed = ms > 0, r->gbps = gbps, r->ms = ms, r->ref_ms = ref_ms;
    r->ratio = ms > 0 ? ms / ref_ms : 0, r->copy_fraction = fraction;
    r->cases_passed = status != CML_STATUS_WRONG, r->cases[0].passed = r->cases_passed;
    snprintf(r->detail, sizeof r->detail, "%s: %.2fx the reference time", t->id, r->ratio);
}

static void lab01(cml_lab_result *l)
{
    cml_lab_spec *s = &specs[0];
    strcpy(s->lab, "01_coalescing");
    strcpy(s->title, "Global-memory coalescing");
    strcpy(s->note, "docs/01_coalescing.md");
    task(&s->tasks[0], "1.1", "Coalesced copy", "copy", 1);
    task(&s->tasks[1], "1.2", "Naive transpose", "transpose", 1);
    task(&s->tasks[2], "1.3", "Offset copy", "offset", 0);
    s->ntasks = 3;
    l->spec = s, l->ntasks = 3, l->built = 1, l->ref_built = 1, l->wall_s = 2.5;
    l->ref_run.copy_gbps = 3000;
    result(&l->tasks[0], &s->tasks[0], CML_STATUS_PASSED, 10, 2700, 0.2, 0.19, 0.9);
    result(&l->tasks[1], &s->tasks[1], CML_STATUS_SLOW, 7, 800, 0.6, 0.3, 800.0 / 3000);
    result(&l->tasks[2], &s->tasks[2], CML_STATUS_WRONG, 0, 0, 0, 0, 0);
    l->tasks[2].cases[0].nbad = 3, l->tasks[2].cases[0].nmis = 1;
    l->tasks[2].cases[0].mis[0] = (cml_mismatch){7, 1.5, 2.5};
    strcpy(l->tasks[2].detail, "case n=4096: 3 of 4096 elements differ");
    l->score = 17, l->max_score = 26;
}

static void lab06(cml_lab_result *l)
{
    cml_lab_spec *s = &specs[1];
    strcpy(s->lab, "06_zerocopy");
    strcpy(s->title, "Zero-copy and pinned memory");
    strcpy(s->note, "docs/06_zerocopy.md");
    task(&s->tasks[0], "6.1", "Pinned saxpy", "saxpy", 1);
    s->ntasks = 1;
    l->spec = s, l->ntasks = 1, l->built = 1, l->ref_built = 1, l->wall_s = 4;
    l->ref_run.copy_gbps = 3000, l->ref_run.link_h2d_gbps = 50, l->ref_run.link_d2h_gbps = 48;
    result(&l->tasks[0], &s->tasks[0], CML_STATUS_PASSED, 10, 40, 1.0, 0.95, 0.8);
    l->score = 10, l->max_score = 10;
}

/* Contract in feedback_fixture.h. */
cml_grading *feedback_fixture(void)
{
    memset(specs, 0, sizeof specs);
    cml_grading *g = calloc(1, sizeof *g);
    g->seed = 42;
    strcpy(g->submission, "/home/student/submission");
    strcpy(g->started_at, "2025-01-01T00:00:00Z");
    g->have_gpu = 1, g->cc = 90, g->sms = 132;
    strcpy(g->gpu_name, "NVIDIA H100 80GB HBM3");
    g->nlabs = 2, g->score = 27, g->max_score = 36, g->wall_s = 9;
    lab01(&g->labs[0]);
    lab06(&g->labs[1]);
    return g;
}

/* Contract in feedback_fixture.h. */
cml_lab_spec *feedback_fixture_spec(int i)
{
    return &specs[i];
}
