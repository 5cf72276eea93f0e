/* Link rules as data: the names of grader/specs/link.rules and of a spec's link_api and
 * link_calls lines, and matching a symbol against them. An instructor edits these files, so
 * every mistake is reported as "path:line: what". */
#include "linkrules_spec.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATTERN_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.$*?[]-"

/* Contract in linkrules_spec.h. */
int cml_link_add(cml_link_rules *r, int list, const char *group, char *args, char *err,
                 size_t errlen)
{
    int added = 0;
    for (char *save = NULL, *w = strtok_r(args, " \t", &save); w;
         w = strtok_r(NULL, " \t", &save)) {
        if (w[strspn(w, PATTERN_CHARS)] != '\0') {
            snprintf(err, errlen, "'%s' is not a symbol or a glob of [A-Za-z0-9_.$*?[]-]", w);
            return -1;
        }
        if (strlen(w) >= sizeof r->names[0].pattern || r->n == CML_LINK_NAMES) {
            snprintf(err, errlen, "'%s': names are at most %zu characters, %d in all", w,
                     sizeof r->names[0].pattern - 1, CML_LINK_NAMES);
            return -1;
        }
        cml_link_name *e = &r->names[r->n++];
        snprintf(e->pattern, sizeof e->pattern, "%s", w);
        snprintf(e->group, sizeof e->group, "%s", group ? group : "");
        e->list = list;
        added++;
    }
    if (!added)
        snprintf(err, errlen, "needs at least one name");
    return added ? 0 : -1;
}

/* The top-level name of a C++ function symbol (`_Z8um_allocm` -> "um_alloc") into buf;
 * "" when sym is not of that shape (nested names, operators, C symbols). */
static void top_level_name(const char *sym, char *buf, size_t len)
{
    buf[0] = '\0';
    if (strncmp(sym, "_Z", 2) != 0)
        return;
    char *end;
    errno = 0;
    unsigned long n = strtoul(sym + 2, &end, 10);
    if (end == sym + 2 || errno || n == 0 || n >= len || strlen(end) < n)
        return;
    memcpy(buf, end, n);
    buf[n] = '\0';
}

/* Contract in linkrules_spec.h. */
const char *cml_link_api_of(const cml_link_rules *r, const char *sym)
{
    char top[128];
    top_level_name(sym, top, sizeof top);
    for (int i = 0; i < r->n; i++)
        if (r->names[i].list == CML_LINK_API && (strcmp(r->names[i].pattern, sym) == 0 ||
                                                 strcmp(r->names[i].pattern, top) == 0))
            return r->names[i].pattern;
    return NULL;
}

/* Contract in linkrules_spec.h. */
int cml_link_match(const cml_link_rules *r, int list, const char *sym, const char **group)
{
    char top[128];
    top_level_name(sym, top, sizeof top);
    for (int i = 0; i < r->n; i++) {
        const cml_link_name *e = &r->names[i];
        if (e->list != list)
            continue;
        if (fnmatch(e->pattern, sym, 0) == 0 ||
            (list == CML_LINK_API && top[0] && fnmatch(e->pattern, top, 0) == 0)) {
            if (group)
                *group = e->group;
            return 1;
        }
    }
    return 0;
}

static const struct {
    const char *name;
    int list;
} DIRECTIVES[] = {
    {"calls", CML_LINK_COMMON},       {"internal", CML_LINK_INTERNAL},
    {"deny", CML_LINK_DENY},          {"hooks", CML_LINK_HOOK},
    {"registrar", CML_LINK_REGISTRAR}, {"initializer", CML_LINK_INITIALIZER},
    {"runtime", CML_LINK_RUNTIME},
    /* the harness library's student API: allowed before any deny, as a lab's link_calls is */
    {"harness-api", CML_LINK_CALLS},
};

/* One line of link.rules (comment already cut): `<directive> [group] <name>...`. */
static int rules_line(cml_link_rules *r, char *line, char *err, size_t errlen)
{
    char *save = NULL, *word = strtok_r(line, " \t\r\n", &save);
    if (!word)
        return 0;
    char *rest = save ? save : (char *)"";
    for (size_t i = 0; i < sizeof DIRECTIVES / sizeof DIRECTIVES[0]; i++) {
        if (strcmp(word, DIRECTIVES[i].name) != 0)
            continue;
        const char *group = NULL;
        if (DIRECTIVES[i].list == CML_LINK_DENY) {
            group = strtok_r(NULL, " \t\r\n", &save);
            rest = save ? save : (char *)"";
            if (!group || strlen(group) >= sizeof r->names[0].group) {
                snprintf(err, errlen, "'deny' takes a rule name (up to %zu characters), then "
                         "names", sizeof r->names[0].group - 1);
                return -1;
            }
        }
        rest[strcspn(rest, "\r\n")] = '\0';
        return cml_link_add(r, DIRECTIVES[i].list, group, rest, err, errlen);
    }
    int n = snprintf(err, errlen, "unknown directive '%s' (known:", word);
    for (size_t i = 0; i < sizeof DIRECTIVES / sizeof DIRECTIVES[0] && n >= 0 &&
                       (size_t)n < errlen; i++)
        n += snprintf(err + n, errlen - (size_t)n, " %s", DIRECTIVES[i].name);
    if (n >= 0 && (size_t)n < errlen)
        snprintf(err + n, errlen - (size_t)n, ")");
    return -1;
}

/* Contract in linkrules_spec.h. */
int cml_link_rules_load(const char *path, cml_link_rules *r, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL, msg[256];
    size_t cap = 0;
    int lineno = 0, rc = 0;
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        if ((rc = rules_line(r, line, msg, sizeof msg)) != 0)
            snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
    }
    free(line);
    fclose(f);
    r->common_loaded = rc == 0;
    return rc;
}
