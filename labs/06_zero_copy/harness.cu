/* Lab 06 harness (pristine): the tasks and their cases, the zero-copy technique checks and the
 * bench table. Host buffers are filled from the seeded inputs, outputs are read by the host and
 * every time is end to end (common/cml_run_case.cpp and cml_timing.cpp). The student's code lives
 * in zerocopy.cu (6.1) and copies.cu (6.2, 6.3). */
#include "zerocopy.h"

#include <stdio.h>

// ---- the right output, for self-checks (the grader computes its own) ----

static int case_passes(const cml_case *c) { return (int)cml_case_key(c, "passes", 1); }

static float expect_saxpy(const cml_case *c, uint64_t seed, uint64_t i)
{
    const float x = cml_rand_f32(seed, 0, i);
    float out = cml_rand_f32(seed, 1, i);
    for (int p = 0; p < case_passes(c); p++)
        out = SAXPY_A * x + out; /* exact product: one rounding, fused or not */
    return out;
}

// ---- host buffers: x, y, out; pinned, the student's (6.1: freed when the run function
// returns) or the harness's (6.2, 6.3: cml_alloc_host's, freed when the case ends) ----

struct host_bufs {
    float *p[3] = {NULL, NULL, NULL}; /* x, y, out */
    bool students = false;            /* from zc_alloc_mapped: cudaFreeHost them here */
    ~host_bufs()
    {
        for (float *q : p)
            if (q && students)
                CML_CHECK(cudaFreeHost(q));
    }
};

/* x and y: the seeded input streams 0 and 1, generated on the GPU (in gen) and copied into h;
 * copied again before every timed repetition, which fills gen from its own seed. The task only
 * reads them (zerocopy.h): after its checked launch they must still equal gen (issue 44: a saxpy
 * that accumulated its passes in y passed while it destroyed the caller's y). */
struct inputs {
    host_bufs *h;
    size_t n;
    float *gen[2] = {NULL, NULL};
    int make(host_bufs &hb, size_t elems)
    {
        h = &hb, n = elems;
        for (uint32_t s = 0; s < 2; s++) {
            if (!(gen[s] = cml_input(n, s)))
                return -1;
            cml_input_copy(h->p[s], gen[s], s ? "h_y" : "h_x");
        }
        copy(cml_stream());
        return 0;
    }
    void copy(cudaStream_t s) const
    {
        for (int i = 0; i < 2; i++)
            CML_CHECK(cudaMemcpyAsync(h->p[i], gen[i], n * sizeof(float),
                                      cudaMemcpyDeviceToHost, s));
        CML_CHECK(cudaStreamSynchronize(s));
    }
};

/* The harness's own buffers for 6.2 and 6.3 (flags: cudaHostAllocDefault or ...Mapped), each
 * between pages a kernel may not touch (common/cml_guard.cpp), freed when the case ends. */
static int alloc_host(host_bufs &h, inputs &in, size_t n, unsigned flags)
{
    for (float *&q : h.p)
        if (!(q = cml_alloc_host(n, flags)))
            return -1;
    return in.make(h, n);
}

/* Reads the case's passes (1..1000) into *passes; 0, or -1 with the case failed. */
static int get_passes(const cml_case *c, int *passes)
{
    const uint64_t p = cml_case_key(c, "passes", 1);
    if (p < 1 || p > 1000) {
        cml_case_fail("passes must be between 1 and 1000");
        return -1;
    }
    *passes = (int)p;
    return 0;
}

// ---- 6.1's technique checks ----

/* Check 1, on each zc_alloc_mapped result: cudaPointerGetAttributes must see pinned host memory
 * with a device mapping. Catches malloc (unregistered), cudaMalloc (device) and managed memory. */
static int is_mapped_pinned(const float *h)
{
    static const char *const KIND[] = {"unregistered (malloc?)", "pinned host", "device",
                                       "managed"};
    cudaPointerAttributes a;
    if (!h) {
        cml_case_fail("zc_alloc_mapped returned NULL");
        return 0;
    }
    CML_CHECK(cudaPointerGetAttributes(&a, h));
    if (a.type == cudaMemoryTypeHost && a.devicePointer)
        return 1;
    cml_case_fail("zc_alloc_mapped returned %s memory: zero-copy needs pinned host memory that "
                  "the GPU maps (cudaHostAlloc with cudaHostAllocMapped)",
                  (unsigned)a.type < 4 ? KIND[a.type] : "unknown");
    return 0;
}

static const char NO_KERNEL[] = "no kernel";

/* The type of the first graph node that is not a kernel (or an empty node), or NULL; NO_KERNEL
 * for a graph with no node at all: nothing ran on the GPU. */
