/* Internal to the runner: what a child needs, prepared before fork (run.c), shared with the
 * confined runs built on it (run_confined.c: a lab's sandbox, a build's). */
#ifndef CML_RUN_INT_H
#define CML_RUN_INT_H

#include <stddef.h>
#include <stdint.h>

#include "cml.h"
#include "sandbox.h"

/* What the child needs, prepared before fork (the child may only call async-signal-safe
 * functions: the grader builds in several threads at once). */
typedef struct {
    char *const *argv;
    char **envp;
    const char *cwd;
    int devnull, out_w, err_w, result_fd;
    int seed_fd;                /* > 2: the seed's pipe, kept open in the lab (CML_SEED_FD) */
    /* a lab that waits for its turn (turn not NULL): the seed pipe's other end (seed_w) and the
     * go pipe's (go_r) are the supervisor's; the grader takes the turn once the lab has started,
     * writes go_text into go_w, and only then starts the clock */
    const cml_run_turn *turn;
    int seed_w, go_r, go_w;
    char go_text[32];
    /* sandboxed runs only */
    int sandboxed, tool, ruleset_fd, report_w, report_r;
    const cml_sandbox_caps *caps;
    double timeout_s;           /* the supervisor's limit, from its start or the lab's turn */
    uint64_t mem_cap;
    double cpu_s;               /* RLIMIT_CPU of every process of the run; 0: none */
    const cml_watch_hook *hook; /* unconfined runs only (cml_run_watched) */
} child_plan;

/* Fill out (cleared first) for a program that could not be started; -1. */
int cml_run_start_failed(cml_proc_result *out, const char *what, const char *argv0, int err);

/* cml_run's work, with the confinement's part of the plan in `extra` (NULL: unconfined). It
 * closes extra->seed_w of a turn, however the run went. */
int cml_run_plan(char *const argv[], char *const extra_env[], const char *cwd, int result_fd,
                 double timeout_s, size_t output_cap, const child_plan *extra,
                 cml_proc_result *out);

#endif /* CML_RUN_INT_H */
