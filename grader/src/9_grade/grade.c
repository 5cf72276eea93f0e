/* Grade a submission: probe, stage and build every selected lab (student and reference, all in
 * parallel: grade_build.c), then run the labs, one on the GPU while the one before is verified
 * (grade_labs.c), rewriting the reports after each, so an interrupted grading keeps what it
 * finished; then, once nothing is timed any more, the sanitizers and the technique checks of
 * every lab (grade_after.c), and the reports again. */
#include "grade.h"
#include "grade_build.h"
#include "calibration.h"
#include "gpu_lock.h"
#include "build.h"
#include "probe.h"
#include "report.h"
#include "sandbox.h"
#include "spec.h"
#include "stage.h"
#include "unpack.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* dst (size bytes): the real path of p, or p itself when it cannot be resolved. */
static void real_or_given(const char *p, char *dst, size_t size)
{
    char *real = p ? realpath(p, NULL) : NULL;
    snprintf(dst, size, "%s", real ? real : p ? p : "");
    free(real);
}

/* Seed, submission, start time, host. */
static void init_record(const cml_grade_opts *o, cml_grading *g)
{
    memset(g, 0, sizeof *g);
    g->seed = o->seed;
    char *real = realpath(o->submission, NULL);
    snprintf(g->submission, sizeof g->submission, "%s", real ? real : o->submission);
    free(real);
    for (int i = 0; i < CML_MAX_OTHERS; i++)
        snprintf(g->others[i], sizeof g->others[i], "%s", o->others[i] ? o->others[i] : "");
    snprintf(g->student, sizeof g->student, "%s", o->student ? o->student : "");
    time_t now = time(NULL);
    struct tm tm;
    strftime(g->started_at, sizeof g->started_at, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    gethostname(g->host, sizeof g->host - 1);
}

/* The GPU: probed, or pretended when test binaries stand in for the labs. */
static int find_gpu(const cml_grade_opts *o, cml_grading *g, char *err, size_t errlen)
{
    char nvcc[CML_PATH], cache[CML_PATH];
    if (o->student_bin) {
        g->have_gpu = 1;
        snprintf(g->gpu_name, sizeof g->gpu_name, "none (test binaries)");
        snprintf(g->nvcc_version, sizeof g->nvcc_version, "none (test binaries)");
        return 0;
    }
    if (cml_find_nvcc(nvcc, sizeof nvcc, err, errlen) < 0)
        return -1;
    cml_nvcc_version(g->nvcc_version, sizeof g->nvcc_version);
    cml_probe_result *p = calloc(1, sizeof *p);
    if (!p || cml_fmt(cache, sizeof cache, "%s/build/cache", o->root) < 0) {
        snprintf(err, errlen, "out of memory (or path too long) probing the GPU");
        free(p);
        return -1;
    }
    cml_probe(o->root, cache, p);
    cml_probe_fill(p, g);
    free(p);
    return 0;
}

/* The calibration named by o (if any) into cal, and what the record says of it. A file that
 * cannot be read is an error (the instructor named it); one from another GPU is a note, and
 * the reference is measured live. */
static int load_calibration(const cml_grade_opts *o, cml_grading *g, cml_calibration *cal,
                            int *use, char *err, size_t errlen)
{
    *use = 0;
    memset(cal, 0, sizeof *cal);
    if (!o->calibration)
        return 0;
    if (cml_cal_load(o->calibration, cal, err, errlen) < 0)
        return -1;
    if (!g->have_gpu || o->student_bin ||
        cml_cal_matches_gpu(cal, g, g->calibration_note, sizeof g->calibration_note)) {
        *use = 1;
        snprintf(g->calibration_id, sizeof g->calibration_id, "%s", cal->id);
        snprintf(g->calibration, sizeof g->calibration, "%.500s", cal->path);
    }
    return 0;
}

/* The batch's calibration, made while this grading built (its places on the GPU were the
 * batch's until then): used when it is there and loads, else the reference is measured live,
 * as after a batch's failed calibration. */
static void pending_calibration(const cml_grade_opts *o, cml_grading *g, cml_calibration *cal,
                                int *use)
{
    char err[1024] = "it was not made";
    if (access(o->calibration, R_OK) == 0 && load_calibration(o, g, cal, use, err,
                                                               sizeof err) == 0)
        return;
    *use = 0;
    if (o->progress)
        fprintf(o->progress, "the batch's calibration %s cannot be used (%s): the reference "
                "is measured in this grading\n", o->calibration, err);
}

/* Contract in grade.h. */
int cml_grade(const cml_grade_opts *o, const cml_lab_spec *specs, int nspecs, cml_grading *g,
              double *build_s, char *err, size_t errlen)
{
    double t0 = cml_now();
    char work[CML_PATH];
    init_record(o, g);
    *build_s = 0;
    if (nspecs > CML_MAX_LABS)
        nspecs = CML_MAX_LABS;
    if (cml_mkdirs(o->out_dir) < 0 || cml_fmt(work, sizeof work, "%s/work", o->out_dir) < 0) {
        snprintf(err, errlen, "cannot create the output folder %s: choose a writable --out",
                 o->out_dir);
        return -1;
    }
    real_or_given(o->root, g->root, sizeof g->root);
    real_or_given(o->out_dir, g->out_dir, sizeof g->out_dir);
    const char *protect[3 + CML_MAX_OTHERS] = { o->root, o->out_dir, o->submission };
    for (int i = 0; i < CML_MAX_OTHERS; i++)
        protect[3 + i] = o->others[i];
    /* no lab run reads these, whatever else it may, and no build may #include them */
    cml_sandbox_protect(protect, 3 + CML_MAX_OTHERS);
    snprintf(g->sandbox_missing, sizeof g->sandbox_missing, "%s",
             cml_sandbox_caps_get()->missing);
    int use_cal = 0;
    cml_gpu_hold_path(o->gpu_lock); /* each GPU run below holds it (gpu_lock.h) */
    if (find_gpu(o, g, err, errlen) < 0)
        return -1;
    /* this grading's cases: the spec's own, and those its `draw` lines draw from the seed */
    g->specs = malloc((size_t)nspecs * sizeof *g->specs);
    if (!g->specs) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(g->specs, specs, (size_t)nspecs * sizeof *g->specs);
    specs = g->specs;
    for (int i = 0; i < nspecs; i++)
        if (cml_spec_draw(&g->specs[i], o->seed, err, errlen) < 0)
            return -1;
    cml_calibration cal; /* ~80 KB: on the stack, freed on every path below */
    memset(&cal, 0, sizeof cal);
    if (!o->calibration_pending && load_calibration(o, g, &cal, &use_cal, err, errlen) < 0)
        return -1;
    lab_build *lb = calloc((size_t)nspecs + 1, sizeof *lb);
    if (!lb) {
        snprintf(err, errlen, "out of memory");
        cml_cal_free(&cal);
        return -1;
    }
    char sub[CML_PATH];
    int unpacked = 0;
    if (!o->student_bin &&
        cml_unpack_submission(o->submission, work, sub, sizeof sub, &unpacked, err,
                              errlen) < 0) {
        cml_cal_free(&cal);
        free(lb);
        return -1;
    }
    double tb = cml_now();
    if (!o->student_bin)
        cml_build_labs(o, sub, specs, nspecs, g->have_gpu ? g->cc : cml_default_cc(), g->have_gpu,
                   lb);
    *build_s = cml_now() - tb;
    if (g->have_gpu)
        cml_gpu_enter(); /* a batch's grading that built ahead waits here for its turn */
    if (o->calibration_pending)
        pending_calibration(o, g, &cal, &use_cal);
    cml_run_opts ro = { .seed = o->seed, .work_dir = work, .keep = o->keep,
                        .progress = o->progress, .cal = use_cal ? &cal : NULL };
    cml_grade_labs(o, specs, nspecs, lb, &ro, g, t0); /* two at a time: grade_labs.c */
    cml_grade_after_labs(o, lb, &ro, g);
    g->wall_s = cml_now() - t0;
    if (cml_write_reports(o->out_dir, g) < 0 && o->progress)
        fprintf(o->progress, "warning: could not write the reports into %s: is it writable?\n",
                o->out_dir);
    for (int i = 0; !o->keep && i < g->nlabs; i++)
        if (lb[i].student.dir[0])
            cml_rmtree(lb[i].student.dir);
    if (unpacked && !o->keep)
        cml_rmtree(sub);
    cml_probe_let_go(); /* the GPU work is over */
    cml_cal_free(&cal);
    free(lb);
    if (!o->keep)
        rmdir(work); /* only when empty: a concurrent grading may share it */
    return 0;
}

/* Contract in grade.h. */
void cml_grading_free(cml_grading *g)
{
    for (int i = 0; i < g->nlabs; i++)
        cml_lab_result_free(&g->labs[i]);
    free(g->specs);
    g->specs = NULL;
}