static const char *first_non_kernel(cudaGraph_t g)
{
    static const char *const NAME[] = {"kernel", "memcpy", "memset", "host function",
                                       "child graph", "empty node", "event wait",
                                       "event record", "semaphore signal", "semaphore wait",
                                       "memory allocation", "memory free"};
    size_t count = 0;
    CML_CHECK(cudaGraphGetNodes(g, NULL, &count));
    cudaGraphNode_t nodes[256];
    if (count == 0)
        return NO_KERNEL;
    if (count > 256)
        return "graph of more than 256 nodes";
    CML_CHECK(cudaGraphGetNodes(g, nodes, &count));
    for (size_t i = 0; i < count; i++) {
        cudaGraphNodeType t;
        CML_CHECK(cudaGraphNodeGetType(nodes[i], &t));
        if (t != cudaGraphNodeTypeKernel && t != cudaGraphNodeTypeEmpty)
            return (unsigned)t < 12 ? NAME[t] : "node that is not a kernel";
    }
    return NULL;
}

/* Check 2, on the checked run: zc_saxpy runs under stream capture, so its work on `stream` is
 * recorded, not run. Only kernel nodes may appear; a cudaMemcpy(Async), a cudaMemset or a
 * synchronize (which a capture refuses) fails the case. The graph then runs for the output. */
static void zc_saxpy_captured(float *out, const float *x, const float *y, size_t n, int passes,
                              cudaStream_t s)
{
    cudaGraph_t graph = NULL;
    CML_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    zc_saxpy(out, x, y, n, passes, s);
    cudaError_t err = cudaStreamEndCapture(s, &graph);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        cml_case_fail("zc_saxpy did something a stream capture cannot record (%s): the zero-copy "
                      "path may only launch kernels on `stream`: no copies, no synchronize",
                      cudaGetErrorName(err));
        return;
    }
    const char *bad = first_non_kernel(graph);
    if (!bad) {
        cudaGraphExec_t exec;
        CML_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        CML_CHECK(cudaGraphLaunch(exec, s));
        CML_CHECK(cudaStreamSynchronize(s));
        CML_CHECK(cudaGraphExecDestroy(exec));
    }
    CML_CHECK(cudaGraphDestroy(graph));
    if (bad == NO_KERNEL)
        cml_case_fail("zc_saxpy launched no kernel on `stream`: the GPU must do the passes, not "
                      "the host's cores");
    else if (bad)
        cml_case_fail("the zero-copy path put a %s on `stream`: its data must move only through "
                      "the kernels' own loads and stores (no cudaMemcpy, no cudaMemset)", bad);
}

// ---- one run function per task ----

/* What the case carries over the link, and how its inputs are restored before every
 * repetition. */
template <class F> static cml_host_io link_io(size_t n, int trips, F &reset)
{
    const uint64_t f = (uint64_t)n * sizeof(float) * trips;
    cml_host_io io = {};
    io.h2d_bytes = 2 * f, io.d2h_bytes = f;
    io.reset = cml_launcher_of(reset);
    return io;
}

/* 6.1: the student's buffers (checked), the student's zero-copy passes (captured once). */
static void run_zero_copy(const cml_case *c)
{
    const size_t n = c->n;
    int passes = 0;
    host_bufs h;
    h.students = true;
    if (get_passes(c, &passes) != 0)
        return;
    cml_todo_reset();
    for (float *&q : h.p) {
        float *p = zc_alloc_mapped(n);
        if (cml_case_todo(c) || !is_mapped_pinned(p))
            return;
        q = p;
    }
    inputs in;
    if (in.make(h, n) != 0)
        return;
    auto reset = [&](cudaStream_t s) { in.copy(s); };
    cml_host_io io = link_io(n, passes, reset); /* every pass crosses the link */
    io.guard_cpu = 1; /* kernels alone do the work: the host's cores may not */
    int checked = 0;
    cml_run_case_host(c, h.p[2], n, &io, [&](cudaStream_t s) {
        if (checked++ == 0)
            zc_saxpy_captured(h.p[2], h.p[0], h.p[1], n, passes, s);
        else
            zc_saxpy(h.p[2], h.p[0], h.p[1], n, passes, s);
    });
}

typedef void (*device_saxpy_fn)(float *, const float *, const float *, size_t, int, float *,
                                float *, cudaStream_t);

