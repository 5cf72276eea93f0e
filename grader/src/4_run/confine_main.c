/* cml-confine: what Nsight Compute or compute-sanitizer starts in place of the lab binary.
 * The tool itself needs a shell, /tmp and its own programs, so its Landlock domain is wide;
 * this program, already inside that domain, enters a second one with a plain lab's rights
 * (its run folder, the GPU, its own /proc, no exec but the lab, no signals out) plus the
 * tool's ports, then executes the lab: Landlock domains only ever narrow, so nothing the tool
 * may do reaches student code. Usage: confine [--relax LIST] -- ./lab ARGS...
 * (--relax: CML_SANDBOX_RELAX's diagnosis list for this inner domain, never for grading.) */
#include "sandbox.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAIL 125 /* the lab never started: the tool reports it, the check is not passed */

int main(int argc, char **argv)
{
    int i = 1;
    const char *relax = NULL;
    if (i + 1 < argc && strcmp(argv[i], "--relax") == 0) {
        relax = argv[i + 1];
        i += 2;
    }
    if (i >= argc || strcmp(argv[i], "--") != 0 || i + 1 >= argc) {
        fprintf(stderr, "usage: confine [--relax LIST] -- ./lab ARGS...\n");
        return FAIL;
    }
    char **lab = argv + i + 1, dir[CML_PATH], prog[CML_PATH], why[300] = "";
    if (relax)
        setenv("CML_SANDBOX_RELAX", relax, 1);
    else
        unsetenv("CML_SANDBOX_RELAX");
    cml_sandbox_caps caps = *cml_sandbox_caps_get();
    caps.drop_user = 0; /* the grader already chose the user; the tool runs as it */
    if (!getcwd(dir, sizeof dir) || cml_fmt(prog, sizeof prog, "%s%s%s", lab[0][0] == '/' ? ""
                                            : dir, lab[0][0] == '/' ? "" : "/", lab[0]) < 0) {
        fprintf(stderr, "confine: cannot name the run folder (%s)\n", strerror(errno));
        return FAIL;
    }
    if (caps.fs) {
        cml_sandbox sb = { .scratch = dir, .injected = 1 };
        int rs = cml_sandbox_ruleset(&sb, prog, why, sizeof why);
        if (rs < 0 || cml_sandbox_enter(rs, &caps, 0) < 0) {
            fprintf(stderr, "confine: cannot enter the lab's sandbox (%s)\n",
                    why[0] ? why : strerror(errno));
            return FAIL;
        }
        close(rs);
    }
    unsetenv("CML_SANDBOX_RELAX");
    execv(prog, lab);
    fprintf(stderr, "confine: cannot execute %s (%s)\n", prog, strerror(errno));
    return FAIL;
}
