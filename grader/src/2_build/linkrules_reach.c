/* Where a link-rule violation lands: its line in the log, and which of the lab's API functions
 * reach the code that holds it. A refused call in one wrapper (or in a helper only that wrapper
 * calls) then costs the tasks whose harness code calls that wrapper (`api` in the spec), and
 * the others are graded. The graph is every
 * student object's "caller target" lines (linkrules_calls.c), followed any number deep across
 * the student's files. What it cannot see (a call through a table of function pointers) makes
 * the code reached by no API function: that costs the whole lab, and the link keeps the
 * refused call pointing at a trap (linkrules.h), so a missed path can only end a run. */
#include "linkrules_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define REACH_MAX 512 /* functions followed from one API function */

/* Whether the line of text at p names `name` as its caller (first word). */
static int caller_is(const char *p, const char *name, size_t n)
{
    return strncmp(p, name, n) == 0 && p[n] == ' ';
}

/* Index of name in set (n entries), or -1. */
static int find(char *const *set, int n, const char *name, size_t len)
{
    for (int i = 0; i < n; i++)
        if (strlen(set[i]) == len && strncmp(set[i], name, len) == 0)
            return i;
    return -1;
}

/* Whether function `from` reaches `to` (itself included) along the calls text. */
static int reaches(const char *calls, const char *from, const char *to)
{
    char *set[REACH_MAX];
    int n = 0, hit = strcmp(from, to) == 0;
    if ((set[0] = strdup(from)))
        n = 1;
    for (int at = 0; !hit && at < n; at++) {
        size_t len = strlen(set[at]);
        for (const char *p = calls; !hit && *p; p += strcspn(p, "\n"), p += *p == '\n') {
            if (!caller_is(p, set[at], len))
                continue;
            const char *t = p + len + 1;
            size_t tl = strcspn(t, "\n");
            hit = strlen(to) == tl && strncmp(t, to, tl) == 0;
            char *name = !hit && n < REACH_MAX && find(set, n, t, tl) < 0 ? strndup(t, tl)
                         : NULL;
            if (name)
                set[n++] = name;
        }
    }
    for (int i = 0; i < n; i++)
        free(set[i]);
    return hit;
}

/* Contract in linkrules_int.h. */
void lr_reachers(const lr_ctx *c, char (*origins)[256], int norigins, char *buf, size_t len)
{
    const char *found[CML_LINK_NAMES];
    int nfound = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < c->nstudent; k++)
        for (int i = 0; i < c->student[k].nsyms; i++) {
            const lr_sym *s = &c->student[k].syms[i];
            const char *api = s->type == 'T' ? cml_link_api_of(c->r, s->name) : NULL;
            int hit = 0, known = 0;
            for (int f = 0; api && f < nfound; f++)
                known |= found[f] == api; /* the rules' own string: one per name */
            for (int o = 0; api && !known && !hit && o < norigins; o++)
                hit = reaches(c->calls ? c->calls : "", s->name, origins[o]);
            if (hit) {
                found[nfound++] = api;
                used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
                                         used ? " " : "", api);
            }
        }
}

#define MAX_NAMES 8

/* Whether s[0..n) could be a mangled C++ name as nm prints it. */
static int mangled(const char *s, size_t n)
{
    return n > 2 && n < 256 && strncmp(s, "_Z", 2) == 0 && strspn(s, "abcdefghijklmnopqrstuvwxyz"
           "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$") == n;
}

/* Contract in linkrules_int.h. */
void lr_demangle(char *const *names, int n, char (*out)[256])
{
    char *argv[LR_MAX_DEMANGLE + 2], tool[CML_PATH];
    n = n < LR_MAX_DEMANGLE ? n : LR_MAX_DEMANGLE;
    for (int i = 0; i < n; i++)
        snprintf(out[i], sizeof out[i], "%s", names[i]), argv[1 + i] = names[i];
    if (n == 0 || cml_find_tool("CML_CXXFILT", "c++filt", tool, sizeof tool) < 0)
        return;
    argv[0] = tool, argv[1 + n] = NULL;
    cml_proc_result r;
    cml_run(argv, NULL, NULL, -1, 10.0, 1u << 16, &r);
    const char *d = r.exited && r.exit_code == 0 ? r.output : NULL;
    for (int i = 0; i < n && d && *d; i++) { /* one line per name, in order */
        size_t dl = strcspn(d, "\n");
        if (dl && dl < sizeof out[i])
            snprintf(out[i], sizeof out[i], "%.*s", (int)dl, d);
        d += dl + (d[dl] == '\n');
    }
    cml_proc_result_free(&r);
}

