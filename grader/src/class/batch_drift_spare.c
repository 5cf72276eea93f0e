/* Which students a confirmed drift can touch (batch_run.h, cml_drift_touches): a student's speed
 * points come from ratios to the calibration's reference times; when the GPU has drifted, the
 * reference's time at that student's grading lay somewhere between the calibration's and the
 * drift check's, so the true ratio lies between the one graded and that one over the lab's
 * factor. Where the points are the same at both ends (the speed curve never rises with the
 * ratio), regrading cannot change them, and the student keeps the grade. */
#include "batch_run.h"
#include "speed.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FACTORS 32
#define RATIO_ROUNDING 0.005   /* summary.tsv shows a ratio with 2 decimals */
#define FACTOR_ROUNDING 0.0005 /* a drift log, a factor with 3 */

typedef struct {
    char lab[64];
    double f; /* live / calibration time of the lab's reference, the farthest from 1 seen */
} factor;

/* Each lab's factor from the drift logs' lines ("<lab>: <f>x the calibration's time over ..."),
 * into fs; how many; -1 when a log cannot be read or holds none. */
static int read_factors(const char *const logs[], int nlogs, factor *fs)
{
    int n = 0;
    for (int i = 0; i < nlogs; i++) {
        char *text = cml_read_text(logs[i], 1 << 16, NULL), *save = NULL;
        int found = 0;
        for (char *l = text ? strtok_r(text, "\n", &save) : NULL; l;
             l = strtok_r(NULL, "\n", &save)) {
            char lab[64];
            double f;
            int end = 0; /* set only when the whole pattern matched, its last words too */
            if (sscanf(l, "%63[^: ]: %lfx the calibration's time over%n", lab, &f, &end) != 2 ||
                end == 0 || f <= 0)
                continue;
            found = 1;
            int k = 0;
            while (k < n && strcmp(fs[k].lab, lab) != 0)
                k++;
            if (k == n && n < MAX_FACTORS)
                snprintf(fs[n++].lab, sizeof fs[0].lab, "%s", lab), fs[k].f = f;
            else if (k < n && fabs(log(f)) > fabs(log(fs[k].f)))
                fs[k].f = f;
        }
        free(text);
        if (!found)
            return -1;
    }
    return n;
}

/* Whether a task's speed credit could differ anywhere between ratio r and r / f, both as
 * summary.tsv and the log round them. */
static int credit_moves(double r, double full, double zero, double f)
{
    double lo = INFINITY, hi = 0;
    for (int a = -1; a <= 1; a += 2)
        for (int b = -1; b <= 1; b += 2) {
            const double ra = r + a * RATIO_ROUNDING, fb = f + b * FACTOR_ROUNDING;
            const double ends[2] = { ra, fb > 0 ? ra / fb : INFINITY };
            for (int e = 0; e < 2; e++)
                lo = ends[e] < lo ? ends[e] : lo, hi = ends[e] > hi ? ends[e] : hi;
        }
    return fabs(cml_perf_fraction(lo, full, zero) - cml_perf_fraction(hi, full, zero)) > 1e-12;
}

/* Whether one summary.tsv line (lab, task, status, score, max, detail) could score otherwise. */
static int line_moves(const char *line, const factor *fs, int n)
{
    char lab[64], status[32] = "";
    const char *detail = line;
    for (int tabs = 0; tabs < 5 && detail; tabs++)
        detail = strchr(detail, '\t') ? strchr(detail, '\t') + 1 : NULL;
    const char *key = detail ? strstr(detail, CML_RATIO_WORDS) : NULL;
    sscanf(line, "%*[^\t]\t%*[^\t]\t%31[^\t]", status);
    if (!key) /* no speed judged against the reference, or (a failed technique check leads the
               * detail, whose end may be cut) none shown: only the latter may move */
        return strcmp(status, "technique") == 0;
    const char *num = key;
    while (num > detail && (num[-1] == '.' || (num[-1] >= '0' && num[-1] <= '9')))
        num--;
    double r, full, zero;
    int end = 0;
    if (num == key || sscanf(num, "%lf" CML_RATIO_WORDS "%lfx, none from %lfx)%n", &r, &full,
                             &zero, &end) != 3 || end == 0 ||
        sscanf(line, "%63[^\t]", lab) != 1)
        return 1;
    /* the checks re-measure labs 01 and 06 as the GPU's witnesses: another lab takes the
     * factor of theirs farthest from 1, as the batch's decision to act on drift does */
    const factor *widest = &fs[0];
    for (int k = 0; k < n; k++) {
        if (strcmp(fs[k].lab, lab) == 0)
            return credit_moves(r, full, zero, fs[k].f);
        widest = fabs(log(fs[k].f)) > fabs(log(widest->f)) ? &fs[k] : widest;
    }
    return credit_moves(r, full, zero, widest->f);
}

/* Contract in batch_run.h. */
int cml_drift_touches(const char *dir, const char *const logs[], int nlogs)
{
    factor fs[MAX_FACTORS];
    char path[CML_PATH];
    size_t len = 0;
    int n = read_factors(logs, nlogs, fs);
    char *text = n > 0 && cml_fmt(path, sizeof path, "%s/summary.tsv", dir) == 0
                 ? cml_read_text(path, 1 << 20, &len) : NULL;
    int moves = !text || len == 0 || text[len - 1] != '\n';
    char *save = NULL;
    for (char *l = moves ? NULL : strtok_r(text, "\n", &save); l && !moves;
         l = strtok_r(NULL, "\n", &save))
        moves = line_moves(l, fs, n);
    free(text);
    return moves;
}
