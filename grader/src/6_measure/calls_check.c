/* What a host function reaches: the forbid check (source_check.c) follows a file's calls into
 * another student file's functions with this. It reads the build's .calls evidence
 * (evidence_launches.c, from the object's relocations and disassembly, taken before any student
 * code ran) and follows calls into functions of the same object, any number deep: a file-local
 * helper that gcc did not inline shows up as a call, one it inlined is part of the caller
 * already. (Lab 06's 6.2 had a `calls` check on this, copy_saxpy must name cudaMemcpy*: a
 * 4-byte token copy satisfied it, and ncu's measured sectors replaced it, 2026-11-27.) */
#include "technique.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define CALLS_DEPTH 32 /* functions followed per object: far more than a lab file holds */

/* Whether sym names the function `name`: that C name, or a C++ symbol whose top-level name it
 * is (`_Z10copy_saxpyPfPKfS1_miS_S_P11CUstream_st`). */
static int names_function(const char *sym, size_t len, const char *name)
{
    size_t n = strlen(name);
    if (len == n && strncmp(sym, name, n) == 0)
        return 1;
    char prefix[80];
    int w = snprintf(prefix, sizeof prefix, "_Z%zu%s", n, name);
    return w > 0 && (size_t)w < sizeof prefix && len > (size_t)w &&
           strncmp(sym, prefix, (size_t)w) == 0;
}

/* Whether name is one of the n names in set. */
static int in_set(char set[][256], int n, const char *name, size_t len)
{
    for (int i = 0; i < n; i++)
        if (strlen(set[i]) == len && strncmp(set[i], name, len) == 0)
            return 1;
    return 0;
}

/* Whether a symbol matches re as it is or as a source text would show a call of it ("name(":
 * a forbid pattern such as "cudaMalloc[^H]" is written for source). */
static int symbol_matches(const regex_t *re, const char *target)
{
    char call[260];
    snprintf(call, sizeof call, "%s(", target);
    return regexec(re, target, 0, NULL, 0) == 0 || regexec(re, call, 0, NULL, 0) == 0;
}

/* Contract in technique.h. */
int cml_calls_reach(const char *text, const char *function, const regex_t *re, char *found,
                    size_t flen, int *seen)
{
    char set[CALLS_DEPTH][256];
    int n = 0;
    for (const char *p = text; *p && n < CALLS_DEPTH; p += strcspn(p, "\n"), p += *p == '\n') {
        size_t c = strcspn(p, " \n");
        if (names_function(p, c, function) && !in_set(set, n, p, c))
            snprintf(set[n++], sizeof set[0], "%.*s", (int)c, p);
    }
    for (int at = 0; at < n; at++) /* set grows while it is walked: breadth first */
        for (const char *p = text; *p; p += strcspn(p, "\n"), p += *p == '\n') {
            size_t c = strcspn(p, " \n"), len = strcspn(p, "\n");
            if (c >= len || c != strlen(set[at]) || strncmp(p, set[at], c) != 0)
                continue;
            char target[256];
            snprintf(target, sizeof target, "%.*s", (int)(len - c - 1), p + c + 1);
            if (symbol_matches(re, target)) {
                snprintf(found, flen, "%.80s refers to %.80s", set[at], target);
                return *seen = n, 1;
            }
            /* a function of this object is one that itself refers to something */
            int local = 0;
            for (const char *q = text; !local && *q; q += strcspn(q, "\n"), q += *q == '\n')
                local = strncmp(q, target, strlen(target)) == 0 && q[strlen(target)] == ' ';
            if (local && n < CALLS_DEPTH && !in_set(set, n, target, strlen(target)))
                snprintf(set[n++], sizeof set[0], "%s", target);
        }
    *seen = n;
    return 0;
}
