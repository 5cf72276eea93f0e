/* `cml-grade batch`: a folder of submissions graded on every GPU of this host. Each GPU gets
 * `per_gpu` grading processes that share its lock (class.h), so one builds on the CPU while
 * another is timed, never two timed at once. Every student's status is written when its
 * grading ends, so a killed batch, run again, grades only those without one. With a
 * calibration the reference is not re-measured for every student; a drift check on each GPU
 * every few students re-times what was graded since the last good check (batch_drift.c). */
#include "batch_run.h"
#include "class.h"
#include "util.h"

#include <dirent.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char USAGE[] =
    "usage: cml-grade batch --submissions DIR --out DIR [--gpus 0,1] [--per-gpu 2]\n"
    "                       [--calibration FILE | --no-calibration] [--check-every 10]\n"
    "                       [--timeout 1800] [--lab NN] [--root DIR]\n"
    "                       [--platform auto|canvas|moodle|github|folders]\n"
    "                       [--canvas-assignment \"Name (id)\"]\n"
    "       cml-grade batch --out DIR --index I    (grade plan entry I: a Slurm array task)\n"
    "Grades every student folder or archive (.zip, .tar, .tar.gz) in DIR on every GPU here\n"
    "(DIR may be a Canvas, Moodle or GitHub Classroom download, as a folder or one .zip)\n"
    "(default: CUDA_VISIBLE_DEVICES, else every /dev/nvidiaN), writes OUT/students/NAME/ and\n"
    "OUT/gradebook.csv. Run it again with the same --out to finish an interrupted batch.\n"
    "Without --calibration it calibrates once into OUT/calibration.cal (one GPU, ~20 s).\n";

/* The GPUs: --gpus, else CUDA_VISIBLE_DEVICES, else /dev/nvidia0..N; none: one slot "". */
static int find_gpus(const char *list, char gpus[][16], int max)
{
    const char *env = getenv("CUDA_VISIBLE_DEVICES");
    const char *from = list ? list : env && env[0] ? env : NULL;
    int n = 0;
    if (from) {
        char copy[256], *save = NULL;
        snprintf(copy, sizeof copy, "%s", from);
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
        gpus[n++][0] = '\0'; /* no GPU: gradings still build and check statically */
    return n;
}

/* Options into b; 0, -1 for --help, or a usage exit status. */
static int parse(int argc, char **argv, cml_batch *b, const char **gpus)
{
    static const struct option opts[] = {
        { "submissions", 1, 0, 's' }, { "out", 1, 0, 'o' }, { "gpus", 1, 0, 'g' },
        { "per-gpu", 1, 0, 'p' }, { "calibration", 1, 0, 'c' },
        { "no-calibration", 0, 0, 'C' }, { "check-every", 1, 0, 'e' },
        { "timeout", 1, 0, 't' }, { "lab", 1, 0, 'l' }, { "index", 1, 0, 'i' },
        { "root", 1, 0, 'r' },
        { "platform", 1, 0, 'P' }, { "canvas-assignment", 1, 0, 'A' },
        { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
    int ch;
    b->per_gpu = 2;
    b->check_every = 10;
    b->timeout_s = 1800;
    b->index = -1;
    opterr = 0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
        switch (ch) {
        case 's': b->submissions = optarg; break;
        case 'o': b->out = optarg; break;
        case 'g': *gpus = optarg; break;
        case 'p': b->per_gpu = atoi(optarg); break;
        case 'c': b->calibration = optarg; break;
        case 'C': b->no_calibration = 1; break;
        case 'e': b->check_every = atoi(optarg); break;
        case 't': b->timeout_s = atof(optarg); break;
        case 'l': b->lab = optarg; break;
        case 'i': b->index = atoi(optarg); break;
        case 'r': b->root = optarg; break;
        case 'P': b->platform = cml_platform_parse(optarg); break;
        case 'A': b->canvas_assignment = optarg; break;
        case 'h': fputs(USAGE, stdout); return -1;
        default:
            fprintf(stderr, "cml-grade batch: unknown or incomplete option '%s'\n%s",
                    argv[optind - 1], USAGE);
            return 2;
        }
    }
    if (!b->out || (!b->submissions && b->index < 0) || b->per_gpu < 1 || b->per_gpu > 8 ||
        b->timeout_s <= 0 || b->check_every < 0) {
        fprintf(stderr, "cml-grade batch: needs --out, and --submissions (or --index); "
                "--per-gpu 1..8, --timeout > 0\n%s", USAGE);
        return 2;
    }
    if (b->platform < 0 || (b->canvas_assignment && (!b->canvas_assignment[0] ||
                                                     strpbrk(b->canvas_assignment, "\r\n")))) {
        fprintf(stderr, "cml-grade batch: %s\n", b->platform < 0
                ? "--platform takes auto, canvas, moodle, github or folders"
                : "--canvas-assignment takes one line, e.g. \"Lab 1 (12345)\"");
        return 2;
    }
    return 0;
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
    const char *gpus = NULL;
    char err[1024];
    int rc = b ? parse(argc, argv, b, &gpus) : 2;
    if (rc) {
        free(b);
        return rc < 0 ? 0 : rc;
    }
    char *real = cml_mkdirs(b->out) == 0 ? realpath(b->out, NULL) : NULL;
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
        fprintf(stderr, "cml-grade batch: %s\n", b->out_abs[0] ? err
                : "cannot create the output folder: choose a writable --out");
        free(b);
        return 2;
    }
    b->ngpus = find_gpus(gpus, b->gpu, CML_BATCH_GPUS);
    setenv("CML_BUILD_NICE", "10", 0); /* gradings' builds yield to the labs being timed */
    rc = b->index >= 0 ? cml_batch_one(b) : cml_batch_all(b);
    cml_plan_free(&b->plan);
    free(b);
    return rc;
}
