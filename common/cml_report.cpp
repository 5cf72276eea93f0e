/* Reporting: how each case or table row ends, as a result-protocol record (docs/PROTOCOL.md,
 * "The result protocol") and the human line beside it. Graded runs (--case) write case and time
 * records; tables (self-learner mode, --bench) write rows and note records. The TODO mechanism
 * lives here too: a TODO is one of the ways a case ends. */
#include "cml_lab_int.h"

#include <algorithm>
#include <string.h>

/* How this run reports and how the case or row in progress ended. Zero-initialized: graded. */
static struct {
    enum cml_mode mode;             /* set once by cml_main */
    enum cml_row_status row_status; /* how the last table row ended: cml_table_run returns it */
    int case_errors;                /* graded cases that ended in an error: exit status 1 */
    const char *todo_msg;           /* the TODO the launch in progress reached, or NULL */
    const char *todo_seen[64];      /* tasks whose todo record is out: one record per task */
    int ntodo_seen;
} g_rep;

void cml_set_mode(enum cml_mode mode) { g_rep.mode = mode; }
int cml_graded(void) { return g_rep.mode == CML_MODE_GRADE; }
void cml_row_begin(void) { g_rep.row_status = CML_ROW_SKIPPED; }
enum cml_row_status cml_last_row_status(void) { return g_rep.row_status; }
int cml_case_errors(void) { return g_rep.case_errors; }

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
    if (g_rep.mode == CML_MODE_GRADE) {
        g_rep.case_errors++;
        cml_record("case k=%d task=%s status=error msg=%s", cml_current_k, cml_current_task, msg);
        printf("case %d (%s): error: %s\n", cml_current_k, cml_current_task, msg);
    } else {
        cml_record("note task=%s msg=skipped: %s", cml_current_task, msg);
        printf("  %-5s skipped: %s\n", cml_current_task, msg);
    }
}

/* ---- TODOs ---- */

void cml_todo(const char *task, const char *what)
{
    g_rep.todo_msg = what;
    for (int i = 0; i < g_rep.ntodo_seen; i++)
        if (strcmp(g_rep.todo_seen[i], task) == 0)
            return;
    if (g_rep.ntodo_seen < 64)
        g_rep.todo_seen[g_rep.ntodo_seen++] = task;
    cml_record("todo task=%s msg=%s", task, what);
}

void cml_todo_reset(void) { g_rep.todo_msg = NULL; }

int cml_report_todo(const cml_case *c, int with_id)
{
    if (!g_rep.todo_msg)
        return 0;
    if (cml_current_reported) /* already reported (as todo, or failed by a check) */
        return 1;
    cml_current_reported = 1;
    g_rep.row_status = CML_ROW_TODO;
    const char *open = with_id ? "(" : "", *id = with_id ? c->task->id : "";
    const char *close = with_id ? ")" : "";
    if (g_rep.mode == CML_MODE_GRADE) {
        cml_record("case k=%d task=%s status=todo msg=%s", c->k, c->task->id, g_rep.todo_msg);
        printf("case %d (%s): TODO%s%s%s: %s\n", c->k, c->text, open, id, close,
               g_rep.todo_msg);
    } else
        printf("  %-5s %-30s %-28s TODO%s%s%s: %s\n", c->task->id, c->task->kernel, c->text,
               open, id, close, g_rep.todo_msg);
    return 1;
}

int cml_case_todo(const cml_case *c) { return cml_report_todo(c, 0); }

/* ---- graded cases ---- */

