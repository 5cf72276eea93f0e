/* The GPU this run uses: its properties and the one stream every launch and timer uses, the
 * device memory of the case in progress (cml_alloc, cml_input), and the bandwidths measured on
 * it that tables compare against (cudaMemcpy device to device; pinned host <-> device). */
#include "cml_lab_int.h"

#include <algorithm>
#include <math.h>
#include <string.h>
#include <thread>

/* The session: opened by cml_main once the GPU is known to be usable. */
static struct {
    cudaStream_t stream;
    cudaDeviceProp prop;
    double copy_gbps;              /* device to device, measured at start */
    double pinned_h2d, pinned_d2h; /* GB/s, 0 until first asked for */
} g_gpu;

/* The device memory of the case in progress, freed when the case ends (its inputs: how each
 * was filled and what it held, cml_inputs.cu). */
static struct {
    cml_guarded buf[16]; /* cml_guard.cpp: each in an address range of its own */
    int n;
} g_case_mem;

cudaStream_t cml_stream(void) { return g_gpu.stream; }
int cml_sm_count(void) { return g_gpu.prop.multiProcessorCount; }
int cml_l2_cache_bytes(void) { return g_gpu.prop.l2CacheSize; }
double cml_copy_gbps(void) { return g_gpu.copy_gbps; }

void cml_gpu_open(void)
{
    CML_CHECK(cudaGetDeviceProperties(&g_gpu.prop, 0));
    CML_CHECK(cudaStreamCreate(&g_gpu.stream));
}

void cml_gpu_close(void) { CML_CHECK(cudaStreamDestroy(g_gpu.stream)); }

/* The case marker: an empty kernel the harness launches first in each case's profiling window,
 * so that one ncu run of several cases can tell whose rows are whose (6_measure/ncu_csv.c, which
 * knows its name). extern "C": the name ncu shows is exactly this. */
extern "C" __global__ void cml_case_mark(void) {}

void cml_mark_case(void)
{
    cml_case_mark<<<1, 1, 0, g_gpu.stream>>>();
    (void)cudaGetLastError(); /* a marker that could not launch is the grader's to notice */
}

/* ---- the case's device memory ---- */

/* cml_alloc's and cml_alloc_host's one way: a guarded buffer of the case (host: pinned host
 * memory registered with `flags`). */
static float *case_alloc(size_t elems, int host, unsigned flags)
{
    if (cml_current_reported) /* an earlier allocation of this case already failed */
        return NULL;
    size_t bytes = elems * sizeof(float), free_b = 0, total_b = 0;
    const size_t margin = (size_t)64 << 20;
    if (!host)
        CML_CHECK(cudaMemGetInfo(&free_b, &total_b));
    cml_guarded *g = &g_case_mem.buf[g_case_mem.n];
    /* odd cases start-aligned: the byte before each buffer faults, not the byte after */
    const int start_aligned = cml_current_k > 0 && (cml_current_k & 1);
    cudaError_t err = elems == 0 || g_case_mem.n == 16 || elems > SIZE_MAX / 8 ||
                              (!host && bytes + margin > free_b)
                          ? cudaErrorMemoryAllocation
                      : host ? cml_guard_alloc_host(bytes, start_aligned, flags, g)
                             : cml_guard_alloc(bytes, start_aligned, g);
    if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError(); /* not sticky: clear it */
        if (host)
            cml_case_fail("cannot pin %.2f GiB of host memory", bytes / 1073741824.0);
        else
            cml_case_fail("not enough GPU memory: %.2f GiB asked, %.2f GiB free (64 MiB kept "
                          "spare)", bytes / 1073741824.0, free_b / 1073741824.0);
        return NULL;
    }
    CML_CHECK(err);
    g_case_mem.n++;
    cml_exact_open(g);
    return (float *)g->p;
}

void cml_exact(const float *p, size_t elems)
{
    for (int i = 0; i < g_case_mem.n; i++) {
        cml_guarded *g = &g_case_mem.buf[i];
        const char *b = (const char *)g->p, *q = (const char *)p;
        if (q >= b && q + elems * sizeof(float) <= b + g->bytes) {
            g->task_p = p;
            g->task_bytes = elems * sizeof(float);
            cml_exact_set(g, p, g->task_bytes);
            return;
        }
    }
    cml_case_fail("harness error: cml_exact given a range outside the case's buffers");
}

float *cml_alloc(size_t elems) { return case_alloc(elems, 0, 0); }

float *cml_alloc_host(size_t elems, unsigned flags) { return case_alloc(elems, 1, flags); }

/* Contract in cml_lab_int.h. */
cml_guarded *cml_case_buffer(const void *p)
{
    for (int i = 0; i < g_case_mem.n; i++)
        if (g_case_mem.buf[i].p == p)
            return &g_case_mem.buf[i];
    return NULL;
}

