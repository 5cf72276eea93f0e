/* The sandbox's extras beside cml_run() (declared in cml.h): how to describe the way a
 * process ended, and cleaning up running children when the grader itself is interrupted. */
#ifndef CML_RUN_H
#define CML_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "cml.h"

/* "SIGSEGV", "SIGKILL", ... or "signal N" for one without a common name. */
const char *cml_signal_name(int sig);

/* One phrase for how a run ended: "was killed by SIGSEGV (Segmentation fault)",
 * "exited with status 3", "timed out after 60 s (killed)", "was killed: its processes used
 * more than 64 MiB of host memory", "exited normally",
 * "could not start: ...". timeout_s is the limit it ran under. */
void cml_proc_describe(const cml_proc_result *r, double timeout_s, char *buf, size_t len);

/* The last `max` bytes of the captured output on one line (newlines shown as " | "),
 * for a one-line report detail. Empty when there was no output. */
void cml_proc_tail(const cml_proc_result *r, size_t max, char *buf, size_t len);

/* A child's environment: environ without CML_RESULT_FD and without the keys `extra` sets,
 * then `extra` (NULL-terminated "K=V" list, may be NULL), then result_entry if not NULL.
 * A malloc'd array of borrowed strings: free the array only. NULL when out of memory. */
char **cml_child_env(char *const extra[], const char *result_entry);

/* A fresh anonymous file (memfd, close-on-exec) for a child's result records: pass it as
 * cml_run's result_fd. -1 with errno on failure. */
int cml_result_fd_open(void);
/* The seed of a lab run, never in its argv or environment: the read end of a pipe that holds
 * "<seed>\n" and is closed at the other end (CLOEXEC: cml_run_sandboxed hands it to the lab as
 * CML_SEED_FD, and the harness reads it before main). -1 with errno on failure. */
int cml_seed_fd_open(uint64_t seed);

/* Everything written to a result descriptor so far (at most 1 MiB), NUL-terminated and
 * malloc'd; NULL on failure. */
char *cml_result_fd_read(int fd, size_t *len);

/* A check of the caller's while a program runs (cml_run_watched): stop(ctx) is asked about every
 * 100 ms, and a 1 kills the program's process group as a timeout would. */
typedef struct {
    int (*stop)(void *ctx);
    void *ctx;
} cml_watch_hook;

/* cml_run (unconfined, no result channel) with the caller's watch: out->watch_stopped says that
 * the hook stopped it. */
int cml_run_watched(char *const argv[], const char *cwd, double timeout_s, size_t output_cap,
                    const cml_watch_hook *hook, cml_proc_result *out);

/* Run a compiler on student text in build folder dir (its working folder, HOME and TMPDIR):
 * confined by cml_sandbox_build_ruleset (toolkit: the CUDA install folder), its process tree
 * held to CML_BUILD_MEM resident bytes and each process to timeout_s of CPU time, every
 * process of it gone when it ends. Without Landlock it runs unconfined and out->unconfined
 * says why. As cml_run otherwise. */
int cml_run_build(char *const argv[], const char *dir, const char *toolkit, double timeout_s,
                  size_t output_cap, cml_proc_result *out);

/* Install SIGINT/SIGTERM/SIGHUP handlers that SIGKILL the process groups of every child
 * cml_run() is waiting on, then let the signal end the grader as usual. Call once from main. */
void cml_run_kill_children_on_signals(void);

#endif /* CML_RUN_H */
