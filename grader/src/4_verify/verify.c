/* verify: compare the output file a lab binary wrote with the expected output, computed on
 * the CPU from the seed by the task's check (checks.c, 0_spec). The file is read in chunks and
 * the expected values are generated chunk by chunk beside it: nothing is held whole. A large
 * file is split into slices compared on several threads (on an H200 grading of all seven labs,
 * one thread spent about 13 s of the 60 s here). */
#include "verify.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK_ELEMS (64u * 1024u) /* 256 KiB of output and 256 KiB of expected: stays in L2 */
#define POISON_BITS 0xFFFFFFFFu   /* four CML_POISON_BYTEs */

typedef struct {
    const cml_check *chk;
    const cml_case_spec *c;
    uint64_t seed;
    double tol;
    uint64_t npoison;
    cml_case_verdict *v;
} compare_state;

static int fail(cml_case_verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Marks v failed with a reason; returns 0 so callers can `return fail(...)`. */
static int fail(cml_case_verdict *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->reason, sizeof v->reason, fmt, ap);
    va_end(ap);
    v->passed = 0;
    return 0;
}

/* 1 when the case record says the case ran and wrote its output; else fails v. */
static int record_says_ok(const cml_task_spec *t, const cml_case_record *rec, cml_case_verdict *v)
{
    if (!rec || rec->status == CML_CASE_MISSING)
        return fail(v, "no result: the lab binary stopped before this case");
    if (rec->status == CML_CASE_TODO)
        return fail(v, "TODO(%s)%s%s", rec->task[0] ? rec->task : t->id, rec->msg[0] ? ": " : "",
                    rec->msg);
    if (rec->status == CML_CASE_ERROR)
        return fail(v, "%s", rec->msg[0] ? rec->msg : "the harness reported an error");
    if (rec->elem_bytes != 0 && rec->elem_bytes != 4)
        return fail(v, "the harness wrote %d-byte elements; check %s compares 4-byte floats",
                    rec->elem_bytes, t->check);
    return 1;
}

/* Opens the output file for reading: a regular file, not a link, of exactly n floats;
 * -1 with v failed otherwise. */
