/* `cml-grade calibrate`: measure the reference solution's timed runs on this GPU once and
 * write them to a calibration file; with --check, measure some labs again and say whether
 * this GPU still times them as the file does (a batch's drift check). */
#include "args.h"
#include "calibration.h"
#include "class.h"
#include "gpu_lock.h"
#include "build.h"
#include "grade.h"
#include "time_runs.h"
#include "help.h"
#include "probe.h"
#include "records.h"
#include "stage.h"
#include "util.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define CAL_SEED 1             /* inputs do not change a reference's time; fixed for repeats */
#define CHECK_TOLERANCE 0.06   /* default drift limit on a lab's geometric-mean time ratio */

typedef struct {
    const char *out, *check, *root, *gpu_lock, *labs[CML_MAX_LABS];
    int nlabs;
    double tol;
} cal_cli;

/* Stage every lab's reference into root/build/calibrate and build them all at once (cached
 * under cache, which must outlive the call): a cold cache costs one build's time, not the sum.
 * b[i].ok says which built; b[i].dir is empty where staging failed (said on stderr). */
static void build_references(const char *root, const char *cache, const cml_lab_spec *specs,
                             int n, int cc, cml_build *b)
{
    char work[CML_PATH], err[1024];
    cml_build **jobs = calloc((size_t)n, sizeof *jobs);
    int njobs = 0;
    cml_fmt(work, sizeof work, "%s/build/calibrate", root);
    for (int i = 0; i < n; i++) {
        b[i] = (cml_build){ .spec = &specs[i], .cc = cc, .cache_dir = cache };
        if (cml_stage(root, &specs[i], CML_SIDE_REFERENCE, NULL, work, b[i].dir,
                      sizeof b[i].dir, err, sizeof err) == 0 && jobs) {
            jobs[njobs++] = &b[i];
        } else {
            fprintf(stderr, "cml-grade calibrate: %s: %s\n", specs[i].lab,
                    jobs ? err : "out of memory");
            b[i].dir[0] = '\0'; /* cml_stage removed it: nothing to build or remove */
        }
    }
    double t0 = cml_now();
    cml_build_all(jobs, njobs, 0);
    int cached = 0;
    for (int i = 0; i < njobs; i++)
        cached += jobs[i]->cached;
    /* where a calibration's time goes (a cold cache, builds beside it), in its log */
    fprintf(stderr, "calibrate: %d reference build(s) in %.1f s (%d from the cache)\n", njobs,
            cml_now() - t0, cached);
    free(jobs);
}

/* Run built reference b's timed cases live into cal. 0 when they ran. */
static int measure_lab(const char *root, const cml_build *b, uint64_t seed,
                       cml_calibration *cal)
{
    char work[CML_PATH];
    if (!b->ok) {
        if (b->dir[0]) /* else staging failed, already said */
            fprintf(stderr, "cml-grade calibrate: %s: the reference solution did not "
                    "compile:\n%s\n", b->spec->lab, b->log ? b->log : "");
        return -1;
    }
    cml_fmt(work, sizeof work, "%s/build/calibrate", root);
    cml_lab_result *r = calloc(1, sizeof *r);
    cml_run_record *per_task = calloc(CML_MAX_TASKS, sizeof *per_task);
    cml_run_opts o = { .seed = seed, .work_dir = work, .progress = stderr, .cc = b->cc,
                       .ref_sha = b->bin_sha, .cal_out = cal };
    int before = cal->nruns;
    if (r && per_task)
        cml_reference_runs(b->spec, b->bin, &o, r, per_task);
    int rc = r && (r->ref_run.done || cal->nruns > before) ? 0 : -1;
    free(r);
    free(per_task);
    return rc;
}

/* Build every lab's reference at once, then run them one by one (each run holds the batch's
 * GPU lock when one was given: cml_gpu_hold_path); stops at the first lab that fails. 0, or 2. */
static int measure_labs(const char *root, const cml_lab_spec *specs, int n,
                        cml_calibration *cal)
{
    char cache[CML_PATH];
    cml_build *b = calloc((size_t)n, sizeof *b);
    if (!b)
        return 2;
    cml_fmt(cache, sizeof cache, "%s/build/cache", root);
    build_references(root, cache, specs, n, cal->cc, b);
    int rc = 0;
    for (int i = 0; rc == 0 && i < n; i++)
        rc = measure_lab(root, &b[i], CAL_SEED, cal) < 0 ? 2 : 0;
    for (int i = 0; i < n; i++) {
        cml_build_free(&b[i]);
        if (b[i].dir[0])
            cml_rmtree(b[i].dir);
    }
    free(b);
    return rc;
}

