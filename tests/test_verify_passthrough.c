/* A field copied through unchanged is compared bit for bit under any tolerance (issue 44, red
 * team of 2026-11-29: 4.2b's w went through 1*w + 0, turning -0 into +0 and NaN payloads into
 * the canonical NaN, and passed while w was a float in [1, 4) checked to a relative 1e-6). The
 * points4 outputs are built here from cml_rand.h with the sheet's formulas; the grader's check
 * must tell the copied w from the computed one. Verify suite. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cml_rand.h"
#include "verify.h"
#include "suites.h"

#define SEED 0x5eedULL
#define N 4099 /* points */

static char dir[64], out[128];
static cml_task_spec task;
static cml_case_spec kase;
static cml_case_record rec;
static cml_case_verdict v;
static float x[4 * N];

static void setup(void)
{
    strcpy(dir, "/tmp/cml_passthrough_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/case0.bin", dir);
    memset(&task, 0, sizeof task);
    memset(&kase, 0, sizeof kase);
    memset(&rec, 0, sizeof rec);
    strcpy(task.id, "4.2b");
    strcpy(task.check, "points4");
    task.rel_tol = 1e-6; /* 4.2b's tolerance for x, y and z */
    kase.n = N;
    rec.status = CML_CASE_OK;
    strcpy(rec.task, "4.2b");
    rec.elem_bytes = 4;
    rec.elems = 4 * N;
}

static void teardown(void)
{
    unlink(out);
    rmdir(dir);
}

