/* `cml-grade slurm`: the batch's plan as a Slurm job array, one student per array task on one
 * GPU (`--gres=gpu:1`, at most --throttle at once), each task running `cml-grade batch
 * --index $SLURM_ARRAY_TASK_ID`; and `cml-grade collect`, which merges every task's status
 * into the gradebook once the array is done (or at any time, saying who is missing). */
#include "args.h"
#include "batch.h"
#include "class.h"
#include "cml.h"
#include "help.h"
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

/* A number option into *v within [min, max]; 0, or 2 after the refusal. */
static int number(const char *opt, long min, long max, int *v)
{
    char err[512];
    long x;
    if (cml_arg_int(opt, optarg, min, max, &x, err, sizeof err) < 0)
        return cml_arg_refuse("slurm", err);
    *v = (int)x;
    return 0;
}

/* Options into c, every one checked before anything is written; 0, -1 for --help, or a
 * usage exit status. */
static int parse(int argc, char **argv, slurm_cli *c)
{
    static const struct option opts[] = {
        { "submissions", 1, 0, 's' }, { "out", 1, 0, 'o' }, { "throttle", 1, 0, 'k' },
        { "lab", 1, 0, 'l' }, { "partition", 1, 0, 'p' }, { "time", 1, 0, 't' },
        { "cpus", 1, 0, 'c' }, { "calibration", 1, 0, 'C' }, { "submit", 0, 0, 'S' },
        { "root", 1, 0, 'r' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
    char err[1024];
    double limit_s;
    int ch, rc = 0;
    *c = (slurm_cli){ .throttle = 4, .minutes = 30, .cpus = 8 };
    opterr = 0;
    optind = 1;
    while (rc == 0 && (ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
        switch (ch) {
        case 's': c->submissions = optarg; break;
        case 'o': c->out = optarg; break;
        case 'k': rc = number("--throttle", 1, 1000, &c->throttle); break;
        case 'l': c->lab = optarg; break;
        case 'p': c->partition = optarg; break;
        case 't': /* Slurm counts whole minutes: round up */
            if (optarg[0] && strspn(optarg, "0123456789") == strlen(optarg)) {
                /* a bare number meant minutes here once (as in Slurm), seconds elsewhere */
                snprintf(err, sizeof err, "--time '%.40s' has no unit: write %sm for minutes "
                         "or %ss for seconds", optarg, optarg, optarg);
                rc = cml_arg_refuse("slurm", err);
            } else if (cml_arg_duration("--time", optarg, &limit_s, err, sizeof err) < 0) {
                rc = cml_arg_refuse("slurm", err);
            }
            c->minutes = rc ? 0 : (int)((limit_s + 59) / 60);
            break;
        case 'c': rc = number("--cpus", 1, 1024, &c->cpus); break;
        case 'C': c->calibration = optarg; break;
        case 'S': c->submit = 1; break;
        case 'r': c->root = optarg; break;
        case 'h': return cml_help_print("slurm"), -1;
        default:
            snprintf(err, sizeof err, "unknown or incomplete option '%s': see slurm --help",
                     argv[optind - 1]);
            return cml_arg_refuse("slurm", err);
        }
    }
    if (rc)
        return rc;
    if (optind < argc || !c->submissions || !c->out)
        return cml_arg_refuse("slurm", "needs --submissions DIR and --out DIR, and nothing "
                              "else: see slurm --help");
    int bad = cml_arg_dir("--submissions", c->submissions, err, sizeof err) < 0 ||
              cml_arg_out("--out", c->out, err, sizeof err) < 0 ||
              cml_arg_apart("--out", c->out, "--submissions", c->submissions, err,
                            sizeof err) < 0 ||
              (c->root && cml_arg_dir("--root", c->root, err, sizeof err) < 0) ||
              (c->calibration && cml_arg_file("--calibration", c->calibration, err,
                                              sizeof err) < 0);
    return bad ? cml_arg_refuse("slurm", err) : 0;
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
    if (argc == 2 && strcmp(argv[1], "--help") == 0)
        return cml_help_print("collect");
    if (argc != 3 || strcmp(argv[1], "--out") != 0)
        return cml_arg_refuse("collect", "needs --out DIR (a batch's or slurm's --out) and "
                              "nothing else");
    if (cml_arg_dir("--out", argv[2], err, sizeof err) < 0 ||
        cml_plan_load(argv[2], &p, err, sizeof err) < 0)
        return cml_arg_refuse("collect", err);
    int missing = cml_collect(argv[2], &p, err, sizeof err);
    if (missing < 0)
        fprintf(stderr, "cml-grade collect: %s\n", err);
    else
        printf("%d student(s), %d without a result yet; %s/gradebook.csv and gradebook.md\n",
               p.n, missing, argv[2]);
    cml_plan_free(&p);
    return missing == 0 ? 0 : missing < 0 ? 2 : 1;
}
