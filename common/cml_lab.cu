/* The harness library (see cml_lab.h): command line, cases, poisoning, outputs, self-checks,
 * timing, copy bandwidth and the result protocol. Graded runs (--case) write records and output
 * files and never compute the expected output unless no grader is listening (no CML_RESULT_FD);
 * tables (self-learner mode, --bench) check every row against the task's expect function. */
#include "cml_lab.h"

#include <algorithm>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <time.h>

enum cml_mode { MODE_GRADE, MODE_TABLE };

static struct {
    uint64_t seed = 1;
    const char *out_dir = ".";
    int no_output = 0, bench = 0, list = 0, ncases = 0;
    const char *cases[64];
} g_opt;

static enum cml_mode g_mode = MODE_GRADE;
static cudaStream_t g_stream;
static cudaDeviceProp g_prop;
static double g_copy_gbps;
static void *g_flush;                      /* 2x L2, written before each timed repetition */
static size_t g_flush_bytes;
static void *g_allocs[16];                 /* freed when the case ends */
static int g_nallocs;
static const char *g_todo_msg;             /* set by cml_todo() during a launch */
static const char *g_todo_seen[64];        /* tasks whose todo record is out */
static int g_ntodo_seen;
static int g_case_errors;
static float *g_host_chunk;                /* staging buffer for outputs */
static const size_t CHUNK_ELEMS = (size_t)4 << 20;

cudaStream_t cml_stream(void) { return g_stream; }
uint64_t cml_seed(void) { return g_opt.seed; }
int cml_sm_count(void) { return g_prop.multiProcessorCount; }
double cml_copy_gbps(void) { return g_copy_gbps; }

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* ---- reporting the case in progress ---- */

/* Ends the case in progress with an error: a record when graded, a table row otherwise. */
void cml_case_fail(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (cml_current_reported)
        return;
    cml_current_reported = 1;
    if (g_mode == MODE_GRADE) {
        g_case_errors++;
        cml_record("case k=%d task=%s status=error msg=%s", cml_current_k, cml_current_task, msg);
        printf("case %d (%s): error: %s\n", cml_current_k, cml_current_task, msg);
    } else {
        cml_record("note task=%s msg=skipped: %s", cml_current_task, msg);
        printf("  %-5s skipped: %s\n", cml_current_task, msg);
    }
}

void cml_todo(const char *task, const char *what)
{
    g_todo_msg = what;
    for (int i = 0; i < g_ntodo_seen; i++)
        if (strcmp(g_todo_seen[i], task) == 0)
            return;
    if (g_ntodo_seen < 64)
        g_todo_seen[g_ntodo_seen++] = task;
    cml_record("todo task=%s msg=%s", task, what);
}

/* ---- device memory ---- */

__global__ void fillRandom(float *p, size_t n, uint64_t seed, uint32_t stream)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = cml_rand_f32(seed, stream, i);
}

float *cml_alloc(size_t elems)
{
    if (cml_current_reported) /* an earlier allocation of this case already failed */
        return NULL;
    size_t bytes = elems * sizeof(float), free_b = 0, total_b = 0;
    const size_t margin = (size_t)64 << 20;
    CML_CHECK(cudaMemGetInfo(&free_b, &total_b));
    void *p = NULL;
    cudaError_t err = (elems == 0 || g_nallocs == 16 || elems > SIZE_MAX / 8 ||
                       bytes + margin > free_b)
                          ? cudaErrorMemoryAllocation
                          : cudaMalloc(&p, bytes);
    if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError(); /* not sticky: clear it */
        cml_case_fail("not enough GPU memory: %.2f GiB asked, %.2f GiB free (64 MiB kept spare)",
                  bytes / 1073741824.0, free_b / 1073741824.0);
        return NULL;
    }
    CML_CHECK(err);
    g_allocs[g_nallocs++] = p;
    return (float *)p;
}

float *cml_input(size_t elems, uint32_t stream)
{
    float *p = cml_alloc(elems);
    if (p) {
        size_t blocks = std::min((elems + 255) / 256, (size_t)cml_sm_count() * 16);
        fillRandom<<<(unsigned)blocks, 256, 0, g_stream>>>(p, elems, g_opt.seed, stream);
        CML_CHECK_LAUNCH();
    }
    return p;
}

