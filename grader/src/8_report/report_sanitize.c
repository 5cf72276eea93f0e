/* report_sanitize: what compute-sanitizer found, in the terminal report, in Gradescope's text and
 * in record.json: each task's four tools, and the phase they ran in (or why not: a grading
 * interrupted before it says its sanitizer checks did not run). Details can hold what a tool
 * printed about student code: cleaned. */
#include "report.h"
#include "spec.h"
#include "technique.h"

#include <string.h>

/* Contract in report.h. */
void cml_report_san_phase(FILE *f, const cml_grading *g)
{
    fputs("Sanitizers (memcheck, racecheck, synccheck, initcheck on every solved task): ", f);
    if (g->sanitize_phase == CML_SANITIZE_DONE)
        fprintf(f, "%d runs in %.1f s, %d at a time.\n", g->sanitize_runs, g->sanitize_s,
                g->sanitize_workers);
    else if (g->sanitize_phase == CML_SANITIZE_SKIPPED)
        fprintf(f, "not checked (%s): no points lost.\n", g->sanitize_note);
    else
        fputs("not run: the grading ended before its sanitizer phase.\n", f);
}

/* Whether r's tools are worth a line: a task whose cases did not all pass never ran them. */
static int shown(const cml_task_result *r)
{
    return r->spec && (cml_status_solved(r->status) || r->status == CML_STATUS_SANITIZER);
}

/* Whether r's four tools share one state and detail (not run for one reason, say). */
static int all_alike(const cml_task_result *r)
{
    for (int k = 1; k < CML_SANITIZERS; k++)
        if (r->sanitizers[k].state != r->sanitizers[0].state ||
            strcmp(r->sanitizers[k].detail, r->sanitizers[0].detail) != 0)
            return 0;
    return 1;
}

/* Contract in report.h. */
void cml_report_san_term(FILE *f, const cml_lab_result *lab, int color)
{
    int any = 0;
    for (int i = 0; i < lab->ntasks; i++)
        any |= shown(&lab->tasks[i]);
    if (!any)
        return;
    fputs(color ? "\n\033[1mSanitizer checks\033[0m\n" : "\nSanitizer checks\n", f);
    for (int i = 0; i < lab->ntasks; i++) {
        const cml_task_result *r = &lab->tasks[i];
        if (!shown(r))
            continue;
        fprintf(f, "%-5s", r->spec->id);
        if (all_alike(r) && r->sanitizers[0].state != CML_TECH_PASSED) {
            fputs(" all four ", f);
            cml_put_clean(f, r->sanitizers[0].detail, 0);
            fputc('\n', f);
            continue;
        }
        for (int k = 0; k < CML_SANITIZERS; k++) {
            enum cml_tech_state s = r->sanitizers[k].state;
            const char *paint = s == CML_TECH_PASSED ? "\033[32m" : s == CML_TECH_FAILED
                                ? "\033[31m" : "\033[33m";
            fprintf(f, " %s %s%s%s", cml_sanitizer_name(k), color ? paint : "",
                    cml_tech_state_name(s), color ? "\033[0m" : "");
        }
        fputc('\n', f);
        for (int k = 0; k < CML_SANITIZERS; k++)
            if (r->sanitizers[k].state != CML_TECH_PASSED) {
                fputs("      ", f);
                cml_put_clean(f, r->sanitizers[k].detail, 0);
                fputc('\n', f);
            }
    }
}

/* Contract in report.h. */
void cml_report_san_text(FILE *f, const cml_task_result *r)
{
    for (int k = 0; shown(r) && k < CML_SANITIZERS; k++)
        fprintf(f, "\nSanitizer (%s, %s): %s", cml_sanitizer_name(k),
                cml_tech_state_name(r->sanitizers[k].state), r->sanitizers[k].detail);
}

/* Contract in report.h. */
void cml_report_san_task_json(json_w *w, const cml_task_result *r)
{
    jw_begin_array(w, "sanitizers");
    for (int k = 0; k < CML_SANITIZERS; k++) {
        jw_begin_object(w, NULL);
        jw_string(w, "tool", cml_sanitizer_name(k));
        jw_string(w, "state", cml_tech_state_name(r->sanitizers[k].state));
        jw_string(w, "detail", r->sanitizers[k].detail);
        jw_end_object(w);
    }
    jw_end_array(w);
}

/* Contract in report.h. */
void cml_report_san_phase_json(json_w *w, const cml_grading *g)
{
    static const char *const STATE[] = {"not run", "done", "not checked"};
    jw_begin_object(w, "sanitizer_phase");
    jw_string(w, "state", STATE[g->sanitize_phase]);
    jw_string(w, "detail", g->sanitize_phase == CML_SANITIZE_PENDING
              ? "the grading ended before its sanitizer phase" : g->sanitize_note);
    jw_int(w, "runs", g->sanitize_runs);
    jw_int(w, "workers", g->sanitize_workers);
    jw_number(w, "wall_s", g->sanitize_s);
    jw_end_object(w);
}
