/* `cml-grade batch`: a folder of submissions graded on every GPU of this host. Each GPU gets
 * `per_gpu` grading processes that share its lock (class.h), so one builds on the CPU while
 * another is timed, never two timed at once. Every student's status is written when its
 * grading ends, so a killed batch, run again, grades only those without one (or stopped by
 * its --timeout). Options, paths and GPUs are checked before anything is written. With a
 * calibration the reference is not re-measured for every student; a drift check on each GPU
 * every few students re-times what was graded since the last good check (batch_drift.c). */
#include "args.h"
#include "batch_run.h"
#include "class.h"
#include "help.h"
#include "probe.h"
#include "util.h"

#include <dirent.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The GPUs: --gpus, else CUDA_VISIBLE_DEVICES, else /dev/nvidia0..N; none found: one slot ""
 * (the default device, which the probe then finds or refuses). */
static int find_gpus(const int *list, int nlist, char gpus[][16], int max)
{
    const char *env = getenv("CUDA_VISIBLE_DEVICES");
    int n = 0;
    if (nlist > 0) {
        for (; n < nlist && n < max; n++)
            snprintf(gpus[n], 16, "%d", list[n]);
        return n;
    }
    if (env && env[0]) { /* as the scheduler gave them: indexes or UUIDs */
        char copy[256], *save = NULL;
        snprintf(copy, sizeof copy, "%s", env);
        for (char *t = strtok_r(copy, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save))
            snprintf(gpus[n++], 16, "%.15s", t);
        return n;
    }
    for (int i = 0; i < max; i++) {
        char dev[32];
        snprintf(dev, sizeof dev, "/dev/nvidia%d", i);
        if (access(dev, F_OK) != 0)
            break;
        snprintf(gpus[n++], 16, "%d", i);
    }
    if (n == 0)
        gpus[n++][0] = '\0';
    return n;
}

/* A number option into *v within [min, max]; 0, or 2 after the refusal. */
static int number(const char *opt, long min, long max, int *v)
{
    char err[512];
    long x;
    if (cml_arg_int(opt, optarg, min, max, &x, err, sizeof err) < 0)
        return cml_arg_refuse("batch", err);
    *v = (int)x;
    return 0;
}

/* Options into b (and the --gpus list); 0, -1 for --help, or a usage exit status. Numbers
 * and the duration are checked here, paths by check_paths. */
