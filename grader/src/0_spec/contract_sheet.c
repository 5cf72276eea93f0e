/* The sheet's copy of each task's contract kept as the spec writes it (contract.h). */
#include "contract.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BLOCK = 8192 };

/* text with [at, at + cut) replaced by ins: a new malloc'd text; text is freed. */
static char *splice(char *text, size_t at, size_t cut, const char *ins)
{
    size_t n = strlen(text), k = strlen(ins);
    char *out = malloc(n - cut + k + 1);
    if (out) {
        memcpy(out, text, at);
        memcpy(out + at, ins, k);
        memcpy(out + at + k, text + at + cut, n - at - cut + 1);
    }
    free(text);
    return out;
}

/* The offset of the line that starts with prefix, from offset `from`; -1 if none. */
static long line_starting(const char *text, size_t from, const char *prefix)
{
    const char *p = text + from;
    while (*p) {
        if ((p == text || p[-1] == '\n') && strncmp(p, prefix, strlen(prefix)) == 0)
            return (long)(p - text);
        const char *nl = strchr(p, '\n');
        if (!nl)
            break;
        p = nl + 1;
    }
    return -1;
}

/* Whether the heading at h ("### 1.2a and 1.2b Naive ...") names task id among the ids it
 * starts with (a word of digits, dots and letters, then "and" or a comma before the next). */
static int heading_names(const char *h, const char *id)
{
    const char *p = h + 4;
    size_t k = strlen(id);
    for (;;) {
        size_t w = strcspn(p, " ,\n");
        if (w == k && strncmp(p, id, k) == 0)
            return 1;
        if (w == 0 || !strchr("0123456789", p[0]))
            return 0;
        p += w;
        while (*p == ' ' || *p == ',')
            p++;
        if (strncmp(p, "and ", 4) == 0)
            p += 4;
    }
}

/* Where a missing block of task id goes: the start of the heading after its own, or the end. */
static long section_end(const char *text, const char *id)
{
    long h = -1;
    for (long at = line_starting(text, 0, "### "); at >= 0 && h < 0;
         at = line_starting(text, (size_t)at + 1, "### "))
        if (heading_names(text + at, id))
            h = at;
    if (h < 0)
        return -1;
    const char *nl = strchr(text + h, '\n');
    if (!nl)
        return (long)strlen(text);
    long next = line_starting(text, (size_t)(nl + 1 - text), "#");
    return next < 0 ? (long)strlen(text) : next;
}

/* Contract in contract.h. */
char *cml_contract_sheet(const cml_lab_spec *lab, const char *sheet, int *changed, char *err,
                         size_t errlen)
{
    char *text = strdup(sheet), *block = malloc(BLOCK);
    *changed = 0;
    for (int i = 0; text && block && i < lab->ntasks; i++) {
        const cml_task_spec *t = &lab->tasks[i];
        char begin[48], end[48];
        cml_contract_text(lab, t, block, BLOCK - 2); /* room for the blank line */
        snprintf(begin, sizeof begin, "<!-- contract %s:", t->id);
        snprintf(end, sizeof end, "<!-- end contract %s -->\n", t->id);
        long b = line_starting(text, 0, begin);
        const char *e = b < 0 ? NULL : strstr(text + b, end);
        if (b >= 0 && e) {
            size_t cut = (size_t)(e - text) + strlen(end) - (size_t)b;
            if (cut != strlen(block) || strncmp(text + b, block, cut) != 0) {
                ++*changed;
                text = splice(text, (size_t)b, cut, block);
            }
            continue;
        }
        long at = section_end(text, t->id);
        if (at < 0) {
            snprintf(err, errlen, "%s: the sheet has no heading '### %s ...' for its contract",
                     lab->lab, t->id);
            free(text), free(block);
            return NULL;
        }
        ++*changed;
        size_t k = strlen(block);
        block[k] = '\n', block[k + 1] = '\0'; /* a blank line before the next heading */
        text = splice(text, (size_t)at, 0, block);
    }
    free(block);
    if (!text)
        snprintf(err, errlen, "out of memory");
    return text;
}
