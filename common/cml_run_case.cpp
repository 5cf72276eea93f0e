/* The case runner: one path for both kinds of output. A device output (cml_run_case_l) is
 * poisoned with cudaMemset, copied out in chunks and timed by events; a host-visible one
 * (cml_run_case_host_l: pinned, mapped or managed memory) is poisoned and read by the host, its
 * inputs restored by io->reset before each launch, and timed end to end by the host clock. */
#include "cml_lab_int.h"

#include <cuda_profiler_api.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

static double g_last_host_ms; /* end-to-end ms of the last timed host case or row */

double cml_last_host_ms(void) { return g_last_host_ms; }

/* Before the first launch: the output poisoned, so a launch that writes nothing cannot pass,
 * and a host-involved case's inputs restored. */
static void poison_output(const cml_case_out *o)
{
    if (!o->io) {
        CML_CHECK(cudaMemsetAsync(o->out, CML_POISON_BYTE, o->elems * sizeof(float),
                                  cml_stream()));
        return;
    }
    memset(o->out, CML_POISON_BYTE, o->elems * sizeof(float));
    if (o->io->reset.fn)
        o->io->reset.fn(o->io->reset.ctx, cml_stream());
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

/* ---- the GPU did the work: a host-involved case's checked launch runs while the host's cores
 * may not write its output ----
 * From the launch until its kernels finished, the output is out of the CPU's reach: PROT_NONE
 * for pinned memory, PROT_READ for managed memory. Kernels, copies and prefetches still write it
 * (measured on an H100, scripts/exp/host_protect.cu), while a write by the CPU faults. The
 * fault comes back here, and the case ends with an error: a task done by the host's cores earns
 * nothing. Measured on an H100, 2026-11-24: with lab 07's A and B PROT_NONE too, a correct 7.3
 * that advised them read-mostly died of an illegal address (the driver's read duplication
 * needs the CPU's view), so inputs are never guarded; and a host write into pinned-mapped
 * memory under PROT_READ did not fault (6.1), so pinned outputs get PROT_NONE. The student's
 * object may call neither mprotect nor sigaction (link rules). */

static struct {
    sigjmp_buf jump;
    struct {
        char *p;
        size_t bytes;
    } r[1];
    int n;
    struct sigaction old_segv, old_bus;
} g_guard;

static int in_guarded(const void *addr)
{
    for (int i = 0; i < g_guard.n; i++)
        if ((const char *)addr >= g_guard.r[i].p &&
            (const char *)addr < g_guard.r[i].p + g_guard.r[i].bytes)
            return 1;
    return 0;
}

extern "C" char __executable_start, etext; /* the lab binary's own code (GNU ld) */

/* A fault on a guarded page: from the lab binary's own code (the student's, since the harness
 * touches nothing there), the host did the work: back to launch_guarded. From a library (the
 * CUDA driver copies small pinned transfers with the CPU, seen as a hang on an H100 when this
 * jumped out of it), the guard is lifted and the access retried: never a false fail. */
static void on_fault(int sig, siginfo_t *info, void *uctx)
{
    const char *pc = (const char *)((ucontext_t *)uctx)->uc_mcontext.gregs[REG_RIP];
    if (in_guarded(info->si_addr) && pc >= &__executable_start && pc < &etext)
        siglongjmp(g_guard.jump, 1);
    if (in_guarded(info->si_addr)) {
        for (int i = 0; i < g_guard.n; i++)
            mprotect(g_guard.r[i].p, g_guard.r[i].bytes, PROT_READ | PROT_WRITE);
        return;
    }
    signal(sig, SIG_DFL); /* any other fault is the crash it would have been */
    raise(sig);
}

/* Takes (prot PROT_READ or PROT_NONE) or gives back (PROT_READ | PROT_WRITE) the CPU's access
 * to the guarded pages. A range mprotect refuses is left unguarded: never a false fail. */
static void guard_set(int prot)
{
    for (int i = 0; i < g_guard.n; i++)
        if (mprotect(g_guard.r[i].p, g_guard.r[i].bytes, prot) != 0 &&
            prot != (PROT_READ | PROT_WRITE))
            g_guard.r[i].bytes = 0;
}

/* A whole allocation only (page-aligned): a small pinned one shares its page with others of the
 * driver's pool (6.1's n=1 output was not page-aligned on an H100) and is left unguarded, as is
 * anything that is not: never a neighbour's page. 6.1's captured launch finds a zero-copy path
 * that ran no kernel anyway (labs/06_zero_copy/harness.cu). A buffer of the harness's own
 * (cml_alloc_host: 6.2 and 6.3) is guarded whatever its size: its pages hold nothing else
 * (cml_case_host_pages). */
static void guard_add(const void *p, size_t bytes)
{
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    const uintptr_t b = (uintptr_t)p, first = b & ~(page - 1);
    void *own = NULL;
    size_t own_bytes = 0;
    if (p && bytes && cml_case_host_pages(p, &own, &own_bytes) == 0) {
        g_guard.r[g_guard.n].p = (char *)own;
        g_guard.r[g_guard.n++].bytes = own_bytes;
        return;
    }
    if (!p || !bytes || first != b)
        return;
    g_guard.r[g_guard.n].p = (char *)first;
    g_guard.r[g_guard.n++].bytes = (bytes + page - 1) & ~(page - 1);
}

/* Contract in cml_lab_int.h. */
void cml_cpu_guard_arm(const float *out, size_t elems)
{
    g_guard.n = 0;
    guard_add(out, elems * sizeof(float));
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, &g_guard.old_segv);
    sigaction(SIGBUS, &sa, &g_guard.old_bus);
    cudaPointerAttributes a; /* managed: read-only; pinned: no access (see above) */
    const int managed = cudaPointerGetAttributes(&a, out) == cudaSuccess &&
                        a.type == cudaMemoryTypeManaged;
    (void)cudaGetLastError();
    guard_set(managed ? PROT_READ : PROT_NONE);
}

