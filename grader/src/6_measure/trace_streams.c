/* ops_not_on_stream (issue 44): every operation the student's code enqueues in a call of the
 * task's function (a kernel or graph launch, a copy, a memset, a prefetch) goes on the `stream`
 * the harness handed it, or on a stream joined back to it. The sheets of labs 06 and 07 say
 * "every function enqueues on `stream`": the harness orders its fill, its guards and its clock
 * by that stream. launches_not_on_stream saw kernel launches only, so a prefetch on a private
 * stream passed 7.2's "all on stream".
 *
 * Joined: CUDA's own meaning of "part of stream's work", the one stream capture uses. An op on
 * another stream S counts as the harness's stream's when, after it and before the call's
 * window closes, an event recorded on S is waited on by the harness's stream (or by a stream
 * that is itself joined so, up to 4 deep): `stream` cannot pass that wait before the op is
 * done. The honest variants tests/honest/06_zero_copy/pipeline_streams (two lanes forked and
 * joined) and tests/honest/07_unified_memory/side_stream_events (B's prefetch on a side stream)
 * are joined; an op left on a stream nobody joins, or on the legacy or per-thread default
 * stream, is not.
 *
 * Streams are compared by CUPTI's stream id (`sid=` on the library's call lines, `stream=` on
 * its copy, memset and kernel records), else by handle. The harness's stream is the one its
 * case marker was launched on. A copy or memset that ran inside a graph the student launched
 * (its correlation id a launch line's) is judged by that launch. Only ops inside the harness's
 * windows count: um_alloc and um_advise are given no stream. No GPU here: tests/test_trace_*. */
#include "trace_calls.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    unsigned corr;
    long sid;       /* CUPTI's stream id, -1 unknown */
    char h[24];     /* the handle, "" unknown */
    char ev[24];    /* record, wait: the event */
    int kind;       /* 0 op, 1 record, 2 wait */
} line_t;

/* The text after " key=" in the line at p, up to a space or its end, into out ("": none). */
static void text_of(const char *p, const char *key, char *out, size_t len)
{
    size_t n = strcspn(p, "\n"), k = strlen(key);
    out[0] = '\0';
    for (const char *q = p; q + k < p + n; q++)
        if ((q == p || q[-1] == ' ') && strncmp(q, key, k) == 0 && q[k] == '=') {
            snprintf(out, len, "%.*s", (int)strcspn(q + k + 1, " \n"), q + k + 1);
            return;
        }
}

static long sid_of(const char *p, const char *key)
{
    char w[24];
    text_of(p, key, w, sizeof w);
    return w[0] >= '0' && w[0] <= '9' ? strtol(w, NULL, 10) : -1;
}

static int same(const line_t *a, long sid, const char *h)
{
    if (a->sid >= 0 && sid >= 0)
        return a->sid == sid;
    return a->h[0] && h[0] && strcmp(a->h, h) == 0 && strcmp(h, "0") != 0;
}

/* Whether the stream (sid, h) is joined to the harness's stream (hs, hh) by a wait after corr
 * and before stop, through at most depth streams. */
static int joined(const line_t *l, int n, long sid, const char *h, unsigned corr, unsigned stop,
                  long hs, const char *hh, int depth)
{
    for (int i = 0; i < n && depth > 0; i++) {
        if (l[i].kind != 2 || l[i].corr <= corr || l[i].corr >= stop)
            continue;
        int rec = -1; /* the wait's event: its last record before the wait */
        for (int j = 0; j < n; j++)
            if (l[j].kind == 1 && l[j].corr < l[i].corr && strcmp(l[j].ev, l[i].ev) == 0 &&
                (rec < 0 || l[j].corr > l[rec].corr))
                rec = j;
        if (rec < 0 || l[rec].corr <= corr || !same(&l[rec], sid, h))
            continue;
        if (same(&l[i], hs, hh) ||
            joined(l, n, l[i].sid, l[i].h, l[i].corr, stop, hs, hh, depth - 1))
            return 1;
    }
    return 0;
}