static void free_case_allocs(void)
{
    CML_CHECK(cudaDeviceSynchronize());
    while (g_nallocs > 0)
        CML_CHECK(cudaFree(g_allocs[--g_nallocs]));
}

/* ---- outputs: read in chunks (copied out of device memory, or read in place from host-visible
 * memory, never through a copy engine), then written to a file or checked ---- */

/* Elements [first, first + count) of an output as host memory: the staging buffer for a device
 * output, the output itself for a host-visible one. */
static const float *output_chunk(const float *out, int on_device, size_t first, size_t count)
{
    if (!on_device)
        return out + first;
    CML_CHECK(cudaMemcpy(g_host_chunk, out + first, count * sizeof(float),
                         cudaMemcpyDeviceToHost));
    return g_host_chunk;
}

static int write_output(const float *out, int on_device, size_t elems, char *name, size_t len)
{
    char path[4096];
    snprintf(name, len, "case%d.bin", cml_current_k);
    snprintf(path, sizeof path, "%s/%s", g_opt.out_dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        cml_case_fail("cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    int ok = 1;
    for (size_t first = 0; first < elems && ok; first += CHUNK_ELEMS) {
        size_t count = std::min(CHUNK_ELEMS, elems - first);
        ok = fwrite(output_chunk(out, on_device, first, count), sizeof(float), count, f) == count;
    }
    if (fclose(f) != 0 || !ok) {
        cml_case_fail("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Compares the output with the task's expect function, bit for bit (NaN never passes).
 * Returns the number of differing elements and describes the first in `why`. */
static uint64_t self_check(const cml_case *c, const float *out, int on_device, size_t elems,
                           char *why, size_t len)
{
    uint64_t nbad = 0;
    why[0] = '\0';
    for (size_t first = 0; first < elems; first += CHUNK_ELEMS) {
        size_t count = std::min(CHUNK_ELEMS, elems - first);
        const float *got = output_chunk(out, on_device, first, count);
        for (size_t i = 0; i < count; i++) {
            float want = c->task->expect(c, g_opt.seed, first + i);
            if (memcmp(&want, &got[i], sizeof want) != 0 && nbad++ == 0)
                snprintf(why, len, "first at %zu: expected %.9g, got %.9g", first + i,
                         (double)want, (double)got[i]);
        }
    }
    return nbad;
}

/* ---- timing ---- */

static void poison_and_flush(void *d_poison, size_t poison_bytes, int rep)
{
    if (d_poison)
        CML_CHECK(cudaMemsetAsync(d_poison, CML_POISON_BYTE, poison_bytes, g_stream));
    CML_CHECK(cudaMemsetAsync(g_flush, rep & 1, g_flush_bytes, g_stream));
}

static double percentile(const double *sorted, int n, double q)
{
    double pos = q * (n - 1);
    int lo = (int)pos;
    int hi = lo + 1 < n ? lo + 1 : lo;
    return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
}

/* The median of x[0..n) (sorted into scratch, x untouched); with spread, also the spread
 * (p75 - p25) / median that decides when a timing loop has settled (0 for a zero median). */
static double median_of(const double *x, int n, double *scratch, double *spread)
{
    std::copy(x, x + n, scratch);
    std::sort(scratch, scratch + n);
    const double med = percentile(scratch, n, 0.5);
    if (spread)
        *spread = med > 0 ? (percentile(scratch, n, 0.75) - percentile(scratch, n, 0.25)) / med
                          : 0;
    return med;
}

cml_timing cml_time(cml_launcher launch, void *d_poison, size_t poison_bytes)
{
    enum { MIN_REPS = 10, MAX_REPS = 50 };
    const double budget_ms = 4000; /* a slow kernel stops at MIN_REPS past this */
    double ms[MAX_REPS], host[MAX_REPS], sorted[MAX_REPS];
    cml_timing t = {0, 0, 0, 0};
    cudaEvent_t start, stop;
    CML_CHECK(cudaEventCreate(&start));
    CML_CHECK(cudaEventCreate(&stop));
    for (int w = 0; w < 2; w++) {
        poison_and_flush(d_poison, poison_bytes, w);
        launch.fn(launch.ctx, g_stream);
        CML_CHECK_LAUNCH();
    }
    double begun = now_ms();
    for (int rep = 0; rep < MAX_REPS; rep++) {
        poison_and_flush(d_poison, poison_bytes, rep);
        CML_CHECK(cudaDeviceSynchronize());
        double t0 = now_ms();
        CML_CHECK(cudaEventRecord(start, g_stream));
        launch.fn(launch.ctx, g_stream);
        CML_CHECK(cudaEventRecord(stop, g_stream));
        CML_CHECK(cudaDeviceSynchronize());
        host[rep] = now_ms() - t0;
        CML_CHECK_LAUNCH();
        float e = 0;
        CML_CHECK(cudaEventElapsedTime(&e, start, stop));
        ms[rep] = e;
        t.reps = rep + 1;
        if (t.reps < MIN_REPS)
            continue;
        t.ms = median_of(ms, t.reps, sorted, &t.spread);
        if (t.spread < 0.02 || now_ms() - begun > budget_ms)
            break;
    }
    t.host_ms = median_of(host, t.reps, sorted, NULL);
    CML_CHECK(cudaEventDestroy(start));
    CML_CHECK(cudaEventDestroy(stop));
    return t;
}

/* cudaMemcpy device to device of 1 GiB (less when memory is short); bytes = read + written. */
static void measure_copy_bandwidth(void)
{
    size_t free_b = 0, total_b = 0, size = (size_t)1 << 30;
    CML_CHECK(cudaMemGetInfo(&free_b, &total_b));
    while (size > ((size_t)16 << 20) && 2 * size + ((size_t)256 << 20) > free_b)
        size /= 2;
    void *src = NULL, *dst = NULL;
    CML_CHECK(cudaMalloc(&src, size));
    CML_CHECK(cudaMalloc(&dst, size));
    CML_CHECK(cudaMemsetAsync(src, 0x3C, size, g_stream));
    auto copy = [&](cudaStream_t s) {
        CML_CHECK(cudaMemcpyAsync(dst, src, size, cudaMemcpyDeviceToDevice, s));
    };
    cml_timing t = cml_time(cml_launcher_of(copy), NULL, 0);
    g_copy_gbps = 2.0 * size / (t.ms * 1e6);
    cml_record("copybw gbps=%.1f bytes=%zu", g_copy_gbps, 2 * size);
    CML_CHECK(cudaFree(src));
    CML_CHECK(cudaFree(dst));
}

/* ---- cases ---- */

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

/* Parses the part of a spec after the task id ("n=4097,time") into c. 0, or -1 and err. */
static int parse_params(cml_case *c, const char *params, char *err, size_t errlen)
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

uint64_t cml_case_key(const cml_case *c, const char *key, uint64_t fallback)
{
    for (int i = 0; i < c->nkeys; i++)
        if (strcmp(c->keys[i], key) == 0)
            return c->values[i];
    return fallback;
}

static enum cml_row_status g_row_status; /* how the last table row ended */

static void begin_case(int k, const char *task_id)
{
    g_row_status = CML_ROW_SKIPPED;
    cml_current_k = k;
    cml_current_task = task_id;
    cml_current_reported = 0;
}

static void end_case(void)
{
    free_case_allocs();
    cml_current_k = -1;
    cml_current_task = NULL;
}

/* After a task's launch: its launch errors, then its kernels' errors, each ending the case. */
static void sync_task_kernels(void)
{
    /* errors here belong to the kernels the task's launch started, not to this file */
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        cml_cuda_fail(err, "launching the task's kernels", "the task's launch wrapper", 0);
    err = cudaDeviceSynchronize();
    if (err != cudaSuccess)
        cml_cuda_fail(err, "the task's kernels (found by the synchronize after them)",
                      "the task's launch wrapper", 0);
}

/* The `case ... status=ok` record of a graded case whose output was written to `file`, and
 * the human line (with the self-check's verdict when there was one). */
static void record_case_ok(const cml_case *c, size_t out_elems, const char *file, int check,
                           uint64_t nbad, const char *why)
{
    cml_current_reported = 1;
    cml_record("case k=%d task=%s status=ok elems=%zu elem_bytes=4%s%s", c->k, c->task->id,
               out_elems, file[0] ? " file=" : "", file);
    printf("case %d (%s): ran%s%s%s\n", c->k, c->text, file[0] ? ", wrote " : "", file,
           !check ? "" : nbad ? ", WRONG" : ", self-check ok");
    if (nbad)
        printf("  %llu of %zu elements differ; %s\n", (unsigned long long)nbad, out_elems, why);
}

/* A graded case: "TASK[,key=value]...[,time]". Errors in the spec are the case's error. */
static void run_graded(const cml_lab *lab, int k, const char *spec)
{
    static cml_case c; /* static: the task's run function may keep a pointer while it runs */
    char err[256] = "";
    char id[16];
    size_t idlen = strcspn(spec, ",");
    snprintf(id, sizeof id, "%.*s", (int)std::min(idlen, sizeof id - 1), spec);
    memset(&c, 0, sizeof c);
    c.k = k;
    snprintf(c.text, sizeof c.text, "%s", spec);
    for (int i = 0; i < lab->ntasks && !c.task; i++)
        if (strcmp(lab->tasks[i].id, id) == 0)
            c.task = &lab->tasks[i];
    begin_case(k, c.task ? c.task->id : id);
    if (strlen(spec) >= sizeof c.text)
        snprintf(err, sizeof err, "case spec longer than %zu characters", sizeof c.text - 1);
    else if (!c.task)
        snprintf(err, sizeof err, "unknown task '%s' in case '%s' (see --list)", id, spec);
    else
        parse_params(&c, spec + idlen + (spec[idlen] == ','), err, sizeof err);
    if (err[0]) {
        fprintf(stderr, "%s\n", err);
        cml_case_fail("%s", err);
    } else {
        c.task->run(&c);
        if (!cml_current_reported)
            cml_case_fail("the harness reported no result for this case (a bug in harness.cu)");
    }
    end_case();
}

void cml_run_case_l(const cml_case *c, float *d_out, size_t out_elems, uint64_t bytes,
                    cml_launcher launch)
{
    size_t out_bytes = out_elems * sizeof(float);
    char why[256], file[64] = "";
    CML_CHECK(cudaMemsetAsync(d_out, CML_POISON_BYTE, out_bytes, g_stream));
    g_todo_msg = NULL;
    launch.fn(launch.ctx, g_stream);
    if (g_todo_msg) {
        cml_current_reported = 1;
        g_row_status = CML_ROW_TODO;
        if (g_mode == MODE_GRADE) {
            cml_record("case k=%d task=%s status=todo msg=%s", c->k, c->task->id, g_todo_msg);
            printf("case %d (%s): TODO(%s): %s\n", c->k, c->text, c->task->id, g_todo_msg);
        } else
            printf("  %-5s %-30s %-28s TODO(%s): %s\n", c->task->id, c->task->kernel, c->text,
                   c->task->id, g_todo_msg);
        return;
    }
    sync_task_kernels();
    int check = c->task->expect && (g_mode == MODE_TABLE || cml_result_fd() < 0);
    uint64_t nbad = check ? self_check(c, d_out, 1, out_elems, why, sizeof why) : 0;
    if (g_mode == MODE_GRADE) {
        if (!g_opt.no_output && write_output(d_out, 1, out_elems, file, sizeof file) != 0)
            return;
        record_case_ok(c, out_elems, file, check, nbad, why);
        if (!c->timed)
            return;
    }
    cml_timing t = cml_time(launch, d_out, out_bytes);
    double gbps = bytes / (t.ms * 1e6);
    if (g_mode == MODE_GRADE) {
        cml_record("time k=%d task=%s ms=%.4f host_ms=%.4f reps=%d spread=%.4f bytes=%llu", c->k,
                   c->task->id, t.ms, t.host_ms, t.reps, t.spread, (unsigned long long)bytes);
        printf("  %.4f ms (host %.4f ms, %d reps, spread %.1f%%), %.1f GB/s, %.1f%% of copy\n",
               t.ms, t.host_ms, t.reps, 100 * t.spread, gbps, 100 * gbps / g_copy_gbps);
        return;
    }
    cml_current_reported = 1;
    g_row_status = CML_ROW_RAN;
    const char *verdict = !check ? "-" : nbad ? "WRONG" : "ok";
    printf("  %-5s %-30s %-28s %-6s %9.4f %9.1f %6.1f%%\n", c->task->id, c->task->kernel,
           c->text, verdict, t.ms, gbps, 100 * gbps / g_copy_gbps);
    cml_record("note task=%s msg=%s %s %s %.4f ms %.1f GB/s %.3f of copy", c->task->id,
               c->task->kernel, c->text, verdict, t.ms, gbps, gbps / g_copy_gbps);
    if (nbad)
        printf("        %llu of %zu elements differ; %s\n", (unsigned long long)nbad, out_elems,
               why);
}

/* ---- tables ---- */

void cml_table_title(const char *title)
{
    printf("\n%s\n  %-5s %-30s %-28s %-6s %9s %9s %7s\n", title, "task", "kernel", "case",
           "check", "ms", "GB/s", "of copy");
}

enum cml_row_status cml_table_run(const cml_task *task, const char *spec)
{
    static cml_case c;
    char err[256] = "";
    memset(&c, 0, sizeof c);
    c.task = task;
    snprintf(c.text, sizeof c.text, "%s", spec);
    begin_case(-1, task->id);
    if (parse_params(&c, spec, err, sizeof err) != 0)
        cml_case_fail("%s", err);
    else
        task->run(&c);
    enum cml_row_status status = g_row_status;
    end_case();
    return status;
}

/* ---- main ---- */

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [--seed S] [--out-dir DIR] [--case SPEC]... [--no-output] [--bench] "
            "[--list]\n  SPEC = TASK[,key=value]...[,time], e.g. 1.1,n=4097,time\n"
            "  no --case: every task at its default sizes, as a table\n",
            prog);
}

static int parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_value = i + 1 < argc;
        if (!strcmp(a, "--no-output")) g_opt.no_output = 1;
        else if (!strcmp(a, "--bench")) g_opt.bench = 1;
        else if (!strcmp(a, "--list")) g_opt.list = 1;
        else if (!strcmp(a, "--out-dir") && has_value) g_opt.out_dir = argv[++i];
        else if (!strcmp(a, "--case") && has_value && g_opt.ncases < 64)
            g_opt.cases[g_opt.ncases++] = argv[++i];
        else if (!strcmp(a, "--seed") && has_value) {
            char *end = NULL;
            errno = 0;
            g_opt.seed = strtoull(argv[++i], &end, 10);
            if (argv[i][0] < '0' || argv[i][0] > '9' || *end || errno) {
                fprintf(stderr, "bad --seed '%s': a decimal integer below 2^64\n", argv[i]);
                return -1;
            }
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            return 1;
        } else {
            int wants_value = !strcmp(a, "--out-dir") || !strcmp(a, "--case") ||
                              !strcmp(a, "--seed");
            fprintf(stderr, "%s: %s\n", a,
                    wants_value ? (g_opt.ncases == 64 ? "at most 64 cases" : "needs a value")
                                : "unknown argument");
            return -1;
        }
    }
    if (g_opt.bench && g_opt.ncases) {
        fprintf(stderr, "--bench runs its own table: give it no --case\n");
        return -1;
    }
    return 0;
}

int cml_main(int argc, char **argv, const cml_lab *lab)
{
    int parsed = parse_args(argc, argv);
    if (parsed != 0) {
        usage(argv[0]);
        return parsed > 0 ? 0 : CML_EXIT_USAGE;
    }
    if (g_opt.list) {
        for (int i = 0; i < lab->ntasks; i++)
            printf("%s\t%s\t%s\n", lab->tasks[i].id, lab->tasks[i].kernel, lab->tasks[i].keys);
        return 0;
    }
    char line[512];
    cml_record("hello protocol=1 lab=%s", lab->name);
    if (cml_gpu_usable(line, sizeof line) != 0) {
        cml_record("nodevice msg=%s", line);
        cml_record("done");
        fprintf(stderr, "%s: no usable GPU (%s). This binary needs an NVIDIA GPU of compute "
                        "capability 7.5 or newer and its driver.\n", lab->name, line);
        return CML_EXIT_NO_GPU;
    }
    cml_record_device(line, sizeof line);
    CML_CHECK(cudaGetDeviceProperties(&g_prop, 0));
    CML_CHECK(cudaStreamCreate(&g_stream));
    g_host_chunk = (float *)malloc(CHUNK_ELEMS * sizeof(float));
    g_flush_bytes = 2 * (size_t)std::max(g_prop.l2CacheSize, 1 << 20);
    if (!g_host_chunk) {
        fprintf(stderr, "out of host memory\n");
        return CML_EXIT_CUDA_ERROR;
    }
    CML_CHECK(cudaMalloc(&g_flush, g_flush_bytes));
    measure_copy_bandwidth();
    printf("%s: %s\nGPU %s\ncudaMemcpy device-to-device: %.1f GB/s (read + written), seed %llu\n",
           lab->name, lab->title, line, g_copy_gbps, (unsigned long long)g_opt.seed);
    if (g_opt.ncases > 0) {
        for (int k = 0; k < g_opt.ncases; k++)
            run_graded(lab, k, g_opt.cases[k]);
    } else {
        g_mode = MODE_TABLE;
        if (g_opt.bench) {
            lab->bench();
        } else {
            cml_table_title("every task at its default sizes (self-learner mode)");
            for (int i = 0; i < lab->ntasks; i++) {
                char specs[256], *save = NULL;
                snprintf(specs, sizeof specs, "%s", lab->tasks[i].defaults);
                for (char *s = strtok_r(specs, " ", &save); s; s = strtok_r(NULL, " ", &save))
                    cml_table_run(&lab->tasks[i], s);
            }
            if (lab->extras)
                lab->extras();
        }
    }
    CML_CHECK(cudaFree(g_flush));
    CML_CHECK(cudaStreamDestroy(g_stream));
    free(g_host_chunk);
    cml_record("done");
    return g_case_errors ? CML_EXIT_CUDA_ERROR : 0;
}

/* ==== host-involved tasks (labs 06 zero-copy and 07 unified memory): see cml_lab.h =========
 * Added beside the device-memory path above, which it leaves as it was. Outputs live in host-
 * visible memory (pinned, mapped or managed) and are poisoned, checked and written by the host;
 * the time that counts is the host clock around launch + synchronize: transfers included. */

static double g_last_host_ms;
static double g_pinned_h2d, g_pinned_d2h; /* GB/s, 0 until measured */

double cml_last_host_ms(void) { return g_last_host_ms; }

void cml_todo_reset(void) { g_todo_msg = NULL; }

int cml_case_todo(const cml_case *c)
{
    if (!g_todo_msg)
        return 0;
    if (cml_current_reported) /* already reported (as todo, or failed by a check) */
        return 1;
    cml_current_reported = 1;
    g_row_status = CML_ROW_TODO;
    if (g_mode == MODE_GRADE) {
        cml_record("case k=%d task=%s status=todo msg=%s", c->k, c->task->id, g_todo_msg);
        printf("case %d (%s): TODO: %s\n", c->k, c->text, g_todo_msg);
    } else
        printf("  %-5s %-30s %-28s TODO: %s\n", c->task->id, c->task->kernel, c->text, g_todo_msg);
    return 1;
}

void cml_pinned_gbps(double *h2d, double *d2h)
{
    if (g_pinned_h2d == 0) {
        size_t size = (size_t)256 << 20, free_b = 0, total_b = 0;
        CML_CHECK(cudaMemGetInfo(&free_b, &total_b));
        while (size > ((size_t)16 << 20) && size + ((size_t)256 << 20) > free_b)
            size /= 2;
        void *h = NULL, *d = NULL;
        CML_CHECK(cudaHostAlloc(&h, size, cudaHostAllocDefault));
        CML_CHECK(cudaMalloc(&d, size));
        memset(h, 0x3C, size);
        auto up = [&](cudaStream_t s) {
            CML_CHECK(cudaMemcpyAsync(d, h, size, cudaMemcpyHostToDevice, s));
        };
        auto down = [&](cudaStream_t s) {
            CML_CHECK(cudaMemcpyAsync(h, d, size, cudaMemcpyDeviceToHost, s));
        };
        g_pinned_h2d = size / (cml_time(cml_launcher_of(up), NULL, 0).ms * 1e6);
        g_pinned_d2h = size / (cml_time(cml_launcher_of(down), NULL, 0).ms * 1e6);
        cml_record("note task=%s msg=pinned cudaMemcpy of %zu bytes: host-to-device %.1f GB/s, "
                   "device-to-host %.1f GB/s", cml_current_task ? cml_current_task : "-", size,
                   g_pinned_h2d, g_pinned_d2h);
        CML_CHECK(cudaFree(d));
        CML_CHECK(cudaFreeHost(h));
    }
    *h2d = g_pinned_h2d;
    *d2h = g_pinned_d2h;
}

void cml_table_title_host(const char *title)
{
    printf("\n%s\n  %-5s %-30s %-28s %-6s %9s %9s %7s\n", title, "task", "kernel", "case",
           "check", "ms e2e", "GB/s", "of link");
}

/* Reads one float per 4 KiB page and the last one: each page of the output reaches the host. */
static void touch_pages(const float *p, size_t elems)
{
    volatile float sink;
    float acc = 0;
    for (size_t i = 0; i < elems; i += 1024)
        acc += p[i];
    sink = elems ? acc + p[elems - 1] : acc;
    (void)sink;
}

/* Untimed, before every launch: poison the output on the host, restore the inputs, flush L2,
 * and wait until the GPU is idle. */
static void host_prepare(const cml_host_io *io, float *h_out, size_t out_bytes, int rep)
{
    memset(h_out, CML_POISON_BYTE, out_bytes);
    if (io->reset.fn)
        io->reset.fn(io->reset.ctx, g_stream);
    CML_CHECK(cudaMemsetAsync(g_flush, rep & 1, g_flush_bytes, g_stream));
    CML_CHECK(cudaDeviceSynchronize());
}

typedef struct {
    double ms, event_ms, spread; /* ms: host clock, end to end; event_ms: the harness stream */
    int reps;
} host_timing;

/* One warm-up, then 5 to 25 repetitions until (p75 - p25) / median < 2% or 2.5 s have passed.
 * A repetition of lab 07 costs about 0.3 s (the host rewriting 512 MiB of managed memory that
 * lives on the GPU), so lab 07 stops at 5 to 8 repetitions: 4 s per timed case made lab 07 alone
 * 35 s of the 7-lab grading on an H200. */
static host_timing time_host(cml_launcher launch, const cml_host_io *io, float *h_out,
                             size_t out_elems)
{
    enum { MIN_REPS = 5, MAX_REPS = 25 };
    double ms[MAX_REPS], ev[MAX_REPS], sorted[MAX_REPS];
    host_timing t = {0, 0, 0, 0};
    cudaEvent_t start, stop;
    CML_CHECK(cudaEventCreate(&start));
    CML_CHECK(cudaEventCreate(&stop));
    host_prepare(io, h_out, out_elems * sizeof(float), 1);
    launch.fn(launch.ctx, g_stream);
    CML_CHECK(cudaDeviceSynchronize());
    double begun = now_ms();
    for (int rep = 0; rep < MAX_REPS; rep++) {
        host_prepare(io, h_out, out_elems * sizeof(float), rep);
        double t0 = now_ms();
        CML_CHECK(cudaEventRecord(start, g_stream));
        launch.fn(launch.ctx, g_stream);
        CML_CHECK(cudaEventRecord(stop, g_stream));
        CML_CHECK(cudaDeviceSynchronize());
        if (io->touch_output)
            touch_pages(h_out, out_elems);
        ms[rep] = now_ms() - t0;
        CML_CHECK_LAUNCH();
        float e = 0;
        CML_CHECK(cudaEventElapsedTime(&e, start, stop));
        ev[rep] = e;
        t.reps = rep + 1;
        if (t.reps < MIN_REPS)
            continue;
        t.ms = median_of(ms, t.reps, sorted, &t.spread);
        if (t.spread < 0.02 || now_ms() - begun > 2500)
            break;
    }
    t.event_ms = median_of(ev, t.reps, sorted, NULL);
    CML_CHECK(cudaEventDestroy(start));
    CML_CHECK(cudaEventDestroy(stop));
    return t;
}

/* The table row of a timed host case: end-to-end ms, link GB/s, and the pinned-copy bound. */
static void host_row(const cml_case *c, const cml_host_io *io, const host_timing *t,
                     const char *verdict)
{
    double h2d = 0, d2h = 0;
    cml_pinned_gbps(&h2d, &d2h);
    const uint64_t bytes = io->h2d_bytes + io->d2h_bytes;
    const double gbps = bytes / (t->ms * 1e6);
    const double bound_ms = std::max(io->h2d_bytes / (h2d * 1e6), io->d2h_bytes / (d2h * 1e6));
    printf("  %-5s %-30s %-28s %-6s %9.4f %9.1f %6.1f%%\n", c->task->id, c->task->kernel,
           c->text, verdict, t->ms, gbps, 100 * bound_ms / t->ms);
    cml_record("note task=%s msg=%s %s %s %.4f ms end to end (events %.4f ms) %.1f GB/s over the "
               "link, %.3f of the pinned-copy bound", c->task->id, c->task->kernel, c->text,
               verdict, t->ms, t->event_ms, gbps, bound_ms / t->ms);
}

void cml_run_case_host_l(const cml_case *c, float *h_out, size_t out_elems, const cml_host_io *io,
                         cml_launcher launch)
{
    char why[256], file[64] = "";
    memset(h_out, CML_POISON_BYTE, out_elems * sizeof(float));
    if (io->reset.fn)
        io->reset.fn(io->reset.ctx, g_stream);
    g_todo_msg = NULL;
    g_last_host_ms = 0;
    launch.fn(launch.ctx, g_stream);
    if (cml_case_todo(c) || cml_current_reported) /* a TODO, or a technique check failed */
        return;
    sync_task_kernels();
    int check = c->task->expect && (g_mode == MODE_TABLE || cml_result_fd() < 0);
    uint64_t nbad = check ? self_check(c, h_out, 0, out_elems, why, sizeof why) : 0;
    if (g_mode == MODE_GRADE) {
        if (!g_opt.no_output && write_output(h_out, 0, out_elems, file, sizeof file) != 0)
            return;
        record_case_ok(c, out_elems, file, check, nbad, why);
        if (!c->timed)
            return;
    }
    host_timing t = time_host(launch, io, h_out, out_elems);
    g_last_host_ms = t.ms;
    const uint64_t bytes = io->h2d_bytes + io->d2h_bytes;
    if (g_mode == MODE_GRADE) {
        cml_record("time k=%d task=%s ms=%.4f host_ms=%.4f reps=%d spread=%.4f bytes=%llu "
                   "event_ms=%.4f", c->k, c->task->id, t.ms, t.ms, t.reps, t.spread,
                   (unsigned long long)bytes, t.event_ms);
        printf("  %.4f ms end to end (events %.4f ms, %d reps, spread %.1f%%), %.1f GB/s over "
               "the host link\n", t.ms, t.event_ms, t.reps, 100 * t.spread,
               bytes / (t.ms * 1e6));
        return;
    }
    cml_current_reported = 1;
    g_row_status = CML_ROW_RAN;
    host_row(c, io, &t, !check ? "-" : nbad ? "WRONG" : "ok");
    if (nbad)
        printf("        %llu of %zu elements differ; %s\n", (unsigned long long)nbad, out_elems,
               why);
}
