/* The case runner: one path for both kinds of output. A device output (cml_run_case_l) is
 * poisoned with cudaMemset, copied out in chunks and timed by events; a host-visible one
 * (cml_run_case_host_l: pinned, mapped or managed memory) is poisoned and read by the host, its
 * inputs restored by io->reset before each launch, and timed end to end by the host clock. */
#include "cml_lab_int.h"

#include <string.h>

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

/* Poisons, launches once, stops at a TODO or a case the launch failed itself (a technique
 * check), checks when no grader listens or in a table, writes the output and the case record
 * when graded, then times: when asked if graded, always in a table. */
static void run_case(const cml_case *c, const cml_case_out *o, cml_launcher launch)
{
    char why[256], file[64] = "";
    const int on_device = o->io == NULL;
    poison_output(o);
    cml_todo_reset();
    if (!on_device)
        g_last_host_ms = 0;
    launch.fn(launch.ctx, cml_stream());
    if (cml_report_todo(c, on_device) || cml_current_reported)
        return;
    sync_task_kernels();
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
    const cml_reps t = on_device ? cml_time_device(launch, o->out, o->elems * sizeof(float))
                                 : cml_time_host(launch, o->io, o->out, o->elems);
    if (!on_device)
        g_last_host_ms = t.host_ms;
    if (graded)
        cml_report_time(c, o, &t);
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
