/* The tally of a trace (technique_run.h, cml_trace_tally_of): which of its calls are the
 * student's, and what the copy engines moved and the allocator made for them. No GPU: the tests
 * feed it traces shaped like an H100's. */
#include "technique_run.h"
#include "trace_calls.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    unsigned long long addr;
    const char *name; /* into the nm text, up to its newline */
} sym;

static int by_addr(const void *a, const void *b)
{
    const sym *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_name(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    size_t nx = strcspn(x, "\n"), ny = strcspn(y, "\n");
    int c = strncmp(x, y, nx < ny ? nx : ny);
    return c ? c : (nx > ny) - (nx < ny);
}

/* The functions of the lab binary (nm: "addr type name", code types only), by address. */
static sym *code_symbols(const char *nm, int *n)
{
    sym *s = cml_grow(NULL, 0, sizeof *s);
    *n = 0;
    for (const char *p = nm; s && p && *p; p += strcspn(p, "\n"), p += *p == '\n') {
        char *end = NULL;
        unsigned long long a = strtoull(p, &end, 16);
        if (end == p || end[0] != ' ' || !strchr("TtWwi", end[1]) || end[1] == '\0' ||
            end[2] != ' ')
            continue;
        if (!(s = cml_grow(s, *n, sizeof *s)))
            return NULL;
        s[(*n)++] = (sym){a, end + 3};
    }
    if (s)
        qsort(s, *n, sizeof *s, by_addr);
    return s;
}

/* The names the student's objects define ("T|t|W name" lines of .symbols), sorted. */
static const char **student_names(const char *symbols, int *n)
{
    const char **v = cml_grow(NULL, 0, sizeof *v);
    *n = 0;
    for (const char *p = symbols; v && p && *p; p += strcspn(p, "\n"), p += *p == '\n') {
        if (!strchr("TtW", p[0]) || p[0] == '\0' || p[1] != ' ')
            continue;
        if (!(v = cml_grow(v, *n, sizeof *v)))
            return NULL;
        v[(*n)++] = p + 2;
    }
    if (v)
        qsort(v, *n, sizeof *v, by_name);
    return v;
}

/* The student's function that a frame list ("off,off,...", innermost first) passes through,
 * into who (its name, capped); 1 when there is one. */
static int student_frame(const char *frames, const sym *syms, int ns, const char **names,
                         int nn, char *who, size_t wlen)
{
    for (const char *f = frames; f && *f && *f != '\n';) {
        char *end = NULL;
        unsigned long long off = strtoull(f, &end, 16);
        if (end == f)
            return 0;
        int lo = 0, hi = ns - 1, at = -1; /* the last symbol at or before off */
        while (lo <= hi) {
            int mid = (lo + hi) / 2;
            if (syms[mid].addr <= off)
                at = mid, lo = mid + 1;
            else
                hi = mid - 1;
        }
        if (at >= 0 && bsearch(&syms[at].name, names, nn, sizeof *names, by_name)) {
            snprintf(who, wlen, "%.*s", (int)strcspn(syms[at].name, "\n"), syms[at].name);
            return 1;
        }
        f = end + (*end == ',');
    }
    return 0;
}

/* The number after "key=" in the line at p (up to its newline), or 0. */
static unsigned long long field(const char *p, const char *key)
{
    size_t n = strcspn(p, "\n"), k = strlen(key);
    for (const char *q = p; q + k < p + n; q++)
        if ((q == p || q[-1] == ' ') && strncmp(q, key, k) == 0 && q[k] == '=')
            return strtoull(q + k + 1, NULL, 10);
    return 0;
}

typedef struct {
    unsigned corr;
    int student;     /* a frame of its stack is the student's */
    char name[48];   /* "cuMemAdvise_v2" */
    char what[160];  /* "cuMemcpyHtoDAsync_v2 in um_add" */
} call;

/* The profiling windows the harness opened (cudaProfilerStart .. Stop around each call of the
 * task's API function: the checked launch, common/cml_run_case.cpp, with its case marker, and
 * each warm-up and timed repetition, cml_timing.cpp), by correlation id. A Stop closes only a
 * window that was recorded (past the cap, none is). */
enum { MAX_WINDOWS = 128 };
typedef struct {
    unsigned start[MAX_WINDOWS], stop[MAX_WINDOWS];
    int checked[MAX_WINDOWS];
    int n, open;
} windows;

/* The memory call with correlation id corr, or NULL. */
static const call *find_call(const call *calls, int n, unsigned corr)
{
    for (int i = 0; i < n; i++)
        if (calls[i].corr == corr)
            return &calls[i];
    return NULL;
}

/* Counts bytes for measure m of t, naming the first call. */
static void add(cml_trace_tally *t, int m, unsigned long long bytes, const char *what)
{
    if (t->v[m] == 0 && bytes)
        snprintf(t->first[m], sizeof t->first[m], "%s", what);
    t->v[m] += (double)bytes;
}

/* The text after "key=" in the line at p up to the next space or newline, into out. */
static void word(const char *p, const char *key, char *out, size_t len)
{
    const char *q = strstr(p, key);
    size_t n = strcspn(p, "\n"), k = strlen(key);
    out[0] = '\0';
    if (q && q < p + n && q[k] == '=')
        snprintf(out, len, "%.*s", (int)strcspn(q + k + 1, " \n"), q + k + 1);
}

/* The window corr lies in, or -1. */
static int window_of(const windows *w, unsigned corr)
{
    for (int i = 0; i < w->n; i++)
        if (corr > w->start[i] && corr < w->stop[i])
            return i;
    return -1;
}

/* The structure of what the student's code launched (issue 44), from the `launch` lines (the
 * calls: their streams) and the `kernel` lines (what ran, graph nodes included). A kernel is
 * the student's when its launch call is (a frame of its stack) or when its mangled name is a
 * function the student's objects define (the kernel's host stub: a graph of the student's
 * kernels that the harness launched, lab 06's captured launch, is theirs too). The harness's
 * stream is the one its case marker (cml_case_mark, common/cml_gpu.cu) was launched on, first
 * in every window: the `stream` every wrapper is handed. */
static int structure(const char *trace, const char *end, const call *calls, int ncalls,
                     const char **names, int nn, windows *w, cml_call_shapes *cs,
                     cml_trace_tally *t)
{
    char stream[40] = "", s[40], fn[160], what[200];
    int kernels = 0, checked = 0;
    /* a window that holds a case marker is a checked call; the others are repetitions */
    for (const char *p = trace; p < end; p += strcspn(p, "\n"), p += *p == '\n')
        if (strncmp(p, "launch ", 7) == 0 && strstr(p, " fn=cml_case_mark\n")) {
            if (!stream[0])
                word(p, "stream", stream, sizeof stream);
            const int i = window_of(w, (unsigned)field(p, "corr"));
            if (i >= 0 && !w->checked[i])
                w->checked[i] = 1, checked++;
        }
    for (const char *p = trace; p < end; p += strcspn(p, "\n"), p += *p == '\n') {
        const int launch = strncmp(p, "launch ", 7) == 0, kernel = strncmp(p, "kernel ", 7) == 0;
        if (!launch && !kernel)
            continue;
        const call *c = find_call(calls, ncalls, (unsigned)field(p, "corr"));
        word(p, launch ? "fn" : "name", fn, sizeof fn);
        const char *name = strstr(p, launch ? " fn=" : " name=");
        name = name ? name + (launch ? 4 : 6) : "";
        const int mine = (c && c->student) ||
                         (*name && bsearch(&name, names, nn, sizeof *names, by_name));
        if (!mine)
            continue;
        const int in = kernel ? window_of(w, (unsigned)field(p, "corr")) : -1;
        if (in >= 0 && w->checked[in] && kernels++ == 0) /* the detail names the first */
            snprintf(t->first[CML_TRACE_LAUNCHES_PER_CALL], 160, "%.150s", fn);
        if (in >= 0 && cml_shape_kernel(cs, in, p) != 0)
            return -1;
        word(p, "stream", s, sizeof s);
        if (!launch || (stream[0] && strcmp(s, stream) == 0 && strcmp(s, "0") != 0))
            continue;
        const int ptsz = field(p, "ptsz") == 1;
        snprintf(what, sizeof what, "%.60s on %s%.100s", fn, strcmp(s, "0") != 0 &&
                 strcmp(s, "0x1") != 0 && strcmp(s, "0x2") != 0 ? "stream " :
                 ptsz || strcmp(s, "0x2") == 0 ? "the per-thread default stream" :
                 "the legacy default stream", strcmp(s, "0") != 0 && strcmp(s, "0x1") != 0 &&
                 strcmp(s, "0x2") != 0 ? s : "");
        if (c)
            snprintf(what + strlen(what), sizeof what - strlen(what), ", %.100s",
                     c->what);
        add(t, CML_TRACE_OFF_STREAM, 1, what);
    }
    t->windows = checked;
    /* kernels named the first for the detail; a launch counts when it did a pass's share */
    t->v[CML_TRACE_LAUNCHES_PER_CALL] = checked ? (double)cml_shapes_pass_kernels(cs, w->checked)
                                                / checked : 0;
    cml_shapes_judge(cs, w->checked, t);
    return 0;
}

typedef struct {
    const call *calls;
    int n;
} calls_ctx;

/* cml_trace_mine over the calls (trace_streams.c). */
static int mine(void *ctx, unsigned corr, char *who, size_t wlen)
{
    const calls_ctx *x = ctx;
    const call *c = find_call(x->calls, x->n, corr);
    snprintf(who, wlen, "%s", c ? c->what : "a call the trace did not see");
    return !c || c->student;
}

/* Contract in technique_run.h. */
int cml_trace_tally_of(const char *trace, const char *nm, const char *student,
                       cml_trace_tally *t, char *why, size_t wlen)
{
    memset(t, 0, sizeof *t);
    int ns = 0, nn = 0, ncalls = 0, rc = 0;
    sym *syms = code_symbols(nm, &ns);
    const char **names = student_names(student, &nn);
    call *calls = cml_grow(NULL, 0, sizeof *calls);
    const char *end = NULL; /* the line `end`: what CUDA's teardown adds after it is not the
                               task's */
    windows w = {.n = 0};
    cml_call_shapes cs = {0};
    if (!syms || !names || !calls) {
        snprintf(why, wlen, "out of memory reading the trace");
        rc = -1;
    } else if (!trace || strncmp(trace, "cml-trace 1\n", 12) != 0) {
        snprintf(why, wlen, "the trace library wrote nothing (was it loaded?)");
        rc = -1;
    }
    /* first the calls (a record may come before or after its call's line) */
    for (const char *p = trace; rc == 0 && *p; p += strcspn(p, "\n"), p += *p == '\n') {
        char name[80], who[120] = "";
        if (strncmp(p, "end", 3) == 0 && (p[3] == '\n' || p[3] == '\0')) {
            end = p;
            break;
        } else if (strncmp(p, "error ", 6) == 0) {
            snprintf(why, wlen, "CUPTI: %.*s", (int)strcspn(p + 6, "\n"), p + 6);
            rc = -1;
        } else if (strncmp(p, "api drv ", 8) == 0 && sscanf(p + 8, "%79s", name) == 1) {
            if (!(calls = cml_grow(calls, ncalls, sizeof *calls))) {
                snprintf(why, wlen, "out of memory reading the trace");
                rc = -1;
                break;
            }
            const char *frames = strstr(p, " frames=");
            call *c = &calls[ncalls++];
            c->corr = (unsigned)field(p, "corr");
            c->student = frames && student_frame(frames + 8, syms, ns, names, nn, who,
                                                 sizeof who);
            snprintf(c->name, sizeof c->name, "%.47s", name);
            snprintf(c->what, sizeof c->what, "%.60s in %.90s", name, who);
            t->calls += c->student;
            w.open = strcmp(name, "cuProfilerStart") == 0 ? w.n < MAX_WINDOWS
                     : strcmp(name, "cuProfilerStop") == 0 ? 0 : w.open;
            if (strcmp(name, "cuProfilerStart") == 0 && w.open)
                w.start[w.n] = c->corr, w.stop[w.n++] = ~0u;
            else if (strcmp(name, "cuProfilerStop") == 0 && w.n > 0 && w.stop[w.n - 1] == ~0u)
                w.stop[w.n - 1] = c->corr;
        }
    }
    if (rc == 0 && !end) {
        snprintf(why, wlen, "the trace has no end: the lab did not exit normally");
        rc = -1;
    }
    if (rc == 0 && cml_shapes_init(&cs, w.n) != 0) {
        snprintf(why, wlen, "out of memory reading the trace");
        rc = -1;
    }
    /* then what the copy engines and the allocator did for them (and each call's bytes) */
    for (const char *p = trace; rc == 0 && p < end; p += strcspn(p, "\n"), p += *p == '\n') {
        int copy = strncmp(p, "memcpy ", 7) == 0, mem = strncmp(p, "memory ", 7) == 0;
        const int set = strncmp(p, "memset ", 7) == 0, pre = strncmp(p, "prefetch ", 9) == 0;
        unsigned corr = (unsigned)field(p, "corr");
        unsigned long long kind = field(p, "kind"), bytes = field(p, "bytes");
        if ((!copy && !mem && !set && !pre) || corr == 0) /* corr 0: a __device__ variable's */
            continue;
        const call *c = find_call(calls, ncalls, corr);
        char unseen[80];
        snprintf(unseen, sizeof unseen, "a call the trace did not see (id %u)", corr);
        const char *what = c ? c->what : unseen;
        if (c && !c->student) /* seen, and not the student's: the harness's */
            continue;
        if (pre) { /* a prefetch, its batch or discard form: pages moved by a call (issue 44) */
            add(t, CML_TRACE_PREFETCHES, 1, what);
            continue;
        }
        if (copy || set)
            cml_shape_bytes(&cs, window_of(&w, corr), set ? -1 : (int)kind, bytes);
        if (copy) {
            add(t, CML_TRACE_COPY, bytes, what);
            if (kind == 1)
                add(t, CML_TRACE_HTOD, bytes, what);
            else if (kind == 2)
                add(t, CML_TRACE_DTOH, bytes, what);
        } else if (field(p, "op") == 1 && kind != 5 && kind != 7) { /* 5, 7: managed */
            add(t, CML_TRACE_ALLOC, bytes, what);
            if (kind == 3 || kind == 4) /* device memory, a CUDA array */
                add(t, CML_TRACE_ALLOC_DEVICE, bytes, what);
        }
    }
    /* the student's advice and prefetch calls, window by window (calls_unlike_checked) */
    for (int i = 0; rc == 0 && i < ncalls; i++)
        if (calls[i].student &&
            cml_shape_placement(&cs, window_of(&w, calls[i].corr), calls[i].name) != 0) {
            snprintf(why, wlen, "out of memory reading the trace");
            rc = -1;
        }
    calls_ctx x = {calls, ncalls};
    if (rc == 0 && (structure(trace, end, calls, ncalls, names, nn, &w, &cs, t) != 0 ||
                    cml_ops_off_stream(trace, end, w.start, w.stop, w.n, mine, &x, t) != 0)) {
        snprintf(why, wlen, "out of memory reading the trace");
        rc = -1;
    }
    cml_shapes_free(&cs);
    free(syms);
    free(names);
    free(calls);
    return rc;
}
