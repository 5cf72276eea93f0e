/* ncu's --csv output, read by the ncu technique checks (technique_run.c): only from ncu's own
 * log file, never from the lab's stdout. */
#include "technique_run.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIELD 256
#define CASE_MARK "cml_case_mark" /* common/cml_gpu.cu: first in each case's window */

/* The fields of one CSV line ("a","b,c",d) into f; how many. */
static int csv_fields(const char *s, size_t n, char f[][FIELD], int max)
{
    int k = 0;
    size_t i = 0;
    while (i <= n && k < max) {
        size_t o = 0;
        if (i < n && s[i] == '"') {
            for (i++; i < n && !(s[i] == '"' && (i + 1 >= n || s[i + 1] != '"')); i++) {
                i += s[i] == '"'; /* "" is one quote */
                if (o < FIELD - 1)
                    f[k][o++] = s[i];
            }
            i++;
        }
        for (; i < n && s[i] != ','; i++)
            if (o < FIELD - 1)
                f[k][o++] = s[i];
        f[k++][o] = '\0';
        i++;
    }
    return k;
}

/* The unqualified name of a row's kernel (ncu's "Kernel Name", demangled: "void
 * ns::scaleRowMajor<32>(float *, int)", "scaleRowMajor(float *)", "cml_case_mark") into base:
 * its parameters, template arguments, return type and namespaces cut off, read from the end so
 * that a "(anonymous namespace)::" or a "(int)32" template argument cannot end it early. */
static void kernel_base(const char *name, char base[FIELD])
{
    size_t end = strlen(name);
    for (int pass = 0; pass < 2; pass++) { /* the parameters "(...)", then the template "<...>" */
        const char open = pass ? '<' : '(', close = pass ? '>' : ')';
        if (end == 0 || name[end - 1] != close)
            continue;
        int depth = 0;
        size_t i = end;
        while (i > 0) {
            char c = name[--i];
            depth += c == ')' || c == '>' ? 1 : c == '(' || c == '<' ? -1 : 0;
            if (depth == 0 && c == open)
                break;
        }
        end = depth == 0 ? i : end;
    }
    size_t start = end;
    while (start > 0 && (name[start - 1] == '_' || (name[start - 1] >= '0' &&
           name[start - 1] <= '9') || ((name[start - 1] | 32) >= 'a' && (name[start - 1] | 32)
           <= 'z')))
        start--;
    snprintf(base, FIELD, "%.*s", (int)(end - start), name + start);
}

/* Whether the kernel of a row is the one re names: re (the spec's POSIX ERE, anchored at both
 * ends by read_rows) matches its unqualified name whole. Searched anywhere in the name, as
 * before issue 44, `scaleRowMajor` also summed a helper `scaleRowMajorWarmup`'s shared-memory
 * traffic into the task's kernel's. Template arguments, parameters and namespaces are not the
 * name: `ns::scaleRowMajor<64>` is scaleRowMajor. */
static int kernel_matches(const regex_t *re, const char *name)
{
    char base[FIELD];
    kernel_base(name, base);
    return regexec(re, base, 0, NULL, 0) == 0;
}

/* Whether a row's kernel is the case marker: "cml_case_mark", or with its parameters. */
static int is_mark(const char *name)
{
    size_t n = strlen(CASE_MARK);
    return strncmp(name, CASE_MARK, n) == 0 && (name[n] == '\0' || name[n] == '(');
}

typedef struct {
    char id[FIELD];
    double v;
} launch_sum;

/* One pass over csv's rows; terms[t] the metric names. rows[t]: the rows of term t; per launch
 * (ids given): each launch's ("ID" column) sum of its terms in ids, else the sum of all in
 * *total. Rows of the case marker are never counted, but each of its launches starts a window:
 * with segment >= 0 only that window's rows count (its marker's launches in *marks). */
