/* Every timed task of every real spec has a practice_fraction, and it agrees with the
 * reference's fractions that `make bench` wrote into the lecture notes' measured tables
 * (docs/NN_name.md, from `<!-- BENCH:NN -->`: the H200 table, then "The same bench on an
 * NVIDIA H100"): the lower GPU's geometric mean over the task's timed cases benched, to 0.01.
 * Rows marked "(given)" are the lab's baselines, not the reference's answer. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "helpers.h"
#include "spec.h"
#include "suites.h"
#include "util.h"

#define NGPU 2 /* 0: H200, 1: H100, in the order the notes give them */

/* The fraction in row "| task | kernel | case | ms | GB/s | fraction |" of `gpu`'s table in
 * note `text` for (task, case), the first such row not "(given)"; 0 when there is none. */
static double bench_fraction(const char *text, int gpu, const char *task, const char *kase)
{
    const char *p = strstr(text, "<!-- BENCH:");
    const char *h100 = p ? strstr(p, "The same bench on an NVIDIA H100") : NULL;
    const char *from = gpu == 0 ? p : h100, *to = gpu == 0 ? h100 : NULL;
    const char *end = from ? strstr(from, "\n## ") : NULL;
    if (!from || !h100)
        return 0;
    if (!to || (end && end < to))
        to = end ? end : from + strlen(from);
    for (const char *l = from; l && l < to; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        char cell[6][96];
        const char *c = l;
        int n = 0;
        if (*c != '|')
            continue;
        for (c++; n < 6 && *c && *c != '\n'; n++) {
            size_t w = strcspn(c, "|\n");
            const char *s = c, *e = c + w;
            while (s < e && *s == ' ')
                s++;
            while (e > s && e[-1] == ' ')
                e--;
            snprintf(cell[n], sizeof cell[n], "%.*s", (int)(e - s), s);
            c += w + (c[w] == '|');
        }
        if (n == 6 && strcmp(cell[0], task) == 0 && strcmp(cell[2], kase) == 0 &&
            !strstr(cell[1], "(given)"))
            return atof(cell[5]);
    }
    return 0;
}

/* The lower GPU's geometric mean of t's timed cases in note text; 0 when a GPU has none. */
static double benched(const char *text, const cml_task_spec *t, char *seen, size_t len)
{
    double lowest = 0;
    seen[0] = '\0';
    for (int gpu = 0; gpu < NGPU; gpu++) {
        double log_sum = 0;
        int n = 0;
        for (int i = 0; i < t->ncases; i++) {
            double f = t->cases[i].timed ? bench_fraction(text, gpu, t->id, t->cases[i].text) : 0;
            if (f > 0)
                log_sum += log(f), n++;
        }
        if (n == 0)
            return 0;
        double mean = exp(log_sum / n);
        size_t used = strlen(seen);
        snprintf(seen + used, len - used, "%s %.3f ", gpu ? "H100" : "H200", mean);
        lowest = gpu == 0 || mean < lowest ? mean : lowest;
    }
    return lowest;
}

START_TEST(every_timed_task_has_a_practice_bound_from_the_bench_tables)
{
    static cml_lab_spec specs[CML_MAX_LABS];
    char err[512], path[CML_PATH], seen[128];
    int n = cml_load_specs(test_root(), NULL, specs, CML_MAX_LABS, err, sizeof err);
    ck_assert_msg(n == 7, "specs: %d (%s)", n, err);
    int checked = 0;
    for (int l = 0; l < n; l++) {
        cml_fmt(path, sizeof path, "%s/%s", test_root(), specs[l].note);
        char *text = cml_read_text(path, 1u << 22, NULL);
        ck_assert_msg(text != NULL, "cannot read %s", path);
        for (int k = 0; k < specs[l].ntasks; k++) {
            const cml_task_spec *t = &specs[l].tasks[k];
            if (t->perf_points <= 0)
                continue;
            double want = benched(text, t, seen, sizeof seen);
            ck_assert_msg(want > 0, "task %s: no bench row for its timed cases in %s", t->id,
                          specs[l].note);
            ck_assert_msg(fabs(t->practice_fraction - want) <= 0.006,
                          "task %s: practice_fraction %g, the bench tables say %.3f (%s)", t->id,
                          t->practice_fraction, want, seen);
            checked++;
        }
        free(text);
    }
    ck_assert_int_eq(checked, 20);
}
END_TEST

/* Contract: tests/test_practice.c adds this case to the practice suite. */
TCase *practice_bounds_tcase(void)
{
    TCase *tc = tcase_create("practice bounds");
    tcase_add_test(tc, every_timed_task_has_a_practice_bound_from_the_bench_tables);
    return tc;
}
