/* spec, the words of a line: the error every directive reports, the splitting and the numbers
 * every directive's arguments go through (spec_parse.h). Below the directives' files (spec.c,
 * spec_task.c, spec_technique.c, spec_sanitize.c, spec_draw.c), which all call them: kept in
 * spec.c, they made spec.c and each of those files call each other. */
#include "spec_parse.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Records "path:line: message" in the parser's error buffer; returns -1. */
int spec_fail(spec_parser *p, const char *fmt, ...)
{
    int n = snprintf(p->err, p->errlen, "%s:%d: ", p->path, p->line);
    if (n >= 0 && (size_t)n < p->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* The next whitespace-separated word of *args, NUL-terminated in place; NULL when none. */
char *spec_word(char **args)
{
    char *s = *args + strspn(*args, " \t");
    if (*s == '\0')
        return NULL;
    char *end = s + strcspn(s, " \t");
    *args = *end ? end + 1 : end;
    *end = '\0';
    return s;
}

/* A whole-string finite number into *out; else -1 with a message. */
int spec_number(spec_parser *p, const char *s, const char *what, double *out)
{
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : 0;
    if (!s || end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
        return spec_fail(p, "%s must be a number, not '%s'", what, s ? s : "");
    *out = v;
    return 0;
}

/* Trims leading and trailing whitespace in place; returns the new start. */
char *spec_trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}
