/* spec: read a lab's grading spec (grader/specs/NN_name.spec), the data an instructor edits:
 * one directive per line, lab directives first, then task blocks. Every mistake is reported
 * as "path:line: what", so a typo never turns into a silently different grading. */
#include "spec_parse.h"
#include "linkrules_spec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exactly one word, a name of [A-Za-z0-9._-/] not starting with '.' or '/', and no "..":
 * what may become a file or folder name. With slash 0, '/' is refused too. */
static int safe_name(spec_parser *p, char *args, const char *what, int slash, char *dst,
                     size_t len)
{
    char *w = spec_word(&args);
    if (!w || spec_word(&args))
        return spec_fail(p, "'%s' takes exactly one name", what);
    size_t n = strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-/");
    if (w[n] != '\0' || w[0] == '.' || w[0] == '/' || strstr(w, "..") ||
        (!slash && strchr(w, '/')))
        return spec_fail(p, "'%s': '%s' is not a plain %s name", what, w,
                         slash ? "relative path" : "file");
    if (n >= len)
        return spec_fail(p, "'%s': '%s' is too long (at most %zu characters)", what, w, len - 1);
    memcpy(dst, w, n + 1);
    return 0;
}

static int d_lab(spec_parser *p, char *args)
{
    return safe_name(p, args, "lab", 0, p->spec->lab, sizeof p->spec->lab);
}

static int d_note(spec_parser *p, char *args)
{
    return safe_name(p, args, "note", 1, p->spec->note, sizeof p->spec->note);
}

static int d_title(spec_parser *p, char *args)
{
    if (p->task)
        return spec_task_title(p, args);
    if (strlen(args) >= sizeof p->spec->title)
        return spec_fail(p, "title is too long (at most %zu characters)",
                         sizeof p->spec->title - 1);
    strcpy(p->spec->title, args);
    return 0;
}

/* files / harness: one or more file names into list[*count]. */
static int file_list(spec_parser *p, char *args, const char *what, char list[][64], int *count)
{
    char *w;
    *count = 0;
    while ((w = spec_word(&args)) != NULL) {
        if (*count == CML_MAX_FILES)
            return spec_fail(p, "'%s': at most %d files", what, CML_MAX_FILES);
        if (safe_name(p, w, what, 0, list[*count], 64) != 0)
            return -1;
        (*count)++;
    }
    return *count ? 0 : spec_fail(p, "'%s' needs at least one file name", what);
}

static int d_files(spec_parser *p, char *args)
{
    return file_list(p, args, "files", p->spec->files, &p->spec->nfiles);
}

static int d_harness(spec_parser *p, char *args)
{
    return file_list(p, args, "harness", p->spec->harness, &p->spec->nharness);
}

static int d_reference_files(spec_parser *p, char *args)
{
    return file_list(p, args, "reference_files", p->spec->reference_files,
                     &p->spec->nreference_files);
}

static int d_timeout(spec_parser *p, char *args)
{
    double v = 0;
    if (spec_number(p, args, "timeout", &v) != 0)
        return -1;
    if (v <= 0)
        return spec_fail(p, "timeout must be > 0 seconds");
    p->spec->timeout_s = v;
    return 0;
}

/* link_api / link_calls: names for the link rules (linkrules.h), several per line. */
static int link_names(spec_parser *p, char *args, int list, const char *what)
{
    char msg[200];
    if (cml_link_add(&p->spec->link, list, NULL, args, msg, sizeof msg) != 0)
        return spec_fail(p, "'%s': %s", what, msg);
    return 0;
}

static int d_link_api(spec_parser *p, char *args)
{
    return link_names(p, args, CML_LINK_API, "link_api");
}

static int d_link_calls(spec_parser *p, char *args)
{
    return link_names(p, args, CML_LINK_CALLS, "link_calls");
}

/* link_deny <name>[,<name>...] <reason>: CUDA calls that would let a student skip this lab's
 * lesson (labs 01-05: a copy API writing the outputs in place of a kernel), refused with the
 * reason shown; every other CUDA runtime call is judged by its effect (link.rules). */
static int d_link_deny(spec_parser *p, char *args)
{
    char msg[200];
    cml_link_rules *r = &p->spec->link;
    size_t nl = strcspn(args, " \t");
    const char *why = args + nl + strspn(args + nl, " \t");
    if (!args[nl] || !*why || strlen(why) >= sizeof r->reasons[0])
        return spec_fail(p, "'link_deny': names (comma-separated), then the reason (up to %zu "
                         "characters)", sizeof r->reasons[0] - 1);
    if (r->nreasons == CML_LINK_REASONS)
        return spec_fail(p, "'link_deny': at most %d lines", CML_LINK_REASONS);
    snprintf(r->reasons[r->nreasons], sizeof r->reasons[0], "%s", why);
    args[nl] = '\0';
    for (char *c = args; *c; c++)
        *c = *c == ',' ? ' ' : *c;
    int first = r->n;
    if (cml_link_add(r, CML_LINK_LESSON, "lesson", args, msg, sizeof msg) != 0)
        return spec_fail(p, "'link_deny': %s", msg);
    for (int i = first; i < r->n; i++)
        r->names[i].reason = r->nreasons;
    r->nreasons++;
    return 0;
}