static uint32_t bits_of(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* The output of a kernel: x, y, z moved, (a sound order other than the solution's when
 * `halves`: (v + d/2) * 2), and w as `w_of` leaves it; then verified. */
static int verify_points(int halves, float (*w_of)(float))
{
    const float d[3] = {1.0f, -2.0f, 0.5f};
    for (uint64_t i = 0; i < 4 * (uint64_t)N; i++) {
        if (i % 4 == 3) {
            x[i] = w_of(cml_rand_f32_all(SEED, 0, i));
            continue;
        }
        float in = cml_rand_f32_domain(SEED, 0, i);
        x[i] = halves ? (in + d[i % 4] * 0.5f) * 2.0f : 2.0f * in + d[i % 4];
    }
    FILE *f = fopen(out, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(x, sizeof *x, 4 * N, f), 4 * N);
    fclose(f);
    return cml_verify_case(&task, &kase, SEED, out, &rec, &v);
}

static float copied(float w) { return w; }

/* 1*w + 0 as the GPU computes it: -0 becomes +0, every NaN the canonical 0x7fffffff. */
static float through_fma(float w)
{
    if (isnan(w)) {
        uint32_t canonical = 0x7FFFFFFFu;
        memcpy(&w, &canonical, sizeof w);
        return w;
    }
    return 1.0f * w + 0.0f;
}

/* w with infinities clamped to FLT_MAX, the rest copied: another arithmetic "copy". */
static float clamped(float w) { return isinf(w) ? copysignf(3.4028235e38f, w) : w; }

/* The inputs hold the values a float holds in w: -0, infinities, NaNs with payloads (and the
 * poison pattern never), subnormals, FLT_MAX. */
START_TEST(w_inputs_hold_every_kind_of_float)
{
    int negzero = 0, inf = 0, payloads = 0, sub = 0, huge = 0;
    for (uint64_t i = 3; i < 4 * (uint64_t)N; i += 4) {
        float w = cml_rand_f32_all(SEED, 0, i);
        uint32_t b = bits_of(w);
        ck_assert_uint_ne(b, 0xFFFFFFFFu);
        negzero |= b == 0x80000000u;
        inf |= isinf(w);
        const uint32_t mag = b & 0x7FFFFFFFu; /* not a canonical NaN of either kind */
        payloads += isnan(w) && mag != 0x7FC00000u && mag != 0x7FFFFFFFu;
        sub |= fpclassify(w) == FP_SUBNORMAL;
        huge |= fabsf(w) == 3.4028235e38f;
    }
    ck_assert_msg(negzero && inf && payloads > 10 && sub && huge,
                  "-0 %d, inf %d, NaN payloads %d, subnormal %d, FLT_MAX %d", negzero, inf,
                  payloads, sub, huge);
}
END_TEST

/* The copy passes, with x, y, z in another sound order; 1*w + 0 and a clamp fail, naming w. */
START_TEST(w_is_compared_bit_for_bit)
{
    ck_assert_msg(verify_points(0, copied) == 1, "%s", v.reason);
    ck_assert_msg(verify_points(1, copied) == 1, "%s", v.reason);
    ck_assert_int_eq(verify_points(0, through_fma), 0);
    ck_assert_msg(strstr(v.reason, ", w)") != NULL, "%s", v.reason);
    ck_assert_int_eq(verify_points(0, clamped), 0);
    ck_assert_msg(strstr(v.reason, ", w)") != NULL, "%s", v.reason);
}
END_TEST

/* x, y and z keep their tolerance: an error of a few ulps in x passes, a NaN there fails. */
START_TEST(coordinates_keep_their_tolerance)
{
    ck_assert_int_eq(verify_points(0, copied), 1);
    x[4 * 5] = nextafterf(nextafterf(x[4 * 5], INFINITY), INFINITY);
    FILE *f = fopen(out, "wb");
    ck_assert_uint_eq(fwrite(x, sizeof *x, 4 * N, f), 4 * N);
    fclose(f);
    ck_assert_msg(cml_verify_case(&task, &kase, SEED, out, &rec, &v) == 1, "%s", v.reason);
    x[4 * 5] = NAN;
    f = fopen(out, "wb");
    ck_assert_uint_eq(fwrite(x, sizeof *x, 4 * N, f), 4 * N);
    fclose(f);
    ck_assert_int_eq(cml_verify_case(&task, &kase, SEED, out, &rec, &v), 0);
}
END_TEST

/* The evidence the harness reports for one repetition's right output (common/cml_gpu.cu's
 * host_evidence, written out here): values cml_evidence_weighed refuses in the hash alone, or,
 * with `naive`, in the weighted sums too (what it did before w held NaNs and infinities). */
static cml_rep_evidence harness_evidence(uint64_t seed, int naive)
{
    const float d[3] = {1.0f, -2.0f, 0.5f};
    cml_rep_evidence e = {0, 0, 0};
    for (uint64_t i = 0; i < 4 * (uint64_t)N; i++) {
        float in = i % 4 == 3 ? cml_rand_f32_all(seed, 0, i) : cml_rand_f32_domain(seed, 0, i);
        float o = i % 4 == 3 ? in : 2.0f * in + d[i % 4];
        e.hash += cml_evidence_term(i, bits_of(o));
        if (!naive && !cml_evidence_weighed(o))
            continue;
        e.wsum += cml_evidence_weight(i) * o;
        e.wabs += cml_evidence_weight(i) * fabs((double)o);
    }
    return e;
}

/* 4.2b's timed repetitions: w's NaNs, infinities and huge values stay out of the weighted
 * sums on both sides, so a right output's evidence matches (with them in, the sums are NaN and
 * every honest submission's timed case failed); a repetition that skipped its work does not. */
START_TEST(timed_repetitions_with_special_w_are_verified)
{
    static cml_case_record timed;
    cml_case_spec c = {.n = N, .timed = 1};
    for (int naive = 0; naive <= 2; naive++) {
        memset(&timed, 0, sizeof timed);
        timed.has_time = 1, timed.reps = timed.nrep = 10;
        for (int r = 0; r < 10; r++) { /* naive 2: repetition 4 left repetition 3's output */
            const uint32_t as = (uint32_t)(naive == 2 && r == 4 ? 3 : r);
            timed.rep[r] = harness_evidence(cml_rep_seed(SEED, 0, as), naive == 1);
        }
        setenv("CML_VERIFY_REPS", "10", 1);
        cml_rep_check *h = cml_reps_begin(&task, &c, SEED, 0);
        ck_assert_ptr_nonnull(h);
        memset(&v, 0, sizeof v);
        v.passed = 1;
        ck_assert_msg(cml_reps_end(h, &timed, &v) == (naive == 0), "naive %d: %s", naive,
                      v.reason);
        unsetenv("CML_VERIFY_REPS");
    }
}
END_TEST

/* Adds the pass-through tests to the verify suite. */
void verify_passthrough_add(Suite *s)
{
    TCase *tc = tcase_create("passthrough");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, w_inputs_hold_every_kind_of_float);
    tcase_add_test(tc, w_is_compared_bit_for_bit);
    tcase_add_test(tc, coordinates_keep_their_tolerance);
    tcase_add_test(tc, timed_repetitions_with_special_w_are_verified);
    suite_add_tcase(s, tc);
}
