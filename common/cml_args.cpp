/* The command line (docs/PROTOCOL.md, "The lab binary") and the case specs it carries:
 * what a lab binary was asked to run. The options are parsed once, by cml_main, and only read
 * after that, through cml_opts() and cml_seed(). */
#include "cml_lab_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static cml_options g_opt = {1, ".", 0, 0, 0, 0, 0, 0, {}};
/* The seed the inputs are made from now: --seed, or a timed repetition's own seed. */
static struct {
    uint64_t seed;
    int set;
} g_data;

const cml_options *cml_opts(void) { return &g_opt; }
uint64_t cml_seed(void) { return g_data.set ? g_data.seed : g_opt.seed; }
void cml_use_seed(uint64_t seed) { g_data.seed = seed, g_data.set = 1; }
void cml_use_case_seed(void) { g_data.set = 0; }

/* A decimal integer below 2^64 that ends at `stop` ('\0', or the pipe's '\n') into *v: 0, or
 * -1 (*v unchanged). */
static int decimal_u64(const char *s, char stop, uint64_t *v)
{
    char *end = NULL;
    errno = 0;
    const unsigned long long x = strtoull(s, &end, 10);
    if (s[0] < '0' || s[0] > '9' || *end != stop || errno)
        return -1;
    *v = x;
    return 0;
}

/* The grader's seed: never in argv or the environment (a student file could read those), but
 * in a pipe named by CML_SEED_FD, read to its end and closed before any other constructor of
 * the process runs (priority 101: before the default ones), so nothing later finds it there.
 * 0: none asked (a run by hand: --seed, default 1); 1: taken; -1: the pipe held no seed. */
static int g_seed_piped;

/* A lab the grader starts before its turn (CML_SEED_WAIT) creates its CUDA context while it
 * waits for the seed, beside the run before it: 0.13 s of a lab process's start (H100,
 * scripts/exp/turn-start.sh) leaves the GPU's turns. Through the driver, found at run time
 * (the CUDA runtime is not set up this early); its primary context is the one the runtime then
 * takes (cudaSetDevice in cml_gpu_usable), and cml_early_cuda_release hands it over. Only in
 * the default compute mode: in an exclusive one a waiting lab's context would lock the running
 * lab out. Any failure here is the runtime's to report later, as without it. */
static struct {
    int (*release)(int dev);
    int dev, retained;
} g_early;

static void start_cuda_early(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    auto init = (int (*)(unsigned))dlsym(lib, "cuInit");
    auto get = (int (*)(int *, int))dlsym(lib, "cuDeviceGet");
    auto attr = (int (*)(int *, int, int))dlsym(lib, "cuDeviceGetAttribute");
    auto retain = (int (*)(void **, int))dlsym(lib, "cuDevicePrimaryCtxRetain");
    g_early.release = (int (*)(int))dlsym(lib, "cuDevicePrimaryCtxRelease");
    const int COMPUTE_MODE = 20, DEFAULT_MODE = 0; /* cuda.h's, which the harness leaves out */
    int mode = -1;
    void *ctx = NULL;
    g_early.retained = init && get && attr && retain && g_early.release && init(0) == 0 &&
                       get(&g_early.dev, 0) == 0 &&
                       attr(&mode, COMPUTE_MODE, g_early.dev) == 0 && mode == DEFAULT_MODE &&
                       retain(&ctx, g_early.dev) == 0;
}

void cml_early_cuda_release(void)
{
    if (g_early.retained)
        g_early.release(g_early.dev);
    g_early.retained = 0;
}

__attribute__((constructor(101))) static void take_piped_seed(void)
{
    const char *name = getenv("CML_SEED_FD");
    if (!name)
        return;
    const char *wait = getenv("CML_SEED_WAIT");
    if (wait && strcmp(wait, "1") == 0)
        start_cuda_early();
    unsetenv("CML_SEED_WAIT");
    char text[32] = "";
    const int fd = atoi(name);
    size_t n = 0;
    for (ssize_t got = 1; got > 0 && n + 1 < sizeof text; n += got > 0 ? (size_t)got : 0)
        got = read(fd, text + n, sizeof text - 1 - n);
    close(fd);
    unsetenv("CML_SEED_FD");
    text[n] = '\0';
    g_seed_piped = decimal_u64(text, '\n', &g_opt.seed) == 0 ? 1 : -1;
}

int cml_seed_from_grader(void) { return g_seed_piped > 0; }

void cml_usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [--seed S] [--out-dir DIR] [--case SPEC]... [--no-output] [--link-bw] "
            "[--no-guard] [--bench] [--list]\n"
            "  SPEC = TASK[,key=value]...[,time], e.g. 1.1,n=4097,time\n"
            "  no --case: every task at its default sizes, as a table\n",
            prog);
}

/* --seed's value: a decimal integer below 2^64. 0, or -1 with the reason on stderr. */
static int parse_seed(const char *s)
{
    if (decimal_u64(s, '\0', &g_opt.seed) == 0)
        return 0;
    fprintf(stderr, "bad --seed '%s': a decimal integer below 2^64\n", s);
    return -1;
}

