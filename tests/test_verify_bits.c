/* Data movement moves bits (issue 44): 1.1's copy (check copy, tolerance exact) reads every
 * float bit pattern (cml_rand_f32_all: -0, infinities, NaNs with payloads, subnormals), so a
 * "copy" done by arithmetic (fmaf(1, x, 0), which ran as a copy while the inputs lay in
 * [1, 4)) fails, a bit copy passes, NaN included, and an element nobody wrote (the poison
 * pattern) fails wherever it lies. Outputs built here from cml_rand.h. Verify suite. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cml_rand.h"
#include "verify.h"
#include "suites.h"

#define SEED 0x5eedULL
#define N 4097 /* 1.1's third case */

static char dir[64], out[128];
static cml_task_spec task;
static cml_case_spec kase;
static cml_case_record rec;
static cml_case_verdict v;
static float x[N];

static void setup(void)
{
    strcpy(dir, "/tmp/cml_verify_bits_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/case0.bin", dir);
    memset(&task, 0, sizeof task);
    memset(&kase, 0, sizeof kase);
    memset(&rec, 0, sizeof rec);
    strcpy(task.id, "1.1");
    strcpy(task.check, "copy");
    kase.n = N;
    rec.status = CML_CASE_OK;
    strcpy(rec.task, "1.1");
    rec.elem_bytes = 4;
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

/* 1.1's output as a kernel that does `move` to each input leaves it, then verified. */
static int verify_copy(float (*move)(float))
{
    for (uint64_t i = 0; i < N; i++)
        x[i] = move(cml_rand_f32_all(SEED, 0, i));
    FILE *f = fopen(out, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(x, sizeof *x, N, f), N);
    fclose(f);
    return cml_verify_case(&task, &kase, SEED, out, &rec, &v);
}

static float bit_copy(float w) { return w; }

/* out = fmaf(scale, in, shift) with scale 1 and shift 0 known only at run time: -0 + 0 is +0. */
static float fma_copy(float w)
{
    volatile float one = 1.0f, zero = 0.0f;
    return fmaf(one, w, zero);
}

/* A copy that keeps every value but makes each NaN the canonical one (0x7fffffff), as a
 * GPU's arithmetic does. */
static float canonical_nan_copy(float w)
{
    const uint32_t canonical = 0x7FFFFFFFu;
    if (isnan(w))
        memcpy(&w, &canonical, sizeof w);
    return w;
}

/* 1.1's inputs hold what a move must keep: -0, NaNs with payloads, infinities, subnormals. */
START_TEST(copy_inputs_hold_every_kind_of_float)
{
    int negzero = 0, payloads = 0, inf = 0, sub = 0;
    for (uint64_t i = 0; i < N; i++) {
        const float w = cml_rand_f32_all(SEED, 0, i);
        const uint32_t mag = bits_of(w) & 0x7FFFFFFFu;
        negzero += bits_of(w) == 0x80000000u;
        payloads += isnan(w) && mag != 0x7FC00000u && mag != 0x7FFFFFFFu;
        inf += isinf(w) != 0;
        sub += fpclassify(w) == FP_SUBNORMAL;
        ck_assert_uint_ne(bits_of(w), 0xFFFFFFFFu); /* never the poison pattern */
    }
    ck_assert_msg(negzero && payloads && inf && sub, "-0 %d, NaN payloads %d, inf %d, "
                  "subnormal %d", negzero, payloads, inf, sub);
}
END_TEST

START_TEST(bit_copy_passes_nans_included)
{
    ck_assert_msg(verify_copy(bit_copy) == 1, "%s", v.reason);
}
END_TEST

START_TEST(arithmetic_copy_that_turns_minus_zero_into_plus_zero_fails)
{
    ck_assert_int_eq(verify_copy(fma_copy), 0);
    ck_assert_ptr_nonnull(strstr(v.reason, "other bits"));
}
END_TEST

START_TEST(copy_that_rewrites_nan_payloads_fails)
{
    ck_assert_int_eq(verify_copy(canonical_nan_copy), 0);
    ck_assert_ptr_nonnull(strstr(v.reason, "expected nan, got nan (other bits"));
}
END_TEST

/* Element 0's expected value is a NaN (0x7febcee8 for this seed): left unwritten it still
 * fails, counted as never written. */
START_TEST(unwritten_element_fails_where_a_nan_is_expected)
{
    ck_assert(isnan(cml_rand_f32_all(SEED, 0, 0)));
    verify_copy(bit_copy);
    memset(x, CML_POISON_BYTE, sizeof x[0]);
    FILE *f = fopen(out, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(x, sizeof *x, N, f), N);
    fclose(f);
    ck_assert_int_eq(cml_verify_case(&task, &kase, SEED, out, &rec, &v), 0);
    ck_assert_ptr_nonnull(strstr(v.reason, "1 of 4097 elements differ (1 never written)"));
}
END_TEST

/* 2v - v: exact on cml_rand_f32's [1, 4), not on infinities (inf - inf is NaN), NaN payloads or
 * the top binade (2v overflows). */
static float twice_minus_once(float w)
{
    volatile float two = 2.0f;
    return two * w - w;
}

/* 4.1's check `offset` (out[i] = in0[offset + i]) over every bit pattern too (red team round 5:
 * a copy done as 2v - v passed on cml_rand_f32's inputs); the bit copy passes. */
START_TEST(offset_copy_by_arithmetic_fails)
{
    strcpy(task.id, "4.1");
    strcpy(task.check, "offset");
    strcpy(rec.task, "4.1");
    kase.offset = 3;
    for (int honest = 0; honest <= 1; honest++) {
        for (uint64_t i = 0; i < N; i++) {
            const float w = cml_rand_f32_all(SEED, 0, i + 3);
            x[i] = honest ? w : twice_minus_once(w);
        }
        FILE *f = fopen(out, "wb");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fwrite(x, sizeof *x, N, f), N);
        fclose(f);
        ck_assert_msg(cml_verify_case(&task, &kase, SEED, out, &rec, &v) == honest, "%d: %s",
                      honest, v.reason);
    }
}
END_TEST

