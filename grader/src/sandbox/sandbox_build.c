/* The sandbox of a build: nvcc and everything it starts (cicc, ptxas, gcc, ld) read the toolkit,
 * the system's headers and libraries and the staged build folder, and write only that folder.
 * Measured with CUDA 13.0 (2026-11-25; docs/TRUST.md, 2): this is all a lab build needs, and
 * in it an `#include "/etc/passwd"` or `#include "/dev/zero"` stops at once with "Permission
 * denied". */
#include "sandbox.h"
#include "sandbox_landlock.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where the system's programs, headers and libraries live: read and execute. */
static const char *const SYSTEM[] = { "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin",
                                      "/sbin" };
/* What the loader and nvcc read besides: the library cache, the alternatives' links, /proc
 * (nvcc and gcc find themselves through /proc/self, whose pid changes with every program). */
static const char *const READ_ONLY[] = { "/etc/ld.so.cache", "/etc/alternatives", "/proc" };

/* Contract in sandbox.h. */
int cml_sandbox_build_ruleset(const char *dir, const char *toolkit, char *why, size_t whylen)
{
    const cml_sandbox_caps *caps = cml_sandbox_caps_get();
    char real[CML_PATH];
    if (!caps->fs) {
        snprintf(why, whylen, "%s", caps->missing);
        return -1;
    }
    int rs = cml_ll_create(caps->landlock_abi, 0, 0);
    if (rs < 0) {
        snprintf(why, whylen, "landlock_create_ruleset failed (%s)", strerror(errno));
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof SYSTEM / sizeof SYSTEM[0]; i++)
        rc = cml_sandbox_allow(rs, SYSTEM[i], CML_LL_READ | CML_LL_EXECUTE);
    for (size_t i = 0; rc == 0 && i < sizeof READ_ONLY / sizeof READ_ONLY[0]; i++)
        rc = cml_sandbox_allow(rs, READ_ONLY[i], CML_LL_READ);
    if (rc == 0 && toolkit && realpath(toolkit, real)) /* /usr/local/cuda-13.0 */
        rc = cml_sandbox_allow(rs, real, CML_LL_READ | CML_LL_EXECUTE);
    rc = rc ? rc : cml_sandbox_allow(rs, dir, CML_LL_SCRATCH);
    /* CML_BUILD_RELAX="x:/path,w:/path": more rights, for tests whose fake nvcc is a script
     * that copies a prebuilt binary and logs its calls (tests/fake_root.c); never for grading */
    rc = rc ? rc : cml_sandbox_allow_listed(rs, getenv("CML_BUILD_RELAX"));
    rc = rc ? rc : cml_sandbox_allow(rs, "/dev/null", CML_LL_READ_FILE | CML_LL_WRITE_FILE);
    if (rc < 0) {
        snprintf(why, whylen, "a Landlock rule could not be added (%s)", strerror(errno));
        close(rs);
        return -1;
    }
    return rs;
}
