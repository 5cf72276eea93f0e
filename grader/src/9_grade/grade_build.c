/* The builds of a grading (grade.c's first half): every selected lab staged on both sides and
 * built at once, and what a lab whose builds are done becomes: its runs, a build error that
 * names the compiler's first error (or a rule's line), `missing`, or, without a GPU, whether
 * it compiled. */
#include "grade_build.h"
#include "technique_phase.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The first line of a compiler log that names an error, for a one-line detail. */
static void first_error(const char *log, char *buf, size_t len)
{
    const char *line = log ? log : "", *error = NULL;
    for (const char *p = line; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (memmem(p, strcspn(p, "\n"), "(rule: ", 7)) { /* a rule, in the student's words */
            error = p;
            break;
        }
        if (!error && (strncmp(p, "nvcc ", 5) == 0 || memmem(p, strcspn(p, "\n"), "error", 5)))
            error = p;
    }
    line = error ? error : line;
    snprintf(buf, len, "compile error: %.*s (the full compiler output is in the report)",
             (int)(strcspn(line, "\n") < 600 ? strcspn(line, "\n") : 600), line);
}

/* Contract in grade_build.h. */
int cml_practice_lab(const char *root, const cml_lab_spec *spec)
{
    char dir[CML_PATH];
    struct stat st;
    return cml_fmt(dir, sizeof dir, "%s/solutions/%s", root, spec->lab) == 0 &&
           stat(dir, &st) != 0;
}

/* Contract in grade_build.h. */
void cml_build_labs(const cml_grade_opts *o, const char *sub, const cml_lab_spec *specs,
                    int n, int cc, int with_reference, lab_build *lb)
{
    char work[CML_PATH], cache[CML_PATH], err[1024];
    cml_build **jobs = calloc((size_t)n * 2, sizeof *jobs);
    int njobs = 0;
    cml_fmt(work, sizeof work, "%s/work", o->out_dir);
    cml_fmt(cache, sizeof cache, "%s/build/cache", o->root);
    for (int i = 0; jobs && i < n; i++) {
        cml_build *s = &lb[i].student, *r = &lb[i].reference;
        /* the student's binary is never cached, its harness object is (build.h) */
        *s = (cml_build){ .spec = &specs[i], .cc = cc, .evidence = 1, .object_cache = cache };
        *r = (cml_build){ .spec = &specs[i], .cc = cc, .cache_dir = cache,
                          .object_cache = cache };
        int staged = cml_stage(o->root, &specs[i], CML_SIDE_STUDENT, sub, work, s->dir,
                               sizeof s->dir, lb[i].stage_err, sizeof lb[i].stage_err);
        lb[i].missing = staged == CML_FIND_MISSING;
        if (staged == 0)
            jobs[njobs++] = s;
        lb[i].practice = cml_practice_lab(o->root, &specs[i]);
        if (lb[i].practice && o->progress)
            fprintf(o->progress, "[%s] practice grade: no reference solution here (no "
                    "solutions/%s): speed is judged against this GPU's copy bandwidth\n",
                    specs[i].lab, specs[i].lab);
        if (lb[i].practice) {
            /* nothing to stage: not a warning, the student bundle has no solutions */
        } else if (with_reference && cml_stage(o->root, &specs[i], CML_SIDE_REFERENCE, NULL,
                                               work, r->dir, sizeof r->dir, err,
                                               sizeof err) == 0) {
            lb[i].ref_staged = 1;
            jobs[njobs++] = r;
        } else if (with_reference && o->progress) {
            fprintf(o->progress, "[%s] warning: %s\n", specs[i].lab, err);
        }
        if (o->progress)
            fprintf(o->progress, "[%s] building for sm_%d\n", specs[i].lab, cc);
    }
    char common[CML_PATH];
    struct cml_common *lib = cml_fmt(common, sizeof common, "%s/common-objects-sm%d", work,
                                     cc) == 0 ? cml_build_common_start(o->root, cc, common)
                                              : NULL; /* once, not once per build */
    for (int i = 0; i < njobs; i++)
        jobs[i]->common = lib;
    cml_build_all(jobs, njobs, 0);
    cml_build_common_finish(lib);
    if (lib && !o->keep)
        cml_rmtree(common); /* every build has its copies */
    free(jobs);
}