/* A timed repetition's evidence over every bit pattern: the exact hash, NaNs and all. */
START_TEST(timed_repetitions_of_a_bit_copy_are_verified)
{
    static cml_case_record timed;
    cml_case_spec c = {.n = N, .timed = 1};
    for (int lazy = 0; lazy <= 1; lazy++) {
        memset(&timed, 0, sizeof timed);
        timed.has_time = 1, timed.reps = timed.nrep = 10;
        for (int r = 0; r < 10; r++) { /* lazy: repetition 4 left repetition 3's output */
            const uint64_t rs = cml_rep_seed(SEED, 0, (uint32_t)(lazy && r == 4 ? 3 : r));
            for (uint64_t i = 0; i < N; i++)
                timed.rep[r].hash += cml_evidence_term(i, bits_of(cml_rand_f32_all(rs, 0, i)));
        }
        setenv("CML_VERIFY_REPS", "10", 1);
        cml_rep_check *h = cml_reps_begin(&task, &c, SEED, 0);
        ck_assert_ptr_nonnull(h);
        memset(&v, 0, sizeof v);
        v.passed = 1;
        ck_assert_msg(cml_reps_end(h, &timed, &v) == !lazy, "lazy %d: %s", lazy, v.reason);
        unsetenv("CML_VERIFY_REPS");
    }
}
END_TEST

/* Adds the bit-movement tests to the verify suite. */
void verify_bits_add(Suite *s)
{
    TCase *tc = tcase_create("bits");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, copy_inputs_hold_every_kind_of_float);
    tcase_add_test(tc, bit_copy_passes_nans_included);
    tcase_add_test(tc, arithmetic_copy_that_turns_minus_zero_into_plus_zero_fails);
    tcase_add_test(tc, copy_that_rewrites_nan_payloads_fails);
    tcase_add_test(tc, unwritten_element_fails_where_a_nan_is_expected);
    tcase_add_test(tc, timed_repetitions_of_a_bit_copy_are_verified);
    tcase_add_test(tc, offset_copy_by_arithmetic_fails);
    suite_add_tcase(s, tc);
}
