/* libcml-trace.so: the grader's CUPTI injection library (issue 23, "the bytes the copy engines
 * really moved, from a trace the grader owns"). The grader starts a lab with
 * CUDA_INJECTION64_PATH naming this library and CML_TRACE_OUT naming a file in the run folder;
 * the CUDA driver loads it at cuInit and calls InitializeInjection. It writes, one per line
 * (unified-memory counters are left out: enabling them at cuInit said CUPTI_ERROR_NOT_READY on
 * an H100, 2026-11-27):
 *   cml-trace 1                                     first line
 *   api drv NAME corr=C frames=OFF,OFF,...          every driver call and its caller's
 *                                                   stack, as offsets into the lab binary,
 *                                                   innermost first (other objects' frames
 *                                                   left out): a copy or an allocation is
 *                                                   recorded by the call that made it (cuMemMap
 *                                                   for one of the harness's guard regions),
 *                                                   so every call is followed
 *   memcpy kind=K bytes=B corr=C rtcorr=R stream=I  what a copy engine moved (CUPTI activity;
 *                                                   I: CUPTI's id of the stream it ran on)
 *   memset bytes=B corr=C stream=I
 *   memory op=O kind=K bytes=B corr=C               an allocation (op 1) or a free (op 2)
 *   launch stream=S ptsz=P grid=X,Y,Z block=X,Y,Z smem=B corr=C sid=I fn=NAME
 *                                                   a kernel or graph launch call (issue 44),
 *                                                   after its `api drv` line: the stream
 *                                                   handle it named (0: the legacy stream, or
 *                                                   the per-thread one when ptsz=1), its shape
 *                                                   (0 for a graph), its kernel's name and the
 *                                                   stream's CUPTI id (left out when CUPTI
 *                                                   gives none)
 *   prefetch stream=S ptsz=P corr=C op=NAME sid=I   a prefetch or discard call (no activity
 *                                                   record has its stream: issue 44)
 *   event record ev=E stream=S corr=C sid=I         an event recorded on a stream, and a
 *   event wait ev=E stream=S corr=C sid=I           stream made to wait for one: how work
 *                                                   on another stream joins the harness's
 *                                                   (6_measure/trace_streams.c)
 *   kernel grid=X,Y,Z block=X,Y,Z smem=B static=B corr=C graph=G stream=I ns=T name=NAME
 *                                                   a kernel that ran (CUPTI activity), by the
 *                                                   call that launched it (a graph's kernels by
 *                                                   its cuGraphLaunch)
 *   error WHAT                                      CUPTI refused something
 *   end                                             written at exit, after the last flush
 * The grader (6_measure/trace_tally.c) attributes a call to the student when one of its frames lies
 * in a function the student's object defines, and reads the bytes by correlation id. The file
 * is opened before any of the lab's CUDA work and written only here; a trace without `end` is
 * incomplete and judged so. */
#define _GNU_SOURCE
#include <cupti.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BUF_SIZE = 1 << 20, MAX_FRAMES = 64 };

static int g_fd = -1;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { uintptr_t bias, lo[8], hi[8]; int n; } g_exe; /* the lab binary's segments */

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0 || g_fd < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = sizeof line - 1;
    pthread_mutex_lock(&g_lock);
    for (int off = 0; off < n;) {
        ssize_t w = write(g_fd, line + off, (size_t)(n - off));
        if (w <= 0)
            break;
        off += (int)w;
    }
    pthread_mutex_unlock(&g_lock);
}

static int exe_segments(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data; /* the first object dl_iterate_phdr reports is the program */
    g_exe.bias = info->dlpi_addr;
    for (int i = 0; i < info->dlpi_phnum && g_exe.n < 8; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD) {
            g_exe.lo[g_exe.n] = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            g_exe.hi[g_exe.n] = g_exe.lo[g_exe.n] + info->dlpi_phdr[i].p_memsz;
            g_exe.n++;
        }
    return 1;
}

static int in_exe(uintptr_t a)
{
    for (int i = 0; i < g_exe.n; i++)
        if (a >= g_exe.lo[i] && a < g_exe.hi[i])
            return 1;
    return 0;
}

/* " sid=I": CUPTI's id of stream s (a _ptsz call's 0 is the thread's default stream), the id
 * its activity records carry; "" when CUPTI gives none (a handle such as CU_STREAM_LEGACY). */
static void sid_words(const CUpti_CallbackData *cb, CUstream s, int ptsz, char *out, size_t len)
{
    uint32_t id = 0;
    out[0] = '\0';
    if (cb->context && cuptiGetStreamIdEx(cb->context, s, (uint8_t)ptsz, &id) == CUPTI_SUCCESS)
        snprintf(out, len, " sid=%u", id);
}

