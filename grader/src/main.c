/* cml-grade: the command line. `grade` grades a submission (docs/ARCHITECTURE.md, "The path of a
 * submission"); `bench` prints the reference solutions' bandwidth tables on this GPU. */
#include "args.h"
#include "batch.h"
#include "build.h"
#include "class.h"
#include "findings.h"
#include "gpu_lock.h"
#include "grade.h"
#include "help.h"
#include "probe.h"
#include "report.h"
#include "run.h"
#include "sandbox.h"
#include "stage.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_TIMEOUT_S 600.0

typedef struct {
    const char *submission, *lab, *out, *root, *calibration, *gpu_lock, *student;
    const char *protect[CML_MAX_OTHERS];
    int nprotect;
    uint64_t seed;
    int have_seed, no_color, keep, cal_pending;
} cli;

/* One line on stderr (what is wrong, what to do), for the command cmd; exit status 2. */
static int usage_error(const char *cmd, const char *fmt, const char *what)
{
    char line[1024];
    snprintf(line, sizeof line, fmt, what);
    return cml_arg_refuse(cmd, line);
}

/* Parse the options after the command; 0, -1 after --help, or the exit status of a usage
 * error. */
static int parse_options(int argc, char **argv, int bench, cli *c)
{
    static const struct option grade_opts[] = {
        { "submission", 1, 0, 's' }, { "lab", 1, 0, 'l' }, { "seed", 1, 0, 'S' },
        { "out", 1, 0, 'o' }, { "root", 1, 0, 'r' }, { "no-color", 0, 0, 'n' },
        { "keep", 0, 0, 'k' }, { "calibration", 1, 0, 'c' }, { "gpu-lock", 1, 0, 'g' },
        { "protect", 1, 0, 'p' }, { "student", 1, 0, 'N' }, { "help", 0, 0, 'h' },
        { "gpu-share", 1, 0, 'G' }, { "calibration-pending", 1, 0, 'P' }, { 0, 0, 0, 0 } };
    static const struct option bench_opts[] = {
        { "lab", 1, 0, 'l' }, { "root", 1, 0, 'r' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
    const char *cmd = bench ? "bench" : "grade";
    char err[1024];
    int ch;
    uint64_t share = 0;
    opterr = 0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "+", bench ? bench_opts : grade_opts, NULL)) != -1) {
        switch (ch) {
        case 's': c->submission = optarg; break;
        case 'l': c->lab = optarg; break;
        case 'o': c->out = optarg; break;
        case 'r': c->root = optarg; break;
        case 'n': c->no_color = 1; break;
        case 'k': c->keep = 1; break;
        case 'c': c->calibration = optarg; break;
        case 'P': c->calibration = optarg, c->cal_pending = 1; break;
        case 'g': c->gpu_lock = optarg; break;
        case 'N': c->student = optarg; break;
        case 'G':
            if (cml_arg_u64("--gpu-share", optarg, &share, err, sizeof err) < 0 ||
                share < 1 || share > CML_GPU_PLACES) {
                snprintf(err, sizeof err, "--gpu-share takes a whole number from 1 to %d, not "
                         "'%%s'", CML_GPU_PLACES); /* the bound: gpu_lock.h */
                return usage_error(cmd, err, optarg);
            }
            cml_gpu_share_set((int)share);
            break;
        case 'p':
            if (c->nprotect == CML_MAX_OTHERS)
                return usage_error(cmd, "--protect is given at most twice ('%s' is one more)",
                                   optarg);
            c->protect[c->nprotect++] = optarg;
            break;
        case 'h': cml_help_print(cmd); return -1;
        case 'S':
            if (cml_arg_u64("--seed", optarg, &c->seed, err, sizeof err) < 0)
                return cml_arg_refuse(cmd, err);
            c->have_seed = 1;
            break;
        default:
            return usage_error(cmd, "unknown or incomplete option '%s': see its --help",
                               argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage_error(cmd, "unexpected argument '%s': see its --help", argv[optind]);
    return 0;
}

/* Every path option checked before anything is read or written (args.h); 0, or 2 after its
 * one-line refusal. --protect is not: a regrade passes folders that may be gone since, and a
 * folder that is not there needs no protecting. */
static int check_paths(const char *cmd, const cli *c)
{
    char err[1024];
    int bad = (c->root && cml_arg_dir("--root", c->root, err, sizeof err) < 0) ||
              (c->submission && cml_arg_submission("--submission", c->submission, err,
                                                   sizeof err) < 0) ||
              (c->out && cml_arg_out("--out", c->out, err, sizeof err) < 0) ||
              (c->calibration && !c->cal_pending &&
               cml_arg_file("--calibration", c->calibration, err, sizeof err) < 0);
    return bad ? cml_arg_refuse(cmd, err) : 0;
}

/* The terminal report, with the grader's own timing line just before `Score: x/y`. */
static void print_report(const cml_grading *g, int color, const char *timing)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) {
        fputs(timing, stdout);
        cml_report_terminal(stdout, g, color);
        return;
    }
    cml_report_terminal(mem, g, color);
    fclose(mem);
    while (len > 0 && text[len - 1] == '\n')
        text[--len] = '\0';
    char *last = strrchr(text, '\n');
    if (last) {
        fwrite(text, 1, (size_t)(last - text) + 1, stdout);
        fprintf(stdout, "%s%s\n", timing, last + 1);
    } else {
        fprintf(stdout, "%s%s\n", timing, text);
    }
    free(text);
}