void cml_report_ok(const cml_case *c, size_t out_elems, const char *file, int check,
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

/* The time record: ms is the time that counts (events, or end to end for a host-involved case,
 * whose record adds event_ms); what the repetitions did wrong (a guard region's finding, a
 * host write into a guarded output) ends it as `msg=...`, which the grader turns into the
 * case's error (records_types.c). */
void cml_report_time(const cml_case *c, const cml_case_out *o, const cml_reps *t,
                     const char *msg)
{
    const double ms = o->io ? t->host_ms : t->event_ms, gbps = o->bytes / (ms * 1e6);
    char events[64] = "";
    if (o->io)
        snprintf(events, sizeof events, " event_ms=%.4f", t->event_ms);
    for (int r = 0; t->has_evidence && r < t->reps; r++) /* what each repetition computed */
        cml_record("rep k=%d r=%d hash=%llu wsum=%.17g wabs=%.17g", c->k, r,
                   (unsigned long long)t->evidence[r].hash, t->evidence[r].wsum,
                   t->evidence[r].wabs);
    cml_record("time k=%d task=%s ms=%.4f host_ms=%.4f reps=%d spread=%.4f bytes=%llu%s%s%s",
               c->k, c->task->id, ms, t->host_ms, t->reps, t->spread,
               (unsigned long long)o->bytes, events, msg ? " msg=" : "", msg ? msg : "");
    if (o->io)
        printf("  %.4f ms end to end (events %.4f ms, %d reps, spread %.1f%%), %.1f GB/s over "
               "the host link\n", ms, t->event_ms, t->reps, 100 * t->spread, gbps);
    else
        printf("  %.4f ms (host %.4f ms, %d reps, spread %.1f%%), %.1f GB/s, %.1f%% of copy\n",
               ms, t->host_ms, t->reps, 100 * t->spread, gbps, 100 * gbps / cml_copy_gbps());
}

/* ---- tables ---- */

void cml_table_title(const char *title)
{
    printf("\n%s\n  %-5s %-30s %-28s %-6s %9s %9s %7s\n", title, "task", "kernel", "case",
           "check", "ms", "GB/s", "of copy");
}

void cml_table_title_host(const char *title)
{
    printf("\n%s\n  %-5s %-30s %-28s %-6s %9s %9s %7s\n", title, "task", "kernel", "case",
           "check", "ms e2e", "GB/s", "of link");
}

/* A device row: event ms, GB/s, and the fraction of this run's device-to-device copy. */
static void device_row(const cml_case *c, const cml_case_out *o, const cml_reps *t,
                       const char *verdict)
{
    const double gbps = o->bytes / (t->event_ms * 1e6);
    printf("  %-5s %-30s %-28s %-6s %9.4f %9.1f %6.1f%%\n", c->task->id, c->task->kernel,
           c->text, verdict, t->event_ms, gbps, 100 * gbps / cml_copy_gbps());
    cml_record("note task=%s msg=%s %s %s %.4f ms %.1f GB/s %.3f of copy", c->task->id,
               c->task->kernel, c->text, verdict, t->event_ms, gbps, gbps / cml_copy_gbps());
}

/* A host-involved row: end-to-end ms, link GB/s, and the pinned-copy bound over the time. */
static void host_row(const cml_case *c, const cml_case_out *o, const cml_reps *t,
                     const char *verdict)
{
    double h2d = 0, d2h = 0;
    cml_pinned_gbps(&h2d, &d2h);
    const double ms = t->host_ms, gbps = o->bytes / (ms * 1e6);
    const double bound_ms = std::max(o->io->h2d_bytes / (h2d * 1e6),
                                     o->io->d2h_bytes / (d2h * 1e6));
    printf("  %-5s %-30s %-28s %-6s %9.4f %9.1f %6.1f%%\n", c->task->id, c->task->kernel,
           c->text, verdict, ms, gbps, 100 * bound_ms / ms);
    cml_record("note task=%s msg=%s %s %s %.4f ms end to end (events %.4f ms) %.1f GB/s over the "
               "link, %.3f of the pinned-copy bound", c->task->id, c->task->kernel, c->text,
               verdict, ms, t->event_ms, gbps, bound_ms / ms);
}

void cml_report_row(const cml_case *c, const cml_case_out *o, const cml_reps *t,
                    const char *verdict, uint64_t nbad, const char *why)
{
    cml_current_reported = 1;
    g_rep.row_status = CML_ROW_RAN;
    if (o->io)
        host_row(c, o, t, verdict);
    else
        device_row(c, o, t, verdict);
    if (nbad)
        printf("        %llu of %zu elements differ; %s\n", (unsigned long long)nbad, o->elems,
               why);
}