/* The launch a launch call asks for, as a `launch` line: the stream it named and the kernel's
 * shape, read from the call's parameters (a graph has no shape of its own: its kernels' come in
 * their `kernel` lines). Nothing for any other call. */
static void launch_line(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    unsigned g[3] = {0, 0, 0}, b[3] = {0, 0, 0}, smem = 0;
    CUstream s = NULL;
    /* the _ptsz calls (code built with --default-stream per-thread) take stream 0 to mean the
     * calling thread's default stream */
    const size_t n = strlen(cb->functionName);
    const int ptsz = n > 5 && strcmp(cb->functionName + n - 5, "_ptsz") == 0;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel: {
        const cuLaunchKernel_params *p = cb->functionParams; /* the cooperative call's begins
                                                                 with the same fields */
        g[0] = p->gridDimX, g[1] = p->gridDimY, g[2] = p->gridDimZ;
        b[0] = p->blockDimX, b[1] = p->blockDimY, b[2] = p->blockDimZ;
        smem = p->sharedMemBytes, s = p->hStream;
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: {
        const CUlaunchConfig *c = ((const cuLaunchKernelEx_params *)cb->functionParams)->config;
        if (!c)
            return;
        g[0] = c->gridDimX, g[1] = c->gridDimY, g[2] = c->gridDimZ;
        b[0] = c->blockDimX, b[1] = c->blockDimY, b[2] = c->blockDimZ;
        smem = c->sharedMemBytes, s = c->hStream;
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
        s = ((const cuGraphLaunch_params *)cb->functionParams)->hStream;
        break;
    default:
        return;
    }
    char sid[24];
    sid_words(cb, s, ptsz, sid, sizeof sid);
    emit("launch stream=%#lx ptsz=%d grid=%u,%u,%u block=%u,%u,%u smem=%u corr=%u%s fn=%s\n",
         (unsigned long)(uintptr_t)s, ptsz, g[0], g[1], g[2], b[0], b[1], b[2], smem,
         cb->correlationId, sid, cb->symbolName && *cb->symbolName ? cb->symbolName : "-");
}

/* The `prefetch` and `event` lines (issue 44): a call that enqueues work with no activity
 * record of its own (prefetch, discard), or that records or waits for an event, with the stream
 * it named, read from its parameters. Nothing for any other call. */
static void stream_line(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    const void *q = cb->functionParams;
    CUstream s = NULL;
    CUevent e = NULL;
    const char *kind = NULL;
    switch (cbid) {
#define PREFETCH(id, type)                                                                     \
    case CUPTI_DRIVER_TRACE_CBID_##id:                                                         \
        s = ((const type *)q)->hStream, kind = "prefetch";                                     \
        break;
    PREFETCH(cuMemPrefetchAsync, cuMemPrefetchAsync_params)
    PREFETCH(cuMemPrefetchAsync_ptsz, cuMemPrefetchAsync_ptsz_params)
    PREFETCH(cuMemPrefetchAsync_v2, cuMemPrefetchAsync_v2_params)
    PREFETCH(cuMemPrefetchAsync_v2_ptsz, cuMemPrefetchAsync_v2_ptsz_params)
    PREFETCH(cuMemPrefetchBatchAsync, cuMemPrefetchBatchAsync_params)
    PREFETCH(cuMemPrefetchBatchAsync_ptsz, cuMemPrefetchBatchAsync_ptsz_params)
    PREFETCH(cuMemDiscardBatchAsync, cuMemDiscardBatchAsync_params)
    PREFETCH(cuMemDiscardBatchAsync_ptsz, cuMemDiscardBatchAsync_ptsz_params)
    PREFETCH(cuMemDiscardAndPrefetchBatchAsync, cuMemDiscardAndPrefetchBatchAsync_params)
    PREFETCH(cuMemDiscardAndPrefetchBatchAsync_ptsz,
             cuMemDiscardAndPrefetchBatchAsync_ptsz_params)
#undef PREFETCH
#define EVENT(id, type, what)                                                                  \
    case CUPTI_DRIVER_TRACE_CBID_##id:                                                         \
        s = ((const type *)q)->hStream, e = ((const type *)q)->hEvent, kind = what;            \
        break;
    EVENT(cuEventRecord, cuEventRecord_params, "event record")
    EVENT(cuEventRecord_ptsz, cuEventRecord_ptsz_params, "event record")
    EVENT(cuEventRecordWithFlags, cuEventRecordWithFlags_params, "event record")
    EVENT(cuEventRecordWithFlags_ptsz, cuEventRecordWithFlags_ptsz_params, "event record")
    EVENT(cuStreamWaitEvent, cuStreamWaitEvent_params, "event wait")
    EVENT(cuStreamWaitEvent_ptsz, cuStreamWaitEvent_ptsz_params, "event wait")
#undef EVENT
    default:
        return;
    }
    const size_t n = strlen(cb->functionName);
    const int ptsz = n > 5 && strcmp(cb->functionName + n - 5, "_ptsz") == 0;
    char sid[24];
    sid_words(cb, s, ptsz, sid, sizeof sid);
    if (strcmp(kind, "prefetch") == 0)
        emit("prefetch stream=%#lx ptsz=%d corr=%u op=%s%s\n", (unsigned long)(uintptr_t)s,
             ptsz, cb->correlationId, cb->functionName, sid);
    else
        emit("%s ev=%#lx stream=%#lx corr=%u%s\n", kind, (unsigned long)(uintptr_t)e,
             (unsigned long)(uintptr_t)s, cb->correlationId, sid);
}

static void CUPTIAPI on_call(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                             const void *data)
{
    (void)user;
    const CUpti_CallbackData *cb = data;
    if (cb->callbackSite != CUPTI_API_ENTER || !cb->functionName)
        return;
    void *frames[MAX_FRAMES];
    int n = backtrace(frames, MAX_FRAMES);
    char list[MAX_FRAMES * 19 + 1] = "", *p = list;
    for (int i = 0; i < n; i++) {
        uintptr_t a = (uintptr_t)frames[i];
        if (in_exe(a)) /* a return address: the call is the byte before it */
            p += sprintf(p, "%s%lx", p == list ? "" : ",", (unsigned long)(a - 1 - g_exe.bias));
    }
    emit("api drv %s corr=%u frames=%s\n", cb->functionName, cb->correlationId, list);
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cb->functionParams) {
        launch_line(cbid, cb);
        stream_line(cbid, cb);
    }
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, BUF_SIZE);
    *size = *buffer ? BUF_SIZE : 0;
    *max_records = 0;
}