/* Default paths from the repository root, then every path checked (check_paths). */
static int resolve_paths(const char *cmd, cli *c, char *root, char *sub, char *out)
{
    char err[512];
    if (c->root)
        snprintf(root, CML_PATH, "%s", c->root);
    else if (cml_find_root(root, CML_PATH, err, sizeof err) < 0)
        return usage_error(cmd, "%s", err);
    if (cml_fmt(sub, CML_PATH, "%s/labs", root) < 0 ||
        cml_fmt(out, CML_PATH, "%s/build/grade", root) < 0)
        return usage_error(cmd, "repository path too long: %s", root);
    c->root = root;
    if (!c->submission) c->submission = sub;
    if (!c->out) c->out = out;
    return check_paths(cmd, c);
}

/* `cml-grade grade`. */
static int cmd_grade(cli *c)
{
    char root[CML_PATH], sub[CML_PATH], out[CML_PATH], err[1024], timing[160];
    int rc = resolve_paths("grade", c, root, sub, out);
    if (rc)
        return rc;
    cml_lab_spec *specs = calloc(CML_MAX_LABS, sizeof *specs);
    cml_grading *g = calloc(1, sizeof *g);
    int n = specs && g ? cml_load_specs(root, c->lab, specs, CML_MAX_LABS, err, sizeof err) : -1;
    double build_s = 0;
    cml_grade_opts o = { root, c->submission, c->out, c->have_seed ? c->seed : cml_random_seed(),
                         c->keep, stderr, NULL, NULL, c->calibration, c->gpu_lock,
                         { c->protect[0], c->protect[1] }, c->student, c->cal_pending };
    if (n <= 0 || cml_grade(&o, specs, n, g, &build_s, err, sizeof err) < 0) {
        rc = cml_arg_refuse("grade", err);
    } else {
        double gpu_s, waited_s;
        cml_gpu_hold_times(&gpu_s, &waited_s);
        snprintf(timing, sizeof timing, "graded %d lab%s in %.1f s (builds %.1f s, GPU runs "
                 "%.1f s%s", g->nlabs, g->nlabs == 1 ? "" : "s", g->wall_s, build_s, gpu_s,
                 c->gpu_lock ? "" : ")\n");
        if (c->gpu_lock)
            snprintf(timing + strlen(timing), sizeof timing - strlen(timing),
                     ", waiting for the GPU %.1f s)\n", waited_s);
        print_report(g, !c->no_color && isatty(1) && !getenv("NO_COLOR"), timing);
        int full = g->have_gpu && g->max_score > 0 && g->score >= g->max_score - 1e-9;
        rc = full ? 0 : 1;
        fflush(stdout); /* the report first, where both streams go to one file */
        /* a course grade is final only when every due check ran (issue 44); CML_UNCHECKED=keep
         * is the instructor's choice to grade on a machine without the tools, said too */
        const int unchecked = g->have_gpu ? cml_course_unchecked(g) : 0;
        const char *keep = getenv("CML_UNCHECKED");
        const int kept = keep && strcmp(keep, "keep") == 0;
        if (unchecked && !kept) { /* kept: the report's 'not checked' lines say it */
            fprintf(stderr, "cml-grade grade: %d check%s of this course grading did not run (a "
                    "tool missing or failing on its own; the report names each 'not checked'): "
                    "the score keeps their points and is not final; fix the machine "
                    "(`cml-grade doctor`) and grade again, or set CML_UNCHECKED=keep to grade "
                    "without them (exit 3)\n", unchecked, unchecked == 1 ? "" : "s");
            rc = 3;
        }
        if (!g->have_gpu) /* not a score of 0: nothing was graded (exit 2, not 1) */
            rc = usage_error("grade", "no GPU: only the builds were checked, nothing was "
                             "graded (%s); grade on a machine with a usable NVIDIA GPU",
                             g->no_gpu_reason);
        cml_grading_free(g);
    }
    free(specs);
    free(g);
    return rc;
}

