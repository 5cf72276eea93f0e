/* A lab binary under a tool: the run folder, cml-confine, the tool's log (tool_run.h). */
#include "tool_run.h"
#include "run.h"
#include "sandbox.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define TOOL_MAX_ARGS (32 + 2 * CML_MAX_RUN_CASES)
#define TOOL_LOG_CAP ((size_t)4 << 20)

/* argv with `log_opt log` after the tool and the lab ("./lab") started through cml-confine
 * (given the ncu phase's shared TMPDIR `tmp`, or NULL), into `out` (TOOL_MAX_ARGS); 1 when
 * cml-confine was put in, 0 when CML_SANDBOX_RELAX names "noconfine" (diagnosis only: the lab
 * then has the tool's rights), -1 when they do not fit
 * (never cut short: a lab given half a --case exits before CUDA, and 16 sanitizer cases plus
 * two more tool options did, lab 04 on an H100). */
static int tool_argv(char *const argv[], const char *log_opt, char *log, char *report,
                     const char *tmp, char **out)
{
    const char *relax = getenv("CML_SANDBOX_RELAX"), *inner = getenv("CML_SANDBOX_RELAX_INNER");
    int skip = relax && strstr(relax, "noconfine"), put = 0, n = 0;
    out[n++] = argv[0];
    out[n++] = (char *)log_opt;
    out[n++] = log;
    for (int i = 1; argv[i]; i++) {
        if (n >= TOOL_MAX_ARGS - 10) /* room for cml-confine's 8 and argv[i], NULL */
            return -1;
        if (!skip && !put && strcmp(argv[i], "./lab") == 0) {
            out[n++] = "./confine";
            out[n++] = "--report";
            out[n++] = report;
            if (tmp) {
                out[n++] = "--tmp";
                out[n++] = (char *)tmp;
            }
            if (inner && *inner) {
                out[n++] = "--relax";
                out[n++] = (char *)inner;
            }
            out[n++] = "--";
            put = 1;
        }
        out[n++] = argv[i];
    }
    out[n] = NULL;
    return put;
}

/* r->output becomes the tool's log (or NULL when it wrote none). */
static void take_log(cml_proc_result *r, const char *log)
{
    size_t len = 0;
    free(r->output);
    r->output = cml_read_text(log, TOOL_LOG_CAP, &len);
    r->output_len = r->output ? len : 0;
    r->output_dropped = 0;
}

/* Contract in tool_run.h. */
int cml_tool_run(char *const argv[], const char *log_opt, const cml_technique_env *env,
                 int result_fd, const char *tool, cml_proc_result *r, char *detail,
                 size_t len)
{
    double limit = 3 * (env->timeout_s > 0 ? env->timeout_s : 60);
    char how[300], dir[CML_PATH], report[CML_PATH], log[CML_PATH], root[CML_PATH], err[300];
    char name[64], *args[TOOL_MAX_ARGS];
    memset(r, 0, sizeof *r);
    snprintf(name, sizeof name, "%s-log", tool);
    int made = cml_sandbox_scratch(env->work_dir, tool, env->bin, dir, sizeof dir, err,
                                   sizeof err) == 0;
    int logged = made && cml_sandbox_scratch(env->work_dir, name, NULL, report, sizeof report,
                                             err, sizeof err) == 0;
    int put = logged && cml_fmt(log, sizeof log, "%s/%s.log", report, tool) == 0
              ? tool_argv(argv, log_opt, log, report, env->tool_tmp, args) : -1;
    if (put < 0 && logged)
        snprintf(err, sizeof err, "grader error: too many arguments for %s", tool);
    if (put < 0 || (put && cml_sandbox_add_confine(dir, err, sizeof err) < 0)) {
        if (made)
            cml_rmtree(dir);
        if (logged)
            cml_rmtree(report);
        snprintf(detail, len, "not checked (%.280s)", err);
        return -1;
    }
    cml_install_folder(argv[0], root, sizeof root); /* .../cuda-13.0: the tool's own files */
    cml_tool_dirs dirs = { root, report, env->tool_tmp };
    cml_run_sandboxed(args, NULL, dir, &dirs, result_fd, &env->seed, limit, TOOL_LOG_CAP, r);
    cml_proc_describe(r, limit, how, sizeof how); /* from what it printed, before the log */
    take_log(r, log);
    char failed[CML_PATH], *why = NULL; /* cml-confine could not start the lab */
    if (cml_fmt(failed, sizeof failed, "%s/confine.failed", report) == 0)
        why = cml_read_text(failed, 400, NULL);
    cml_rmtree(dir);
    cml_rmtree(report);
    if (why) {
        why[strcspn(why, "\n")] = '\0';
        snprintf(detail, len, "not checked (%.280s)", why);
        free(why);
        return -1;
    }
    if (r->started && !r->timed_out && !r->signaled)
        return 0;
    snprintf(detail, len, "not checked (%s %.280s)", tool, how);
    return -1;
}
