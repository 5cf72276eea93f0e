/* The phases after every lab's runs (grade_build.h): the sanitizers, with the technique
 * phase's ncu and trace runs beside them, then the technique verdicts. Nothing is timed any
 * more by then, so the runs here share the GPU among themselves under the grading's hold of
 * its lock. */
#include "grade_build.h"
#include "evidence.h"
#include "grade_technique.h"
#include "util.h"

#include <pthread.h>
#include <stdlib.h>

/* Every lab's technique checks as the two phases below see them: binary, evidence, and the
 * trace runs made ahead (traced, CML_MAX_TASKS per lab; NULL: none). */
static void tech_labs(const cml_grade_opts *o, const lab_build *lb, const cml_run_opts *ro,
                      cml_grading *g, cml_trace_run *traced, cml_tech_lab *labs)
{
    for (int i = 0; i < g->nlabs; i++) {
        const cml_run_opts lro = cml_lab_run_opts(o, g->labs[i].spec, &lb[i], ro);
        const char *bin = o->student_bin ? o->student_bin : lb[i].student.bin;
        labs[i] = (cml_tech_lab){ g->labs[i].spec, cml_lab_tech_env(g->labs[i].spec, bin, &lro),
                                  &g->labs[i] };
        labs[i].env.traced = traced ? &traced[i * CML_MAX_TASKS] : NULL;
        labs[i].env.ntraced = traced ? CML_MAX_TASKS : 0;
    }
}

typedef struct {
    cml_tech_phase *phase;
    cml_trace_run *traced; /* NULL: no trace runs ahead */
} runs_ahead;

static void *trace_thread(void *arg)
{
    const runs_ahead *a = arg;
    cml_trace_ahead(a->phase->labs, a->phase->n, a->traced);
    return NULL;
}

/* Beside the sanitizers: the traced runs on a thread, the shared ncu runs on this one. */
static void run_ahead(void *arg)
{
    runs_ahead *a = arg;
    pthread_t th;
    int threaded = a->traced && pthread_create(&th, NULL, trace_thread, a) == 0;
    cml_technique_profile(a->phase);
    if (threaded)
        pthread_join(th, NULL);
    else if (a->traced)
        trace_thread(a);
}

/* After every lab's timed runs: the sanitizers on each lab's student binary, with the ncu and
 * trace runs of the technique phase beside them (the traces into traced, when there is room
 * for them). Before the technique verdicts, so that those runs cost no hold of the GPU of their
 * own: on an H100 the three shared ncu runs took 4.4 s after the sanitizers (docs/bench/
 * 2026-11-28-session2). A task the tools fail is `sanitizer` whatever its technique (judge.c),
 * so what its runs found is not read. */
static void sanitize_all(const cml_grade_opts *o, const lab_build *lb, const cml_run_opts *ro,
                         cml_grading *g, cml_tech_phase *phase, cml_trace_run *traced)
{
    const char *bins[CML_MAX_LABS];
    unsigned needed[CML_MAX_LABS];
    for (int i = 0; i < g->nlabs; i++) {
        bins[i] = o->student_bin ? o->student_bin : lb[i].student.ok ? lb[i].student.bin : NULL;
        needed[i] = cml_sanitizers_needed(g->labs[i].spec, o->student_bin ? NULL
                                          : lb[i].student.ev_dir, lb[i].student.ev_digest);
    }
    runs_ahead a = { phase, traced };
    cml_beside beside = { run_ahead, &a };
    cml_sanitize_phase(g, bins, needed, ro, traced && (g->have_gpu || o->student_bin) ? &beside
                                                                                      : NULL);
}

/* Contract in grade_build.h. The technique verdicts read the labs as the sanitizer phase left
 * them: the same array, its statuses in g->labs. */
void cml_grade_after_labs(const cml_grade_opts *o, const lab_build *lb, const cml_run_opts *ro,
                          cml_grading *g)
{
    cml_trace_run *traced = calloc((size_t)g->nlabs * CML_MAX_TASKS + 1, sizeof *traced);
    cml_tech_lab labs[CML_MAX_LABS];
    cml_tech_phase phase = { .labs = labs, .n = g->nlabs };
    tech_labs(o, lb, ro, g, traced, labs);
    sanitize_all(o, lb, ro, g, &phase, traced);
    if (g->have_gpu || o->student_bin) { /* as grade_labs.c: the labs whose binaries ran */
        cml_technique_judge(&phase, ro->progress); /* with the runs made beside */
        cml_rescore(g);
    }
    free(traced);
}