/* Build one lab's reference solution (cached) and run it with --bench. 0 when it ran. */
static int bench_lab(const char *root, const cml_lab_spec *spec, int cc)
{
    char work[CML_PATH], cache[CML_PATH], err[1024], how[300];
    cml_build b = { .spec = spec, .cc = cc, .cache_dir = cache };
    cml_fmt(work, sizeof work, "%s/build/bench", root);
    cml_fmt(cache, sizeof cache, "%s/build/cache", root);
    if (cml_stage(root, spec, CML_SIDE_REFERENCE, NULL, work, b.dir, sizeof b.dir, err,
                  sizeof err) < 0) {
        fprintf(stderr, "cml-grade bench: %s: %s\n", spec->lab, err);
        return -1;
    }
    printf("== %s: %s (reference solution)\n", spec->lab, spec->title);
    fflush(stdout);
    int rc = -1;
    if (!cml_build_lab(&b)) {
        fprintf(stderr, "cml-grade bench: %s: the reference solution did not compile:\n%s\n",
                spec->lab, b.log ? b.log : "");
    } else {
        char *argv[] = { b.bin, "--bench", NULL };
        cml_proc_result r;
        cml_run(argv, NULL, b.dir, -1, BENCH_TIMEOUT_S, 1u << 20, &r);
        fwrite(r.output ? r.output : "", 1, r.output_len, stdout);
        rc = r.started && !r.timed_out && r.exited && r.exit_code == 0 ? 0 : -1;
        cml_proc_describe(&r, BENCH_TIMEOUT_S, how, sizeof how);
        if (rc < 0)
            fprintf(stderr, "cml-grade bench: %s: the lab binary %s\n", spec->lab, how);
        cml_proc_result_free(&r);
    }
    cml_build_free(&b);
    cml_rmtree(b.dir);
    return rc;
}

/* `cml-grade bench`. */
static int cmd_bench(cli *c)
{
    char root[CML_PATH], sub[CML_PATH], out[CML_PATH], err[1024], cache[CML_PATH];
    int rc = resolve_paths("bench", c, root, sub, out);
    if (rc)
        return rc;
    cml_lab_spec *specs = calloc(CML_MAX_LABS, sizeof *specs);
    cml_probe_result *p = calloc(1, sizeof *p);
    int n = specs && p ? cml_load_specs(root, c->lab, specs, CML_MAX_LABS, err, sizeof err) : -1;
    if (n <= 0) {
        fprintf(stderr, "cml-grade bench: %s\n", err);
        rc = 2;
    } else {
        cml_fmt(cache, sizeof cache, "%s/build/cache", root);
        cml_probe(root, cache, p);
        if (!p->have_gpu) {
            fprintf(stderr, "cml-grade bench: no GPU found (%s): the bench tables need one; "
                    "nothing was run.\n", p->reason);
            rc = 2;
        }
    }
    if (rc == 0) {
        printf("GPU: %s (sm_%d, %d SMs)\n", p->rec.device_name, p->rec.cc, p->rec.sms);
        for (int i = 0; i < n; i++)
            rc |= bench_lab(root, &specs[i], p->rec.cc) < 0;
    }
    free(specs);
    free(p);
    return rc;
}

/* `doctor`: what the sandbox enforces here, and whether CUDA runs inside it (the GPU probe,
 * confined like a lab). */
static int cmd_doctor(void)
{
    char root[CML_PATH], cache[CML_PATH], err[512];
    cml_sandbox_describe(stdout);
    cml_probe_result *p = calloc(1, sizeof *p);
    if (!p || cml_find_root(root, sizeof root, err, sizeof err) < 0 ||
        cml_fmt(cache, sizeof cache, "%s/build/cache", root) < 0) {
        printf("GPU inside the sandbox: not tried (%s)\n", p ? err : "out of memory");
        free(p);
        return 1;
    }
    cml_probe(root, cache, p);
    if (p->have_gpu)
        printf("GPU inside the sandbox: %s (sm_%d) answers a confined lab process\n",
               p->rec.device_name, p->rec.cc);
    else
        printf("GPU inside the sandbox: none (%s)\n", p->reason);
    int rc = p->have_gpu ? 0 : 1;
    free(p);
    return rc;
}

/* Dispatch the command. */
int main(int argc, char **argv)
{
    cli c = { 0 };
    if (argc < 2) { /* the list of commands, as a usage error */
        cml_help_overview(stderr);
        return CML_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        cml_help_overview(stdout);
        return 0;
    }
    if (strcmp(argv[1], "doctor") == 0) /* what the sandbox enforces on this machine */
        return argc == 2 ? cmd_doctor() : argc == 3 && strcmp(argv[2], "--help") == 0
               ? cml_help_print("doctor") : usage_error("doctor", "unexpected argument '%s': "
                                                        "doctor takes none", argv[2]);
    static const struct { const char *name; int (*fn)(int, char **); } class_cmds[] = {
        { "calibrate", cml_cmd_calibrate }, { "batch", cml_cmd_batch },
        { "slurm", cml_cmd_slurm }, { "collect", cml_cmd_collect },
        { "regrade", cml_cmd_regrade }, { "contract", cml_cmd_contract } };
    for (size_t i = 0; i < sizeof class_cmds / sizeof class_cmds[0]; i++)
        if (strcmp(argv[1], class_cmds[i].name) == 0) {
            cml_run_kill_children_on_signals();
            return class_cmds[i].fn(argc - 1, argv + 1);
        }
    int bench = strcmp(argv[1], "bench") == 0;
    if (!bench && strcmp(argv[1], "grade") != 0)
        return usage_error(NULL, "unknown command '%s': `cml-grade --help` lists "
                           "the commands", argv[1]);
    int rc = parse_options(argc - 1, argv + 1, bench, &c);
    if (rc)
        return rc < 0 ? 0 : rc;
    cml_run_kill_children_on_signals();
    return bench ? cmd_bench(&c) : cmd_grade(&c);
}
