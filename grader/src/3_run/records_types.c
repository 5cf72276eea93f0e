/* records, one handler per record type of the result protocol. A handler checks every field
 * it needs before it changes anything, so a malformed line leaves the record untouched. */
#include "records_parse.h"

#include <limits.h>
#include <string.h>

/* An optional numeric field: absent is fine (leaves *out), present must parse. */
#define OPT(conv, key, ...) (!rec_get(l, key) || conv(rec_get(l, key), __VA_ARGS__) == 0)

static int on_hello(const rec_line *l, cml_run_record *out)
{
    (void)l;
    out->hello = 1;
    return 0;
}

static int on_done(const rec_line *l, cml_run_record *out)
{
    (void)l;
    out->done = 1;
    return 0;
}

/* device name=NVIDIA_H100 cc=90 ...: the name has '_' for spaces. */
static int on_device(const rec_line *l, cml_run_record *out)
{
    cml_run_record d = *out;
    if (!rec_get(l, "name") || !OPT(rec_int, "cc", 0, 10000, &d.cc) ||
        !OPT(rec_int, "sms", 0, 1000000, &d.sms) || !OPT(rec_u64, "l2", &d.l2_bytes) ||
        !OPT(rec_u64, "mem", &d.mem_bytes) || !OPT(rec_int, "driver", 0, INT_MAX, &d.driver) ||
        !OPT(rec_int, "runtime", 0, INT_MAX, &d.runtime) ||
        !OPT(rec_int, "clock_mhz", 0, INT_MAX, &d.clock_mhz))
        return -1;
    rec_copy(d.device_name, sizeof d.device_name, rec_get(l, "name"));
    for (char *c = d.device_name; *c; c++)
        if (*c == '_')
            *c = ' ';
    out->cc = d.cc, out->sms = d.sms, out->l2_bytes = d.l2_bytes, out->mem_bytes = d.mem_bytes;
    out->driver = d.driver, out->runtime = d.runtime, out->clock_mhz = d.clock_mhz;
    memcpy(out->device_name, d.device_name, sizeof out->device_name);
    return 0;
}

static int on_copybw(const rec_line *l, cml_run_record *out)
{
    return rec_double(rec_get(l, "gbps"), &out->copy_gbps);
}

/* The case index k, in range; -1 otherwise. */
static int case_index(const rec_line *l, int *k)
{
    return rec_int(rec_get(l, "k"), 0, CML_MAX_RUN_CASES - 1, k);
}

/* An output file name: plain, inside the out-dir (no '/', not "." or ".."). */
static int plain_file(const rec_span *f)
{
    return f && f->len > 0 && !memchr(f->p, '/', f->len) && !rec_is(f, ".") && !rec_is(f, "..");
}

/* case k=0 task=1.1 status=ok|todo|error [elems= elem_bytes= file=] [msg=]. Replaces an
 * earlier case record for k but keeps its time. */
static int on_case(const rec_line *l, cml_run_record *out)
{
    const rec_span *st = rec_get(l, "status"), *task = rec_get(l, "task");
    const rec_span *file = rec_get(l, "file");
    int k;
    uint64_t elems = 0;
    int elem_bytes = 0;
    if (case_index(l, &k) != 0 || !task || task->len == 0 || task->len >= 16 ||
        !(rec_is(st, "ok") || rec_is(st, "todo") || rec_is(st, "error")) ||
        !OPT(rec_u64, "elems", &elems) || !OPT(rec_int, "elem_bytes", 1, 64, &elem_bytes) ||
        (file && !plain_file(file)))
        return -1;
    cml_case_record *c = &out->cases[k];
    c->status = rec_is(st, "ok")     ? CML_CASE_OK
              : rec_is(st, "todo") ? CML_CASE_TODO
                                   : CML_CASE_ERROR;
    rec_copy(c->task, sizeof c->task, task);
    rec_copy(c->file, sizeof c->file, file);
    rec_copy(c->msg, sizeof c->msg, rec_get(l, "msg"));
    c->elems = elems;
    c->elem_bytes = elem_bytes;
    if (k + 1 > out->ncases)
        out->ncases = k + 1;
    return 0;
}

/* time k=0 task=1.1 ms= [host_ms= reps= spread= bytes=] [msg=guard region: ...]: a msg says
 * that the repetitions wrote around the case's buffers (the harness counts the canaries after
 * them, common/cml_run_case.cpp): the case becomes an error with it, a guard region's finding
 * (speed.c); `msg=host write: ...` that the host's cores wrote a guarded output in a timed
 * repetition (common/cml_timing.cpp): an error of its own. Any other msg is malformed. */
static int starts(const rec_span *msg, const char *with)
{
    const size_t n = strlen(with);
    return msg->len >= n && memcmp(msg->p, with, n) == 0;
}