/* Contract in trace_calls.h. */
int cml_ops_off_stream(const char *trace, const char *end, const unsigned *start,
                       const unsigned *stop, int nw, cml_trace_mine mine, void *ctx,
                       cml_trace_tally *t)
{
    line_t *l = NULL;
    int n = 0, rc = 0;
    long hs = -1;
    char hh[24] = "", what[240];
    unsigned *launches = NULL; /* every launch call's id: a copy with one ran in its graph */
    int nl = 0;
    for (const char *p = trace; p < end; p += strcspn(p, "\n"), p += *p == '\n') {
        if (strncmp(p, "launch ", 7) != 0)
            continue;
        if (strstr(p, " fn=cml_case_mark\n") && !hh[0]) {
            hs = sid_of(p, "sid");
            text_of(p, "stream", hh, sizeof hh);
        }
        if (!(launches = cml_grow(launches, nl, sizeof *launches)))
            return -1;
        launches[nl++] = (unsigned)sid_of(p, "corr");
    }
    for (const char *p = trace; p < end; p += strcspn(p, "\n"), p += *p == '\n') {
        const int rec = strncmp(p, "event record ", 13) == 0,
                  wait = strncmp(p, "event wait ", 11) == 0;
        if (!rec && !wait)
            continue;
        if (!(l = cml_grow(l, n, sizeof *l))) {
            free(launches);
            return -1;
        }
        line_t *x = &l[n++];
        x->corr = (unsigned)strtoul(strstr(p, " corr=") ? strstr(p, " corr=") + 6 : "0",
                                    NULL, 10);
        x->sid = sid_of(p, "sid");
        text_of(p, "stream", x->h, sizeof x->h);
        text_of(p, "ev", x->ev, sizeof x->ev);
        x->kind = rec ? 1 : 2;
    }
    for (const char *p = trace; rc == 0 && p < end; p += strcspn(p, "\n"), p += *p == '\n') {
        const int launch = strncmp(p, "launch ", 7) == 0,
                  pre = strncmp(p, "prefetch ", 9) == 0,
                  copy = strncmp(p, "memcpy ", 7) == 0 || strncmp(p, "memset ", 7) == 0;
        if (!launch && !pre && !copy)
            continue;
        char c[24], h[24] = "", who[160] = "";
        text_of(p, "corr", c, sizeof c);
        const unsigned corr = (unsigned)strtoul(c, NULL, 10);
        int w = -1;
        for (int i = 0; i < nw && w < 0; i++)
            if (corr > start[i] && corr < stop[i])
                w = i;
        if (w < 0 || corr == 0 || !mine(ctx, corr, who, sizeof who))
            continue;
        long sid = sid_of(p, launch || pre ? "sid" : "stream");
        if (launch || pre)
            text_of(p, "stream", h, sizeof h);
        if (copy) { /* a node of a graph the student launched: judged by that launch */
            int graph = 0;
            for (int i = 0; i < nl && !graph; i++)
                graph = launches[i] == corr;
            if (graph)
                continue;
        }
        line_t at = {corr, sid, "", "", 0};
        snprintf(at.h, sizeof at.h, "%s", h);
        if (same(&at, hs, hh) || joined(l, n, sid, h, corr, stop[w], hs, hh, 4))
            continue;
        char kind[64], where[40];
        text_of(p, launch ? "fn" : "kind", kind, sizeof kind);
        if (h[0])
            snprintf(where, sizeof where, "%s", strcmp(h, "0") == 0 ? "0 (the default)" : h);
        else
            snprintf(where, sizeof where, "id %ld", sid);
        snprintf(what, sizeof what, "%s%.50s on stream %.30s, %.90s",
                 launch ? "kernel " : pre ? "prefetch" : p[3] == 's' ? "memset" :
                 "copy of kind ", launch || p[3] == 'c' ? kind : "", where, who);
        if (t->v[CML_TRACE_OPS_OFF_STREAM]++ == 0)
            snprintf(t->first[CML_TRACE_OPS_OFF_STREAM], sizeof t->first[0], "%.150s", what);
    }
    free(l);
    free(launches);
    return rc;
}
