/* calls_unlike_checked (issue 44): the timed calls of a task's function must do the work its
 * checked call did. The harness opens a profiling window around every call of a graded case:
 * the checked one (its case marker first, common/cml_run_case.cpp) and each warm-up and timed
 * repetition (common/cml_timing.cpp). ncu, the trace and the harness's own checks look at the
 * checked call; a file that does the lesson there and something cheaper when the same buffers
 * come back (6.2 copying on the first call and computing zero-copy after it; 7.2 adding on the
 * host's cores after its first run) earned speed points with work nobody checked.
 *
 * The rule, per later call, against the last checked call before it: every kernel the checked
 * call ran (name, grid, block, dynamic shared memory) runs in it as often, and it copies, each
 * way, at least the checked call's bytes less a slack: 64 KiB, or half the checked call's bytes
 * that way when that is less (6.3's traced case copies 16 KiB arrays). Containment, not
 * equality: a call may do more (it is only slower), and a one-time set-up in the first call (a
 * cudaMemcpyToSymbol of a small table; a lazily built graph's nodes are the same copies) is
 * below the slack, while the lesson's copies are the case's arrays. A one-time
 * kernel launched only in the first call does fail: the trace cannot tell it from a decoy, and
 * the sheets ask each call to do its work. One thing a later call may not do more of: place
 * memory. Advice or a prefetch that the checked call did not make changes where the timed
 * calls find their data, and so their time, without another kernel or byte (issue 44, red team
 * round 3: a 7.2 that advised C to stay on the host after its checked call timed 7.3's recipe,
 * 0.38x the reference). A later call makes at most the checked call's advice and prefetch calls
 * of each name; fewer (a cache of advice given once) is its own affair. No GPU here:
 * tests/test_trace_calls.c. */
#include "trace_calls.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLACK_BYTES (64ull << 10)

int cml_shapes_init(cml_call_shapes *cs, int n)
{
    cs->n = n;
    cs->s = n > 0 ? calloc((size_t)n, sizeof *cs->s) : NULL;
    return n > 0 && !cs->s ? -1 : 0;
}

void cml_shapes_free(cml_call_shapes *cs)
{
    for (int i = 0; cs->s && i < cs->n; i++) {
        for (int k = 0; k < cs->s[i].nkernels; k++)
            free(cs->s[i].kernels[k]);
        free(cs->s[i].kernels);
        free(cs->s[i].ns);
        for (int k = 0; k < cs->s[i].nplaced; k++)
            free(cs->s[i].placed[k]);
        free(cs->s[i].placed);
    }
    free(cs->s);
    memset(cs, 0, sizeof *cs);
}

/* The text after " key=" in the line at p, up to a space or its end, into out. */
static void value_of(const char *p, const char *key, char *out, size_t len)
{
    size_t n = strcspn(p, "\n"), k = strlen(key);
    out[0] = '\0';
    for (const char *q = p; q + k < p + n; q++)
        if ((q == p || q[-1] == ' ') && strncmp(q, key, k) == 0 && q[k] == '=') {
            snprintf(out, len, "%.*s", (int)strcspn(q + k + 1, " \n"), q + k + 1);
            return;
        }
}

int cml_shape_kernel(cml_call_shapes *cs, int w, const char *line)
{
    if (w < 0 || w >= cs->n)
        return 0;
    char grid[40], block[40], smem[24], name[200], item[320];
    value_of(line, "grid", grid, sizeof grid);
    value_of(line, "block", block, sizeof block);
    value_of(line, "smem", smem, sizeof smem);
    value_of(line, "name", name, sizeof name);
    snprintf(item, sizeof item, "%s grid=%s block=%s smem=%s", name, grid, block, smem);
    cml_call_shape *s = &cs->s[w];
    char **k = cml_grow(s->kernels, s->nkernels, sizeof *k), ns[24];
    unsigned long long *t = k ? cml_grow(s->ns, s->nkernels, sizeof *t) : NULL;
    if (k)
        s->kernels = k;
    if (t)
        s->ns = t;
    if (!k || !t || !(k[s->nkernels] = strdup(item)))
        return -1;
    value_of(line, "ns", ns, sizeof ns);
    t[s->nkernels++] = strtoull(ns, NULL, 10);
    return 0;
}

/* Whether calls a and b ran the same kernels in the same order. */
static int same_kernels(const cml_call_shape *a, const cml_call_shape *b)
{
    int same = a->nkernels == b->nkernels;
    for (int k = 0; same && k < a->nkernels; k++)
        same = strcmp(a->kernels[k], b->kernels[k]) == 0;
    return same;
}

/* Call i's kernels that each did a pass's share: at least an eighth of the call's longest.
 * Each kernel's time is its shortest over the calls that ran the same kernels (call i, its
 * warm-ups and timed repetitions): CUPTI's end - start of a kernel includes the time another
 * process's work held the GPU, and the traced runs share it with the sanitizers, which only
 * ever lengthens a kernel (on an H200 the solution's 6.3b, ten equal passes, counted 1 of 10 in
 * one grading of five: one kernel of its checked call ran past eight times the others). Linear
 * in the calls and kernels: a call may launch many. */