static void read_rows(const char *csv, char terms[][FIELD], int nterms, const char *kernel,
                      int segment, int rows[], double *total, launch_sum **ids, int *nids,
                      int *marks)
{
    static char f[32][FIELD];
    char mark_id[FIELD] = "";
    int name_col = -1, value_col = -1, kernel_col = -1, id_col = -1;
    *marks = 0;
    regex_t re;
    char whole[1100];
    snprintf(whole, sizeof whole, "^(%s)$", kernel ? kernel : ""); /* the name as a whole */
    if (kernel && regcomp(&re, whole, REG_EXTENDED | REG_NOSUB) != 0)
        return;
    for (const char *p = csv; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        size_t n = strcspn(p, "\r\n");
        if (*p != '"')
            continue;
        int k = csv_fields(p, n, f, 32), t = 0;
        if (name_col < 0 || value_col < 0) {
            for (int i = 0; i < k; i++) {
                name_col = strcmp(f[i], "Metric Name") == 0 ? i : name_col;
                value_col = strcmp(f[i], "Metric Value") == 0 ? i : value_col;
                kernel_col = strcmp(f[i], "Kernel Name") == 0 ? i : kernel_col;
                id_col = strcmp(f[i], "ID") == 0 ? i : id_col;
            }
            continue;
        }
        if (name_col >= k || value_col >= k)
            continue;
        const char *id = id_col >= 0 && id_col < k ? f[id_col] : "";
        if (kernel_col >= 0 && kernel_col < k && is_mark(f[kernel_col])) {
            *marks += strcmp(id, mark_id) != 0;
            snprintf(mark_id, sizeof mark_id, "%s", id);
            continue;
        }
        if (segment >= 0 && *marks - 1 != segment)
            continue;
        while (t < nterms && strcmp(f[name_col], terms[t]) != 0)
            t++;
        if (t == nterms)
            continue;
        if (kernel && (kernel_col < 0 || kernel_col >= k || !kernel_matches(&re, f[kernel_col])))
            continue;
        char digits[FIELD], *end;
        size_t o = 0;
        for (const char *c = f[value_col]; *c; c++)
            if (*c != ',')
                digits[o++] = *c;
        digits[o] = '\0';
        double v = strtod(digits, &end);
        if (end == digits || *end != '\0')
            continue;
        rows[t]++;
        *total += v;
        if (!ids)
            continue;
        int i = 0;
        while (i < *nids && strcmp((*ids)[i].id, id) != 0)
            i++;
        if (i == *nids) {
            launch_sum *grown = realloc(*ids, (size_t)(*nids + 1) * sizeof **ids);
            if (!grown)
                continue;
            *ids = grown;
            snprintf(grown[i].id, FIELD, "%s", id);
            grown[i].v = 0;
            (*nids)++;
        }
        (*ids)[i].v += v;
    }
    if (kernel)
        regfree(&re);
}

/* Contract in technique_run.h. */
int cml_ncu_value(const char *csv, const char *metric, const char *kernel, int per_launch,
                  int segment, double *value, int *marks)
{
    char terms[4][FIELD];
    int nterms = 0, rows[4] = {0}, nids = 0, fewest = -1, unused;
    marks = marks ? marks : &unused;
    *marks = 0;
    double total = 0;
    launch_sum *ids = NULL;
    *value = 0;
    for (const char *m = metric;; m += strcspn(m, "+") + 1) {
        size_t n = strcspn(m, "+");
        if (n == 0 || n >= FIELD || nterms == 4) /* the spec allows at most 4 terms */
            return 0;
        snprintf(terms[nterms++], FIELD, "%.*s", (int)n, m);
        if (m[n] == '\0')
            break;
    }
    read_rows(csv, terms, nterms, kernel, segment, rows, &total, per_launch ? &ids : NULL, &nids,
              marks);
    for (int t = 0; t < nterms; t++)
        fewest = fewest < 0 || rows[t] < fewest ? rows[t] : fewest;
    if (per_launch && nids == 0) /* no launch kept (out of memory): not measured */
        fewest = 0;
    if (fewest > 0 && per_launch) { /* the largest launch; the count is of launches */
        *value = ids[0].v;
        for (int i = 1; i < nids; i++)
            *value = ids[i].v > *value ? ids[i].v : *value;
        fewest = nids;
    } else if (fewest > 0)
        *value = total;
    free(ids);
    return fewest > 0 ? fewest : 0;
}
