/* ncu's --csv output, read by the ncu technique checks (technique_run.c): only from ncu's own
 * log file, never from the lab's stdout. */
#include "technique.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIELD 256

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

/* Whether the kernel of a row (ncu's "Kernel Name": "void k<32>(float *, int)") matches re, a
 * POSIX ERE searched in its name before the parameters, as ncu's own regex: filter does. */
static int kernel_matches(const regex_t *re, const char *name)
{
    char base[FIELD];
    snprintf(base, sizeof base, "%.*s", (int)strcspn(name, "("), name);
    return regexec(re, base, 0, NULL, 0) == 0;
}

/* The sum of one metric's rows (cml_ncu_sum without the '+'). */
static int one_metric(const char *csv, const char *metric, const char *kernel, double *sum)
{
    static char f[32][FIELD];
    int name_col = -1, value_col = -1, kernel_col = -1, rows = 0;
    regex_t re;
    *sum = 0;
    if (kernel && regcomp(&re, kernel, REG_EXTENDED | REG_NOSUB) != 0)
        return 0;
    for (const char *p = csv; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        size_t n = strcspn(p, "\r\n");
        if (*p != '"')
            continue;
        int k = csv_fields(p, n, f, 32);
        if (name_col < 0 || value_col < 0) {
            for (int i = 0; i < k; i++) {
                name_col = strcmp(f[i], "Metric Name") == 0 ? i : name_col;
                value_col = strcmp(f[i], "Metric Value") == 0 ? i : value_col;
                kernel_col = strcmp(f[i], "Kernel Name") == 0 ? i : kernel_col;
            }
            continue;
        }
        if (name_col >= k || value_col >= k || strcmp(f[name_col], metric) != 0)
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
        if (end != digits && *end == '\0') {
            *sum += v;
            rows++;
        }
    }
    if (kernel)
        regfree(&re);
    return rows;
}

/* Contract in technique.h. */
int cml_ncu_sum(const char *csv, const char *metric, const char *kernel, double *sum)
{
    char part[FIELD];
    int rows = -1; /* the fewest rows of any term so far: every term must have been measured */
    double total = 0;
    for (const char *m = metric; rows != 0; m += strcspn(m, "+") + 1) {
        size_t n = strcspn(m, "+");
        double s = 0;
        snprintf(part, sizeof part, "%.*s", (int)n, m);
        int r = n > 0 && n < sizeof part ? one_metric(csv, part, kernel, &s) : 0;
        rows = rows < 0 || r < rows ? r : rows;
        total += s;
        if (m[n] == '\0')
            break;
    }
    *sum = rows > 0 ? total : 0;
    return rows;
}