/* Keep the student's compiler output for the report (errors and warnings). */
static void keep_log(lab_build *b, cml_lab_result *r)
{
    r->built = b->student.ok;
    if (b->student.log && b->student.log[0]) {
        r->build_log = b->student.log;
        b->student.log = NULL;
    }
}

/* When the student's side could not be staged or built: every task missing (a file not
 * handed in: its detail says which and where to put it) or build-error, 1. Else 0. */
static int build_failed(const cml_lab_spec *spec, lab_build *b, cml_lab_result *r)
{
    char detail[1024];
    if (b->stage_err[0] && b->missing) {
        cml_lab_not_run(spec, CML_STOP_NOT_HANDED_IN, b->stage_err, r);
        return 1;
    }
    if (b->stage_err[0]) {
        cml_lab_not_run(spec, CML_STOP_NOT_BUILT, b->stage_err, r);
        r->stage_refused = 1;
        r->build_log = strdup(b->stage_err); /* the report shows why nothing was built */
        return 1;
    }
    if (b->student.ok)
        return 0;
    first_error(b->student.log, detail, sizeof detail);
    cml_lab_not_run(spec, CML_STOP_NOT_BUILT, detail, r);
    keep_log(b, r);
    return 1;
}

/* Contract in grade_build.h. */
void cml_grade_built(const cml_lab_spec *spec, lab_build *b, const cml_run_opts *ro,
                     cml_lab_result *r)
{
    if (build_failed(spec, b, r))
        return;
    cml_grade_lab_with_binaries(spec, b->student.bin, b->reference.ok ? b->reference.bin : NULL,
                                ro, r);
    r->ref_built = b->reference.ok;
    keep_log(b, r);
}

/* Contract in grade_build.h. */
void cml_compiled_only(const cml_lab_spec *spec, lab_build *b, const cml_grading *g,
                       cml_lab_result *r)
{
    char detail[1024];
    if (build_failed(spec, b, r))
        return;
    snprintf(detail, sizeof detail, "compiled for sm_%d; not run: no GPU here (%.600s)",
             b->student.cc, g->no_gpu_reason);
    cml_lab_not_run(spec, CML_STOP_NO_GPU, detail, r);
    keep_log(b, r);
    cml_technique_env te = { .ev_dir = b->student.ev_dir, .ev_digest = b->student.ev_digest,
                             .cc = b->student.cc, .seed = g->seed };
    int skip[CML_MAX_TASKS];
    cml_refuse_tasks(spec, b->student.refused, r, skip);
    for (int t = 0; t < spec->ntasks; t++) /* ptx, sass, forbid need no GPU: reported */
        if (!skip[t])
            cml_technique_task(spec, &spec->tasks[t], &te, &r->tasks[t]);
}

/* Contract in grade_build.h. */
cml_run_opts cml_lab_run_opts(const cml_grade_opts *o, const cml_lab_spec *spec,
                              const lab_build *b, const cml_run_opts *ro)
{
    cml_run_opts lro = *ro;
    lro.ev_dir = b->student.ev_dir[0] ? b->student.ev_dir : NULL;
    lro.ev_digest = b->student.ev_digest;
    lro.student_sha = b->student.bin_sha;
    lro.ref_sha = b->reference.bin_sha;
    lro.cc = b->student.cc;
    lro.practice = cml_practice_lab(o->root, spec);
    lro.refused = b->student.refused;
    lro.technique_later = 1; /* grade_after.c, for every lab at once */
    return lro;
}