int cml_case_canaries(char *why, size_t len)
{
    for (int i = 0; i < g_case_mem.n; i++) {
        int after = 0;
        const cml_guarded *g = &g_case_mem.buf[i];
        const unsigned long long changed = cml_guard_changed(g, &after);
        if (changed) {
            snprintf(why, len, "the task's kernels wrote %llu byte(s) %s a %s buffer of %zu "
                     "floats", changed, after ? "past the end of" : "before",
                     g->host ? "pinned host" : "device", g->bytes / sizeof(float));
            return -1;
        }
    }
    return 0;
}

int cml_case_host_pages(const void *p, void **start, size_t *bytes)
{
    for (int i = 0; i < g_case_mem.n; i++) {
        const cml_guarded *g = &g_case_mem.buf[i];
        if (g->host && g->va && (const char *)p >= (const char *)g->map &&
            (const char *)p < (const char *)g->map + g->map_bytes) {
            *start = g->map, *bytes = g->map_bytes;
            return 0;
        }
    }
    return -1;
}

void cml_free_case_allocs(void)
{
    CML_CHECK(cudaDeviceSynchronize());
    cml_inputs_forget();
    while (g_case_mem.n > 0)
        cml_guard_free(&g_case_mem.buf[--g_case_mem.n]);
}

/* ---- bytes that are no longer a value (the guard regions' canaries, cml_guard.cpp) ---- */

__global__ void countNot(const unsigned char *p, size_t n, unsigned char v,
                         unsigned long long *count)
{
    unsigned long long c = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        c += p[i] != v;
    if (c)
        atomicAdd(count, c);
}

unsigned long long cml_count_not(const void *p, size_t n, unsigned char v)
{
    static unsigned long long *d_count; /* lives as long as the run */
    unsigned long long c = 0;
    if (!d_count)
        CML_CHECK(cudaMalloc(&d_count, sizeof *d_count));
    CML_CHECK(cudaMemsetAsync(d_count, 0, sizeof *d_count, g_gpu.stream));
    const size_t blocks = std::min((n + 255) / 256, (size_t)cml_sm_count() * 8);
    countNot<<<(unsigned)blocks, 256, 0, g_gpu.stream>>>((const unsigned char *)p, n, v, d_count);
    CML_CHECK_LAUNCH();
    CML_CHECK(cudaMemcpyAsync(&c, d_count, sizeof c, cudaMemcpyDeviceToHost, g_gpu.stream));
    CML_CHECK(cudaStreamSynchronize(g_gpu.stream));
    return c;
}

/* ---- the evidence of a timed repetition's output (cml_rand.h) ---- */

struct evidence_sums {
    unsigned long long hash;
    double wsum, wabs;
};

__global__ void outputEvidence(const float *out, size_t n, evidence_sums *sums)
{
    unsigned long long h = 0;
    double ws = 0, wa = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const float v = out[i];
        h += cml_evidence_term(i, __float_as_uint(v));
        if (cml_evidence_weighed(v)) { /* else in the hash alone (cml_rand.h) */
            const double w = cml_evidence_weight(i);
            ws += w * v;
            wa += w * fabs((double)v);
        }
    }
    for (int d = 16; d > 0; d /= 2) { /* warp sums, then one atomic per warp */
        h += __shfl_down_sync(0xFFFFFFFFu, h, d);
        ws += __shfl_down_sync(0xFFFFFFFFu, ws, d);
        wa += __shfl_down_sync(0xFFFFFFFFu, wa, d);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&sums->hash, h);
        atomicAdd(&sums->wsum, ws);
        atomicAdd(&sums->wabs, wa);
    }
}

/* ---- host threads: large host buffers are written and summed by several cores ---- */


/* part(t, b, e) for t in [0, nt): items [b, e) of n, on nt threads (one per `per` items, at most
 * the cores and 16; the caller is thread 0). nt is returned. */
template <class F> static size_t host_split(size_t n, size_t per, F part)
{
    const unsigned hw = std::thread::hardware_concurrency();
    const size_t nt = std::max<size_t>(
        1, std::min<size_t>(std::min(hw ? hw : 1u, (unsigned)CML_MAX_HOST_THREADS), n / per + 1));
    std::thread th[CML_MAX_HOST_THREADS];
    for (size_t t = 1; t < nt; t++)
        th[t] = std::thread(part, t, n * t / nt, n * (t + 1) / nt);
    part((size_t)0, (size_t)0, n / nt);
    for (size_t t = 1; t < nt; t++)
        th[t].join();
    return nt;
}

/* Contract in cml_lab_int.h. */
size_t cml_host_parts(size_t n, size_t per, void (*part)(void *ctx, size_t t, size_t b, size_t e),
                      void *ctx)
{
    return host_split(n, per, [&](size_t t, size_t b, size_t e) { part(ctx, t, b, e); });
}

/* Contract in cml_lab.h. One core writes about 10 GB/s; lab 07 rewrites 512 MiB of managed
 * inputs and poisons 256 MiB of output before every repetition. */
void cml_host_copy(void *dst, const void *src, size_t bytes)
{
    host_split(bytes, (size_t)8 << 20, [&](size_t, size_t b, size_t e) {
        memcpy((char *)dst + b, (const char *)src + b, e - b);
    });
}