int cml_times_anything(void)
{
    if (g_opt.ncases == 0)
        return 1; /* the table and --bench time every task */
    for (int k = 0; k < g_opt.ncases; k++) {
        const char *t = g_opt.cases[k];
        for (const char *p = strstr(t, "time"); p; p = strstr(p + 1, "time"))
            if ((p == t || p[-1] == ',') && (p[4] == ',' || p[4] == '\0'))
                return 1;
    }
    return 0;
}

int cml_parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_value = i + 1 < argc;
        if (!strcmp(a, "--no-output")) g_opt.no_output = 1;
        else if (!strcmp(a, "--link-bw")) g_opt.link_bw = 1;
        else if (!strcmp(a, "--no-guard")) g_opt.no_guard = 1;
        else if (!strcmp(a, "--bench")) g_opt.bench = 1;
        else if (!strcmp(a, "--list")) g_opt.list = 1;
        else if (!strcmp(a, "--out-dir") && has_value) g_opt.out_dir = argv[++i];
        else if (!strcmp(a, "--case") && has_value && g_opt.ncases < CML_MAX_CASES)
            g_opt.cases[g_opt.ncases++] = argv[++i];
        else if (!strcmp(a, "--seed") && has_value) {
            if (g_seed_piped) { /* the grader's own pipe decides: never argv */
                fprintf(stderr, "--seed: this run's seed comes from the grader (CML_SEED_FD)\n");
                return -1;
            }
            if (parse_seed(argv[++i]) != 0)
                return -1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            return 1;
        } else {
            int wants_value = !strcmp(a, "--out-dir") || !strcmp(a, "--case") ||
                              !strcmp(a, "--seed");
            fprintf(stderr, "%s: %s\n", a,
                    wants_value ? (g_opt.ncases == CML_MAX_CASES ? "at most 64 cases"
                                                                 : "needs a value")
                                : "unknown argument");
            return -1;
        }
    }
    if (g_seed_piped < 0) {
        fprintf(stderr, "CML_SEED_FD: the grader's seed pipe held no seed (was it read before "
                        "the harness?)\n");
        return -1;
    }
    if (g_opt.bench && g_opt.ncases) {
        fprintf(stderr, "--bench runs its own table: give it no --case\n");
        return -1;
    }
    return 0;
}

/* ---- case specs: "TASK[,key=value]...[,time]" ---- */

static int key_listed(const char *keys, const char *key)
{
    size_t len = strlen(key);
    for (const char *p = keys; *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && strncmp(p, key, n) == 0)
            return 1;
        p += n + (end != NULL);
    }
    return 0;
}

/* The sizes every task that takes them needs: each between 1 and 2^40, rows and cols an int. */
static int check_sizes(const cml_case *c, char *err, size_t errlen)
{
    const char *need[] = {"n", "rows", "cols", "stride"};
    const uint64_t have[] = {c->n, c->rows, c->cols, c->stride};
    for (int i = 0; i < 4; i++)
        if (key_listed(c->task->keys, need[i]) && (have[i] < 1 || have[i] > (uint64_t)1 << 40)) {
            snprintf(err, errlen, "case '%s' needs %s between 1 and 2^40", c->text, need[i]);
            return -1;
        }
    if (c->rows > INT_MAX || c->cols > INT_MAX) {
        snprintf(err, errlen, "case '%s': rows and cols must fit in an int", c->text);
        return -1;
    }
    return 0;
}

int cml_parse_case(cml_case *c, const char *params, char *err, size_t errlen)
{
    char buf[128], *save = NULL;
    snprintf(buf, sizeof buf, "%s", params);
    c->stride = 1;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (strcmp(tok, "time") == 0) {
            c->timed = 1;
            continue;
        }
        if (eq)
            *eq = '\0';
        if (!eq || !key_listed(c->task->keys, tok) || strlen(tok) >= sizeof c->keys[0]) {
            snprintf(err, errlen, "unknown key '%s' in case '%s' (task %s takes %s, and time)",
                     tok, c->text, c->task->id, c->task->keys);
            return -1;
        }
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(eq + 1, &end, 10);
        if (eq[1] < '0' || eq[1] > '9' || *end || errno || c->nkeys == CML_MAX_KEYS) {
            snprintf(err, errlen, "bad value '%s' for %s in case '%s'", eq + 1, tok, c->text);
            return -1;
        }
        snprintf(c->keys[c->nkeys], sizeof c->keys[0], "%s", tok);
        c->values[c->nkeys++] = v;
        uint64_t *field = !strcmp(tok, "n") ? &c->n : !strcmp(tok, "rows") ? &c->rows
                        : !strcmp(tok, "cols") ? &c->cols : !strcmp(tok, "offset") ? &c->offset
                        : !strcmp(tok, "stride") ? &c->stride : NULL;
        if (field)
            *field = v;
    }
    return check_sizes(c, err, errlen);
}

uint64_t cml_case_key(const cml_case *c, const char *key, uint64_t fallback)
{
    for (int i = 0; i < c->nkeys; i++)
        if (strcmp(c->keys[i], key) == 0)
            return c->values[i];
    return fallback;
}
