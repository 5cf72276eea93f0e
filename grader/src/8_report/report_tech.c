/* report_tech: what the technique checks found, in the terminal report, in Gradescope's text and
 * in record.json. Details can hold what a student's code or a tool printed: cleaned. */
#include "report.h"
#include "technique.h"

#include <math.h>
#include <string.h>

/* Contract in report.h. */
void cml_report_tech_term(FILE *f, const cml_lab_result *lab, int color)
{
    int any = 0;
    for (int i = 0; i < lab->ntasks; i++)
        any |= lab->tasks[i].spec && lab->tasks[i].spec->ntech > 0;
    if (!any)
        return;
    fputs(color ? "\n\033[1mTechnique checks\033[0m\n" : "\nTechnique checks\n", f);
    for (int i = 0; i < lab->ntasks; i++) {
        const cml_task_result *r = &lab->tasks[i];
        for (int k = 0; r->spec && k < r->spec->ntech && k < CML_MAX_TECH; k++) {
            const cml_tech_spec *c = &r->spec->tech[k];
            enum cml_tech_state s = r->tech[k].state;
            const char *paint = s == CML_TECH_PASSED ? "\033[32m" : s == CML_TECH_FAILED
                                ? "\033[31m" : "\033[33m";
            fprintf(f, "%-5s %-8s %s%-11s%s ", r->spec->id, cml_tech_kind_name(c->kind),
                    color ? paint : "", cml_tech_state_name(s), color ? "\033[0m" : "");
            cml_put_clean(f, c->what, 0);
            fputs(": ", f);
            cml_put_clean(f, r->tech[k].detail, 0);
            fputc('\n', f);
        }
    }
}

/* Contract in report.h. */
void cml_report_tech_text(FILE *f, const cml_task_result *r)
{
    for (int k = 0; r->spec && k < r->spec->ntech && k < CML_MAX_TECH; k++)
        fprintf(f, "\nTechnique (%s, %s): %s: %s", cml_tech_kind_name(r->spec->tech[k].kind),
                cml_tech_state_name(r->tech[k].state), r->spec->tech[k].what, r->tech[k].detail);
}

/* Contract in report.h. */
void cml_report_tech_json(json_w *w, const cml_task_result *r)
{
    jw_number(w, "technique_score", r->technique_score);
    jw_number(w, "technique_points", r->spec->technique_points);
    jw_begin_array(w, "technique");
    for (int k = 0; k < r->spec->ntech && k < CML_MAX_TECH; k++) {
        const cml_tech_spec *c = &r->spec->tech[k];
        jw_begin_object(w, NULL);
        jw_string(w, "kind", cml_tech_kind_name(c->kind));
        jw_string(w, "what", c->what);
        jw_string(w, "pattern", c->pattern);
        if (c->scope[0])
            jw_string(w, "in", c->scope);
        if (c->file[0]) /* a check of one source file (forbid) */
            jw_string(w, "file", c->file);
        if (cml_tech_kind(c->kind)->reads == CML_TECH_MEASURES_RUN) { /* a metric and bounds */
            jw_string(w, "metric", c->metric);
            if (c->min > -HUGE_VAL)
                jw_number(w, "min", c->min);
            jw_number(w, "max", c->max);
        }
        jw_string(w, "state", cml_tech_state_name(r->tech[k].state));
        jw_string(w, "detail", r->tech[k].detail);
        jw_end_object(w);
    }
    jw_end_array(w);
}