void cml_host_set(void *dst, int byte, size_t bytes)
{
    host_split(bytes, (size_t)8 << 20,
               [&](size_t, size_t b, size_t e) { memset((char *)dst + b, byte, e - b); });
}

/* Managed outputs are summed by the host (threads): a kernel reading managed memory would move
 * its pages to the GPU, and the next repetition must find them where the last one left them. */
static cml_evidence host_evidence(const float *out, size_t n)
{
    cml_evidence part[CML_MAX_HOST_THREADS] = {};
    const size_t nt = host_split(n, 65536, [&](size_t t, size_t b, size_t e) {
        cml_evidence p = {0, 0, 0};
        for (size_t i = b; i < e; i++) {
            uint32_t bits;
            memcpy(&bits, &out[i], sizeof bits);
            p.hash += cml_evidence_term(i, bits);
            if (!cml_evidence_weighed(out[i]))
                continue; /* in the hash alone (cml_rand.h) */
            const double w = cml_evidence_weight(i);
            p.wsum += w * out[i];
            p.wabs += w * fabs((double)out[i]);
        }
        part[t] = p;
    });
    cml_evidence all = {0, 0, 0};
    for (size_t t = 0; t < nt; t++)
        all.hash += part[t].hash, all.wsum += part[t].wsum, all.wabs += part[t].wabs;
    return all;
}

cml_evidence cml_output_evidence(const float *out, size_t n, int on_host)
{
    cudaPointerAttributes a;
    if (on_host && (cudaPointerGetAttributes(&a, out) != cudaSuccess ||
                    a.type != cudaMemoryTypeHost)) {
        (void)cudaGetLastError();
        return host_evidence(out, n); /* managed (or unknown) memory stays where it is */
    }
    /* device memory, or pinned host memory, which a kernel reads in place under unified
     * addressing (about 5 ms for 256 MiB over the link, against about 20 ms for the host) */
    static evidence_sums *d_sums;
    if (!d_sums)
        CML_CHECK(cudaMalloc(&d_sums, sizeof *d_sums));
    evidence_sums h = {0, 0, 0};
    CML_CHECK(cudaMemsetAsync(d_sums, 0, sizeof *d_sums, g_gpu.stream));
    const size_t blocks = std::min((n + 255) / 256, (size_t)cml_sm_count() * 8);
    outputEvidence<<<(unsigned)std::max<size_t>(blocks, 1), 256, 0, g_gpu.stream>>>(out, n, d_sums);
    CML_CHECK_LAUNCH();
    CML_CHECK(cudaMemcpyAsync(&h, d_sums, sizeof h, cudaMemcpyDeviceToHost, g_gpu.stream));
    CML_CHECK(cudaStreamSynchronize(g_gpu.stream));
    return cml_evidence{h.hash, h.wsum, h.wabs};
}

/* ---- measured bandwidths ---- */

/* cudaMemcpy device to device of 1 GiB (less when memory is short); bytes = read + written. */
void cml_measure_copy_bandwidth(void)
{
    size_t free_b = 0, total_b = 0, size = (size_t)1 << 30;
    CML_CHECK(cudaMemGetInfo(&free_b, &total_b));
    while (size > ((size_t)16 << 20) && 2 * size + ((size_t)256 << 20) > free_b)
        size /= 2;
    void *src = NULL, *dst = NULL;
    CML_CHECK(cudaMalloc(&src, size));
    CML_CHECK(cudaMalloc(&dst, size));
    CML_CHECK(cudaMemsetAsync(src, 0x3C, size, g_gpu.stream));
    auto copy = [&](cudaStream_t s) {
        CML_CHECK(cudaMemcpyAsync(dst, src, size, cudaMemcpyDeviceToDevice, s));
    };
    cml_timing t = cml_time(cml_launcher_of(copy), NULL, 0);
    g_gpu.copy_gbps = 2.0 * size / (t.ms * 1e6);
    cml_record("copybw gbps=%.1f bytes=%zu", g_gpu.copy_gbps, 2 * size);
    CML_CHECK(cudaFree(src));
    CML_CHECK(cudaFree(dst));
}

void cml_pinned_gbps(double *h2d, double *d2h)
{
    if (g_gpu.pinned_h2d == 0) {
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
        g_gpu.pinned_h2d = size / (cml_time(cml_launcher_of(up), NULL, 0).ms * 1e6);
        g_gpu.pinned_d2h = size / (cml_time(cml_launcher_of(down), NULL, 0).ms * 1e6);
        cml_record("linkbw h2d=%.1f d2h=%.1f bytes=%zu", g_gpu.pinned_h2d, g_gpu.pinned_d2h,
                   size);
        CML_CHECK(cudaFree(d));
        CML_CHECK(cudaFreeHost(h));
    }
    *h2d = g_gpu.pinned_h2d;
    *d2h = g_gpu.pinned_d2h;
}