static int pass_kernels_of(const cml_call_shapes *cs, int i)
{
    const cml_call_shape *s = &cs->s[i];
    unsigned long long *least = s->nkernels ? malloc((size_t)s->nkernels * sizeof *least) : NULL;
    const unsigned long long *ns = least ? least : s->ns; /* out of memory: as measured */
    unsigned long long longest = 0;
    int n = 0;
    if (least)
        memcpy(least, s->ns, (size_t)s->nkernels * sizeof *least);
    for (int j = 0; least && j < cs->n; j++) {
        const int same = j != i && same_kernels(s, &cs->s[j]); /* once a call, not a kernel */
        for (int k = 0; same && k < s->nkernels; k++)
            if (cs->s[j].ns[k] && (!least[k] || cs->s[j].ns[k] < least[k]))
                least[k] = cs->s[j].ns[k];
    }
    for (int k = 0; k < s->nkernels; k++)
        longest = ns[k] > longest ? ns[k] : longest;
    for (int k = 0; k < s->nkernels; k++)
        n += 8 * ns[k] >= longest;
    free(least);
    return n;
}

/* Contract in trace_calls.h. Issue 44, red team round 3: a 6.3a that fused every pass into one
 * kernel and launched empty ones beside it met "one launch per pass". A pass reads x and y and
 * writes its output, as long as any other pass; an empty kernel or a flag's takes microseconds
 * where a pass of the traced 2^26 floats takes milliseconds. */
int cml_shapes_pass_kernels(const cml_call_shapes *cs, const int *checked)
{
    int n = 0;
    for (int i = 0; i < cs->n; i++)
        n += checked[i] ? pass_kernels_of(cs, i) : 0;
    return n;
}

int cml_shape_placement(cml_call_shapes *cs, int w, const char *name)
{
    if (w < 0 || w >= cs->n || (strncmp(name, "cuMemAdvise", 11) != 0 &&
                                strncmp(name, "cuMemPrefetch", 13) != 0 &&
                                strncmp(name, "cuMemDiscard", 12) != 0))
        return 0;
    cml_call_shape *s = &cs->s[w];
    char **k = cml_grow(s->placed, s->nplaced, sizeof *k);
    if (!k || !(k[s->nplaced] = strdup(name))) {
        s->placed = k;
        return -1;
    }
    s->placed = k;
    s->nplaced++;
    return 0;
}

void cml_shape_bytes(cml_call_shapes *cs, int w, int kind, unsigned long long bytes)
{
    if (w < 0 || w >= cs->n)
        return;
    cml_call_shape *s = &cs->s[w];
    *(kind == 1 ? &s->in : kind == 2 ? &s->out : &s->other) += bytes;
}

/* How many times kernel item k runs in s. */
static int count_of(const cml_call_shape *s, const char *k)
{
    int c = 0;
    for (int i = 0; i < s->nkernels; i++)
        c += strcmp(s->kernels[i], k) == 0;
    return c;
}

/* How many of s's placement calls are named p. */
static int placed_of(const cml_call_shape *s, const char *p)
{
    int c = 0;
    for (int i = 0; i < s->nplaced; i++)
        c += strcmp(s->placed[i], p) == 0;
    return c;
}

/* What later call s lacks of checked call c, or the memory it places beyond c's, in words into
 * why (capped); 1 when it differs so. */
static int lacks(const cml_call_shape *c, const cml_call_shape *s, char *why, size_t len)
{
    for (int i = 0; i < c->nkernels; i++) {
        const int want = count_of(c, c->kernels[i]), got = count_of(s, c->kernels[i]);
        if (got < want) {
            snprintf(why, len, "ran %d of the checked call's %d x %.90s", got, want,
                     c->kernels[i]);
            return 1;
        }
    }
    for (int i = 0; i < s->nplaced; i++) {
        const int got = placed_of(s, s->placed[i]), want = placed_of(c, s->placed[i]);
        if (got > want) {
            snprintf(why, len, "made %d x %.60s, the checked call %d: memory placed otherwise "
                     "than where the checked call put it", got, s->placed[i], want);
            return 1;
        }
    }
    static const char *const WAY[3] = {"to the device", "to the host", "otherwise"};
    const unsigned long long want[3] = {c->in, c->out, c->other},
                             got[3] = {s->in, s->out, s->other};
    for (int i = 0; i < 3; i++)
        if (got[i] + (want[i] / 2 < SLACK_BYTES ? want[i] / 2 : SLACK_BYTES) < want[i]) {
            snprintf(why, len, "copied %llu bytes %s, the checked call %llu", got[i], WAY[i],
                     want[i]);
            return 1;
        }
    return 0;
}

void cml_shapes_judge(const cml_call_shapes *cs, const int *checked, cml_trace_tally *t)
{
    const int m = CML_TRACE_UNLIKE_CHECKED;
    int ref = -1, later = 0, first = -1;
    char why[200] = "";
    t->v[m] = 0;
    for (int i = 0; i < cs->n; i++) {
        if (checked[i]) {
            ref = i;
            continue;
        }
        if (ref < 0) /* before any checked call: no case's */
            continue;
        later++;
        char w[200];
        if (lacks(&cs->s[ref], &cs->s[i], w, sizeof w)) {
            if (t->v[m]++ == 0)
                first = later, snprintf(why, sizeof why, "%s", w);
        }
    }
    t->later_calls = later;
    if (first > 0)
        snprintf(t->first[m], sizeof t->first[m], "call %d after the checked one %.110s", first,
                 why);
}
