/* Build: compile a staged lab folder with nvcc, as docs/ARCHITECTURE.md says:
 * nvcc -O3 -std=c++17 -arch=sm_CC -lineinfo -I common -o lab harness.cu <name>.cu
 * common/cml_lab.cu. Reference builds are cached by a hash of sources, flags and nvcc. */
#include "build.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ARGS (16 + 2 * CML_MAX_FILES)

static int is_cu(const char *name)
{
    size_t n = strlen(name);
    return n > 3 && strcmp(name + n - 3, ".cu") == 0;
}

/* nvcc's arguments for b (borrowed strings; arch is the caller's buffer). */
static int lab_args(const cml_build *b, char *arch, size_t archlen, char **args)
{
    int n = 0;
    snprintf(arch, archlen, "-arch=sm_%d", b->cc);
    const char *fixed[] = { "-O3", "-std=c++17", arch, "-lineinfo", "-I", "common", "-o", "lab" };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        args[n++] = (char *)fixed[i];
    for (int i = 0; i < b->spec->nharness; i++)
        if (is_cu(b->spec->harness[i]))
            args[n++] = (char *)b->spec->harness[i];
    for (int i = 0; i < b->spec->nfiles; i++)
        if (is_cu(b->spec->files[i]))
            args[n++] = (char *)b->spec->files[i];
    args[n++] = "common/cml_lab.cu";
    if (b->werror) {
        const char *strict[] = { "-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra" };
        for (size_t i = 0; i < sizeof strict / sizeof strict[0]; i++)
            args[n++] = (char *)strict[i];
    }
    args[n] = NULL;
    return n;
}

/* Hash of nvcc (path, size, time), the arguments, and every source in the staged folder. */
static uint64_t build_hash(const cml_build *b, char *const *args)
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
    for (int i = 0; i < b->spec->nharness; i++)
        if (cml_fmt(path, sizeof path, "%s/%s", b->dir, b->spec->harness[i]) == 0)
            h = cml_hash_file(h, path);
    for (int i = 0; i < b->spec->nfiles; i++)
        if (cml_fmt(path, sizeof path, "%s/%s", b->dir, b->spec->files[i]) == 0)
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

/* Contract in build.h. */
int cml_build_lab(cml_build *b)
{
    char arch[32], *args[MAX_ARGS], key[96], built[CML_PATH];
    double t0 = cml_now();
    b->ok = b->cached = 0;
    b->log = NULL;
    lab_args(b, arch, sizeof arch, args);
    uint64_t h = b->cache_dir ? build_hash(b, args) : 0;
    snprintf(key, sizeof key, "%s-sm%d", b->spec->lab, b->cc);
    if (b->cache_dir && cml_cache_lookup(b->cache_dir, key, h, "lab", b->bin, sizeof b->bin)) {
        b->ok = b->cached = 1;
    } else if (cml_fmt(built, sizeof built, "%s/lab", b->dir) < 0) {
        b->log = strdup("build folder path too long: use a shorter --out");
    } else {
        double limit = b->timeout_s > 0 ? b->timeout_s : CML_BUILD_TIMEOUT_S;
        b->ok = cml_nvcc(args, b->dir, limit, &b->log) == 0 && access(built, X_OK) == 0;
        snprintf(b->bin, sizeof b->bin, "%s", built);
        if (b->ok && b->cache_dir &&
            cml_cache_lookup(b->cache_dir, key, h, "lab", b->bin, sizeof b->bin) == 0 &&
            cml_cache_store(built, b->bin) < 0)
            snprintf(b->bin, sizeof b->bin, "%s", built); /* no cache: still usable */
    }
    b->wall_s = cml_now() - t0;
    return b->ok;
}

typedef struct {
    cml_build *const *b;
    int n;
    atomic_int next;
} build_queue;

static void *build_worker(void *arg)
{
    build_queue *q = arg;
    int i;
    while ((i = atomic_fetch_add(&q->next, 1)) < q->n)
        cml_build_lab(q->b[i]);
    return NULL;
}

/* Contract in build.h. */
void cml_build_all(cml_build *const *b, int n, int max_parallel)
{
    build_queue q = { b, n, 0 };
    int nthreads = max_parallel > 0 ? max_parallel : cml_ncpus();
    if (nthreads > n)
        nthreads = n;
    pthread_t tid[64];
    int started = 0;
    for (int i = 0; i < nthreads && i < 64; i++)
        if (pthread_create(&tid[started], NULL, build_worker, &q) == 0)
            started++;
    if (started == 0)
        build_worker(&q); /* no threads: build one after another */
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
}

/* Contract in build.h. */
void cml_build_free(cml_build *b)
{
    free(b->log);
    b->log = NULL;
}

/* Contract in build.h. */
int cml_build_ptx(const char *dir, const char *cu_file, int cc, char *ptx_path, size_t len,
                  char **log)
{
    char arch[32], out[CML_PATH];
    snprintf(arch, sizeof arch, "-arch=sm_%d", cc);
    if (cml_fmt(out, sizeof out, "%s.ptx", cu_file) < 0 ||
        cml_fmt(ptx_path, len, "%s/%s", dir, out) < 0) {
        *log = strdup("PTX path too long: use a shorter --out");
        return -1;
    }
    char *const args[] = { "-ptx", "-O3", "-std=c++17", arch, "-I", "common", "-o", out,
                           (char *)cu_file, NULL };
    return cml_nvcc(args, dir, CML_BUILD_TIMEOUT_S, log);
}