/* Each quoted mangled name in line ('_Z8cml_seedv') written as the source spells it, the symbol
 * after it ('cml_seed()' (_Z8cml_seedv)), by lr_demangle: the student reads
 * std::chrono::system_clock::now(), not _ZNSt6chrono... A name c++filt leaves as it is, or no
 * c++filt, leaves the line as it was. */
static void readable_names(char *line, size_t len)
{
    const char *at[MAX_NAMES];
    size_t nlen[MAX_NAMES];
    char *names[MAX_NAMES] = { 0 }, shown[MAX_NAMES][256];
    int n = 0;
    for (const char *q = strchr(line, '\''); q && n < MAX_NAMES; q = strchr(q + 1, '\'')) {
        const char *e = strchr(q + 1, '\'');
        if (e && mangled(q + 1, (size_t)(e - q - 1))) {
            at[n] = q + 1, nlen[n] = (size_t)(e - q - 1);
            names[n] = strndup(q + 1, nlen[n]);
            n += names[n] != NULL;
            q = e;
        }
    }
    lr_demangle(names, n, shown);
    char out[1024];
    size_t used = 0;
    const char *from = line;
    for (int i = 0; i < n; i++) {
        if (strcmp(shown[i], names[i]) != 0 && used < sizeof out) {
            used += (size_t)snprintf(out + used, sizeof out - used, "%.*s%s' (%s)",
                                     (int)(at[i] - from), from, shown[i], names[i]);
            from = at[i] + nlen[i] + 1; /* past the name's closing quote */
        }
        free(names[i]);
    }
    if (from != line && used < sizeof out) {
        snprintf(out + used, sizeof out - used, "%s", from);
        snprintf(line, len, "%s", out);
    }
}

/* One violation line into the log (the first LR_MAX_LINES of them) and into line. */
static void say(lr_ctx *c, char *line, size_t len, const char *fmt, va_list ap)
{
    int n = snprintf(line, len, "link rule: %s ", c->obj);
    vsnprintf(line + n, len - (size_t)n, fmt, ap);
    if (c->nsaid < LR_MAX_LINES) /* a c++filt run per line shown: a flood costs no more */
        readable_names(line, len);
    if (c->nsaid++ < LR_MAX_LINES)
        cml_appendf(&c->log, &c->len, "%s\n", line);
}

/* Contract in linkrules_int.h. */
void lr_say(lr_ctx *c, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    say(c, line, sizeof line, fmt, ap);
    va_end(ap);
    c->whole++;
}

/* Contract in linkrules_int.h. */
void lr_say_from(lr_ctx *c, char (*origins)[256], int norigins, const char *fmt, ...)
{
    char line[1024], apis[1024];
    va_list ap;
    va_start(ap, fmt);
    say(c, line, sizeof line, fmt, ap);
    va_end(ap);
    lr_reachers(c, origins, norigins, apis, sizeof apis);
    if (!apis[0])
        c->whole++;
    for (const char *w = apis; *w; w += strcspn(w, " "), w += *w == ' ')
        cml_appendf(&c->by_api, &c->by_api_len, "%.*s %s\n", (int)strcspn(w, " "), w, line);
}

/* Contract in linkrules_int.h. */
void lr_edit(lr_ctx *c, const char *option, const char *arg)
{
    cml_appendf(&c->edits, &c->edits_len, "%s %s %s\n", c->obj, option, arg);
}

/* Contract in linkrules_int.h. */
void lr_note(lr_ctx *c, const char *fmt, ...)
{
    char line[1024];
    size_t len = c->notes ? strlen(c->notes) : 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    cml_appendf(&c->notes, &len, "%s\n", line);
}
