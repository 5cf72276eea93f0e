/* Finding and running nvcc, and the build cache (see build.h). */
#include "build.h"
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Contract in build.h. nvcc is found as every tool is (cml_find_tool); only the words of a
 * failure are nvcc's own. */
int cml_find_nvcc(char *path, size_t len, char *err, size_t errlen)
{
    const char *env = getenv("NVCC");
    if (cml_find_tool("NVCC", "nvcc", path, len) == 0)
        return 0;
    if (env && *env)
        snprintf(err, errlen, "NVCC=%s is not an executable file: point NVCC at nvcc, e.g. "
                 "NVCC=/usr/local/cuda/bin/nvcc", env);
    else
        snprintf(err, errlen, "nvcc not found (not in $NVCC, not on PATH, not at "
                 "/usr/local/cuda/bin/nvcc): install the CUDA toolkit or set NVCC=/path/to/nvcc");
    return -1;
}

/* Contract in build.h. */
int cml_default_cc(void)
{
    const char *env = getenv("CUDA_ARCH");
    int cc = env ? atoi(env) : 0;
    return cc >= 50 ? cc : 90;
}

/* Output plus, where the run did not end cleanly, why. */
static char *make_log(const cml_proc_result *r, double timeout_s)
{
    char how[600] = "", more[96] = "";
    if (!r->started || r->timed_out || r->signaled)
        cml_proc_describe(r, timeout_s, how, sizeof how);
    if (r->output_dropped)
        snprintf(more, sizeof more, "\n[... %zu more bytes of compiler output not shown]",
                 r->output_dropped);
    char *log = NULL;
    if (asprintf(&log, "%s%s%s%s", r->output ? r->output : "", more, how[0] ? "\nnvcc " : "",
                 how) < 0)
        log = NULL;
    return log;
}

/* Contract in build.h. */
int cml_nvcc(char *const args[], const char *cwd, int confined, double timeout_s, char **log)
{
    char nvcc[CML_PATH], err[512];
    *log = NULL;
    if (cml_find_nvcc(nvcc, sizeof nvcc, err, sizeof err) < 0) {
        *log = strdup(err);
        return -1;
    }
    size_t n = 0;
    while (args[n]) n++;
    char **argv = calloc(n + 2, sizeof *argv);
    if (!argv) {
        *log = strdup("out of memory starting nvcc");
        return -1;
    }
    argv[0] = nvcc;
    memcpy(argv + 1, args, n * sizeof *args);
    cml_proc_result r;
    char toolkit[CML_PATH];
    if (!confined || !cwd) /* the grader's own files: nvcc --version, the probe, common/ */
        cml_run(argv, NULL, cwd, -1, timeout_s, CML_BUILD_LOG_CAP, &r);
    else if (cml_install_folder(nvcc, toolkit, sizeof toolkit) == 0) /* /usr/local/cuda-13.0 */
        cml_run_build(argv, cwd, toolkit, timeout_s, CML_BUILD_LOG_CAP, &r);
    else
        cml_run_build(argv, cwd, NULL, timeout_s, CML_BUILD_LOG_CAP, &r);
    free(argv);
    *log = make_log(&r, timeout_s);
    char *said = NULL; /* say what was not enforced (docs/TRUST.md, hold 11) */
    if (confined && cwd && r.started && !r.confined &&
        asprintf(&said, "%snote: this build ran unconfined (%s): the include rule was checked "
                 "after the compile only\n", *log ? *log : "", r.unconfined) >= 0) {
        free(*log);
        *log = said;
    }
    int ok = r.started && !r.timed_out && r.exited && r.exit_code == 0;
    cml_proc_result_free(&r);
    return ok ? 0 : -1;
}

/* Contract in build.h. */
void cml_nvcc_version(char *buf, size_t len)
{
    char *const args[] = { "--version", NULL };
    char *log = NULL;
    snprintf(buf, len, "unknown");
    if (cml_nvcc(args, NULL, 0, 30, &log) == 0 && log) {
        const char *v = strstr(log, ", V");
        if (v)
            snprintf(buf, len, "%.*s", (int)strcspn(v + 3, " \n"), v + 3);
    }
    free(log);
}

/* The link rules' names, which decide whether a build succeeds. */
static uint64_t hash_rules(uint64_t h, const cml_link_rules *r)
{
    h = cml_fnv1a(h, "link-rules-1", 13);
    h = cml_fnv1a(h, &r->common_loaded, sizeof r->common_loaded);
    for (int i = 0; i < r->n; i++) {
        h = cml_fnv1a(h, r->names[i].pattern, strlen(r->names[i].pattern) + 1);
        h = cml_fnv1a(h, r->names[i].group, strlen(r->names[i].group) + 1);
        h = cml_fnv1a(h, &r->names[i].list, sizeof r->names[i].list);
    }
    return h;
}

