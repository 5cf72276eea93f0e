/* Confined runs: student code (a lab binary, alone or under a tool) in its sandbox behind a
 * supervisor (cml_run_sandboxed), and the compiler on student text (cml_run_build), which may
 * read the toolkit, the system's headers and libraries and its own staged folder, write only
 * that folder, and is held to a memory and a CPU-time cap: an `#include "/dev/zero"` stops at
 * once instead of growing the compiler until the host's OOM killer ends it, and no file outside
 * the folder can be quoted into a student's report. */
#include "run.h"
#include "run_int.h"
#include "sandbox.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Run argv behind the supervisor with the confinement `extra` holds (its Landlock ruleset, or
 * -1 where the machine has none: extra->caps->missing says why), the supervisor's report pipe
 * made here; the ruleset is closed after. `prog` names the program in a failure. As cml_run
 * otherwise, and out says whether it was confined and under which memory cap. */
static int supervised(char *const argv[], char *const env[], const char *cwd, int result_fd,
                      double timeout_s, size_t output_cap, child_plan *extra, const char *prog,
                      cml_proc_result *out)
{
    int rep[2] = { -1, -1 }, rs = extra->ruleset_fd, rc;
    if (pipe2(rep, O_CLOEXEC) < 0) {
        rc = cml_run_start_failed(out, "creating the supervisor's pipe", prog, errno);
        if (extra->turn)
            close(extra->seed_w);
    } else {
        extra->report_w = rep[1];
        extra->report_r = rep[0];
        rc = cml_run_plan(argv, env, cwd, result_fd, timeout_s, output_cap, extra, out);
        out->confined = rs >= 0;
        out->mem_cap = extra->mem_cap;
        snprintf(out->unconfined, sizeof out->unconfined, "%.150s",
                 rs >= 0 ? "" : extra->caps->missing);
        close(rep[0]);
        close(rep[1]);
    }
    if (rs >= 0)
        close(rs);
    return rc;
}

/* The pipes of a lab that waits for its turn: the seed's (read end to the lab, write end to the
 * supervisor) and the go pipe (read end to the supervisor, write end the grader's), all
 * close-on-exec. 0, or -1 with errno and nothing left open. */
static int turn_pipes(child_plan *x, int *seed_r, uint64_t seed)
{
    int sp[2], gp[2];
    if (pipe2(sp, O_CLOEXEC) < 0)
        return -1;
    if (pipe2(gp, O_CLOEXEC) < 0) {
        const int err = errno;
        close(sp[0]), close(sp[1]);
        errno = err;
        return -1;
    }
    *seed_r = sp[0], x->seed_w = sp[1], x->go_r = gp[0], x->go_w = gp[1];
    snprintf(x->go_text, sizeof x->go_text, "%llu\n", (unsigned long long)seed);
    return 0;
}