/* 6.2 and 6.3: the harness's pinned buffers (mapped for 6.3) and two device buffers. */
static void run_with_device(const cml_case *c, device_saxpy_fn fn, unsigned flags)
{
    const size_t n = c->n;
    int passes = 0;
    host_bufs h;
    inputs in;
    if (get_passes(c, &passes) != 0 || alloc_host(h, in, n, flags) != 0)
        return;
    float *d_x = cml_alloc(n), *d_y = cml_alloc(n);
    if (!d_x || !d_y)
        return;
    auto reset = [&](cudaStream_t s) { in.copy(s); };
    cml_host_io io = link_io(n, 1, reset); /* the least any strategy moves: in, out once */
    /* 6.2 copies in, computes in device memory and copies out; 6.3 calls 6.1's or 6.2's path:
     * kernels and copies write the output, the host's cores never (issue 44: a best_saxpy that
     * computed an eighth on the CPU beside the zero-copy kernels passed). The output is the
     * harness's own (cml_alloc_host), guarded whole at every size; the driver's own CPU copy of
     * a small transfer lifts the guard, never a false fail (common/cml_run_case.cpp). */
    io.guard_cpu = 1;
    cml_run_case_host(c, h.p[2], n, &io, [&](cudaStream_t s) {
        fn(h.p[2], h.p[0], h.p[1], n, passes, d_x, d_y, s);
    });
}

static void run_copies(const cml_case *c) { run_with_device(c, copy_saxpy, cudaHostAllocDefault); }
static void run_best(const cml_case *c) { run_with_device(c, best_saxpy, cudaHostAllocMapped); }

// ---- the lab ----

#define BIG "n=67108864" /* 256 MiB per buffer */
static const cml_task TASKS[] = {
    {"6.1", "saxpyMapped (zero-copy)", "n,passes", BIG "," "passes=1", run_zero_copy,
     expect_saxpy},
    {"6.2", "saxpyDevice (copies)", "n,passes", BIG ",passes=1", run_copies, expect_saxpy},
    {"6.3a", "best_saxpy", "n,passes", BIG ",passes=1", run_best, expect_saxpy},
    {"6.3b", "best_saxpy", "n,passes", BIG ",passes=10", run_best, expect_saxpy},
};

static double ratio(double a, double b) { return a > 0 && b > 0 ? a / b : 0; }

/* The bench's conclusions, as lines and as notes: the figures the lecture note quotes. */
static void summary(double zc1, double cp1, double zc10, double cp10)
{
    double h2d = 0, d2h = 0;
    cml_pinned_gbps(&h2d, &d2h);
    const double bytes = 67108864.0 * sizeof(float);
    const double bound = std::max(2 * bytes / (h2d * 1e6), bytes / (d2h * 1e6));
    char line[3][256];
    snprintf(line[0], sizeof line[0], "zero-copy single pass reaches %.3f of the pinned-copy "
             "bound (%.2f ms: 2n floats in at %.1f GB/s while n go out at %.1f GB/s)",
             ratio(bound, zc1), bound, h2d, d2h);
    snprintf(line[1], sizeof line[1], "one pass: copies / zero-copy = %.2f (%.2f vs %.2f ms)",
             ratio(cp1, zc1), cp1, zc1);
    snprintf(line[2], sizeof line[2], "ten passes: zero-copy / copies = %.2f (%.2f vs %.2f ms)",
             ratio(zc10, cp10), zc10, cp10);
    printf("\nsummary (0 where a row did not run)\n");
    for (auto &l : line) {
        printf("  %s\n", l);
        cml_record("note task=- msg=%s", l);
    }
}

static void bench(void)
{
    double h2d = 0, d2h = 0;
    cml_pinned_gbps(&h2d, &d2h);
    printf("\npinned cudaMemcpy, 256 MiB: host-to-device %.1f GB/s, device-to-host %.1f GB/s\n",
           h2d, d2h);
    double ms[4] = {0, 0, 0, 0};
    const char *const spec[2] = {BIG ",passes=1", BIG ",passes=10"};
    for (int p = 0; p < 2; p++) {
        cml_table_title_host(p ? "ten saxpy passes: zero-copy (6.1) vs copies (6.2)"
                               : "one saxpy pass: zero-copy (6.1) vs copies (6.2)");
        for (int t = 0; t < 2; t++) {
            cml_table_run(&TASKS[t], spec[p]);
            ms[2 * p + t] = cml_last_host_ms();
        }
    }
    cml_table_title_host("6.3: your choice at each pass count the grader times");
    cml_table_run(&TASKS[2], spec[0]);
    cml_table_run(&TASKS[2], BIG ",passes=2");
    cml_table_run(&TASKS[3], BIG ",passes=5");
    cml_table_run(&TASKS[3], spec[1]);
    summary(ms[0], ms[1], ms[2], ms[3]);
}

static void extras(void)
{
    printf("\n(for these host-involved tasks, ms is end to end and the last column is the "
           "pinned-copy bound over that time: see --bench)\n");
}

int main(int argc, char **argv)
{
    static const cml_lab lab = {"06_zero_copy", "Zero-copy: mapped pinned host memory", TASKS,
                                (int)(sizeof TASKS / sizeof TASKS[0]), bench, extras};
    return cml_main(argc, argv, &lab);
}
