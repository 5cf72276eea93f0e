/* Finding the external programs the grader runs (nvcc's tools, ncu, compute-sanitizer, unzip,
 * tar, python3, zip, sbatch): an environment variable names one, else PATH, else the CUDA
 * toolkit's usual folder. The lowest layer's: staging, the static checks, the runs and the
 * class commands all use it. */
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Contract in util.h. */
int cml_is_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static int on_path(const char *name, char *path, size_t len)
{
    for (const char *p = getenv("PATH"); p && *p; p += strcspn(p, ":"), p += *p == ':') {
        size_t n = strcspn(p, ":");
        if (n && cml_fmt(path, len, "%.*s/%s", (int)n, p, name) == 0 &&
            cml_is_executable(path))
            return 1;
    }
    return 0;
}

/* Contract in util.h. */
int cml_find_tool(const char *env_var, const char *name, char *path, size_t len)
{
    const char *env = getenv(env_var);
    if (env && *env)
        return (strchr(env, '/') ? cml_fmt(path, len, "%s", env) == 0 &&
                                       cml_is_executable(path)
                                 : on_path(env, path, len)) ? 0 : -1;
    if (on_path(name, path, len))
        return 0;
    return cml_fmt(path, len, "/usr/local/cuda/bin/%s", name) == 0 && cml_is_executable(path)
           ? 0 : -1;
}