/* cml_run_sandboxed's work; a turn (with a seed) as cml_run_sandboxed_turn says. */
static int sandboxed(char *const argv[], char *const extra_env[], const char *scratch,
                     const cml_tool_dirs *tool, int result_fd, const uint64_t *seed,
                     const cml_run_turn *turn, double timeout_s, size_t output_cap,
                     cml_proc_result *out)
{
    const cml_sandbox_caps *caps = cml_sandbox_caps_get();
    char home[CML_PATH + 8], tmp[CML_PATH + 8], prog[CML_PATH], why[160] = "", seed_env[32];
    char wait_env[] = "CML_SEED_WAIT=1";
    char *env[35];
    int e = 0, seed_fd = -1;
    snprintf(home, sizeof home, "HOME=%s", scratch);
    snprintf(tmp, sizeof tmp, "TMPDIR=%s", tool && tool->tmp ? tool->tmp : scratch);
    env[e++] = home;
    env[e++] = tmp;
    if (seed) /* its number is filled in once the pipe is made, after every early return */
        env[e++] = seed_env;
    if (seed && turn)
        env[e++] = wait_env;
    for (int i = 0; extra_env && extra_env[i] && e < 32; i++)
        env[e++] = extra_env[i];
    env[e] = NULL;
    if (!argv || !argv[0] || cml_fmt(prog, sizeof prog, "%s%s%s", argv[0][0] == '/' ? "" :
                                     scratch, argv[0][0] == '/' ? "" : "/", argv[0]) < 0) {
        return cml_run_start_failed(out, "argument check", "(none)", EINVAL);
    }
    const char *report = tool ? tool->report : NULL;
    if (caps->drop_user && (chown(scratch, caps->uid, caps->gid) < 0 ||
                            (report && chown(report, caps->uid, caps->gid) < 0))) {
        return cml_run_start_failed(out, "handing the run folders to the lab's user", prog,
                                    errno);
    }
    cml_sandbox sb = { .scratch = scratch, .tool_root = tool ? tool->root : NULL,
                       .tool_report = report };
    int rs = caps->fs ? cml_sandbox_ruleset(&sb, prog, why, sizeof why) : -1;
    if (caps->fs && rs < 0) { /* Landlock is there but the policy failed: never run loose */
        return cml_run_start_failed(out, why, prog, EPERM);
    }
    child_plan extra = { .sandboxed = 1, .tool = tool != NULL, .ruleset_fd = rs, .caps = caps,
                         .mem_cap = cml_sandbox_mem_cap(), .seed_w = -1, .go_r = -1,
                         .go_w = -1 };
    if (seed && (turn ? turn_pipes(&extra, &seed_fd, *seed)
                      : (seed_fd = cml_seed_fd_open(*seed))) < 0) {
        const int err = errno;
        if (rs >= 0)
            close(rs);
        return cml_run_start_failed(out, "passing the seed", prog, err);
    }
    snprintf(seed_env, sizeof seed_env, "CML_SEED_FD=%d", seed_fd);
    extra.seed_fd = seed_fd;
    extra.turn = seed ? turn : NULL;
    int rc = supervised(argv, env, scratch, result_fd, timeout_s, output_cap, &extra, prog, out);
    if (seed_fd >= 0)
        close(seed_fd);
    if (extra.turn) /* seed_w went with the run (cml_run_plan) */
        close(extra.go_r), close(extra.go_w);
    return rc;
}

/* Contract in cml.h. HOME and TMPDIR point into scratch; the supervisor runs the program. */
int cml_run_sandboxed(char *const argv[], char *const extra_env[], const char *scratch,
                      const cml_tool_dirs *tool, int result_fd, const uint64_t *seed,
                      double timeout_s, size_t output_cap, cml_proc_result *out)
{
    return sandboxed(argv, extra_env, scratch, tool, result_fd, seed, NULL, timeout_s,
                     output_cap, out);
}

/* Contract in cml.h. */
int cml_run_sandboxed_turn(char *const argv[], const char *scratch, int result_fd,
                           uint64_t seed, const cml_run_turn *turn, double timeout_s,
                           size_t output_cap, cml_proc_result *out)
{
    return sandboxed(argv, NULL, scratch, NULL, result_fd, &seed, turn, timeout_s, output_cap,
                     out);
}

/* Contract in run.h. */
int cml_run_build(char *const argv[], const char *dir, const char *toolkit, double timeout_s,
                  size_t output_cap, cml_proc_result *out)
{
    const cml_sandbox_caps *caps = cml_sandbox_caps_get();
    cml_sandbox_caps mine = *caps;
    char home[CML_PATH + 8], tmp[CML_PATH + 8], why[300] = "";
    snprintf(home, sizeof home, "HOME=%s", dir);
    snprintf(tmp, sizeof tmp, "TMPDIR=%s", dir); /* nvcc's intermediate files stay inside */
    char *env[] = { home, tmp, NULL };
    mine.drop_user = 0; /* the build folder is the grader's; Landlock alone confines it */
    int rs = caps->fs ? cml_sandbox_build_ruleset(dir, toolkit, why, sizeof why) : -1;
    if (caps->fs && rs < 0) /* Landlock is there but the policy failed: never build loose */
        return cml_run_start_failed(out, why, argv[0], EPERM);
    child_plan extra = { .sandboxed = 1, .ruleset_fd = rs, .caps = &mine, .cpu_s = timeout_s,
                         .mem_cap = cml_mem_setting("CML_BUILD_MEM", CML_BUILD_MEM_DEFAULT) };
    return supervised(argv, env, dir, -1, timeout_s, output_cap, &extra, argv[0], out);
}
