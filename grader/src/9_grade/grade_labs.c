/* The labs of a grading after their builds, two at a time: while one lab's binary runs on the
 * GPU, the lab before it is verified on the CPU (its outputs against the grader's references,
 * its sampled repetitions, its score), instead of the GPU waiting for that verification.
 * Each lab is a GPU-lock group of its own (gpu_lock.h), so the runs still take turns, in lab
 * order: no two runs of one grading, nor of a batch's two gradings, ever meet on the GPU, and
 * a lab that hangs in its run holds up only the labs after it.
 * Results are published in lab order: the reports are rewritten after each, so an interrupted
 * grading keeps what it finished, as before. CML_LAB_WORKERS=1 grades one lab at a time. */
#include "grade_build.h"
#include "sanitize.h"
#include "gpu_lock.h"
#include "judge.h"
#include "report.h"
#include "util.h"
#include "verify.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define LAB_WORKERS 2 /* more would only queue for the GPU, and take cores from the runs */
#define VERIFY_NICE 10 /* as a batch's builds: the lab being run meanwhile goes first */

typedef struct {
    const cml_grade_opts *o;
    const cml_lab_spec *specs;
    lab_build *lb;
    const cml_run_opts *ro;
    cml_grading *g;
    double t0;
    int n;
    atomic_int next;        /* the next lab a worker takes */
    pthread_mutex_t mu;     /* guards done[], res[] once done, g and the reports */
    unsigned char done[CML_MAX_LABS];
    cml_lab_result *res;    /* each lab's result until it is published into g (which the
                             * reports copy whole, so no worker writes there meanwhile) */
} lab_line;

/* Grade lab i (its builds done) into q->res[i]. */
static void grade_lab(lab_line *q, int i)
{
    const cml_grade_opts *o = q->o;
    const cml_lab_spec *spec = &q->specs[i];
    lab_build *b = &q->lb[i];
    cml_lab_result *r = &q->res[i];
    cml_run_opts lro = cml_lab_run_opts(o, spec, b, q->ro);
    if (o->student_bin)
        cml_grade_lab_with_binaries(spec, o->student_bin, lro.practice ? NULL : o->ref_bin,
                                    &lro, r);
    else if (q->g->have_gpu)
        cml_grade_built(spec, b, &lro, r);
    else
        cml_compiled_only(spec, b, q->g, r);
    cml_sanitize_mark(r);
    if (!o->keep && b->reference.dir[0]) /* the student's binary waits for the sanitizers */
        cml_rmtree(b->reference.dir);
    cml_build_free(&b->student);
    cml_build_free(&b->reference);
}

/* Lab g->nlabs, graded, into g, the totals and the reports (under q->mu). */
static void publish(lab_line *q)
{
    cml_grading *g = q->g;
    cml_lab_result *r = &g->labs[g->nlabs];
    if (q->res != g->labs)
        *r = q->res[g->nlabs]; /* its build log goes with it */
    g->practice |= r->practice;
    cml_publish_lab(r); /* its tasks judged once from what its runs found */
    g->nlabs++;
    cml_publish_totals(g);
    g->wall_s = cml_now() - q->t0;
    if (cml_write_reports(q->o->out_dir, g) < 0 && q->o->progress)
        fprintf(q->o->progress, "[%s] warning: could not write the reports into %s: is it "
                "writable?\n", r->spec->lab, q->o->out_dir);
}

static void *worker(void *arg)
{
    lab_line *q = arg;
    for (int i; (i = atomic_fetch_add(&q->next, 1)) < q->n;) {
        cml_gpu_group_set(i + 1);
        grade_lab(q, i);
        cml_gpu_group_end(); /* the labs after it need not wait for its first run */
        cml_gpu_group_set(0);
        pthread_mutex_lock(&q->mu);
        q->done[i] = 1;
        while (q->g->nlabs < q->n && q->done[q->g->nlabs])
            publish(q);
        pthread_mutex_unlock(&q->mu);
    }
    return NULL;
}

/* CML_LAB_WORKERS (1 or 2), else LAB_WORKERS. */
static int workers_setting(void)
{
    const char *e = getenv("CML_LAB_WORKERS");
    return e && (e[0] == '1' || e[0] == '2') && !e[1] ? e[0] - '0' : LAB_WORKERS;
}

/* Contract in grade_build.h. */
void cml_grade_labs(const cml_grade_opts *o, const cml_lab_spec *specs, int n, lab_build *lb,
                    const cml_run_opts *ro, cml_grading *g, double t0)
{
    cml_lab_result *res = calloc((size_t)n + 1, sizeof *res);
    lab_line q = { .o = o, .specs = specs, .lb = lb, .ro = ro, .g = g, .t0 = t0, .n = n,
                   .res = res ? res : g->labs }; /* out of memory: one at a time, in place */
    pthread_mutex_init(&q.mu, NULL);
    pthread_t th[LAB_WORKERS];
    int started = 0, want = !res ? 1 : workers_setting() < n ? workers_setting() : n;
    cml_verify_yield(want > 1 ? VERIFY_NICE : 0);
    for (int k = 1; k < want; k++) /* this thread is the last worker */
        started += pthread_create(&th[started], NULL, worker, &q) == 0;
    if (!started)
        cml_verify_yield(0); /* one lab at a time after all */
    worker(&q);
    for (int k = 0; k < started; k++)
        pthread_join(th[k], NULL);
    cml_verify_yield(0);
    pthread_mutex_destroy(&q.mu);
    free(res);
}