/* The geometric mean of live/stored time over the timed cases both runs of a key have. */
static double time_ratio(const cml_cal_run *live,
                         const cml_cal_run *stored, int *n)
{
    cml_run_record *a = calloc(2, sizeof *a);
    double logsum = 0;
    *n = 0;
    if (!a)
        return 0;
    cml_records_parse(live->text, live->len, &a[0], NULL);
    cml_records_parse(stored->text, stored->len, &a[1], NULL);
    for (int k = 0; k < a[0].ncases && k < a[1].ncases; k++)
        if (a[0].cases[k].has_time && a[1].cases[k].has_time && a[0].cases[k].ms > 0 &&
            a[1].cases[k].ms > 0) {
            logsum += log(a[0].cases[k].ms / a[1].cases[k].ms);
            ++*n;
        }
    free(a);
    return *n ? exp(logsum / *n) : 0;
}

/* Compare the live runs in `now` with the file's: 0 within tolerance, 3 on drift, 2 when a
 * lab could not be compared (not in the file, or no time). */
static int compare(const cml_calibration *now,
                   const cml_calibration *file, double tol)
{
    int rc = 0;
    for (int i = 0; i < now->nruns; i++) {
        const cml_cal_run *live = &now->runs[i];
        const cml_cal_run *stored = cml_cal_find(file, live->lab, live->ref_sha, live->cases);
        int cases = 0;
        double ratio = stored ? time_ratio(live, stored, &cases) : 0;
        if (!stored || cases == 0) {
            printf("%s: not comparable (%s)\n", live->lab, stored ? "no timed case in common"
                   : "the file has no run of this reference build and case list");
            rc = rc ? rc : 2;
            continue;
        }
        int drift = fabs(log(ratio)) > log1p(tol);
        printf("%s: %.3fx the calibration's time over %d timed case(s): %s\n", live->lab, ratio,
               cases, drift ? "DRIFT" : "ok");
        if (drift)
            rc = 3;
    }
    return rc;
}

/* Options; 0, -1 for --help, or a usage exit status. */
static int parse(int argc, char **argv, cal_cli *c)
{
    static const struct option opts[] = {
        { "out", 1, 0, 'o' }, { "check", 1, 0, 'c' }, { "lab", 1, 0, 'l' },
        { "root", 1, 0, 'r' }, { "tolerance", 1, 0, 't' }, { "gpu-lock", 1, 0, 'g' },
        { "help", 0, 0, 'h' },
        { 0, 0, 0, 0 } };
    char err[1024];
    int ch;
    c->tol = CHECK_TOLERANCE;
    opterr = 0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
        switch (ch) {
        case 'o': c->out = optarg; break;
        case 'c': c->check = optarg; break;
        case 'r': c->root = optarg; break;
        case 'g': c->gpu_lock = optarg; break;
        case 'l':
            if (c->nlabs < CML_MAX_LABS)
                c->labs[c->nlabs++] = optarg;
            break;
        case 't':
            if (cml_arg_real("--tolerance", optarg, 0, 1, &c->tol, err, sizeof err) < 0)
                return cml_arg_refuse("calibrate", err);
            break;
        case 'h': return cml_help_print("calibrate"), -1;
        default:
            snprintf(err, sizeof err, "unknown or incomplete option '%s': see calibrate "
                     "--help", argv[optind - 1]);
            return cml_arg_refuse("calibrate", err);
        }
    }
    if (optind < argc) {
        snprintf(err, sizeof err, "unexpected argument '%s': see calibrate --help",
                 argv[optind]);
        return cml_arg_refuse("calibrate", err);
    }
    struct stat st; /* --out names a file: a folder there cannot be written over */
    if ((c->root && cml_arg_dir("--root", c->root, err, sizeof err) < 0) ||
        (c->check && cml_arg_file("--check", c->check, err, sizeof err) < 0) ||
        (c->out && stat(c->out, &st) == 0 && S_ISDIR(st.st_mode) &&
         snprintf(err, sizeof err, "--out '%s' is a folder: give the calibration file's name",
                  c->out) > 0))
        return cml_arg_refuse("calibrate", err);
    if (!c->check && !c->out)
        c->out = ""; /* the default, named once the GPU is known */
    return 0;
}