static void record(const CUpti_Activity *r)
{
    switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const void *)r;
        emit("memcpy kind=%u bytes=%llu corr=%u rtcorr=%u stream=%u\n", m->copyKind,
             (unsigned long long)m->bytes, m->correlationId, m->runtimeCorrelationId,
             m->streamId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const void *)r;
        emit("memset bytes=%llu corr=%u stream=%u\n", (unsigned long long)m->bytes,
             m->correlationId, m->streamId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2: {
        const CUpti_ActivityMemory4 *m = (const void *)r;
        emit("memory op=%u kind=%u bytes=%llu corr=%u\n", m->memoryOperationType,
             m->memoryKind, (unsigned long long)m->bytes, m->correlationId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const void *)r;
        emit("kernel grid=%d,%d,%d block=%d,%d,%d smem=%d static=%d corr=%u graph=%u stream=%u "
             "ns=%llu name=%s\n", k->gridX, k->gridY, k->gridZ, k->blockX, k->blockY, k->blockZ,
             k->dynamicSharedMemory, k->staticSharedMemory, k->correlationId, k->graphId,
             k->streamId, (unsigned long long)(k->end > k->start ? k->end - k->start : 0),
             k->name ? k->name : "-");
        break;
    }
    default:
        break;
    }
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
                                      size_t size, size_t valid)
{
    (void)ctx, (void)stream, (void)size;
    CUpti_Activity *r = NULL;
    while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS)
        record(r);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
        emit("error %zu activity records dropped\n", dropped);
    free(buffer);
}

static void at_exit(void)
{
    cuptiActivityFlushAll(1);
    emit("end\n");
}

static int ok(CUptiResult r, const char *what)
{
    if (r == CUPTI_SUCCESS)
        return 1;
    const char *s = NULL;
    cuptiGetResultString(r, &s);
    emit("error %s: %s\n", what, s ? s : "?");
    return 0;
}

int InitializeInjection(void)
{
    const char *path = getenv("CML_TRACE_OUT");
    if (!path || g_fd >= 0)
        return 1;
    g_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (g_fd < 0)
        return 1;
    /* CUDA is initialised by the harness before any student code runs: from here on nothing
     * in the lab's environment says that this run is traced rather than graded (the harness
     * unsets CUDA_INJECTION64_PATH itself, for every tool: common/cml_lab.cpp) */
    unsetenv("CML_TRACE_OUT");
    emit("cml-trace 1\n");
    dl_iterate_phdr(exe_segments, NULL);
    CUpti_SubscriberHandle sub;
    if (ok(cuptiSubscribe(&sub, on_call, NULL), "cuptiSubscribe"))
        ok(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API), "driver callbacks");
    ok(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "buffers");
    ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), "memcpy activity");
    ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET), "memset activity");
    ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMORY2), "memory activity");
    /* every kernel that ran, graph nodes included, without serialising them (KIND_KERNEL
     * would): what the structure measures count (trace_tally.c) */
    ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "kernel activity");
    atexit(at_exit);
    return 1;
}
