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
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CHUNK (64u * 1024u)
#define MAX_THREADS 16
#define SLICES 16 /* per repetition: the work items the threads share */
#define BESIDE_NICE 19 /* the threads started before the run, beside the lab's timed loops */

static atomic_int yield_nice;

/* Contract in verify.h. */
void cml_verify_yield(int nice)
{
    atomic_store(&yield_nice, nice < 0 ? 0 : nice > 19 ? 19 : nice);
}

/* Contract in verify.h. */
int cml_verify_yield_level(void)
{
    return atomic_load(&yield_nice);
}

/* Contract in verify.h. */
void cml_thread_yield(int nice)
{
    if (nice > 0)
        setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
}

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
    atomic_int nice;  /* a starting thread's nice: BESIDE_NICE until the lab's run ends */
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
            if (!cml_evidence_weighed(buf[j]))
                continue; /* in the hash alone, as the harness sums them (cml_rand.h) */
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
    cml_thread_yield(atomic_load(&w->nice)); /* beside a run: the lab process goes first */
    float *buf = malloc(CHUNK * sizeof *buf);
    for (int item; buf && (item = atomic_fetch_add(&w->next, 1)) < w->nitems;)
        slice_evidence(w, item, buf);
    free(buf);
    return NULL;
}

/* A random order of [0, n), from getrandom: drawn by the grader, so the lab process cannot know
 * it (the sandbox keeps it out of the grader's memory). */