static int parse(int argc, char **argv, cml_batch *b, int *gpus, int *ngpus)
{
    static const struct option opts[] = {
        { "submissions", 1, 0, 's' }, { "out", 1, 0, 'o' }, { "gpus", 1, 0, 'g' },
        { "per-gpu", 1, 0, 'p' }, { "calibration", 1, 0, 'c' },
        { "no-calibration", 0, 0, 'C' }, { "check-every", 1, 0, 'e' },
        { "timeout", 1, 0, 't' }, { "lab", 1, 0, 'l' }, { "index", 1, 0, 'i' },
        { "root", 1, 0, 'r' }, { "builds-only", 0, 0, 'B' },
        { "platform", 1, 0, 'P' }, { "canvas-assignment", 1, 0, 'A' },
        { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
    char err[1024];
    int ch, rc = 0;
    b->per_gpu = 2;
    const char *ahead = getenv("CML_BATCH_AHEAD");
    b->ahead = ahead && strcmp(ahead, "0") == 0 ? 0 : 1;
    b->check_every = 10;
    b->timeout_s = 1800;
    b->index = -1;
    opterr = 0;
    optind = 1;
    while (rc == 0 && (ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
        switch (ch) {
        case 's': b->submissions = optarg; break;
        case 'o': b->out = optarg; break;
        case 'g':
            if (cml_arg_gpus("--gpus", optarg, gpus, CML_BATCH_GPUS, ngpus, err,
                             sizeof err) < 0)
                rc = cml_arg_refuse("batch", err);
            break;
        case 'p': rc = number("--per-gpu", 1, CML_BATCH_SLOTS - 1, &b->per_gpu); break;
        case 'c': b->calibration = optarg; break;
        case 'C': b->no_calibration = 1; break;
        case 'e': rc = number("--check-every", 0, 10000, &b->check_every); break;
        case 't':
            if (cml_arg_duration("--timeout", optarg, &b->timeout_s, err, sizeof err) < 0)
                rc = cml_arg_refuse("batch", err);
            break;
        case 'l': b->lab = optarg; break;
        case 'i': rc = number("--index", 0, CML_BATCH_MAX - 1, &b->index); break;
        case 'r': b->root = optarg; break;
        case 'P': b->platform = cml_platform_parse(optarg); break;
        case 'A': b->canvas_assignment = optarg; break;
        case 'B': b->builds_only = b->no_calibration = 1; break; /* nothing to calibrate */
        case 'h': return cml_help_print("batch"), -1;
        default:
            snprintf(err, sizeof err, "unknown or incomplete option '%s': see batch --help",
                     argv[optind - 1]);
            return cml_arg_refuse("batch", err);
        }
    }
    if (rc == 0 && optind < argc) {
        snprintf(err, sizeof err, "unexpected argument '%s': see batch --help", argv[optind]);
        rc = cml_arg_refuse("batch", err);
    }
    if (rc == 0 && b->platform < 0)
        rc = cml_arg_refuse("batch", "--platform takes auto, canvas, moodle, github or folders");
    if (rc == 0 && b->canvas_assignment && (!b->canvas_assignment[0] ||
                                            strpbrk(b->canvas_assignment, "\r\n")))
        rc = cml_arg_refuse("batch", "--canvas-assignment takes one line, e.g. \"Lab 1 (12345)\"");
    if (rc == 0 && (!b->out || (!b->submissions && b->index < 0)))
        rc = cml_arg_refuse("batch", "needs --out DIR, and --submissions DIR (or --index I "
                            "for an --out made before): see batch --help");
    return rc;
}

/* Every path option checked before anything is written; 0, or 2 after its refusal. */
static int check_paths(const cml_batch *b)
{
    char err[1024];
    int bad = (b->root && cml_arg_dir("--root", b->root, err, sizeof err) < 0) ||
              (b->calibration && cml_arg_file("--calibration", b->calibration, err,
                                              sizeof err) < 0);
    if (!bad && b->index >= 0) /* a plan made before: it must be there */
        bad = cml_arg_dir("--out", b->out, err, sizeof err) < 0;
    else if (!bad)
        bad = cml_arg_submission("--submissions", b->submissions, err, sizeof err) < 0 ||
              cml_arg_out("--out", b->out, err, sizeof err) < 0 ||
              cml_arg_apart("--out", b->out, "--submissions", b->submissions, err,
                            sizeof err) < 0;
    return bad ? cml_arg_refuse("batch", err) : 0;
}

/* Every GPU of the batch answers the probe (run on each alone), before anything is written:
 * a batch with no usable GPU would mark every student as failed. 0, or 2 after saying why
 * in plain words (probe.c). */
static int check_gpus(const cml_batch *b, int named)
{
    char root[CML_PATH], cache[CML_PATH], err[1024], *was = getenv("CUDA_VISIBLE_DEVICES");
    char saved[256];
    snprintf(saved, sizeof saved, "%s", was ? was : "");
    if (b->root)
        snprintf(root, sizeof root, "%s", b->root);
    else if (cml_find_root(root, sizeof root, err, sizeof err) < 0)
        return cml_arg_refuse("batch", err);
    cml_probe_result *p = calloc(1, sizeof *p);
    int rc = !p || cml_fmt(cache, sizeof cache, "%s/build/cache", root) < 0
             ? cml_arg_refuse("batch", "out of memory (or path too long) probing the GPUs") : 0;
    for (int g = 0; rc == 0 && g < b->ngpus; g++) {
        if (b->gpu[g][0])
            setenv("CUDA_VISIBLE_DEVICES", b->gpu[g], 1);
        cml_probe(root, cache, p);
        cml_probe_let_go(); /* the gradings hold their own */
        if (!p->have_gpu) {
            snprintf(err, sizeof err, "%s%s%s%s%s: nothing was graded and nothing written",
                     b->gpu[g][0] ? "GPU " : "", b->gpu[g], b->gpu[g][0] ? " cannot be used: "
                     : "", p->reason, named ? " (is it on this machine? nvidia-smi -L lists "
                     "its GPUs)" : "");
            rc = cml_arg_refuse("batch", err);
        }
    }
    was ? setenv("CUDA_VISIBLE_DEVICES", saved, 1) : unsetenv("CUDA_VISIBLE_DEVICES");
    free(p);
    return rc;
}

/* Keep --canvas-assignment in out/canvas-assignment, where collect finds it later too. */
static int save_canvas_column(const cml_batch *b)
{
    char path[4096], line[1024];
    int n = snprintf(line, sizeof line, "%s\n", b->canvas_assignment);
    return cml_fmt(path, sizeof path, "%s/canvas-assignment", b->out_abs) < 0 || n < 0 ||
           (size_t)n >= sizeof line ? -1 : cml_write_file(path, line, (size_t)n);
}

/* Contract in class.h. */
int cml_cmd_batch(int argc, char **argv)
{
    cml_batch *b = calloc(1, sizeof *b);
    int gpus[CML_BATCH_GPUS], ngpus = 0;
    char err[1024];
    int rc = b ? parse(argc, argv, b, gpus, &ngpus) : 2;
    if (rc == 0)
        rc = check_paths(b);
    if (rc == 0) { /* a Slurm array task uses the GPU it was given, as it was given */
        b->ngpus = b->index >= 0 ? 1 : find_gpus(gpus, ngpus, b->gpu, CML_BATCH_GPUS);
        rc = b->builds_only ? 0 : check_gpus(b, ngpus > 0);
    }
    if (rc) {
        free(b);
        return rc < 0 ? 0 : rc;
    }
    char *real = (b->index >= 0 || cml_mkdirs(b->out) == 0) ? realpath(b->out, NULL) : NULL;
    if (real)
        snprintf(b->out_abs, sizeof b->out_abs, "%s", real);
    free(real);
    rc = !b->out_abs[0] ? -1 : b->index >= 0 ? cml_plan_load(b->out_abs, &b->plan, err, sizeof err)
        : cml_plan_make_for(b->submissions, b->out_abs, (cml_platform)b->platform, &b->plan,
                            err, sizeof err);
    if (rc == 0 && b->canvas_assignment && save_canvas_column(b) < 0)
        fprintf(stderr, "cml-grade batch: warning: cannot write %s/canvas-assignment\n",
                b->out_abs);
    if (rc < 0) {
        rc = cml_arg_refuse("batch", b->out_abs[0] ? err : "cannot create the output folder: "
                            "choose a writable --out");
        free(b);
        return rc;
    }
    setenv("CML_BUILD_NICE", "10", 0); /* gradings' builds yield to the labs being timed */
    rc = b->index >= 0 ? cml_batch_one(b) : cml_batch_all(b);
    cml_plan_free(&b->plan);
    free(b);
    return rc;
}
