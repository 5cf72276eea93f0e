/* Run one program in its own process group with rlimits CUDA tolerates, stdout+stderr
 * captured up to a cap (the rest drained and counted), an optional result descriptor passed
 * under its own number, and a wall-clock timeout that kills the group. A program that runs
 * student code goes through cml_run_sandboxed: a supervisor (sandbox_reaper.c) stands between
 * the grader and it, and it enters the sandbox (sandbox_policy.c) just before exec. */
#include "run.h"
#include "run_int.h"
#include "run_capture.h"
#include "sandbox.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define FSIZE_LIMIT (8ull << 30) /* no single file written by a lab beyond 8 GiB */
#define NOFILE_LIMIT 1024        /* CUDA needs ~64; 1024 is the usual default */

/* Process groups being waited on, for the interrupt handler; 0 = free slot. */
#define MAX_ACTIVE 64
static _Atomic int active_pgids[MAX_ACTIVE];

static void track(pid_t pid, int on)
{
    for (int i = 0; i < MAX_ACTIVE; i++) {
        int want = on ? 0 : pid;
        if (atomic_compare_exchange_strong(&active_pgids[i], &want, on ? pid : 0))
            return;
    }
}

static void kill_children_and_die(int sig)
{
    for (int i = 0; i < MAX_ACTIVE; i++) {
        int pgid = atomic_load(&active_pgids[i]);
        if (pgid > 0)
            kill(-pgid, SIGKILL);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Contract in run.h. */
void cml_run_kill_children_on_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = kill_children_and_die;
    sigemptyset(&sa.sa_mask);
    int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

static void lower_limit(int resource, rlim_t value)
{
    struct rlimit r;
    if (getrlimit(resource, &r) < 0)
        return;
    if (r.rlim_max == RLIM_INFINITY || r.rlim_max > value)
        r.rlim_max = value;
    if (r.rlim_cur == RLIM_INFINITY || r.rlim_cur > r.rlim_max)
        r.rlim_cur = r.rlim_max;
    setrlimit(resource, &r);
}

static void cloexec_from_3(void)
{
#ifdef CLOSE_RANGE_CLOEXEC
    if (close_range(3, ~0u, CLOSE_RANGE_CLOEXEC) == 0)
        return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536)
        max = 65536;
    for (int fd = 3; fd < max; fd++)
        fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* Tell the parent which step failed (1 setup, 2 sandbox, 3 exec) and with which errno. */
static _Noreturn void child_fail(int err_w, int step)
{
    int msg[2] = { step, errno };
    ssize_t ignored = write(err_w, msg, sizeof msg);
    (void)ignored;
    _exit(127);
}

/* In the child: new group (the supervisor's, when sandboxed), no privilege gain through exec
 * (setuid binaries), limits, descriptors, folder, the sandbox, exec. Never returns. */
static _Noreturn void child_exec(const child_plan *p)
{
    if (!p->sandboxed)
        setpgid(0, 0);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    lower_limit(RLIMIT_NOFILE, NOFILE_LIMIT);
    lower_limit(RLIMIT_CORE, 0);
    lower_limit(RLIMIT_FSIZE, FSIZE_LIMIT);
    if (p->cpu_s > 0)
        lower_limit(RLIMIT_CPU, (rlim_t)p->cpu_s);
    if (dup2(p->devnull, 0) < 0 || dup2(p->out_w, 1) < 0 || dup2(p->out_w, 2) < 0)
        child_fail(p->err_w, 1);
    cloexec_from_3();
    if (p->result_fd >= 0 && fcntl(p->result_fd, F_SETFD, 0) < 0)
        child_fail(p->err_w, 1);
    if (p->seed_fd > 2 && fcntl(p->seed_fd, F_SETFD, 0) < 0)
        child_fail(p->err_w, 1);
    if (p->cwd && chdir(p->cwd) < 0) /* before the user drops: its parents may be closed */
        child_fail(p->err_w, 1);
    if (p->sandboxed && cml_sandbox_enter(p->ruleset_fd, p->caps, p->tool) < 0)
        child_fail(p->err_w, 2);
    execve(p->argv[0], p->argv, p->envp);
    child_fail(p->err_w, 3);
}

static void lab_start(void *arg)
{
    child_exec(arg);
}

/* The supervisor: its own group, gone with the grader, holding only what it and the lab need;
 * then it forks the lab and watches it (sandbox_reaper.c). */
static _Noreturn void supervisor(child_plan *p)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    int keep[] = { p->devnull, p->out_w, p->err_w, p->result_fd, p->ruleset_fd, p->report_w,
                   p->seed_fd > 2 ? p->seed_fd : -1, p->turn ? p->go_r : -1,
                   p->turn ? p->seed_w : -1 };
    cml_close_all_but(keep, 9);
    const cml_reaper_plan rp = { .timeout_s = p->timeout_s, .mem_cap = p->mem_cap,
                                 .report_fd = p->report_w,
                                 .drop = { p->out_w, p->err_w }, .tool = p->tool,
                                 .go_r = p->turn ? p->go_r : -1, .seed_w = p->seed_w };
    cml_reaper_main(lab_start, p, &rp);
}

/* The supervisor's account of the lab process (none when the backstop had to kill it). */
static void take_report(int report_r, int *status, cml_proc_result *out)
{
    cml_reaper_report rep;
    fcntl(report_r, F_SETFL, O_NONBLOCK);
    if (read(report_r, &rep, sizeof rep) != (ssize_t)sizeof rep)
        return;
    out->timed_out |= rep.timed_out;
    out->mem_exceeded = rep.mem_exceeded;
    out->strays = rep.strays;
    out->peak_rss = rep.peak_rss;
    *status = rep.ended ? rep.status : SIGKILL; /* a wait status of "killed by SIGKILL" */
}

/* Contract in run_int.h. */
int cml_run_start_failed(cml_proc_result *out, const char *what, const char *argv0, int err)
{
    char msg[512];
    memset(out, 0, sizeof *out);
    snprintf(msg, sizeof msg, "could not start %.200s: %.200s failed (%s)", argv0, what,
             strerror(err));
    out->output = strdup(msg);
    out->output_len = out->output ? strlen(msg) : 0;
    return -1;
}

/* Fork, exec, and wait for the child started from plan p. */
static int run_child(child_plan *p, int out_r, int err_r, double timeout_s, size_t cap,
                     cml_proc_result *out)
{
    double t0 = cml_now();
    p->timeout_s = timeout_s;
    pid_t pid = fork();
    if (pid < 0)
        return cml_run_start_failed(out, "fork", p->argv[0], errno);
    if (pid == 0 && p->sandboxed)
        supervisor(p);
    if (pid == 0)
        child_exec(p);
    setpgid(pid, pid); /* also here, so kill(-pid) works even before the child ran */
    track(pid, 1);
    close(p->out_w);
    close(p->err_w);
    p->out_w = p->err_w = -1;
    if (p->turn) { /* the supervisor's alone, so that the lab sees the seed pipe's end */
        close(p->seed_w);
        p->seed_w = -1;
    }
    int failed[2] = { 0, 0 }, status = 0;
    ssize_t got;
    while ((got = read(err_r, failed, sizeof failed)) < 0 && errno == EINTR)
        ;
    capture c = { NULL, 0, 0, cap, 0 };
    if (got == (ssize_t)sizeof failed) {
        kill(-pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        track(pid, 0);
        static const char *const step[] = { "?", "setting up the child", "entering the sandbox",
                                            "exec" };
        return cml_run_start_failed(out, step[failed[0] >= 1 && failed[0] <= 3 ? failed[0] : 0],
                            p->argv[0], failed[1]);
    }
    out->started = 1;
    if (p->turn) { /* the lab has started CUDA meanwhile; its clock starts with the seed */
        p->turn->take(p->turn->arg);
        ssize_t put = write(p->go_w, p->go_text, strlen(p->go_text)); /* we hold go_r too: */
        (void)put;                                  /* never EPIPE, whenever the lab ended */
        t0 = cml_now();
    }
    /* sandboxed: the supervisor enforces the deadline; this one only backs it up */
    out->timed_out = cml_watch(pid, out_r, t0 + timeout_s + (p->sandboxed ? 30 : 0), p->hook,
                               &out->watch_stopped, &c);
    cml_finish(pid, out_r, &c, &status);
    track(pid, 0);
    out->wall_s = cml_now() - t0;
    if (p->sandboxed)
        take_report(p->report_r, &status, out);
    out->exited = WIFEXITED(status);
    out->exit_code = out->exited ? WEXITSTATUS(status) : 0;
    out->signaled = WIFSIGNALED(status);
    out->signal = out->signaled ? WTERMSIG(status) : 0;
    out->output = c.buf ? c.buf : malloc(1);
    if (out->output)
        out->output[c.len] = '\0';
    out->output_len = c.len;
    out->output_dropped = c.dropped;
    return 0;
}

/* Contract in run_int.h. */
int cml_run_plan(char *const argv[], char *const extra_env[], const char *cwd, int result_fd,
                    double timeout_s, size_t output_cap, const child_plan *extra,
                    cml_proc_result *out)
{
    memset(out, 0, sizeof *out);
    if (!argv || !argv[0] || (result_fd >= 0 && result_fd <= 2)) {
        if (extra && extra->turn)
            close(extra->seed_w);
        return cml_run_start_failed(out, "argument check", argv && argv[0] ? argv[0] : "(none)",
                                    EINVAL);
    }
    char result_entry[48];
    snprintf(result_entry, sizeof result_entry, "CML_RESULT_FD=%d", result_fd);
    char **envp = cml_child_env(extra_env, result_fd >= 0 ? result_entry : NULL);
    int outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int rc;
    if (!envp || devnull < 0 || pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
        rc = cml_run_start_failed(out, "setting up pipes", argv[0], envp ? errno : ENOMEM);
        if (extra && extra->turn)
            close(extra->seed_w);
    } else {
        child_plan p = extra ? *extra : (child_plan){ .ruleset_fd = -1, .report_w = -1,
                                                      .report_r = -1 };
        p.argv = argv;
        p.envp = envp;
        p.cwd = cwd;
        p.devnull = devnull;
        p.out_w = outp[1];
        p.err_w = errp[1];
        p.result_fd = result_fd;
        rc = run_child(&p, outp[0], errp[0], timeout_s, output_cap, out);
        outp[1] = p.out_w;
        errp[1] = p.err_w;
        if (p.turn && p.seed_w >= 0) /* not forked: still ours */
            close(p.seed_w);
    }
    for (int i = 0; i < 2; i++) {
        if (outp[i] >= 0) close(outp[i]);
        if (errp[i] >= 0) close(errp[i]);
    }
    if (devnull >= 0)
        close(devnull);
    free(envp);
    return rc;
}

/* Contract in cml.h. Returns 0 when the program started (however it ended), -1 when it
 * could not be started: then out->started is 0 and out->output says why. */
int cml_run(char *const argv[], char *const extra_env[], const char *cwd, int result_fd,
            double timeout_s, size_t output_cap, cml_proc_result *out)
{
    return cml_run_plan(argv, extra_env, cwd, result_fd, timeout_s, output_cap, NULL, out);
}

/* Contract in run.h. */
int cml_run_watched(char *const argv[], const char *cwd, double timeout_s, size_t output_cap,
                    const cml_watch_hook *hook, cml_proc_result *out)
{
    const child_plan watched = { .ruleset_fd = -1, .report_w = -1, .report_r = -1,
                                 .hook = hook };
    return cml_run_plan(argv, NULL, cwd, -1, timeout_s, output_cap, &watched, out);
}

/* Free the captured output. */
void cml_proc_result_free(cml_proc_result *r)
{
    free(r->output);
    r->output = NULL;
    r->output_len = 0;
}
