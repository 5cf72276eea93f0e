/* Internal to the spec reader: the parser's state, shared by spec.c (the file, the lab
 * directives), spec_task.c (task blocks and their cases) and the directives' other files;
 * spec_words.c and spec_params.c sit below them all (words and numbers, a case's parameters).
 * Depends on spec.h (the reader's entry points, and through it cml.h); spec.h does not
 * include it back. */
#ifndef CML_SPEC_PARSE_H
#define CML_SPEC_PARSE_H

#include "spec.h"

/* The characters of a task id, and of a case's value (with '+'). */
#define SPEC_ID_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

typedef struct {
    const char *path;
    int line;                        /* current line, 1-based */
    cml_lab_spec *spec;
    cml_task_spec *task;             /* the open task block, NULL before the first `task` */
    int task_line;                   /* line of its `task` directive */
    int has_points;
    int has_technique;               /* the open task has a `technique` line */
    int case_lines[CML_MAX_CASES];   /* line of each `case`, for messages */
    char *err;
    size_t errlen;
} spec_parser;

/* spec_words.c, the words of a line, for every directive's file. */
/* "path:line: message" into p->err; returns -1. */
int spec_fail(spec_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whitespace trimmed in place; returns the new start. */
char *spec_trim(char *s);
/* Dispatches one directive with its (trimmed) arguments; 0 or -1 with p->err set. */
int spec_directive(spec_parser *p, const char *name, char *args);
/* A whole-string finite number, else -1 with "<what> must be a number, not '<s>'". */
int spec_number(spec_parser *p, const char *s, const char *what, double *out);
/* Splits the next whitespace-separated word off *args (NULL when none is left). */
char *spec_word(char **args);

/* Task directives (spec_task.c); args trimmed, p->task open where the directive needs one. */
int spec_open_task(spec_parser *p, char *args);
int spec_close_task(spec_parser *p);
/* spec_draw.c: `draw key=lo..hi[/step],...`, kept as a template, checked at its extremes. */
int spec_draw(spec_parser *p, char *args);
int spec_check_draws(spec_parser *p);
int spec_task_title(spec_parser *p, char *args);
int spec_check(spec_parser *p, char *args);
int spec_tolerance(spec_parser *p, char *args);
int spec_points(spec_parser *p, char *args);
int spec_case(spec_parser *p, char *args);
int spec_perf(spec_parser *p, char *args);
int spec_practice_fraction(spec_parser *p, char *args);
int spec_hint(spec_parser *p, char *args);
int spec_api(spec_parser *p, char *args);
/* spec_params.c: the comma-separated parameters of a case ("n=4097,time") into c (text,
 * fields, timed). */
int spec_case_params(spec_parser *p, cml_case_spec *c, char *params);

/* Technique directives (spec_technique.c) and the check made when a task closes. */
int spec_ptx(spec_parser *p, char *args);
int spec_sass(spec_parser *p, char *args);
int spec_forbid(spec_parser *p, char *args);
int spec_probe(spec_parser *p, char *args);
int spec_ncu(spec_parser *p, char *args);
int spec_ncu_case(spec_parser *p, char *args);
int spec_trace(spec_parser *p, char *args);
int spec_trace_case(spec_parser *p, char *args);
int spec_technique(spec_parser *p, char *args);
int spec_close_technique(spec_parser *p);

/* compute-sanitizer's directives (spec_sanitize.c): which tools, and on which cases. */
int spec_sanitize(spec_parser *p, char *args);
int spec_sanitize_case(spec_parser *p, char *args);
int spec_sanitize_drawn(spec_parser *p, char *args);

#endif /* CML_SPEC_PARSE_H */
