/* spec, compute-sanitizer directives. Every task whose cases all pass is run under memcheck,
 * racecheck, synccheck and initcheck (sanitize_phase.c); a task may turn tools off (a lab whose
 * lesson needs a benign race, say) and name the small cases they run, which are otherwise
 * chosen from its untimed cases (sanitize_run.c). Syntax in docs/SPEC.md. */
#include "spec.h"
#include "spec_parse.h"

#include <stdio.h>
#include <string.h>

static const char *const TOOLS[CML_SANITIZERS] = {"memcheck", "racecheck", "synccheck",
                                                  "initcheck"};

/* Contract in spec.h. */
const char *cml_sanitizer_name(int k)
{
    return k >= 0 && k < CML_SANITIZERS ? TOOLS[k] : "?";
}

/* `sanitize <tool>[,<tool>...]` runs only those tools on the task; `sanitize off` none. */
int spec_sanitize(spec_parser *p, char *args)
{
    char *list = spec_word(&args), *tool, *save = NULL;
    if (!list || spec_word(&args))
        return spec_fail(p, "'sanitize' takes tools separated by commas (e.g. memcheck,racecheck)"
                         " or 'off'");
    unsigned on = 0;
    if (strcmp(list, "off") != 0)
        for (tool = strtok_r(list, ",", &save); tool; tool = strtok_r(NULL, ",", &save)) {
            int k = 0;
            while (k < CML_SANITIZERS && strcmp(tool, TOOLS[k]) != 0)
                k++;
            if (k == CML_SANITIZERS)
                return spec_fail(p, "'sanitize': unknown tool '%s' (known: memcheck, racecheck, "
                                 "synccheck, initcheck; or 'off')", tool);
            on |= 1u << k;
        }
    p->task->sanitize_off = ((1u << CML_SANITIZERS) - 1) & ~on;
    return 0;
}

/* `sanitize_case <params>`: a case the tools run, in the syntax of `case`, never timed. */
int spec_sanitize_case(spec_parser *p, char *args)
{
    cml_task_spec *t = p->task;
    cml_case_spec c;
    memset(&c, 0, sizeof c);
    char *params = spec_word(&args);
    if (!params || spec_word(&args))
        return spec_fail(p, "'sanitize_case' takes one case, e.g. 'sanitize_case n=4097'");
    if (t->nsanitize_cases == CML_MAX_SANITIZE_CASES)
        return spec_fail(p, "'sanitize_case': at most %d per task", CML_MAX_SANITIZE_CASES);
    if (spec_case_params(p, &c, params) != 0)
        return -1;
    if (c.timed)
        return spec_fail(p, "'sanitize_case': nothing is timed under compute-sanitizer: drop "
                         "'time'");
    snprintf(t->sanitize_cases[t->nsanitize_cases++], sizeof t->sanitize_cases[0], "%s", c.text);
    return 0;
}

/* `sanitize_drawn`: every drawn case of a grading goes to the tools too, whatever its size, after
 * the chosen ones: an out-of-bounds access that a kernel makes only for large n, or past the
 * end of a buffer inside the guard regions' 256-byte rounding, is found at byte precision
 * (memcheck knows each buffer's exact bounds) on sizes the student cannot predict (issue 44). */
int spec_sanitize_drawn(spec_parser *p, char *args)
{
    if (spec_word(&args))
        return spec_fail(p, "'sanitize_drawn' takes nothing");
    p->task->sanitize_drawn = 1;
    return 0;
}
