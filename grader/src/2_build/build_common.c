/* The harness library compiled once per grading, for every build to copy (see build.h). Its
 * list of sources and the object name of a source live here, below build.c, which calls this
 * file: kept in build.c, they made build.c and this file call each other. */
#include "build.h"
#include "stage.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cml_common {
    const char *root;
    char out_dir[CML_PATH];
    int cc, done;
    pthread_t tid;
    pthread_mutex_t lock;
    pthread_cond_t ready;
};

/* Contract in build.h. */
const char *const CML_COMMON_SOURCES[CML_NCOMMON] = {
    "common/cml_args.cpp",   "common/cml_gpu.cu",      "common/cml_lab.cpp",
    "common/cml_output.cpp", "common/cml_report.cpp",  "common/cml_run_case.cpp",
    "common/cml_timing.cpp", "common/cml_guard.cpp",   "common/cml_exact.cpp",
    "common/cml_inputs.cu",
};

/* Contract in build.h. */
char *cml_object_of(const char *cu)
{
    char *o = strdup(cu);
    if (o)
        strcpy(strrchr(o, '.'), ".o");
    return o;
}

/* Contract in build.h. */
int cml_common_copy(struct cml_common *c, const char *dir, const char *obj)
{
    char from[CML_PATH], to[CML_PATH], err[256];
    const char *base = strrchr(obj, '/') ? strrchr(obj, '/') + 1 : obj;
    if (!c)
        return -1;
    pthread_mutex_lock(&c->lock);
    while (!c->done)
        pthread_cond_wait(&c->ready, &c->lock);
    pthread_mutex_unlock(&c->lock);
    if (cml_fmt(from, sizeof from, "%s/%s", c->out_dir, base) < 0 ||
        cml_fmt(to, sizeof to, "%s/%s", dir, obj) < 0 || access(from, R_OK) != 0)
        return -1;
    return cml_copy_file(from, to, (size_t)64 << 20, err, sizeof err);
}

typedef struct {
    const struct cml_common *c;
    const char *src;
} common_job;

static void *compile_one(void *arg)
{
    const common_job *j = arg;
    char arch[32], out[CML_PATH], *log = NULL, *o = cml_object_of(j->src);
    snprintf(arch, sizeof arch, "-arch=sm_%d", j->c->cc);
    if (o && cml_fmt(out, sizeof out, "%s/%s", j->c->out_dir,
                     strrchr(o, '/') ? strrchr(o, '/') + 1 : o) == 0) {
        char *const args[] = { CML_NVCC_LANG, arch, "-I", "common", "-c", (char *)j->src, "-o",
                               out, NULL }; /* lab_args' flags */
        if (cml_nvcc(args, j->c->root, 0, CML_BUILD_TIMEOUT_S, &log) != 0)
            unlink(out);
    }
    free(log);
    free(o);
    return NULL;
}

/* Every file at once, then tell the waiting builds. */
static void *compile_all(void *arg)
{
    struct cml_common *c = arg;
    common_job jobs[CML_NCOMMON];
    pthread_t tid[CML_NCOMMON];
    int started[CML_NCOMMON] = {0};
    for (int i = 0; i < CML_NCOMMON && cml_mkdirs(c->out_dir) == 0; i++) {
        jobs[i] = (common_job){ c, CML_COMMON_SOURCES[i] };
        started[i] = pthread_create(&tid[i], NULL, compile_one, &jobs[i]) == 0;
        if (!started[i])
            compile_one(&jobs[i]);
    }
    for (int i = 0; i < CML_NCOMMON; i++)
        if (started[i])
            pthread_join(tid[i], NULL);
    pthread_mutex_lock(&c->lock);
    c->done = 1;
    pthread_cond_broadcast(&c->ready);
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* Contract in build.h. */
struct cml_common *cml_build_common_start(const char *root, int cc, const char *out_dir)
{
    struct cml_common *c = calloc(1, sizeof *c);
    if (!c || cml_fmt(c->out_dir, sizeof c->out_dir, "%s", out_dir) < 0) {
        free(c);
        return NULL;
    }
    c->root = root;
    c->cc = cc;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->ready, NULL);
    if (pthread_create(&c->tid, NULL, compile_all, c) != 0)
        compile_all(c); /* no thread: compile it now */
    else
        return c;
    c->tid = 0;
    return c;
}

/* Contract in build.h. */
void cml_build_common_finish(struct cml_common *c)
{
    if (!c)
        return;
    if (c->tid) /* 0: compiled without a thread, already done */
        pthread_join(c->tid, NULL);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->ready);
    free(c);
}