static int open_output(const char *path, uint64_t n, cml_case_verdict *v)
{
    if (!path) {
        fail(v, "no output file was named for this case");
        return -1;
    }
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        if (errno == ENOENT || errno == ELOOP)
            fail(v, errno == ENOENT ? "output file %s missing" : "output %s is a symbolic link",
                 base);
        else
            fail(v, "cannot open output %s: %s", base, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        fail(v, "output %s is not a regular file", base);
    else if ((uint64_t)st.st_size != n * 4 && st.st_size % 4 == 0)
        fail(v, "expected %" PRIu64 " elements, file has %" PRIu64, n,
             (uint64_t)st.st_size / 4);
    else if ((uint64_t)st.st_size != n * 4)
        fail(v, "expected %" PRIu64 " elements (%" PRIu64 " bytes), file has %" PRIu64 " bytes",
             n, n * 4, (uint64_t)st.st_size);
    else
        return fd;
    close(fd);
    return -1;
}

static inline float bits_to_float(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static inline uint32_t float_bits(const float *f)
{
    uint32_t b;
    memcpy(&b, f, sizeof b);
    return b;
}

static inline uint32_t is_poison(uint32_t got)
{
    uint32_t x = ~got; /* 0 exactly for the poison pattern */
    return ((x | (0u - x)) >> 31) ^ 1u;
}

/* Bit-exact verdict without branches, so the counting loop vectorises: 1 when the bits
 * differ or got is the poison pattern (never written). A NaN whose bits are the expected
 * ones passes (issue 44): the data-movement tasks' inputs hold NaNs with payloads, and a copy
 * moves them. Where the expected value is no NaN this is the former rule (a NaN got differs
 * from it); no generator makes the poison pattern, so an unwritten element still fails. */
static inline uint32_t exact_bad(uint32_t got, uint32_t exp)
{
    uint32_t d = got ^ exp;
    uint32_t differ = (d | (0u - d)) >> 31;
    return differ | is_poison(got);
}

/* Relative verdict: 1 unless got is finite and |got - exp| <= tol * |exp| (a NaN fails), or
 * got is exp bit for bit, as count_bad's block of equal bits passes whole (the poison pattern
 * is no expected value). */
static inline uint32_t relative_bad(uint32_t got, uint32_t exp, double tol)
{
    double g = bits_to_float(got), e = bits_to_float(exp);
    int ok = ((fabs(g) <= FLT_MAX) & (fabs(g - e) <= tol * fabs(e))) | (got == exp);
    return (uint32_t)ok ^ 1u;
}

/* Whether one element fails: bit-exact when tol is 0 (-0 differs from +0, a NaN passes only
 * with the expected payload, the poison pattern never), else relative (NaN never passes). */
static inline uint32_t element_bad(uint32_t got, uint32_t exp, double tol)
{
    return tol == 0 ? exact_bad(got, exp) : relative_bad(got, exp, tol);
}

#define BLOCK 256 /* fixed trip count: vectorised even at -O2 */

/* Bit-exact failures and poisoned elements among n <= BLOCK elements. */
static uint32_t count_exact_bad(const uint32_t *got, const float *exp, size_t n,
                                uint32_t *poison)
{
    uint32_t bad = 0, p = 0;
    if (n == BLOCK)
        for (size_t j = 0; j < BLOCK; j++) {
            bad += exact_bad(got[j], float_bits(&exp[j]));
            p += is_poison(got[j]);
        }
    else
        for (size_t j = 0; j < n; j++) {
            bad += exact_bad(got[j], float_bits(&exp[j]));
            p += is_poison(got[j]);
        }
    *poison += p;
    return bad;
}

/* Counts failing and still-poisoned elements of one chunk: the hot loop. Under a relative
 * tolerance, a block whose bits all match needs no arithmetic. */
static uint64_t count_bad(const uint32_t *got, const float *exp, size_t n, double tol,
                          uint64_t *npoison)
{
    uint32_t bad = 0, poison = 0;
    for (size_t i = 0; i < n; i += BLOCK) {
        size_t len = n - i < BLOCK ? n - i : BLOCK;
        uint32_t exact = count_exact_bad(got + i, exp + i, len, &poison);
        if (tol == 0 || exact == 0)
            bad += exact;
        else
            for (size_t j = i; j < i + len; j++)
                bad += relative_bad(got[j], float_bits(&exp[j]), tol);
    }
    *npoison += poison;
    return bad;
}

/* A check's pass-through elements (cml_check_passthrough): index % period == lane. */
typedef struct {
    int on;
    uint64_t period, lane;
} passthrough;

/* Whether element `index` fails: a pass-through one unless its bits are the expected ones
 * (any NaN payload, either zero, as copied), else element_bad. */
static inline uint32_t element_bad_at(uint32_t got, uint32_t exp, double tol, uint64_t index,
                                      const passthrough *pt)
{
    if (pt->on && index % pt->period == pt->lane)
        return got != exp;
    return element_bad(got, exp, tol);
}

/* count_bad for a check with pass-through elements: a block whose bits all match passes
 * whole (its expected values hold no poison pattern, and no NaN but the copied ones), any other
 * element by element. */
static uint64_t count_bad_at(const uint32_t *got, const float *exp, size_t n, uint64_t first,
                             double tol, const passthrough *pt, uint64_t *npoison)
{
    uint64_t bad = 0, poison = 0;
    for (size_t i = 0; i < n; i += BLOCK) {
        size_t len = n - i < BLOCK ? n - i : BLOCK;
        uint32_t differ = 0;
        for (size_t j = i; j < i + len; j++)
            differ |= got[j] ^ float_bits(&exp[j]);
        for (size_t j = i; differ && j < i + len; j++) {
            bad += element_bad_at(got[j], float_bits(&exp[j]), tol, first + j, pt);
            poison += is_poison(got[j]);
        }
    }
    *npoison += poison;
    return bad;
}

/* Keeps the first CML_MAX_MISMATCH failing elements of a chunk that starts at `first`. */
static void keep_mismatches(const uint32_t *got, const float *exp, size_t n, uint64_t first,
                            double tol, const passthrough *pt, cml_case_verdict *v)
{
    for (size_t i = 0; i < n && v->nmis < CML_MAX_MISMATCH; i++)
        if (element_bad_at(got[i], float_bits(&exp[i]), tol, first + i, pt)) {
            cml_mismatch *m = &v->mis[v->nmis++];
            m->index = first + i;
            m->expected = exp[i];
            m->got = bits_to_float(got[i]);
        }
}

/* Reads exactly len bytes at offset off; 0 on success, -1 on error or early end of file. */
static int pread_full(int fd, void *buf, size_t len, uint64_t off)
{
    char *p = buf;
    while (len > 0) {
        ssize_t got = pread(fd, p, len, (off_t)off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        p += got;
        off += (uint64_t)got;
        len -= (size_t)got;
    }
    return 0;
}

/* One thread's share of a file: elements [begin, end), its own counts and first mismatches. */
typedef struct {
    const compare_state *s;
    int fd, rc;
    uint64_t begin, end, npoison;
    cml_case_verdict v; /* nbad, nmis, mis */
} slice;

/* Compares one slice chunk by chunk (the expected values are generated beside each chunk). */
static void *compare_slice(void *arg)
{
    slice *sl = arg;
    const compare_state *s = sl->s;
    uint32_t *got = malloc(CHUNK_ELEMS * sizeof *got);
    float *exp = malloc(CHUNK_ELEMS * sizeof *exp);
    passthrough pt = {0, 1, 0};
    pt.on = cml_check_passthrough(s->chk, &pt.period, &pt.lane);
    sl->rc = (got && exp) ? 0 : -1;
    for (uint64_t first = sl->begin; sl->rc == 0 && first < sl->end; first += CHUNK_ELEMS) {
        size_t cnt = sl->end - first < CHUNK_ELEMS ? (size_t)(sl->end - first) : CHUNK_ELEMS;
        if (pread_full(sl->fd, got, cnt * sizeof *got, first * sizeof *got) != 0) {
            sl->rc = -1;
            break;
        }
        s->chk->expect(s->c, s->seed, first, cnt, exp);
        uint64_t bad = pt.on ? count_bad_at(got, exp, cnt, first, s->tol, &pt, &sl->npoison)
                             : count_bad(got, exp, cnt, s->tol, &sl->npoison);
        if (bad && sl->v.nmis < CML_MAX_MISMATCH)
            keep_mismatches(got, exp, cnt, first, s->tol, &pt, &sl->v);
        sl->v.nbad += bad;
    }
    free(got);
    free(exp);
    return NULL;
}

/* A slice on a thread of its own, which yields to lab runs when the pipeline asks. */
static void *slice_thread(void *arg)
{
    cml_thread_yield(cml_verify_yield_level());
    return compare_slice(arg);
}

#define MAX_SLICES 8
#define SLICE_MIN_CHUNKS 4 /* files under 4 chunks (1 MiB) are compared on one thread */

/* Compares the whole file: large files in up to MAX_SLICES slices on as many threads (the
 * expected values cost more than the reading), merged in index order so the first mismatches
 * kept are the file's first. 0 when read through, -1 on a read error. */
static int compare_file(int fd, uint64_t n, compare_state *s)
{
    uint64_t chunks = (n + CHUNK_ELEMS - 1) / CHUNK_ELEMS;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t want = chunks / SLICE_MIN_CHUNKS;
    int nsl = (int)(want < 1 ? 1 : want > MAX_SLICES ? MAX_SLICES : want);
    if (cpus > 0 && nsl > cpus)
        nsl = (int)cpus;
    slice *sl = calloc((size_t)nsl, sizeof *sl);
    pthread_t tid[MAX_SLICES];
    int started[MAX_SLICES] = {0};
    if (!sl)
        return -1;
    uint64_t per = (chunks + (uint64_t)nsl - 1) / (uint64_t)nsl * CHUNK_ELEMS;
    const int first_thread = cml_verify_yield_level() ? 0 : 1; /* 1: slice 0 runs here */
    for (int i = 0; i < nsl; i++) {
        uint64_t b = (uint64_t)i * per, e = b + per;
        sl[i] = (slice){.s = s, .fd = fd, .begin = b < n ? b : n, .end = e < n ? e : n};
        started[i] = i >= first_thread &&
                     pthread_create(&tid[i], NULL, slice_thread, &sl[i]) == 0;
    }
    int rc = 0;
    for (int i = 0; i < nsl; i++) {
        if (started[i])
            pthread_join(tid[i], NULL);
        else
            compare_slice(&sl[i]); /* no thread: this one's share runs here */
        rc |= sl[i].rc;
        s->npoison += sl[i].npoison;
        s->v->nbad += sl[i].v.nbad;
        for (int m = 0; m < sl[i].v.nmis && s->v->nmis < CML_MAX_MISMATCH; m++)
            s->v->mis[s->v->nmis++] = sl[i].v.mis[m];
    }
    free(sl);
    return rc;
}

/* Contract in verify.h. */
void cml_format_value(double x, char *buf, size_t len)
{
    if (isnan(x))
        snprintf(buf, len, "nan");
    else
        snprintf(buf, len, "%.9g", x);
}

/* Writes the failure reason from the counts and the first mismatch. */
static void describe_mismatch(const compare_state *s, uint64_t n)
{
    cml_case_verdict *v = s->v;
    if (s->npoison == n) {
        fail(v, "output never written (still the poison pattern)");
        return;
    }
    char exp[32], got[32], where[96] = "", unwritten[64] = "";
    const cml_mismatch *m = &v->mis[0];
    cml_format_value(m->expected, exp, sizeof exp);
    cml_format_value(m->got, got, sizeof got);
    if (s->chk->where)
        s->chk->where(s->c, m->index, where, sizeof where);
    if (s->npoison)
        snprintf(unwritten, sizeof unwritten, " (%" PRIu64 " never written)", s->npoison);
    /* the same printed value, other bits: a NaN's payload or a zero's sign (issue 44) */
    const int alike = (isnan(m->expected) && isnan(m->got)) ||
                      (m->expected == 0 && m->got == 0);
    fail(v, "%" PRIu64 " of %" PRIu64 " elements differ%s; first at index %" PRIu64 "%s: "
         "expected %s, got %s%s", v->nbad, n, unwritten, m->index, where, exp, got,
         alike ? " (other bits: moved data keeps a NaN's payload and a zero's sign)" : "");
}

/* Verifies one case: the record, the file's size, then every element against the check.
 * Fills v (reason, nbad, first mismatches) and returns v->passed. */
int cml_verify_case(const cml_task_spec *t, const cml_case_spec *c, uint64_t seed,
                    const char *out_file, const cml_case_record *rec, cml_case_verdict *v)
{
    memset(v, 0, sizeof *v);
    if (!record_says_ok(t, rec, v))
        return 0;
    const cml_check *chk = cml_check_find(t->check);
    if (!chk)
        return fail(v, "grader error: unknown check '%s'", t->check);
    char err[160] = "";
    uint64_t n = chk->out_elems(c, err, sizeof err);
    if (n == 0)
        return fail(v, "grader error: case '%s': %s", c->text, err);
    int fd = open_output(out_file, n, v);
    if (fd < 0)
        return 0;
    compare_state s = {chk, c, seed, t->rel_tol, 0, v};
    int rc = compare_file(fd, n, &s);
    close(fd);
    if (rc != 0)
        return fail(v, "grader error: could not read the output file to the end");
    if (v->nbad)
        describe_mismatch(&s, n);
    v->passed = v->nbad == 0;
    return v->passed;
}
