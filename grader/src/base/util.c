/* Small helpers shared by the pipeline's steps (see util.h). */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Monotonic seconds. */
double cml_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* snprintf that reports truncation as an error. */
int cml_fmt(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* Read at most max bytes of a file into a NUL-terminated heap string. */
char *cml_read_text(const char *path, size_t max, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf && n < max) {
        if (n == cap) {
            cap = cap * 2 > max ? max : cap * 2;
            char *grown = realloc(buf, cap + 1);
            if (!grown) { free(buf); buf = NULL; break; }
            buf = grown;
        }
        ssize_t got = read(fd, buf + n, (cap < max ? cap : max) - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) { int e = errno; free(buf); close(fd); errno = e; return NULL; }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    if (!buf) { errno = ENOMEM; return NULL; }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* Write a whole file. */
int cml_write_file(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    const char *p = data;
    while (len > 0) {
        ssize_t put = write(fd, p, len);
        if (put < 0 && errno == EINTR)
            continue;
        if (put < 0) { int e = errno; close(fd); errno = e; return -1; }
        p += put;
        len -= (size_t)put;
    }
    return close(fd);
}

/* mkdir -p. */
int cml_mkdirs(const char *path)
{
    char buf[CML_PATH];
    if (cml_fmt(buf, sizeof buf, "%s", path) < 0)
        return -1;
    for (char *p = buf + 1; ; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, 0755) < 0 && errno != EEXIST)
            return -1;
        *p = c;
        if (c == '\0')
            break;
    }
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

/* rm -rf, depth first, never following links. */
int cml_rmtree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : -1;
    return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* FNV-1a, 64 bits. */
uint64_t cml_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Contract in util.h. */
int cml_install_folder(const char *program, char *dir, size_t len)
{
    char *real = realpath(program, NULL);
    snprintf(dir, len, "%s", real ? real : program);
    free(real);
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            return -1;
        *slash = '\0';
    }
    return 0;
}

/* Contract in util.h. */
int cml_appendf(char **buf, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int add = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *grown = add < 0 ? NULL : realloc(*buf, *len + (size_t)add + 1);
    if (!grown)
        return -1;
    va_start(ap, fmt);
    vsnprintf(grown + *len, (size_t)add + 1, fmt, ap);
    va_end(ap);
    *buf = grown;
    *len += (size_t)add;
    return 0;
}

/* Contract in util.h. */
int cml_self_exe(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return 0;
}

/* Contract in util.h. */
void *cml_grow(void *arr, int n, size_t sz)
{
    if (n % 256)
        return arr;
    void *more = realloc(arr, (size_t)(n + 256) * sz);
    if (!more)
        free(arr);
    return more;
}

/* Contract in util.h. */
int cml_beside_self(const char *env_var, const char *name, char *buf, size_t len)
{
    const char *named = getenv(env_var);
    if (named && *named)
        return cml_fmt(buf, len, "%s", named);
    if (cml_self_exe(buf, len) < 0)
        return -1;
    char *slash = strrchr(buf, '/');
    return slash ? cml_fmt(slash + 1, len - (size_t)(slash + 1 - buf), "%s", name) : -1;
}

/* The root is the parent of the folder that holds the running executable. */
int cml_find_root(char *buf, size_t len, char *err, size_t errlen)
{
    char exe[CML_PATH];
    if (cml_self_exe(exe, sizeof exe) < 0) {
        snprintf(err, errlen, "cannot read /proc/self/exe (%s): pass --root DIR, the repository's "
                 "top folder", strerror(errno));
        return -1;
    }
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash || slash == exe) {
            snprintf(err, errlen, "cannot find the repository root above %s: pass --root DIR", exe);
            return -1;
        }
        *slash = '\0';
    }
    if (cml_fmt(buf, len, "%s", exe) < 0) {
        snprintf(err, errlen, "repository path too long: %s", exe);
        return -1;
    }
    return 0;
}

/* Online CPUs. */
int cml_ncpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}

typedef struct {
    void (*fn)(void *ctx, int i);
    void *ctx;
    int n;
    atomic_int next;
} work_queue;

static void *work_worker(void *arg)
{
    work_queue *q = arg;
    int i;
    while ((i = atomic_fetch_add(&q->next, 1)) < q->n)
        q->fn(q->ctx, i);
    return NULL;
}

/* Contract in util.h. */
void cml_parallel(int n, int workers, void (*fn)(void *ctx, int i), void *ctx)
{
    work_queue q = { fn, ctx, n, 0 };
    pthread_t tid[64];
    int started = 0;
    for (int i = 0; i < workers && i < n && i < 64; i++)
        if (pthread_create(&tid[started], NULL, work_worker, &q) == 0)
            started++;
    if (started == 0)
        work_worker(&q);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
}

/* Contract in util.h. */
void cml_top3(int top[3], double val[3], int i, double v)
{
    for (int r = 0; r < 3; r++)
        if (top[r] < 0 || v > val[r]) {
            memmove(&top[r + 1], &top[r], (size_t)(2 - r) * sizeof *top);
            memmove(&val[r + 1], &val[r], (size_t)(2 - r) * sizeof *val);
            top[r] = i, val[r] = v;
            return;
        }
}

/* Contract in util.h. */
int cml_is_cu(const char *name)
{
    size_t n = strlen(name);
    return n > 3 && strcmp(name + n - 3, ".cu") == 0;
}

/* Contract in util.h. */
int cml_line_marker(const char *l, long *lineno, char *file, size_t len)
{
    char *end;
    if (l[0] != '#' || l[1] != ' ' || !isdigit((unsigned char)l[2]))
        return 0;
    *lineno = strtol(l + 2, &end, 10) - 1;
    if (end[0] == ' ' && end[1] == '"')
        snprintf(file, len, "%.*s", (int)strcspn(end + 2, "\""), end + 2);
    return 1;
}

/* Contract in util.h: the spec's case values and the result channel's numbers. */
int cml_parse_u64(const char *s, uint64_t *out)
{
    if (*s == '\0' || s[strspn(s, "0123456789")] != '\0')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}
