/* spec, task blocks: `task` opens one, its directives fill it, the next `task` (or the end of
 * the file) closes it, and closing checks that it can be graded: a known check, points, and
 * cases that give the check what it needs. */
#include "spec_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkrules_spec.h"
#include "checks.h"

/* Opens a task block (closing the previous one): a new, unique id. */
int spec_open_task(spec_parser *p, char *args)
{
    if (p->task && spec_close_task(p) != 0)
        return -1;
    char *id = spec_word(&args);
    if (!id || spec_word(&args))
        return spec_fail(p, "'task' takes exactly one id, e.g. 'task 1.1'");
    if (id[strspn(id, SPEC_ID_CHARS)] != '\0' || strlen(id) >= sizeof p->task->id)
        return spec_fail(p, "task id '%s': use up to 15 letters, digits, '.', '_' or '-'", id);
    if (cml_spec_task(p->spec, id))
        return spec_fail(p, "duplicate task id '%s'", id);
    if (p->spec->ntasks == CML_MAX_TASKS)
        return spec_fail(p, "too many tasks (at most %d)", CML_MAX_TASKS);
    p->task = &p->spec->tasks[p->spec->ntasks++];
    memset(p->task, 0, sizeof *p->task);
    strcpy(p->task->id, id);
    p->task_line = p->line;
    p->has_points = p->has_technique = 0;
    return 0;
}

/* Checks the open task once all its lines are read; errors name the line they are about. */
int spec_close_task(spec_parser *p)
{
    cml_task_spec *t = p->task;
    int here = p->line;
    p->line = p->task_line;
    if (t->check[0] == '\0')
        return spec_fail(p, "task %s has no 'check'", t->id);
    if (!p->has_points)
        return spec_fail(p, "task %s has no 'points'", t->id);
    if (t->ncases == 0)
        return spec_fail(p, "task %s has no 'case'", t->id);
    int timed = 0;
    for (int i = 0; i < t->ncases; i++) {
        char err[160] = "";
        timed |= t->cases[i].timed;
        p->line = p->case_lines[i];
        if (cml_check_find(t->check)->out_elems(&t->cases[i], err, sizeof err) == 0)
            return spec_fail(p, "case '%s' of task %s: %s", t->cases[i].text, t->id, err);
    }
    p->line = p->task_line;
    if (spec_check_draws(p) != 0)
        return -1;
    if (t->perf_points > 0 && !timed)
        return spec_fail(p, "task %s has 'perf' points but no case marked 'time'", t->id);
    if (t->practice_fraction > 0 && t->perf_points <= 0)
        return spec_fail(p, "task %s has 'practice_fraction' but no 'perf' points to judge",
                         t->id);
    if (spec_close_technique(p) != 0)
        return -1;
    p->line = here;
    p->task = NULL;
    return 0;
}

/* Copies the rest of the line into a field, refusing what does not fit. */
static int rest_of_line(spec_parser *p, const char *what, const char *args, char *dst, size_t len)
{
    if (strlen(args) >= len)
        return spec_fail(p, "%s is too long (at most %zu characters)", what, len - 1);
    strcpy(dst, args);
    return 0;
}

int spec_task_title(spec_parser *p, char *args)
{
    return rest_of_line(p, "title", args, p->task->title, sizeof p->task->title);
}

int spec_hint(spec_parser *p, char *args)
{
    return rest_of_line(p, "hint", args, p->task->hint, sizeof p->task->hint);
}

/* `api <function>...`: names of the lab's link_api (given before the first task). */
int spec_api(spec_parser *p, char *args)
{
    cml_task_spec *t = p->task;
    for (char *w = spec_word(&args); w; w = spec_word(&args)) {
        const char *api = cml_link_api_of(&p->spec->link, w);
        if (!api || strcmp(api, w) != 0) /* as link_api spells it, not a mangled name */
            return spec_fail(p, "'api %s': not a function of the lab's link_api (name it there, "
                             "before the first task)", w);
        if (t->napi == CML_MAX_TASK_API || strlen(w) >= sizeof t->api[0])
            return spec_fail(p, "'api': at most %d names of at most %zu characters",
                             CML_MAX_TASK_API, sizeof t->api[0] - 1);
        strcpy(t->api[t->napi++], w);
    }
    return t->napi ? 0 : spec_fail(p, "'api' names at least one function of link_api");
}

