/* What compute-sanitizer's log says, as one line for a report (sanitize.h). Its messages put
 * the location on the line after the error ("at copyCoalesced(const float *, ...)+0x90 in
 * /tmp/.../coalescing.cu:23", memcheck, synccheck, initcheck) or inside it (racecheck's "Race
 * reported between Write access at ... in transpose.cu:40", then "and Read access at ...").
 * Labs are built with -lineinfo, so the location names the student's file and line. */
#include "sanitize.h"

#include <stdio.h>
#include <string.h>

#define LINE 400

/* s with its "at <function>(<args>)+0x.. in <path>:<line>" rewritten as "at <file>:<line> in
 * <function>" (the file without its folder: the run folder's name means nothing to a student);
 * unchanged when it holds no such location. Into out. */
static void tidy(const char *s, char *out, size_t len)
{
    const char *at = strncmp(s, "at ", 3) == 0 ? s : strstr(s, " at ");
    at = at && at != s ? at + 1 : at;
    const char *plus = at ? strstr(at, "+0x") : NULL;
    const char *in = at ? strstr(plus ? plus : at, " in ") : NULL;
    const char *colon = in ? strchr(in + 4, ':') : NULL;
    if (!in || !colon || colon[1] < '0' || colon[1] > '9') {
        snprintf(out, len, "%s", s);
        return;
    }
    size_t fn = strcspn(at + 3, "(+ ");
    const char *path = in + 4, *end = path + strcspn(path, " ");
    const char *file = path;
    for (const char *p = path; p < end; p++)
        file = *p == '/' ? p + 1 : file;
    snprintf(out, len, "%.*sat %.*s in %.*s%s", (int)(at - s), s, (int)(end - file), file,
             (int)fn, at + 3, end);
}

/* Whether a message line holds a file:line location already. */
static int located(const char *s)
{
    const char *in = strstr(s, " in ");
    const char *colon = in ? strchr(in + 4, ':') : NULL;
    return colon && colon[1] >= '0' && colon[1] <= '9';
}

/* One error's message from its lines (header first, then its indented detail lines) into buf. */
static void message(char lines[][LINE], int n, char *buf, size_t len)
{
    char part[LINE];
    tidy(lines[0], buf, len);
    for (int i = 1; i < n; i++) { /* where it happened, and racecheck's other access */
        int where = !located(lines[0]) && strncmp(lines[i], "at ", 3) == 0;
        if (!where && strncmp(lines[i], "and ", 4) != 0)
            continue;
        tidy(lines[i], part, sizeof part);
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, " %s", part);
        if (where)
            break;
    }
}

/* Whether msg's first location ("at <file>:<line> in") names one of the files. */
static int in_files(const char *msg, const char *const *files, int nfiles)
{
    for (const char *at = strstr(msg, " at "); at; at = strstr(at + 1, " at ")) {
        const char *colon = strchr(at + 4, ':');
        size_t n = colon ? (size_t)(colon - (at + 4)) : 0;
        for (int f = 0; n && colon[1] >= '0' && colon[1] <= '9' && f < nfiles; f++)
            if (strlen(files[f]) == n && strncmp(at + 4, files[f], n) == 0)
                return 1;
    }
    return 0;
}

/* Contract in sanitize.h. An error's header is "========= X" (one space), its details are
 * indented ("=========     at ..."). */
int cml_sanitizer_errors(const char *log, const char *const *files, int nfiles, char *buf,
                         size_t len)
{
    char lines[4][LINE], msg[LINE];
    int n = 0;
    buf[0] = '\0';
    for (const char *p = log; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        size_t all = strcspn(p, "\r\n");
        const char *s = p + strspn(p, "= ");
        int header = strncmp(p, "========= ", 10) == 0 && p[10] != ' ';
        if (strncmp(p, "=========", 9) != 0 || s >= p + all)
            continue;
        size_t m = all - (size_t)(s - p);
        if (header && n > 0) { /* the error before this one is complete */
            message(lines, n, msg, sizeof msg);
            if (!buf[0])
                snprintf(buf, len, "%s", msg);
            if (in_files(msg, files, nfiles))
                return snprintf(buf, len, "%s", msg), 1;
            n = 0;
        }
        if (header && (memmem(s, m, "COMPUTE-SANITIZER", 17) || memmem(s, m, "SUMMARY", 7)))
            continue;
        if ((header || n > 0) && n < 4)
            snprintf(lines[n++], LINE, "%.*s", (int)(m < LINE - 1 ? m : LINE - 1), s);
    }
    if (n == 0)
        return 0;
    message(lines, n, msg, sizeof msg);
    if (!buf[0])
        snprintf(buf, len, "%s", msg);
    return in_files(msg, files, nfiles) ? (snprintf(buf, len, "%s", msg), 1) : 0;
}

/* What compute-sanitizer prints about itself, never about the application: its internal
 * errors and what it cannot follow ("Internal Sanitizer Error: ...", "... is not supported",
 * "Unsupported ..."). Its "Error: " headers are not among them: racecheck's hazards and the
 * lab's own end ("Error: process didn't terminate successfully") use that word too. The log is
 * written where only the tool may write (tool_run.c): a lab cannot print these lines into it. */
static int own_failure(const char *s, size_t n)
{
    static const char *const OWN[] = { "internal sanitizer error", "internal error",
                                       "unsupported", "not supported", NULL };
    char low[LINE];
    snprintf(low, sizeof low, "%.*s", (int)(n < LINE - 1 ? n : LINE - 1), s);
    for (char *p = low; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    for (int i = 0; OWN[i]; i++)
        if (strstr(low, OWN[i]))
            return 1;
    return 0;
}

/* Contract in sanitize.h. */
int cml_sanitizer_tool_failure(const char *log, char *buf, size_t len)
{
    buf[0] = '\0';
    for (const char *p = log; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        size_t all = strcspn(p, "\r\n");
        if (strncmp(p, "=========", 9) != 0)
            continue;
        const char *s = p + strspn(p, "= ");
        size_t n = s < p + all ? all - (size_t)(s - p) : 0;
        if (n && own_failure(s, n))
            return snprintf(buf, len, "%.*s", (int)n, s), 1;
    }
    return 0;
}
