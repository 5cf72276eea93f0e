/* Drawn cases: `draw n=1..200000` in a task adds, at every grading, one untimed case whose n
 * is drawn from the grading's seed (`draw n=1024..1048576/1024`: multiples of 1024 from 1024;
 * `draw rows=1..3000,cols=1..3000,passes=2`: several keys, fixed ones too). A table of answers
 * for the sheet's sizes then fails; the same seed draws the same cases, so a re-grade repeats. */
#include "spec_parse.h"
#include "checks.h"
#include "cml_rand.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DRAW_STREAM 0x64726177u /* "draw": the seed's stream for case values */
#define DRAW_TRIES 64

/* One item "key=lo..hi[/step]" or "key=value": its parts; 0, or -1 when it does not parse. */
static int draw_item(const char *item, char *key, size_t klen, uint64_t *lo, uint64_t *hi,
                     uint64_t *step, const char **fixed)
{
    const char *eq = strchr(item, '=');
    if (!eq || eq == item || (size_t)(eq - item) >= klen)
        return -1;
    snprintf(key, klen, "%.*s", (int)(eq - item), item);
    const char *v = eq + 1, *dots = strstr(v, "..");
    *fixed = dots ? NULL : v;
    if (!dots)
        return *v ? 0 : -1;
    char *end;
    errno = 0;
    *lo = strtoull(v, &end, 10);
    if (end != dots || v[0] == '-' || v == dots)
        return -1;
    const char *h = dots + 2;
    *hi = strtoull(h, &end, 10);
    if (end == h || h[0] == '-')
        return -1;
    *step = 1;
    if (*end == '/') {
        const char *st = end + 1;
        *step = strtoull(st, &end, 10);
        if (end == st || st[0] == '-')
            return -1;
    }
    return *end == '\0' && errno == 0 && *step > 0 && *lo <= *hi ? 0 : -1;
}

/* The case text of template `tmpl` with each range at pick(r): r = -1 low end, -2 high end,
 * else the random bits r. 0, or -1 when the template does not parse. */
static int draw_text(const char *tmpl, int64_t pick, uint64_t seed, char *out, size_t len)
{
    char copy[128], key[32], *save = NULL;
    snprintf(copy, sizeof copy, "%s", tmpl);
    out[0] = '\0';
    int k = 0;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save), k++) {
        uint64_t lo, hi, step;
        const char *fixed;
        if (draw_item(item, key, sizeof key, &lo, &hi, &step, &fixed) < 0)
            return -1;
        uint64_t span = (hi - lo) / step + 1, v;
        if (fixed)
            v = 0;
        else if (pick == -1)
            v = lo;
        else if (pick == -2)
            v = lo + (span - 1) * step;
        else
            v = lo + cml_rand_u64(seed, DRAW_STREAM, (uint64_t)pick * 16 + (uint64_t)k) % span
                         * step;
        size_t used = strlen(out);
        int w = fixed ? snprintf(out + used, len - used, "%s%s=%s", used ? "," : "", key, fixed)
                      : snprintf(out + used, len - used, "%s%s=%llu", used ? "," : "", key,
                                 (unsigned long long)v);
        if (w < 0 || (size_t)w >= len - used)
            return -1;
    }
    return 0;
}

/* A case from text into c; 0 when it parses and the task's check accepts its size. */
static int make_case(const cml_task_spec *t, const char *text, cml_case_spec *c, char *err,
                     size_t errlen)
{
    char params[128];
    spec_parser q = { .path = "draw", .err = err, .errlen = errlen };
    memset(c, 0, sizeof *c);
    snprintf(params, sizeof params, "%s", text);
    if (spec_case_params(&q, c, params) != 0)
        return -1;
    return cml_check_find(t->check)->out_elems(c, err, errlen) == 0 ? -1 : 0;
}

/* `draw key=lo..hi[/step],...`: kept as written; checked when the task closes. */
int spec_draw(spec_parser *p, char *args)
{
    cml_task_spec *t = p->task;
    char text[128];
    if (t->ndraws == CML_MAX_DRAWS)
        return spec_fail(p, "too many 'draw' lines in task %s (at most %d)", t->id,
                         CML_MAX_DRAWS);
    if (!args[0] || strlen(args) >= sizeof t->draws[0] || strpbrk(args, " \t") ||
        draw_text(args, -1, 0, text, sizeof text) < 0)
        return spec_fail(p, "draw: '%s' is not key=low..high[/step] items, e.g. 'draw "
                         "n=1..200000' or 'draw n=1024..1048576/1024'", args);
    snprintf(t->draws[t->ndraws++], sizeof t->draws[0], "%s", args);
    return 0;
}

/* The open task's draw lines: room for their cases, and both ends of every range valid. */
int spec_check_draws(spec_parser *p)
{
    cml_task_spec *t = p->task;
    if (t->ncases + t->ndraws > CML_MAX_CASES)
        return spec_fail(p, "task %s: %d cases and %d draws are more than %d", t->id, t->ncases,
                         t->ndraws, CML_MAX_CASES);
    for (int d = 0; d < t->ndraws; d++)
        for (int end = -2; end <= -1; end++) {
            char text[128], why[160] = "";
            cml_case_spec c;
            if (draw_text(t->draws[d], end, 0, text, sizeof text) < 0 ||
                make_case(t, text, &c, why, sizeof why) < 0)
                return spec_fail(p, "draw '%s' of task %s: its case '%s' is not valid: %s",
                                 t->draws[d], t->id, text, why);
        }
    return 0;
}

/* Contract in spec.h. */
int cml_spec_draw(cml_lab_spec *s, uint64_t seed, char *err, size_t errlen)
{
    for (int ti = 0; ti < s->ntasks; ti++) {
        cml_task_spec *t = &s->tasks[ti];
        for (int d = 0; d < t->ndraws && t->drawn < t->ndraws; d++) {
            char text[128], why[160] = "";
            int ok = 0;
            for (int tries = 0; !ok && tries < DRAW_TRIES; tries++) {
                int64_t pick = ((int64_t)ti * CML_MAX_DRAWS + d) * DRAW_TRIES + tries;
                ok = draw_text(t->draws[d], pick, seed, text, sizeof text) == 0 &&
                     make_case(t, text, &t->cases[t->ncases], why, sizeof why) == 0;
            }
            if (!ok)
                return snprintf(err, errlen, "%s task %s: draw '%s' gave no valid case in %d "
                                "tries (%s)", s->lab, t->id, t->draws[d], DRAW_TRIES, why), -1;
            t->ncases++;
            t->drawn++;
        }
    }
    return 0;
}
