/* Internal to the grading pipeline: the builds of one grading (grade_build.c), which grade.c
 * starts and finishes lab by lab. */
#ifndef CML_GRADE_BUILD_H
#define CML_GRADE_BUILD_H

#include "build.h"
#include "grade.h"
#include "stage.h"

/* One lab's staged folders and builds. */
typedef struct {
    char stage_err[1024];   /* student files could not be staged */
    int missing;            /* ... because one is nowhere in the submission */
    int ref_staged;
    int practice;           /* practice_lab: no reference is staged, built or run */
    cml_build student, reference;
} lab_build;

/* Whether lab `spec` is graded in practice mode: root/solutions/<lab> is not there (the
 * student bundle), so no reference can be timed and speed is judged against this GPU's own
 * bandwidths (docs/ARCHITECTURE.md, "Practice grade"). With the folder, the course grade. */
int cml_practice_lab(const char *root, const cml_lab_spec *spec);

/* Stage both sides of every lab (the student's from the folder sub) and build them all at
 * once, into lb[0..n-1]. */
void cml_build_labs(const cml_grade_opts *o, const char *sub, const cml_lab_spec *specs, int n,
                    int cc, int with_reference, lab_build *lb);

/* A lab whose builds are done: its runs (the tasks a link rule refused are build errors and
 * are not run), or the build error that cost it, or `missing`. */
void cml_grade_built(const cml_lab_spec *spec, lab_build *b, const cml_run_opts *ro,
                     cml_lab_result *r);

/* Without a GPU: whether the lab compiled, and that it was not run; the technique checks that
 * need no GPU are reported. */
void cml_compiled_only(const cml_lab_spec *spec, lab_build *b, const cml_grading *g,
                       cml_lab_result *r);

/* grade_labs.c: every lab of specs[0..n-1], its builds lb[i] done, graded into g->labs[i]
 * (one lab's run on the GPU while the one before it is verified), g->nlabs and the totals
 * growing in lab order, the reports rewritten after each. */
void cml_grade_labs(const cml_grade_opts *o, const cml_lab_spec *specs, int n, lab_build *lb,
                    const cml_run_opts *ro, cml_grading *g, double t0);

/* How lab b's binaries run: ro, with the lab's builds (evidence, digests, refused tasks), its
 * technique checks left for the phase after every lab (grade_after.c). */
cml_run_opts cml_lab_run_opts(const cml_grade_opts *o, const cml_lab_spec *spec,
                              const lab_build *b, const cml_run_opts *ro);

/* grade_after.c: after every lab's runs, the sanitizer phase (the trace runs beside its tools),
 * then the technique checks of every lab that ran, and the totals again. */
void cml_grade_after_labs(const cml_grade_opts *o, const lab_build *lb, const cml_run_opts *ro,
                          cml_grading *g);

#endif /* CML_GRADE_BUILD_H */
