/* One confined run of a lab binary (see lab_run.h). */
#include "lab_run.h"
#include "spec.h"
#include "gpu_lock.h"
#include "run.h"
#include "sandbox.h"
#include "sha256.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the grader asks the run of cl: the task and time flag of each --case. */
static void asked_of(const cml_lab_spec *spec, const case_list *cl, cml_run_asked *asked)
{
    asked->n = cl->n;
    for (int i = 0; i < cl->n; i++) {
        const cml_task_spec *t = &spec->tasks[cl->task[i]];
        snprintf(asked->task[i], sizeof asked->task[i], "%s", t->id);
        asked->timed[i] = t->cases[cl->tcase[i]].timed;
    }
}

/* Contract in lab_run.h. */
void cml_case_list_text(const cml_lab_spec *spec, const case_list *cl, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < cl->n && at < len; i++) {
        char one[200];
        const cml_task_spec *t = &spec->tasks[cl->task[i]];
        cml_case_arg(t, t->cases[cl->tcase[i]].text, t->cases[cl->tcase[i]].timed, one,
                     sizeof one);
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? " " : "", one);
    }
}

/* Contract in lab_run.h. */
void cml_lab_run_replay(const cml_lab_spec *spec, const case_list *cl, const char *text,
                        size_t len, lab_run *lr)
{
    cml_run_asked asked;
    memset(lr, 0, sizeof *lr);
    asked_of(spec, cl, &asked);
    cml_records_parse_claims(text, len, &asked, &lr->rec);
    lr->proc.started = lr->proc.exited = 1; /* as the stored run ended: it wrote `done` */
}

/* Whether the run folder's copy of the binary lost the SHA-256 its build gave it (sha NULL:
 * nothing to hold it to); why in err. */
static int changed_since_build(const char *dir, const char *sha, char *err, size_t len)
{
    char lab[CML_PATH], now[CML_SHA256_HEX];
    if (!sha || !sha[0] || (cml_fmt(lab, sizeof lab, "%s/lab", dir) == 0 &&
                            cml_sha256_file(lab, now) == 0 && strcmp(now, sha) == 0))
        return 0;
    snprintf(err, len, "grader error: the binary changed after its build (SHA-256 %.16s..., now "
             "%.16s...): not run", sha, now[0] ? now : "unreadable");
    return 1;
}

/* A lab run's turn on the GPU: no other run of the grading, nor of a batch on this GPU, while
 * it runs. *held says it was taken (a run that never started takes none). */
static void take_gpu(void *held)
{
    cml_gpu_hold();
    *(int *)held = 1;
}

/* Whether a lab waits for its turn after its start (cml_run_sandboxed_turn) rather than before
 * it: CML_LAB_TURNS=0 starts it inside its turn, as before (for comparisons). */
static int lab_turns(void)
{
    const char *v = getenv("CML_LAB_TURNS");
    return !(v && strcmp(v, "0") == 0);
}

/* Contract in lab_run.h. */
void cml_lab_run(const char *bin, const char *sha, const cml_lab_spec *spec,
                 const case_list *cl, const char *dir, const cml_run_opts *o, lab_run *lr)
{
    char cases[CML_MAX_RUN_CASES][200], scratch[CML_PATH], err[1024];
    char *argv[8 + 2 * CML_MAX_RUN_CASES];
    int a = 0;
    memset(lr, 0, sizeof *lr);
    if (!dir && cml_sandbox_scratch(o->work_dir, spec->lab, bin, scratch, sizeof scratch, err,
                                    sizeof err) < 0) {
        lr->proc.output = strdup(err);
        lr->proc.output_len = lr->proc.output ? strlen(err) : 0;
        return;
    }
    if (changed_since_build(dir ? dir : scratch, sha, err, sizeof err)) {
        lr->proc.output = strdup(err);
        lr->proc.output_len = lr->proc.output ? strlen(err) : 0;
        if (!dir)
            cml_rmtree(scratch);
        return;
    }
    argv[a++] = "./lab"; /* the run folder's copy: the lab reaches nothing outside it */
    argv[a++] = dir ? "--out-dir" : "--no-output";
    if (dir)
        argv[a++] = ".";
    if (o->practice) /* the link's bound, which only the reference's run measures otherwise */
        argv[a++] = "--link-bw";
    for (int i = 0; i < cl->n; i++) {
        const cml_task_spec *t = &spec->tasks[cl->task[i]];
        cml_case_arg(t, t->cases[cl->tcase[i]].text, t->cases[cl->tcase[i]].timed, cases[i],
                     sizeof cases[i]);
        argv[a++] = "--case";
        argv[a++] = cases[i];
    }
    argv[a] = NULL;
    cml_run_asked asked; /* every record is checked against what was asked */
    asked_of(spec, cl, &asked);
    int fd = cml_result_fd_open(), held = 0, ahead = lab_turns();
    const cml_run_turn turn = { take_gpu, &held };
    if (!ahead) /* else the lab starts CUDA beside the run before it, then waits its turn */
        take_gpu(&held);
    cml_run_sandboxed_turn(argv, dir ? dir : scratch, fd, o->seed, ahead ? &turn : NULL,
                           spec->timeout_s > 0 ? spec->timeout_s : 60, CML_RUN_OUTPUT_CAP,
                           &lr->proc);
    if (held)
        cml_gpu_release();
    size_t len = 0;
    char *text = fd >= 0 ? cml_result_fd_read(fd, &len) : NULL;
    if (fd >= 0)
        close(fd);
    if (text)
        cml_records_parse_claims(text, len, &asked, &lr->rec);
    if (text && o->cal_out) {
        lr->text = text;
        lr->text_len = len;
    } else {
        free(text);
    }
    if (!dir)
        cml_rmtree(scratch);
}

/* Copy the header records (hello, device, copy bandwidth, the TODOs) of one run into another. */
static void copy_header(const cml_run_record *from, cml_run_record *to)
{
    to->hello = from->hello;
    to->done = from->done;
    snprintf(to->device_name, sizeof to->device_name, "%s", from->device_name);
    to->cc = from->cc;
    to->sms = from->sms;
    to->l2_bytes = from->l2_bytes;
    to->mem_bytes = from->mem_bytes;
    to->driver = from->driver;
    to->runtime = from->runtime;
    to->clock_mhz = from->clock_mhz;
    to->copy_gbps = from->copy_gbps;
    to->link_h2d_gbps = from->link_h2d_gbps;
    to->link_d2h_gbps = from->link_d2h_gbps;
    to->ntodos = from->ntodos; /* each task's score looks for its own (speed.c) */
    memcpy(to->todos, from->todos, sizeof to->todos);
}

/* Contract in lab_run.h. */
void cml_spread_records(const cml_run_record *rec, const case_list *cl, cml_run_record *per_task)
{
    for (int j = 0; j < cl->n; j++) {
        cml_run_record *to = &per_task[cl->task[j]];
        copy_header(rec, to);
        to->cases[cl->tcase[j]] = rec->cases[j];
        if (to->ncases <= cl->tcase[j])
            to->ncases = cl->tcase[j] + 1;
    }
}

/* Contract in lab_run.h. */
void cml_run_unfinished_how(const lab_run *lr, double timeout_s, char *buf, size_t len)
{
    const cml_proc_result *p = &lr->proc;
    if (p->started && !p->timed_out && !p->signaled)
        snprintf(buf, len, "exited with status %d without finishing (no done record)",
                 p->exit_code);
    else
        cml_proc_describe(p, timeout_s, buf, len);
}
