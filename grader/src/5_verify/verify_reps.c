/* verify_reps: only verified work is timed. Every timed repetition of a graded case runs on
 * inputs of its own seed (cml_rep_seed) and the harness reports the evidence of the output it
 * left (cml_evidence_term, cml_evidence_weight in common/cml_rand.h). After the run, the grader
 * draws a sample of repetitions from its own random source (the lab cannot know which) and
 * recomputes their evidence from its CPU reference; one that differs fails the case. A lab that
 * skips work on some repetitions must skip it on more than half of them to move the median,
 * and then escapes a sample of k with a chance below 2^-k (k = 6 by default: 1.6%; a lab that
 * skips nine repetitions in ten, below 10^-6). Each sampled repetition costs about 50 ms of
 * CPU per 2^26 output floats on an H100 machine's 16 cores. */
#include "verify.h"

#include "cml_rand.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define CHUNK (64u * 1024u)
#define MAX_THREADS 16
#define SLICES 16 /* per repetition: the work items the threads share */

/* Contract in verify.h. */
int cml_verify_reps_sample(void)
{
    const char *e = getenv("CML_VERIFY_REPS");
    char *end;
    long v = e ? strtol(e, &end, 10) : -1;
    return e && *e && !*end && v >= 1 && v <= CML_MAX_REPS ? (int)v : 6;
}

typedef struct {
    const cml_check *chk;
    const cml_case_spec *c;
    uint64_t n;
    uint64_t seeds[CML_MAX_REPS];
    cml_rep_evidence part[CML_MAX_REPS][SLICES];
    int nitems;
    int weighted;     /* a toleranced task: the weighted sums decide, else the exact hash */
    atomic_int next;
} rep_work;

/* One slice of one sampled repetition: the expected output's evidence over its elements. */
static void slice_evidence(rep_work *w, int item, float *buf)
{
    const int r = item / SLICES, s = item % SLICES;
    const uint64_t b = w->n * (uint64_t)s / SLICES, e = w->n * (uint64_t)(s + 1) / SLICES;
    cml_rep_evidence acc = {0, 0, 0};
    for (uint64_t first = b; first < e; first += CHUNK) {
        size_t cnt = e - first < CHUNK ? (size_t)(e - first) : CHUNK;
        w->chk->expect(w->c, w->seeds[r], first, cnt, buf);
        for (size_t j = 0; j < cnt; j++) {
            uint32_t bits;
            memcpy(&bits, &buf[j], sizeof bits);
            acc.hash += cml_evidence_term(first + j, bits);
        }
        for (size_t j = 0; w->weighted && j < cnt; j++) { /* toleranced tasks only */
            const double wt = cml_evidence_weight(first + j);
            acc.wsum += wt * buf[j];
            acc.wabs += wt * fabs((double)buf[j]);
        }
    }
    w->part[r][s] = acc;
}

static void *worker(void *arg)
{
    rep_work *w = arg;
    float *buf = malloc(CHUNK * sizeof *buf);
    for (int item; buf && (item = atomic_fetch_add(&w->next, 1)) < w->nitems;)
        slice_evidence(w, item, buf);
    free(buf);
    return NULL;
}

/* Draws `want` distinct repetitions of `nrep` into pick (a partial shuffle), from getrandom:
 * drawn after the run, so the lab process cannot have known them. */
static int draw_sample(int nrep, int want, int *pick)
{
    int all[CML_MAX_REPS];
    uint32_t rnd[CML_MAX_REPS];
    for (int i = 0; i < nrep; i++)
        all[i] = i;
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
        for (int i = 0; i < CML_MAX_REPS; i++) /* no entropy: a time-based fallback */
            rnd[i] = (uint32_t)cml_mix64((uint64_t)getpid() * 1000003u + (uint64_t)i +
                                         (uint64_t)clock());
    int n = want < nrep ? want : nrep;
    for (int i = 0; i < n; i++) {
        int j = i + (int)(rnd[i] % (uint32_t)(nrep - i)), tmp = all[i];
        all[i] = all[j], all[j] = tmp;
        pick[i] = all[i];
    }
    return n;
}

/* Whether one repetition's evidence matches what its inputs must give: the exact sum for an
 * exact task; within the task's tolerance for the weighted sum otherwise (sound: per element
 * |out - exp| <= tol*|exp| bounds the sum; 1e-7 of it covers the two summation orders). */
static int evidence_matches(const cml_rep_evidence *got, const cml_rep_evidence *want,
                            double tol)
{
    if (tol == 0)
        return got->hash == want->hash;
    return isfinite(got->wsum) &&
           fabs(got->wsum - want->wsum) <= (tol + 1e-7) * want->wabs;
}

/* Contract in verify.h. */
int cml_verify_reps(const cml_task_spec *t, const cml_case_spec *c, uint64_t seed, int k,
                    const cml_case_record *rec, cml_case_verdict *v)
{
    const cml_check *chk = cml_check_find(t->check);
    char err[160] = "";
    if (!rec->has_time || rec->reps == 0 || !chk)
        return 1;
    if (rec->nrep != rec->reps || rec->reps > CML_MAX_REPS) { /* records_claims.c: tampered */
        v->passed = 0;
        snprintf(v->reason, sizeof v->reason, "its %d timed repetitions carried %d pieces of "
                 "evidence of their output: only verified work is timed", rec->reps, rec->nrep);
        return 0;
    }
    rep_work *w = calloc(1, sizeof *w);
    int pick[CML_MAX_REPS];
    if (!w)
        return 1; /* out of memory: the grader's failure, never the student's */
    w->chk = chk, w->c = c, w->n = chk->out_elems(c, err, sizeof err);
    w->weighted = t->rel_tol != 0;
    int npick = draw_sample(rec->nrep, cml_verify_reps_sample(), pick);
    for (int i = 0; i < npick; i++)
        w->seeds[i] = cml_rep_seed(seed, (uint32_t)k, (uint32_t)pick[i]);
    w->nitems = npick * SLICES;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : (int)cpus;
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (int i = 1; i < nt; i++)
        started[i] = pthread_create(&tid[i], NULL, worker, w) == 0;
    worker(w);
    for (int i = 1; i < nt; i++)
        if (started[i])
            pthread_join(tid[i], NULL);
    int ok = 1;
    for (int i = 0; i < npick && ok; i++) {
        cml_rep_evidence want = {0, 0, 0};
        for (int s = 0; s < SLICES; s++)
            want.hash += w->part[i][s].hash, want.wsum += w->part[i][s].wsum,
                want.wabs += w->part[i][s].wabs;
        const cml_rep_evidence *got = &rec->rep[pick[i]];
        if (evidence_matches(got, &want, t->rel_tol))
            continue;
        ok = v->passed = 0;
        snprintf(v->reason, sizeof v->reason, "timed repetition %d of %d did not compute the "
                 "right output for its own inputs (seed %" PRIu64 "): its evidence (%016" PRIx64
                 ", weighted sum %.9g) differs from the grader's reference (%016" PRIx64 ", "
                 "%.9g); every repetition runs on new inputs, and only verified work is timed",
                 pick[i] + 1, rec->reps, w->seeds[i], got->hash, got->wsum, want.hash,
                 want.wsum);
    }
    free(w);
    return ok;
}
