/* The technique check that runs the student's lab binary: under Nsight Compute (ncu) to read a
 * counter, in the sandbox with a timeout; whatever the grader's machine cannot do is "not
 * checked". cml_find_tool serves compute-sanitizer too (sanitize_run.c). */
#include "technique.h"
#include "run.h"
#include "tool_run.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIELD 256

static int is_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static int on_path(const char *name, char *path, size_t len)
{
    for (const char *p = getenv("PATH"); p && *p; p += strcspn(p, ":"), p += *p == ':') {
        size_t n = strcspn(p, ":");
        if (n && cml_fmt(path, len, "%.*s/%s", (int)n, p, name) == 0 && is_executable(path))
            return 1;
    }
    return 0;
}

/* Contract in technique.h. */
int cml_find_tool(const char *env_var, const char *name, char *path, size_t len)
{
    const char *env = getenv(env_var);
    if (env && *env)
        return (strchr(env, '/') ? cml_fmt(path, len, "%s", env) == 0 && is_executable(path)
                                 : on_path(env, path, len)) ? 0 : -1;
    if (on_path(name, path, len))
        return 0;
    return cml_fmt(path, len, "/usr/local/cuda/bin/%s", name) == 0 && is_executable(path)
           ? 0 : -1;
}

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

/* Contract in technique.h. */
int cml_ncu_sum(const char *csv, const char *metric, double *sum)
{
    static char f[32][FIELD];
    int name_col = -1, value_col = -1, rows = 0;
    *sum = 0;
    for (const char *p = csv; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        size_t n = strcspn(p, "\r\n");
        if (*p != '"')
            continue;
        int k = csv_fields(p, n, f, 32);
        if (name_col < 0 || value_col < 0) {
            for (int i = 0; i < k; i++) {
                name_col = strcmp(f[i], "Metric Name") == 0 ? i : name_col;
                value_col = strcmp(f[i], "Metric Value") == 0 ? i : value_col;
            }
            continue;
        }
        if (name_col >= k || value_col >= k || strcmp(f[name_col], metric) != 0)
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
    return rows;
}

/* "1.1,n=4097" (never "time"). */
static void case_text(const cml_task_spec *t, const char *text, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s", t->id, text[0] ? "," : "", text);
}

/* The last ncu run, for the task's other ncu checks of the same kernel: one profiling run
 * collects every metric they name (each run re-executes the lab binary and replays the kernel
 * once per pass, so runs are what grading time goes on). */
static struct {
    char key[CML_PATH + 1024];
    int rc;
    cml_tech_result failed; /* what run_tool said when rc != 0 */
    cml_proc_result r;
} last_ncu;

/* Contract in technique.h. */
void cml_tech_ncu_forget(void)
{
    cml_proc_result_free(&last_ncu.r);
    memset(&last_ncu, 0, sizeof last_ncu);
}

/* Every metric of t's ncu checks on kernel pattern `pattern`, comma-separated, no repeats. */
static void task_metrics(const cml_task_spec *t, const char *pattern, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < t->ntech && i < CML_MAX_TECH; i++) {
        const cml_tech_spec *c = &t->tech[i];
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = t->tech[j].kind == CML_TECH_NCU && !strcmp(t->tech[j].pattern, pattern) &&
                   !strcmp(t->tech[j].metric, c->metric);
        if (c->kind != CML_TECH_NCU || strcmp(c->pattern, pattern) || seen || used >= len)
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? "," : "", c->metric);
        used += w > 0 ? (size_t)w : 0;
    }
}

/* ncu on the lab binary for t's ncu case, collecting every metric t asks of kernels matching
 * c->pattern; reuses the last run when it was the same. 0 when ncu ran to an end (its output in
 * last_ncu.r), else -1 with out filled by run_tool. */
static int run_ncu(const char *ncu, const cml_tech_spec *c, const cml_task_spec *t,
                   const cml_technique_env *env, const char *one, cml_tech_result *out)
{
    char kernel[200], seed[32], metrics[1024], key[sizeof last_ncu.key];
    snprintf(kernel, sizeof kernel, "regex:%s", c->pattern);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)env->seed);
    task_metrics(t, c->pattern, metrics, sizeof metrics);
    snprintf(key, sizeof key, "%s|%s|%s|%s|%s", env->bin, seed, kernel, metrics, one);
    if (last_ncu.key[0] && strcmp(key, last_ncu.key) == 0) {
        if (last_ncu.rc != 0)
            *out = last_ncu.failed;
        return last_ncu.rc;
    }
    cml_tech_ncu_forget();
    char *const argv[] = {(char *)ncu, "--clock-control", "none", "--target-processes", "all",
                          "--kernel-name", kernel, "--metrics", metrics, "--csv",
                          "--print-units", "base", "./lab", "--seed", seed,
                          "--no-output", "--case", (char *)one, NULL};
    last_ncu.rc = cml_tool_run(argv, "--log-file", env, "ncu", &last_ncu.r, out->detail,
                               sizeof out->detail);
    if (last_ncu.rc != 0)
        out->state = CML_TECH_NOT_CHECKED;
    last_ncu.failed = *out;
    snprintf(last_ncu.key, sizeof last_ncu.key, "%s", key);
    return last_ncu.rc;
}

/* Contract in technique.h. */
void cml_tech_ncu(const cml_tech_spec *c, const cml_task_spec *t, const cml_technique_env *env,
                  cml_tech_result *out)
{
    char ncu[CML_PATH], one[200], tail[200];
    out->state = CML_TECH_NOT_CHECKED;
    if (cml_find_tool("CML_NCU", "ncu", ncu, sizeof ncu) != 0) {
        snprintf(out->detail, sizeof out->detail, "not checked (ncu not found)");
        return;
    }
    case_text(t, t->ncu_case[0] ? t->ncu_case : t->cases[0].text, one, sizeof one);
    if (run_ncu(ncu, c, t, env, one, out) != 0)
        return;
    const cml_proc_result *r = &last_ncu.r;
    double sum = 0;
    int rows = r->output ? cml_ncu_sum(r->output, c->metric, &sum) : 0;
    cml_proc_tail(r, 150, tail, sizeof tail);
    if (r->output && strstr(r->output, "ERR_NVGPUCTRPERM"))
        snprintf(out->detail, sizeof out->detail, "not checked (no permission to read the "
                 "GPU's performance counters: ERR_NVGPUCTRPERM)");
    else if (rows == 0 && r->output && (strstr(r->output, "No kernels were profiled") ||
                                        strstr(r->output, "application returned an error"))) {
        /* the lab ran under ncu (cml-confine started it) and launched no kernel that matches:
         * a renamed or unlaunched kernel, or a lab that behaves differently when profiled */
        out->state = CML_TECH_FAILED;
        snprintf(out->detail, sizeof out->detail, "no kernel matching '%.60s' ran under ncu "
                 "(case %.80s): %.80s", c->pattern, one, tail);
    } else if (rows == 0)
        snprintf(out->detail, sizeof out->detail, "not checked (ncu reported no %.80s for "
                 "a kernel matching %.60s: %.80s)", c->metric, c->pattern, tail);
    else {
        out->state = sum <= c->max ? CML_TECH_PASSED : CML_TECH_FAILED;
        snprintf(out->detail, sizeof out->detail, "%.100s = %.17g %s %.17g over %d kernel "
                 "launch%s (case %.100s)", c->metric, sum, sum <= c->max ? "<=" : "> limit",
                 c->max, rows, rows == 1 ? "" : "es", one);
    }
}
