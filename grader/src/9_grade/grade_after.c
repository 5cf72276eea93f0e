/* The phases after every lab's runs (grade_build.h): the sanitizers, with the technique
 * phase's trace runs beside them, then the technique checks. Nothing is timed any more by then,
 * so the runs here share the GPU among themselves under the grading's hold of its lock. */
#include "grade_build.h"
#include "sanitize.h"
#include "evidence.h"
#include "technique_phase.h"
#include "judge.h"
#include "util.h"

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
    const cml_tech_lab *labs;
    int n;
    cml_trace_run *traced;
    FILE *progress;
} traces_ahead;

static void trace_ahead(void *arg)
{
    traces_ahead *a = arg;
    cml_trace_ahead(a->labs, a->n, a->traced, a->progress);
}

/* After every lab's timed runs: the sanitizers on each lab's student binary, with the trace
 * runs of the technique phase beside them (into traced, when there is room for them). Before
 * the technique phase, so that those runs cost no hold of the GPU of their own; a task the
 * tools fail is `sanitizer` whatever its technique (judge.c), so its ncu and trace checks are
 * not run (cml_found_solved). */
static void sanitize_all(const cml_grade_opts *o, const lab_build *lb, const cml_run_opts *ro,
                         cml_grading *g, const cml_tech_lab *labs, cml_trace_run *traced)
{
    const char *bins[CML_MAX_LABS];
    unsigned needed[CML_MAX_LABS];
    for (int i = 0; i < g->nlabs; i++) {
        bins[i] = o->student_bin ? o->student_bin : lb[i].student.ok ? lb[i].student.bin : NULL;
        needed[i] = cml_sanitizers_needed(g->labs[i].spec, o->student_bin ? NULL
                                          : lb[i].student.ev_dir, lb[i].student.ev_digest);
    }
    traces_ahead a = { labs, g->nlabs, traced, ro->progress };
    cml_beside beside = { trace_ahead, &a };
    cml_sanitize_phase(g, bins, needed, ro, traced && (g->have_gpu || o->student_bin) ? &beside
                                                                                      : NULL);
}

/* Contract in grade_build.h. The technique phase reads the labs as the sanitizer phase left
 * them: the same array, its statuses in g->labs. */
void cml_grade_after_labs(const cml_grade_opts *o, const lab_build *lb, const cml_run_opts *ro,
                          cml_grading *g)
{
    cml_trace_run *traced = calloc((size_t)g->nlabs * CML_MAX_TASKS + 1, sizeof *traced);
    cml_tech_lab labs[CML_MAX_LABS];
    tech_labs(o, lb, ro, g, traced, labs);
    sanitize_all(o, lb, ro, g, labs, traced);
    if (g->have_gpu || o->student_bin) { /* as grade_labs.c: the labs whose binaries ran */
        cml_technique_labs(labs, g->nlabs, ro->progress); /* with the traces made beside */
    }
    cml_publish_grading(g); /* every task judged again with what the two phases found */
    free(traced);
}