/* Contract in build.h. */
uint64_t cml_build_hash(const cml_build *b, char *const *args, int student_files)
{
    char nvcc[CML_PATH] = "", err[256], path[CML_PATH];
    struct stat st;
    memset(&st, 0, sizeof st);
    if (cml_find_nvcc(nvcc, sizeof nvcc, err, sizeof err) == 0)
        stat(nvcc, &st);
    uint64_t h = cml_fnv1a(CML_FNV_INIT, nvcc, strlen(nvcc) + 1);
    h = cml_fnv1a(h, &st.st_size, sizeof st.st_size);
    h = cml_fnv1a(h, &st.st_mtime, sizeof st.st_mtime);
    for (int i = 0; args[i]; i++)
        h = cml_fnv1a(h, args[i], strlen(args[i]) + 1);
    h = hash_rules(h, &b->spec->link);
    for (int i = 0; i < b->spec->nharness; i++)
        if (cml_fmt(path, sizeof path, "%s/%s", b->dir, b->spec->harness[i]) == 0)
            h = cml_hash_file(h, path);
    for (int i = 0; student_files && i < b->spec->nfiles; i++)
        if (cml_fmt(path, sizeof path, "%s/%s", b->dir, b->spec->files[i]) == 0)
            h = cml_hash_file(h, path);
    for (int i = 0; i < b->spec->nreference_files; i++) /* absent on the student's side */
        if (cml_fmt(path, sizeof path, "%s/%s", b->dir, b->spec->reference_files[i]) == 0)
            h = cml_hash_file(h, path);
    struct dirent **list = NULL;
    char common[CML_PATH];
    int n = cml_fmt(common, sizeof common, "%s/common", b->dir) == 0
            ? scandir(common, &list, NULL, alphasort) : -1;
    for (int i = 0; i < n; i++) {
        if (list[i]->d_name[0] != '.' &&
            cml_fmt(path, sizeof path, "%s/%s", common, list[i]->d_name) == 0)
            h = cml_hash_file(h, path);
        free(list[i]);
    }
    free(list);
    return h;
}

/* <cache_dir>/<name>-<16 hex digits of hash>/<file>: where the cache keeps an entry's files. */
static int entry_file(const char *cache_dir, const char *name, uint64_t hash, const char *file,
                      char *path, size_t len)
{
    return cml_fmt(path, len, "%s/%s-%016llx/%s", cache_dir, name, (unsigned long long)hash,
                   file);
}

/* Contract in build.h. */
int cml_cache_lookup(const char *cache_dir, const char *name, uint64_t hash, const char *file,
                     char *path, size_t len)
{
    char sum_path[CML_PATH + 8], have[CML_SHA256_HEX];
    if (entry_file(cache_dir, name, hash, file, path, len) < 0 || !cml_is_executable(path))
        return 0;
    char *want = cml_fmt(sum_path, sizeof sum_path, "%s.sha256", path) == 0
                 ? cml_read_text(sum_path, 128, NULL) : NULL;
    int same = want && cml_sha256_file(path, have) == 0 && strncmp(want, have, 64) == 0;
    free(want);
    return same; /* changed (or from before sums were kept): build it again */
}

/* Contract in build.h. On an empty cache a batch's calibration and its first gradings build
 * the same seven references at once: 21 builds more than needed at the start of a class
 * (docs/bench/2026-11-28-cold-class). A flock, so a build that dies frees it. */
int cml_cache_lock(const char *cache_dir, const char *name, uint64_t hash)
{
    char dir[CML_PATH], path[CML_PATH];
    if (entry_file(cache_dir, name, hash, "", dir, sizeof dir) < 0 || cml_mkdirs(dir) < 0 ||
        entry_file(cache_dir, name, hash, ".lock", path, sizeof path) < 0)
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0 && flock(fd, LOCK_EX) < 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Contract in build.h. */
int cml_cache_store(const char *built, const char *cached)
{
    char dir[CML_PATH], tmp[CML_PATH] = "", sum_path[CML_PATH + 8], sum[CML_SHA256_HEX];
    size_t size = 0;
    if (cml_fmt(dir, sizeof dir, "%s", cached) < 0 || !strrchr(dir, '/'))
        return -1;
    *strrchr(dir, '/') = '\0';
    char *data = cml_read_text(built, (size_t)1 << 30, &size);
    int rc = -1;
    if (data && cml_mkdirs(dir) == 0 &&
        cml_fmt(tmp, sizeof tmp, "%s.tmp%ld", cached, (long)gettid()) == 0 &&
        cml_write_file(tmp, data, size) == 0 && chmod(tmp, 0755) == 0 &&
        cml_sha256_file(tmp, sum) == 0 && cml_fmt(sum_path, sizeof sum_path, "%s.sha256",
                                                  cached) == 0 &&
        cml_write_file(sum_path, sum, strlen(sum)) == 0) /* the sum first: never a binary
                                                            without one */
        rc = rename(tmp, cached);
    if (rc < 0 && tmp[0])
        unlink(tmp);
    free(data);
    return rc;
}

/* Contract in build.h. */
uint64_t cml_hash_file(uint64_t h, const char *path)
{
    size_t n = 0;
    char *data = cml_read_text(path, (size_t)64 << 20, &n);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    h = cml_fnv1a(h, base, strlen(base) + 1);
    h = cml_fnv1a(h, &n, sizeof n);
    if (data)
        h = cml_fnv1a(h, data, n);
    free(data);
    return h;
}