static int on_time(const rec_line *l, cml_run_record *out)
{
    static const char GUARD[] = "guard region: ", HOST[] = "host write: ";
    int k;
    cml_case_record t = {0};
    const rec_span *msg = rec_get(l, "msg");
    if (case_index(l, &k) != 0 || rec_double(rec_get(l, "ms"), &t.ms) != 0 ||
        !OPT(rec_double, "host_ms", &t.host_ms) || !OPT(rec_int, "reps", 0, INT_MAX, &t.reps) ||
        !OPT(rec_double, "spread", &t.spread) || !OPT(rec_u64, "bytes", &t.bytes) ||
        (msg && !starts(msg, GUARD) && !starts(msg, HOST)))
        return -1;
    cml_case_record *c = &out->cases[k];
    if (msg) {
        c->status = CML_CASE_ERROR;
        rec_copy(c->msg, sizeof c->msg, msg);
    }
    c->has_time = 1;
    c->ms = t.ms, c->host_ms = t.host_ms, c->reps = t.reps, c->spread = t.spread;
    c->bytes = t.bytes;
    if (c->task[0] == '\0' && rec_get(l, "task") && rec_get(l, "task")->len < sizeof c->task)
        rec_copy(c->task, sizeof c->task, rec_get(l, "task"));
    if (k + 1 > out->ncases)
        out->ncases = k + 1;
    return 0;
}

/* rep k=0 r=3 hash= wsum= wabs=: repetition r's evidence, in order (r = the count so far). */
static int on_rep(const rec_line *l, cml_run_record *out)
{
    int k, r;
    cml_rep_evidence e;
    if (case_index(l, &k) != 0 || rec_int(rec_get(l, "r"), 0, CML_MAX_REPS - 1, &r) != 0 ||
        rec_u64(rec_get(l, "hash"), &e.hash) != 0 || rec_real(rec_get(l, "wsum"), &e.wsum) != 0 ||
        rec_real(rec_get(l, "wabs"), &e.wabs) != 0 || r != out->cases[k].nrep)
        return -1;
    out->cases[k].rep[out->cases[k].nrep++] = e;
    return 0;
}

/* linkbw h2d= d2h= [bytes=]: this run's pinned cudaMemcpy bandwidths, GB/s. */
static int on_linkbw(const rec_line *l, cml_run_record *out)
{
    double h2d, d2h;
    if (rec_double(rec_get(l, "h2d"), &h2d) != 0 || rec_double(rec_get(l, "d2h"), &d2h) != 0)
        return -1;
    out->link_h2d_gbps = h2d, out->link_d2h_gbps = d2h;
    return 0;
}

/* "task: msg" (or just msg without a task) into one line of a list. */
static void task_line(char *dst, size_t len, const rec_line *l)
{
    char task[16], msg[256 - 15 - 2]; /* fits "task: msg" in 256 */
    rec_copy(task, sizeof task, rec_get(l, "task"));
    rec_copy(msg, sizeof msg, rec_get(l, "msg"));
    snprintf(dst, len, "%s%s%s", task, task[0] ? ": " : "", msg);
}

static int on_todo(const rec_line *l, cml_run_record *out)
{
    if (!rec_get(l, "task") || out->ntodos == CML_MAX_TASKS)
        return -1;
    task_line(out->todos[out->ntodos], sizeof out->todos[0], l);
    out->ntodos++;
    return 0;
}

static int on_note(const rec_line *l, cml_run_record *out)
{
    int max = (int)(sizeof out->notes / sizeof out->notes[0]);
    if (out->nnotes == max)
        return -1;
    task_line(out->notes[out->nnotes], sizeof out->notes[0], l);
    out->nnotes++;
    return 0;
}

static int on_nodevice(const rec_line *l, cml_run_record *out)
{
    out->nodevice = 1;
    rec_copy(out->nodevice_msg, sizeof out->nodevice_msg, rec_get(l, "msg"));
    return 0;
}

static const struct {
    const char *type;
    int (*fn)(const rec_line *l, cml_run_record *out);
} HANDLERS[] = {
    {"hello", on_hello}, {"device", on_device}, {"copybw", on_copybw}, {"case", on_case},
    {"time", on_time},   {"todo", on_todo},     {"note", on_note},     {"nodevice", on_nodevice},
    {"done", on_done},   {"rep", on_rep},       {"linkbw", on_linkbw},
};

/* Applies one split line to out by its type; 0 when accepted, -1 for an unknown type or a
 * malformed record (then out is unchanged). */
int rec_dispatch(const rec_line *l, cml_run_record *out)
{
    for (size_t i = 0; i < sizeof HANDLERS / sizeof HANDLERS[0]; i++)
        if (rec_is(&l->type, HANDLERS[i].type))
            return HANDLERS[i].fn(l, out);
    return -1;
}