int spec_check(spec_parser *p, char *args)
{
    char *name = spec_word(&args);
    if (!name || spec_word(&args))
        return spec_fail(p, "'check' takes exactly one name");
    if (!cml_check_find(name)) {
        char names[256];
        cml_check_names(names, sizeof names);
        return spec_fail(p, "unknown check '%s' (known: %s)", name, names);
    }
    snprintf(p->task->check, sizeof p->task->check, "%s", name);
    return 0;
}

int spec_tolerance(spec_parser *p, char *args)
{
    char *kind = spec_word(&args), *value = spec_word(&args);
    double tol = 0;
    if (kind && strcmp(kind, "exact") == 0 && !value) {
        p->task->rel_tol = 0;
        return 0;
    }
    if (!kind || strcmp(kind, "rel") != 0 || !value || spec_word(&args))
        return spec_fail(p, "'tolerance' is 'exact' or 'rel <x>'");
    if (spec_number(p, value, "tolerance", &tol) != 0)
        return -1;
    if (tol < 0)
        return spec_fail(p, "tolerance must be >= 0");
    p->task->rel_tol = tol;
    return 0;
}

int spec_points(spec_parser *p, char *args)
{
    if (spec_number(p, args, "points", &p->task->points) != 0)
        return -1;
    if (p->task->points < 0)
        return spec_fail(p, "points must be >= 0");
    p->has_points = 1;
    return 0;
}

/* `perf <points> <full_ratio> <zero_ratio>` */
int spec_perf(spec_parser *p, char *args)
{
    cml_task_spec *t = p->task;
    char *w[3] = {spec_word(&args), spec_word(&args), spec_word(&args)};
    if (!w[2] || spec_word(&args))
        return spec_fail(p, "'perf' takes three numbers: points full_ratio zero_ratio");
    if (spec_number(p, w[0], "perf points", &t->perf_points) != 0 ||
        spec_number(p, w[1], "full_ratio", &t->full_ratio) != 0 ||
        spec_number(p, w[2], "zero_ratio", &t->zero_ratio) != 0)
        return -1;
    if (t->perf_points < 0)
        return spec_fail(p, "perf points must be >= 0");
    if (t->full_ratio <= 0 || t->full_ratio >= t->zero_ratio)
        return spec_fail(p, "perf needs 0 < full_ratio < zero_ratio (got %g and %g)",
                         t->full_ratio, t->zero_ratio);
    return 0;
}

/* `practice_fraction <f>`: what the reference reaches of the bound, 0 < f <= 1.05 (the
 * plausibility limit, speed.c); with it the practice grade judges speed (speed_practice.c). */
int spec_practice_fraction(spec_parser *p, char *args)
{
    char *w = spec_word(&args);
    if (!w || spec_word(&args))
        return spec_fail(p, "'practice_fraction' takes one number, e.g. 'practice_fraction 0.94'");
    if (spec_number(p, w, "practice_fraction", &p->task->practice_fraction) != 0)
        return -1;
    if (!(p->task->practice_fraction > 0 && p->task->practice_fraction <= 1.05))
        return spec_fail(p, "practice_fraction must be above 0 and at most 1.05 (a fraction of "
                         "the copy or link bandwidth), not %s", w);
    return 0;
}

/* `case key=value[,key=value]... [time]`: the text passed to --case, parsed parameters. */
int spec_case(spec_parser *p, char *args)
{
    cml_task_spec *t = p->task;
    if (t->ncases == CML_MAX_CASES)
        return spec_fail(p, "too many cases in task %s (at most %d)", t->id, CML_MAX_CASES);
    cml_case_spec *c = &t->cases[t->ncases];
    memset(c, 0, sizeof *c);
    char *params = spec_word(&args), *w;
    if (!params)
        return spec_fail(p, "'case' needs parameters, e.g. 'case n=4097'");
    while ((w = spec_word(&args)) != NULL) {
        if (strcmp(w, "time") != 0)
            return spec_fail(p, "case: unexpected '%s' (only 'time' may follow)", w);
        c->timed = 1;
    }
    if (spec_case_params(p, c, params) != 0)
        return -1;
    p->case_lines[t->ncases++] = p->line;
    return 0;
}

/* The task with id `id`, or NULL. */
const cml_task_spec *cml_spec_task(const cml_lab_spec *s, const char *id)
{
    for (int i = 0; s && id && i < s->ntasks; i++)
        if (strcmp(s->tasks[i].id, id) == 0)
            return &s->tasks[i];
    return NULL;
}

/* Contract in spec.h. */
void cml_case_arg(const cml_task_spec *t, const char *params, int timed, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s", t->id, params[0] ? "," : "", params, timed ? ",time" : "");
}