/* The labs to measure: those named (prefixes), or all (calibrate) / 01 and 06 (check). */
static int pick_labs(const cal_cli *c, const char *root, cml_lab_spec *specs)
{
    static const char *const check_default[] = { "01", "06" };
    char err[1024];
    int n = 0, nl = c->nlabs ? c->nlabs : c->check ? 2 : 0;
    if (nl == 0)
        n = cml_load_specs(root, NULL, specs, CML_MAX_LABS, err, sizeof err);
    for (int i = 0; i < nl && n >= 0; i++) {
        int got = cml_load_specs(root, c->nlabs ? c->labs[i] : check_default[i], specs + n,
                                 CML_MAX_LABS - n, err, sizeof err);
        n = got < 0 ? -1 : n + got;
    }
    if (n <= 0)
        fprintf(stderr, "cml-grade calibrate: %s\n", err);
    return n;
}

/* The default file name: build/calibration/<GPU name with [^A-Za-z0-9] as '-'>.cal. */
static void default_path(const char *root, const char *gpu, char *path, size_t len)
{
    char slug[128];
    size_t i = 0;
    for (; gpu[i] && i < sizeof slug - 1; i++)
        slug[i] = (gpu[i] >= 'a' && gpu[i] <= 'z') || (gpu[i] >= 'A' && gpu[i] <= 'Z') ||
                  (gpu[i] >= '0' && gpu[i] <= '9') ? gpu[i] : '-';
    slug[i] = '\0';
    char dir[CML_PATH];
    cml_fmt(dir, sizeof dir, "%s/build/calibration", root);
    cml_mkdirs(dir);
    cml_fmt(path, len, "%s/%s.cal", dir, slug);
}

/* The probe's answer into cal's header; 0, or 2 without a GPU. */
static int probe_gpu(const char *root, cml_calibration *cal)
{
    char cache[CML_PATH];
    cml_probe_result *p = calloc(1, sizeof *p);
    cml_fmt(cache, sizeof cache, "%s/build/cache", root);
    double t0 = cml_now();
    if (p)
        cml_probe(root, cache, p);
    fprintf(stderr, "calibrate: GPU probed in %.1f s\n", cml_now() - t0);
    if (!p || !p->have_gpu) {
        fprintf(stderr, "cml-grade calibrate: no usable GPU: %s; nothing was measured\n",
                p ? p->reason : "out of memory");
        free(p);
        return 2;
    }
    snprintf(cal->gpu, sizeof cal->gpu, "%s", p->rec.device_name);
    cal->cc = p->rec.cc;
    cal->driver = p->rec.driver;
    cml_nvcc_version(cal->nvcc, sizeof cal->nvcc);
    time_t now = time(NULL);
    struct tm tm;
    strftime(cal->created, sizeof cal->created, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    free(p);
    return 0;
}

/* Contract in class.h. */
int cml_cmd_calibrate(int argc, char **argv)
{
    cal_cli c = { 0 };
    char root[CML_PATH], err[1024], path[CML_PATH];
    int rc = parse(argc, argv, &c);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (c.root)
        snprintf(root, sizeof root, "%s", c.root);
    else if (cml_find_root(root, sizeof root, err, sizeof err) < 0)
        return fprintf(stderr, "cml-grade calibrate: %s\n", err), 2;
    cml_lab_spec *specs = calloc(CML_MAX_LABS, sizeof *specs);
    cml_calibration *cal = calloc(2, sizeof *cal); /* [0] measured now, [1] the file */
    int n = specs && cal ? pick_labs(&c, root, specs) : -1;
    cml_gpu_hold_path(c.gpu_lock); /* a drift check: the probe and each run hold it */
    rc = n <= 0 ? 2 : probe_gpu(root, &cal[0]);
    if (rc == 0 && c.check && cml_cal_load(c.check, &cal[1], err, sizeof err) < 0) {
        fprintf(stderr, "cml-grade calibrate: %s\n", err);
        rc = 2;
    }
    if (rc == 0)
        rc = measure_labs(root, specs, n, &cal[0]);
    cml_probe_let_go(); /* the GPU work is over */
    if (rc == 0 && c.check) {
        rc = compare(&cal[0], &cal[1], c.tol);
    } else if (rc == 0) {
        if (c.out[0])
            snprintf(path, sizeof path, "%s", c.out);
        else
            default_path(root, cal[0].gpu, path, sizeof path);
        rc = cml_cal_save(path, &cal[0], err, sizeof err) < 0 ? 2 : 0;
        if (rc)
            fprintf(stderr, "cml-grade calibrate: %s\n", err);
        else
            printf("calibration %s: %d reference run(s) on %s written to %s\n", cal[0].id,
                   cal[0].nruns, cal[0].gpu, path);
    }
    if (cal) {
        cml_cal_free(&cal[0]);
        cml_cal_free(&cal[1]);
    }
    free(cal);
    free(specs);
    return rc;
}
