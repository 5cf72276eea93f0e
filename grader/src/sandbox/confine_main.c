/* cml-confine: what Nsight Compute or compute-sanitizer starts in place of the lab binary.
 * The tool itself needs a shell, /tmp and its own programs, so its Landlock domain is wide;
 * this program, already inside that domain, enters a second one with a plain lab's rights
 * (its run folder, the GPU, its own /proc, no exec but the lab, no signals out) plus the
 * tool's ports, then executes the lab: Landlock domains only ever narrow, so nothing the tool
 * may do reaches student code.
 * Usage: confine [--report DIR] [--tmp DIR] [--relax LIST] -- ./lab ARGS...
 * --report: the tool's log folder, which the lab can never write: when the lab cannot be
 * started, the reason goes to DIR/confine.failed, so the grader tells "the grader's machine
 * failed" (not checked) from "the lab did not run its kernels" (failed), which a lab could
 * otherwise fake with an exit status. --tmp: the TMPDIR that the ncu runs of one technique
 * phase share; the lab may write it and keeps it as its TMPDIR, because Nsight Compute's
 * library in the lab takes its profiling lock there (H100, 2026-11-27: with a TMPDIR of each
 * lab's own, two runs at once failed "a driver resource was unavailable"). Without it the lab's
 * TMPDIR is its run folder. --relax: CML_SANDBOX_RELAX's diagnosis list for this inner domain,
 * never for grading. */
#include "sandbox.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAIL 125 /* the lab never started */

static const char *report; /* --report DIR, or NULL */

/* Say why the lab was not started, on stderr and in the report folder; exit. */
static _Noreturn void fail(const char *what, const char *why)
{
    char path[CML_PATH], text[CML_PATH + 300];
    snprintf(text, sizeof text, "confine: %s (%s)\n", what, why);
    fputs(text, stderr);
    if (report && cml_fmt(path, sizeof path, "%s/confine.failed", report) == 0)
        cml_write_file(path, text, strlen(text));
    exit(FAIL);
}

int main(int argc, char **argv)
{
    int i = 1;
    const char *relax = NULL, *tmp = NULL;
    for (; i + 1 < argc && argv[i][0] == '-' && argv[i][1] == '-' && argv[i][2]; i += 2) {
        if (strcmp(argv[i], "--report") == 0)
            report = argv[i + 1];
        else if (strcmp(argv[i], "--relax") == 0)
            relax = argv[i + 1];
        else if (strcmp(argv[i], "--tmp") == 0)
            tmp = argv[i + 1];
        else
            break;
    }
    if (i >= argc || strcmp(argv[i], "--") != 0 || i + 1 >= argc)
        fail("usage: confine [--report DIR] [--tmp DIR] [--relax LIST] -- ./lab ARGS...",
             "bad arguments");
    char **lab = argv + i + 1, dir[CML_PATH], prog[CML_PATH], why[300] = "";
    if (relax)
        setenv("CML_SANDBOX_RELAX", relax, 1);
    else
        unsetenv("CML_SANDBOX_RELAX");
    cml_sandbox_caps caps = *cml_sandbox_caps_get();
    caps.drop_user = 0; /* the grader already chose the user; the tool runs as it */
    if (!getcwd(dir, sizeof dir) || cml_fmt(prog, sizeof prog, "%s%s%s", lab[0][0] == '/' ? ""
                                            : dir, lab[0][0] == '/' ? "" : "/", lab[0]) < 0)
        fail("cannot name the run folder", strerror(errno));
    if (caps.fs) {
        cml_sandbox sb = { .scratch = dir, .injected = 1, .ncu_tmp = tmp };
        int rs = cml_sandbox_ruleset(&sb, prog, why, sizeof why);
        if (rs < 0 || cml_sandbox_enter(rs, &caps, 0) < 0)
            fail("cannot enter the lab's sandbox", why[0] ? why : strerror(errno));
        close(rs);
    }
    unsetenv("CML_SANDBOX_RELAX");
    setenv("TMPDIR", tmp ? tmp : dir, 1);
    execv(prog, lab);
    /* the report folder is out of reach now: the tool sees the status and the message */
    report = NULL;
    fail("cannot execute the lab", strerror(errno));
}
