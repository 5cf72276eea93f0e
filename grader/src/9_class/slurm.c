/* `cml-grade slurm`: the batch's plan as a Slurm job array, one student per array task on one
 * GPU (`--gres=gpu:1`, at most --throttle at once), each task running `cml-grade batch
 * --index $SLURM_ARRAY_TASK_ID`; and `cml-grade collect`, which merges every task's status
 * into the gradebook once the array is done (or at any time, saying who is missing). */
#include "batch.h"
#include "class.h"
#include "cml.h"
#include "technique.h"
#include "util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    const char *submissions, *out, *lab, *partition, *calibration, *root;
    int throttle, minutes, cpus, submit;
} slurm_cli;

/* s in single quotes for bash ('\'' for a quote inside). */
static void quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        *s == '\'' ? fputs("'\\''", f) : fputc(*s, f);
    fputc('\'', f);
}

/* Write the array script; 0, or -1. */
static int write_script(const slurm_cli *c, const char *out, int n, const char *path)
{
    char exe[CML_PATH];
    FILE *f = cml_self_exe(exe, sizeof exe) == 0 ? fopen(path, "w") : NULL;
    if (!f)
        return -1;
    fprintf(f, "#!/bin/bash\n# Written by cml-grade slurm: one student per array task.\n"
            "#SBATCH --job-name=cml-grade\n#SBATCH --array=0-%d%%%d\n#SBATCH --gres=gpu:1\n"
            "#SBATCH --cpus-per-task=%d\n#SBATCH --time=%d\n#SBATCH --output=%s/slurm/%%A_%%a.out\n",
            n - 1, c->throttle, c->cpus, c->minutes, out);
    if (c->partition)
        fprintf(f, "#SBATCH --partition=%s\n", c->partition);
    fputs("exec ", f);
    quoted(f, exe);
    fputs(" batch --out ", f);
    quoted(f, out);
    fputs(" --index \"$SLURM_ARRAY_TASK_ID\"", f);
    if (c->calibration)
        fputs(" --calibration ", f), quoted(f, c->calibration);
    if (c->lab)
        fputs(" --lab ", f), quoted(f, c->lab);
    if (c->root)
        fputs(" --root ", f), quoted(f, c->root);
    fputc('\n', f);
    return fclose(f) == 0 ? 0 : -1;
}

/* sbatch the script; 0 when it was accepted (its job id printed). */
static int submit(const char *script)
{
    char sbatch[CML_PATH];
    char *argv[] = { sbatch, "--parsable", (char *)script, NULL };
    cml_proc_result r;
    if (cml_find_tool("CML_SBATCH", "sbatch", sbatch, sizeof sbatch) < 0) {
        printf("sbatch not found: is Slurm installed here? (or set CML_SBATCH)\n");
        return 1;
    }
    cml_run(argv, NULL, NULL, -1, 120, 4096, &r);
    int ok = r.started && r.exited && r.exit_code == 0;
    printf("sbatch: %s", ok ? "job " : "failed: ");
    fwrite(r.output ? r.output : "", 1, r.output_len, stdout);
    cml_proc_result_free(&r);
    return ok ? 0 : 1;
}

static int parse(int argc, char **argv, slurm_cli *c)
{
    static const struct option opts[] = {
        { "submissions", 1, 0, 's' }, { "out", 1, 0, 'o' }, { "throttle", 1, 0, 'k' },
        { "lab", 1, 0, 'l' }, { "partition", 1, 0, 'p' }, { "time", 1, 0, 't' },
        { "cpus", 1, 0, 'c' }, { "calibration", 1, 0, 'C' }, { "submit", 0, 0, 'S' },
        { "root", 1, 0, 'r' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
    int ch;
    *c = (slurm_cli){ .throttle = 4, .minutes = 30, .cpus = 8 };
    opterr = 0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
        switch (ch) {
        case 's': c->submissions = optarg; break;
        case 'o': c->out = optarg; break;
        case 'k': c->throttle = atoi(optarg); break;
        case 'l': c->lab = optarg; break;
        case 'p': c->partition = optarg; break;
        case 't': c->minutes = atoi(optarg); break;
        case 'c': c->cpus = atoi(optarg); break;
        case 'C': c->calibration = optarg; break;
        case 'S': c->submit = 1; break;
        case 'r': c->root = optarg; break;
        case 'h':
            puts("usage: cml-grade slurm --submissions DIR --out DIR [--throttle 4] [--lab NN]\n"
                 "                       [--partition P] [--time MIN] [--cpus 8]\n"
                 "                       [--calibration FILE] [--root DIR] [--submit]\n"
                 "Writes OUT/grade-array.sbatch (a job array, one student per task, one GPU\n"
                 "each); --submit hands it to sbatch. Then: cml-grade collect --out DIR.");
            return -1;
        default:
            fprintf(stderr, "cml-grade slurm: unknown or incomplete option '%s'\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (!c->submissions || !c->out || c->throttle < 1 || c->minutes < 1 || c->cpus < 1) {
        fprintf(stderr, "cml-grade slurm: needs --submissions and --out (see --help)\n");
        return 2;
    }
    return 0;
}

/* Contract in class.h. */
int cml_cmd_slurm(int argc, char **argv)
{
    slurm_cli c;
    cml_plan p;
    char err[1024], script[CML_PATH], logs[CML_PATH];
    int rc = parse(argc, argv, &c);
    if (rc)
        return rc < 0 ? 0 : rc;
    char *out = cml_mkdirs(c.out) == 0 ? realpath(c.out, NULL) : NULL;
    if (!out || cml_plan_make(c.submissions, out, &p, err, sizeof err) < 0) {
        fprintf(stderr, "cml-grade slurm: %s\n", out ? err : "cannot create --out");
        free(out);
        return 2;
    }
    cml_fmt(script, sizeof script, "%s/grade-array.sbatch", out);
    cml_fmt(logs, sizeof logs, "%s/slurm", out);
    if (cml_mkdirs(logs) < 0 || write_script(&c, out, p.n, script) < 0) {
        fprintf(stderr, "cml-grade slurm: cannot write %s\n", script);
        rc = 2;
    } else {
        printf("%d submission(s); array script: %s\n", p.n, script);
        rc = c.submit ? submit(script) : 0;
        printf("when the array is done: cml-grade collect --out %s\n", out);
    }
    cml_plan_free(&p);
    free(out);
    return rc;
}

/* Contract in class.h. */
int cml_cmd_collect(int argc, char **argv)
{
    cml_plan p;
    char err[1024];
    if (argc != 3 || strcmp(argv[1], "--out") != 0) {
        fprintf(stderr, "usage: cml-grade collect --out DIR   (a batch's or slurm's --out)\n");
        return argc == 2 && strcmp(argv[1], "--help") == 0 ? 0 : 2;
    }
    if (cml_plan_load(argv[2], &p, err, sizeof err) < 0) {
        fprintf(stderr, "cml-grade collect: %s\n", err);
        return 2;
    }
    int missing = cml_collect(argv[2], &p, err, sizeof err);
    if (missing < 0)
        fprintf(stderr, "cml-grade collect: %s\n", err);
    else
        printf("%d student(s), %d without a result yet; %s/gradebook.csv and gradebook.md\n",
               p.n, missing, argv[2]);
    cml_plan_free(&p);
    return missing == 0 ? 0 : missing < 0 ? 2 : 1;
}