enum scope { LAB, TASK, ANY };

static const struct {
    const char *name;
    enum scope scope;
    int (*fn)(spec_parser *p, char *args);
} DIRECTIVES[] = {
    {"lab", LAB, d_lab},
    {"title", ANY, d_title},
    {"files", LAB, d_files},
    {"harness", LAB, d_harness},
    {"reference_files", LAB, d_reference_files},
    {"note", LAB, d_note},
    {"timeout", LAB, d_timeout},
    {"link_api", LAB, d_link_api},
    {"link_calls", LAB, d_link_calls},
    {"link_deny", LAB, d_link_deny},
    {"task", ANY, spec_open_task},
    {"check", TASK, spec_check},
    {"tolerance", TASK, spec_tolerance},
    {"points", TASK, spec_points},
    {"case", TASK, spec_case},
    {"draw", TASK, spec_draw},
    {"perf", TASK, spec_perf},
    {"practice_fraction", TASK, spec_practice_fraction},
    {"hint", TASK, spec_hint},
    {"api", TASK, spec_api},
    {"ptx", TASK, spec_ptx},
    {"sass", TASK, spec_sass},
    {"forbid", TASK, spec_forbid},
    {"probe", TASK, spec_probe},
    {"ncu", TASK, spec_ncu},
    {"ncu_case", TASK, spec_ncu_case},
    {"trace", TASK, spec_trace},
    {"trace_case", TASK, spec_trace_case},
    {"sanitize", TASK, spec_sanitize},
    {"sanitize_case", TASK, spec_sanitize_case},
    {"sanitize_drawn", TASK, spec_sanitize_drawn},
    {"technique", TASK, spec_technique},
};

/* Dispatches one directive; checks that it stands where it belongs. */
int spec_directive(spec_parser *p, const char *name, char *args)
{
    for (size_t i = 0; i < sizeof DIRECTIVES / sizeof DIRECTIVES[0]; i++) {
        if (strcmp(DIRECTIVES[i].name, name) != 0)
            continue;
        if (DIRECTIVES[i].scope == LAB && p->task)
            return spec_fail(p, "'%s' describes the lab: put it before the first 'task'", name);
        if (DIRECTIVES[i].scope == TASK && !p->task)
            return spec_fail(p, "'%s' outside a task: open one with 'task <id>' first", name);
        return DIRECTIVES[i].fn(p, args);
    }
    return spec_fail(p, "unknown directive '%s'", name);
}

/* Cuts a comment: '#' at the start of the line or after whitespace (so "C#" survives). */
static void strip_comment(char *s)
{
    for (char *c = s; *c; c++)
        if (*c == '#' && (c == s || *(c - 1) == ' ' || *(c - 1) == '\t')) {
            *c = '\0';
            return;
        }
}

/* Parses one non-empty line: directive word, then its arguments. */
static int parse_line(spec_parser *p, char *line)
{
    strip_comment(line);
    char *s = spec_trim(line);
    if (*s == '\0')
        return 0;
    char *args = s + strcspn(s, " \t");
    if (*args)
        *args++ = '\0';
    return spec_directive(p, s, spec_trim(args));
}

/* Checks what the whole file must have once read. */
static int finish(spec_parser *p)
{
    if (p->task && spec_close_task(p) != 0)
        return -1;
    if (p->spec->lab[0] == '\0')
        return spec_fail(p, "no 'lab' directive: which folder under labs/ is this?");
    if (p->spec->nfiles == 0)
        return spec_fail(p, "no 'files' directive: which student files are graded?");
    if (p->spec->ntasks == 0)
        return spec_fail(p, "no 'task' blocks: nothing to grade");
    return 0;
}

/* Parses a spec file; 0 on success, else -1 with a message "file:line: what" in err. */
int cml_spec_load(const char *path, cml_lab_spec *out, char *err, size_t errlen)
{
    spec_parser p = {.path = path, .spec = out, .err = err, .errlen = errlen};
    memset(out, 0, sizeof *out);
    out->timeout_s = 60;
    if (errlen)
        err[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return spec_fail(&p, "cannot open: %s", strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        p.line++;
        rc = parse_line(&p, line);
    }
    free(line);
    fclose(f);
    return rc == 0 ? finish(&p) : -1;
}