/* Contract in cml_lab_int.h. */
int cml_cpu_guarded(void (*body)(void *ctx), void *ctx)
{
    volatile int touched = 0;
    if (sigsetjmp(g_guard.jump, 1) == 0) {
        body(ctx);
    } else { /* the jump may leave a stream capture open (lab 06's checked launch): end it */
        touched = 1;
        cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
        cudaGraph_t g = NULL;
        if (cudaStreamIsCapturing(cml_stream(), &st) == cudaSuccess &&
            st != cudaStreamCaptureStatusNone &&
            cudaStreamEndCapture(cml_stream(), &g) == cudaSuccess && g)
            (void)cudaGraphDestroy(g);
        (void)cudaGetLastError();
    }
    return touched;
}

/* Contract in cml_lab_int.h. */
void cml_cpu_guard_disarm(void)
{
    guard_set(PROT_READ | PROT_WRITE);
    sigaction(SIGSEGV, &g_guard.old_segv, NULL);
    sigaction(SIGBUS, &g_guard.old_bus, NULL);
    g_guard.n = 0;
}

static void launch_and_sync(void *ctx)
{
    const cml_launcher *launch = (const cml_launcher *)ctx;
    launch->fn(launch->ctx, cml_stream());
    (void)cudaStreamSynchronize(cml_stream()); /* errors: sync_task_kernels reports them */
}

/* The checked launch of a host-involved case, guarded; its kernels have finished on return.
 * -1 when the host touched the data (the case has failed). */
static int launch_guarded(const cml_case_out *o, cml_launcher launch)
{
    cml_cpu_guard_arm(o->out, o->elems);
    const int touched = cml_cpu_guarded(launch_and_sync, &launch);
    (void)cudaDeviceSynchronize();
    cml_cpu_guard_disarm();
    if (touched)
        cml_case_fail("the host's cores wrote the task's output while its launch ran: a "
                      "host-involved task must be done by kernels on the GPU (the harness makes "
                      "the output read-only for the CPU until the kernels finish)");
    return touched ? -1 : 0;
}

/* Poisons, launches once, stops at a TODO or a case the launch failed itself (a technique
 * check), checks when no grader listens or in a table, writes the output and the case record
 * when graded, then times: when asked if graded, always in a table. */