static void shuffle(int *a, int n)
{
    uint32_t rnd[CML_MAX_REPS];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
        for (int i = 0; i < CML_MAX_REPS; i++) /* no entropy: a time-based fallback */
            rnd[i] = (uint32_t)cml_mix64((uint64_t)getpid() * 1000003u + (uint64_t)i +
                                         (uint64_t)clock());
    for (int i = 0; i < n; i++) {
        int j = i + (int)(rnd[i] % (uint32_t)(n - i)), tmp = a[i];
        a[i] = a[j], a[j] = tmp;
    }
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

/* The harness's fewest repetitions of a device case: what an honest run usually stops at. */
#define EARLY 10

struct cml_rep_check {
    const cml_task_spec *t;
    int k;
    uint64_t seed;
    int pre[EARLY], npre;       /* drawn before the run, computed beside it */
    rep_work w;
    int nt, started[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
};

static int cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

static void compute_start(cml_rep_check *h, int nt)
{
    h->nt = nt;
    for (int i = 0; i < nt; i++)
        h->started[i] = pthread_create(&h->tid[i], NULL, worker, &h->w) == 0;
}

static void compute_join(cml_rep_check *h)
{
    /* the run is over: what is left goes on every core, this one too unless another lab runs
     * meanwhile (cml_verify_yield) */
    if (h->w.nice == BESIDE_NICE) {
        rep_work *w = &h->w;
        pthread_t more[MAX_THREADS];
        int n = 0, yield = cml_verify_yield_level();
        w->nice = yield;
        for (int i = h->nt; i < cpus() - (yield ? 0 : 1); i++)
            if (pthread_create(&more[n], NULL, worker, w) == 0)
                n++;
        if (!yield || n == 0)
            worker(w);
        for (int i = 0; i < n; i++)
            pthread_join(more[i], NULL);
    }
    for (int i = 0; i < h->nt; i++)
        if (h->started[i])
            pthread_join(h->tid[i], NULL);
        else
            worker(&h->w); /* no thread: its share runs here */
    h->nt = 0;
}

/* Sets up h->w to compute the repetitions reps[0..n) of h's case. */
static void plan(cml_rep_check *h, const int *reps, int n)
{
    for (int i = 0; i < n; i++)
        h->w.seeds[i] = cml_rep_seed(h->seed, (uint32_t)h->k, (uint32_t)reps[i]);
    h->w.nitems = n * SLICES;
    atomic_store(&h->w.next, 0);
}


/* Contract in verify.h. */
cml_rep_check *cml_reps_begin(const cml_task_spec *t, const cml_case_spec *c, uint64_t seed,
                              int k)
{
    const cml_check *chk = cml_check_find(t->check);
    char err[160] = "";
    cml_rep_check *h = chk && c->timed ? calloc(1, sizeof *h) : NULL;
    if (!h)
        return NULL;
    h->t = t, h->k = k, h->seed = seed;
    h->w.chk = chk, h->w.c = c, h->w.n = chk->out_elems(c, err, sizeof err);
    h->w.weighted = t->rel_tol != 0, h->w.nice = BESIDE_NICE;
    int order[EARLY];
    for (int i = 0; i < EARLY; i++)
        order[i] = i;
    shuffle(order, EARLY);
    h->npre = cml_verify_reps_sample() < EARLY ? cml_verify_reps_sample() : EARLY;
    memcpy(h->pre, order, sizeof h->pre);
    plan(h, h->pre, h->npre);
    compute_start(h, cpus() / 2 > 0 ? cpus() / 2 : 1);
    return h;
}

/* The sample after the run: the drawn early repetitions that ran, then more drawn now, from
 * the early ones when fewer ran than the sample asks and from those past EARLY, if any, as
 * many again. Returns how many; [0, npre_used) are the precomputed ones. */
static int sample_after(const cml_rep_check *h, int reps, int *pick, int *npre_used)
{
    int n = 0, want = cml_verify_reps_sample(), rest[CML_MAX_REPS], nrest = 0;
    for (int i = 0; i < h->npre; i++)
        if (h->pre[i] < reps)
            pick[n++] = h->pre[i];
    *npre_used = n;
    for (int r = 0; r < (reps < EARLY ? reps : EARLY); r++) {
        int drawn = 0;
        for (int i = 0; i < h->npre; i++)
            drawn |= h->pre[i] == r;
        if (!drawn)
            rest[nrest++] = r;
    }
    shuffle(rest, nrest);
    for (int i = 0; i < nrest && n < (want < reps ? want : reps); i++)
        pick[n++] = rest[i];
    int late[CML_MAX_REPS], nlate = 0;
    for (int r = EARLY; r < reps; r++)
        late[nlate++] = r;
    shuffle(late, nlate);
    for (int i = 0; i < nlate && i < want; i++)
        pick[n++] = late[i];
    return n;
}

/* The evidence of planned repetition i of w: its slices summed. */
static cml_rep_evidence slice_sum(const rep_work *w, int i)
{
    cml_rep_evidence e = {0, 0, 0};
    for (int s = 0; s < SLICES; s++)
        e.hash += w->part[i][s].hash, e.wsum += w->part[i][s].wsum, e.wabs += w->part[i][s].wabs;
    return e;
}

/* Fails v: repetition r's evidence is not what its inputs give. */
static int mismatch(const cml_rep_check *h, int r, int reps, const cml_rep_evidence *got,
                    const cml_rep_evidence *want, cml_case_verdict *v)
{
    snprintf(v->reason, sizeof v->reason, "timed repetition %d of %d did not compute the right "
             "output for its own inputs (seed %" PRIu64 "): its evidence (%016" PRIx64 ", "
             "weighted sum %.9g) differs from the grader's reference (%016" PRIx64 ", %.9g); "
             "every repetition runs on new inputs, and only verified work is timed", r + 1, reps,
             cml_rep_seed(h->seed, (uint32_t)h->k, (uint32_t)r), got->hash, got->wsum,
             want->hash, want->wsum);
    return v->passed = 0;
}

/* Contract in verify.h. */
int cml_reps_end(cml_rep_check *h, const cml_case_record *rec, cml_case_verdict *v)
{
    if (!h)
        return 1;
    compute_join(h);
    cml_rep_evidence pre[EARLY];
    for (int i = 0; i < h->npre; i++)
        pre[i] = slice_sum(&h->w, i);
    int ok = 1, pick[2 * CML_MAX_REPS], npre = 0;
    if (rec->has_time && rec->reps > 0 && (rec->nrep != rec->reps || rec->reps > CML_MAX_REPS)) {
        snprintf(v->reason, sizeof v->reason, "its %d timed repetitions carried %d pieces of "
                 "evidence of their output: only verified work is timed", rec->reps, rec->nrep);
        ok = v->passed = 0; /* records_claims.c calls the run tampered too */
    } else if (rec->has_time && rec->reps > 0) {
        const int n = sample_after(h, rec->reps, pick, &npre);
        if (n > npre) { /* what was not computed beside the run: now, on every core */
            plan(h, pick + npre, n - npre);
            compute_start(h, cpus());
            compute_join(h);
        }
        for (int i = 0; i < n && ok; i++) {
            int slot = 0;
            while (i < npre && h->pre[slot] != pick[i])
                slot++;
            const cml_rep_evidence want = i < npre ? pre[slot] : slice_sum(&h->w, i - npre);
            if (!evidence_matches(&rec->rep[pick[i]], &want, h->t->rel_tol))
                ok = mismatch(h, pick[i], rec->reps, &rec->rep[pick[i]], &want, v);
        }
    }
    free(h);
    return ok;
}