static void run_case(const cml_case *c, const cml_case_out *o, cml_launcher launch)
{
    char why[320], file[64] = "";
    const int on_device = o->io == NULL;
    poison_output(o);
    cml_todo_reset();
    if (!on_device)
        g_last_host_ms = 0;
    /* the profiling window: under `ncu --profile-from-start off` (the grader's technique
     * checks) the case marker and the task's kernels of its checked launch are profiled and
     * nothing else: not the inputs' fill, the guards' kernels or the timed repetitions.
     * Elsewhere it costs one empty kernel. */
    (void)cudaProfilerStart();
    cml_mark_case(); /* one ncu run of several cases splits its rows here */
    int guarded = 0;
    if (on_device)
        launch.fn(launch.ctx, cml_stream());
    else if (!o->io->guard_cpu || !cml_graded())
        launch.fn(launch.ctx, cml_stream());
    else
        guarded = launch_guarded(o, launch);
    (void)cudaProfilerStop();
    if (guarded != 0)
        return;
    if (cml_report_todo(c, on_device) || cml_current_reported)
        return;
    sync_task_kernels();
    if (cml_case_canaries(why, sizeof why) != 0) { /* before any verdict: cml_guard.cpp */
        cml_case_fail("guard region: %s", why);
        return;
    }
    /* "inputs are only read" (issue 44): after the checked launch alone, so the timed
     * repetitions run as before (cml_inputs.cu) */
    if (cml_case_inputs_intact(why, sizeof why) != 0) {
        cml_case_fail("%s", why);
        return;
    }
    const int graded = cml_graded();
    const int check = c->task->expect && (!graded || cml_result_fd() < 0);
    const uint64_t nbad = check ? cml_self_check(c, o->out, on_device, o->elems, why, sizeof why)
                                : 0;
    if (graded) {
        if (!cml_opts()->no_output &&
            cml_write_output(o->out, on_device, o->elems, file, sizeof file) != 0)
            return;
        cml_report_ok(c, o->elems, file, check, nbad, why);
        if (!c->timed)
            return;
    }
    const cml_case *fresh = graded ? c : NULL; /* graded: fresh inputs, evidence kept */
    if (graded && !on_device && (cml_opts()->no_output || cml_opts()->link_bw)) {
        /* the link's bound, once, in the run that times the reference (--no-output): the
         * grader holds host-involved times to the reference run's bandwidths only; without a
         * reference (a practice grade) it asks the student's run for it (--link-bw) */
        double h2d, d2h;
        cml_pinned_gbps(&h2d, &d2h);
    }
    const cml_reps t = on_device
                           ? cml_time_device(launch, o->out, o->elems * sizeof(float), fresh)
                           : cml_time_host(launch, o->io, o->out, o->elems, fresh);
    if (!on_device)
        g_last_host_ms = t.host_ms;
    /* a write around the buffers in a repetition, never in the checked launch, still counts,
     * as does a write of the host's cores into a guarded output in a timed repetition
     * (cml_time_host; issue 44: 7.2 added on the host after its checked run) */
    char msg[400] = "";
    if (graded && t.cpu_wrote)
        snprintf(msg, sizeof msg, "host write: the host's cores wrote the task's output in a "
                 "timed repetition: a host-involved task must be done by kernels on the GPU in "
                 "every run (the harness makes the output read-only for the CPU in each)");
    else if (graded && cml_case_canaries(why, sizeof why) != 0)
        snprintf(msg, sizeof msg, "guard region: %s, in its timed repetitions", why);
    if (graded)
        cml_report_time(c, o, &t, msg[0] ? msg : NULL);
    else
        cml_report_row(c, o, &t, !check ? "-" : nbad ? "WRONG" : "ok", nbad, why);
}

void cml_run_case_l(const cml_case *c, float *d_out, size_t out_elems, uint64_t bytes,
                    cml_launcher launch)
{
    const cml_case_out o = {d_out, out_elems, NULL, bytes};
    run_case(c, &o, launch);
}

void cml_run_case_host_l(const cml_case *c, float *h_out, size_t out_elems, const cml_host_io *io,
                         cml_launcher launch)
{
    const cml_case_out o = {h_out, out_elems, io, io->h2d_bytes + io->d2h_bytes};
    run_case(c, &o, launch);
}
