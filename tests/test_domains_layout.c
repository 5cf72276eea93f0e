/* Labs 04 and 05's contracts at the layout level (issue 44, red team of 2026-11-29): every
 * alignment pair of 4.1's two pointers in the fixed cases of every grading; lab 05's SoA outputs
 * handed out in no order a kernel could assume (common/cml_layout.h). Read from the
 * shipped specs (what every grading gets) and, for the other direction, from a spec holding
 * only the sheet's old cases, which the test must find short. Part of the spec suite. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "cml_layout.h"
#include "cml_rand.h"
#include "helpers.h"
#include "spec.h"
#include "suites.h"
#include "util.h"

static char err[512];

/* The bit 4 * (offset % 4) + outoff % 4 of every fixed (not drawn) case of t; outoff defaults to
 * offset, as the harness reads it (labs/04_float4/harness.cu, run_copy_with). */
static unsigned alignment_pairs(const cml_task_spec *t)
{
    unsigned got = 0;
    for (int i = 0; i < t->ncases - t->drawn; i++) {
        const cml_case_spec *c = &t->cases[i];
        const char *o = strstr(c->text, "outoff=");
        unsigned long long outoff = o ? strtoull(o + 7, NULL, 10) : c->offset;
        got |= 1u << (4 * (c->offset % 4) + outoff % 4);
    }
    return got;
}

/* 4.1 holds all 16 pairs in its fixed cases, so no grading leaves one to its draws: keying the
 * fallback on out alone failed only when a draw hit (in misaligned, out aligned). A spec with
 * the sheet's old cases (four equal offsets, two mixed) holds 6 and is found short. */
START_TEST(copy_cases_hold_every_alignment_pair)
{
    static cml_lab_spec labs[CML_MAX_LABS];
    int n = cml_load_specs(test_root(), NULL, labs, CML_MAX_LABS, err, sizeof err);
    ck_assert_msg(n == 7, "loaded %d shipped specs: %s", n, err);
    int l = 0;
    while (l < n && !cml_spec_task(&labs[l], "4.1"))
        l++;
    ck_assert_int_lt(l, n);
    ck_assert_msg(cml_spec_draw(&labs[l], 7, err, sizeof err) == 0, "%s", err);
    const cml_task_spec *t = cml_spec_task(&labs[l], "4.1");
    ck_assert_msg(alignment_pairs(t) == 0xFFFFu, "4.1's fixed cases hold the pairs %#x of 0xffff",
                  alignment_pairs(t));
    cml_lab_spec old;
    char path[64];
    ck_assert_int_eq(test_spec_text("lab 04_x\nfiles k.cu\ntask 4.1\ncheck offset\npoints 6\n"
                                    "case n=1\ncase n=4097,offset=1\ncase n=4098,offset=2\n"
                                    "case n=4097,offset=3\ncase n=4097,offset=1,outoff=2\n"
                                    "case n=4099,offset=0,outoff=3\n", &old, path, err,
                                    sizeof err), 0);
    ck_assert_int_eq(__builtin_popcount(alignment_pairs(&old.tasks[0])), 6);
}
END_TEST

/* The output a kernel leaves in lab 05's output buffer of nf arrays of n floats when it writes
 * field f to base + slot(f, ...) * n; contiguous: to base + f * n (a kernel that took out.x for
 * one n x nf array); else through the pointers the harness handed it, last field first (an
 * honest kernel written differently from the solution). Field f of particle i: value(f, i). */
static void soa_written(float *buf, unsigned nf, uint64_t n, int contiguous,
                        float (*value)(unsigned f, uint64_t i))
{
    for (unsigned k = 0; k < nf; k++) {
        unsigned f = nf - 1 - k, slot = contiguous ? f : cml_soa_slot(nf, f);
        for (uint64_t i = 0; i < n; i++)
            buf[slot * n + i] = value(f, i);
    }
}

static float move_value(unsigned f, uint64_t i) /* 5.1: x' = x + vx * DT (DT = 2^-7) */
{
    return cml_rand_f32_domain(3, f, i) + cml_rand_f32_domain(3, f + 3, i) * 0.0078125f;
}

static float field_value(unsigned f, uint64_t i) { return cml_rand_f32_domain(3, f, i); }

/* The slots are a permutation with x first and no stride d from x (out.x + f*d*n, d = 1 the
 * contiguous carving, d from out.y - out.x) placing every field; and the grader's checks expect
 * the harness's slots: a kernel that writes through the pointers passes 5.1 and 5.3 bit for bit
 * (seed 3), one that assumes out.x + f*n fails in most slots. */
START_TEST(soa_outputs_lie_in_no_order_a_kernel_could_assume)
{
    static const struct { const char *check; unsigned nf; float (*value)(unsigned, uint64_t); }
        TASKS[] = {{"particles_move", 3, move_value}, {"aos_to_soa", 8, field_value}};
    for (size_t t = 0; t < sizeof TASKS / sizeof TASKS[0]; t++) {
        const unsigned nf = TASKS[t].nf;
        unsigned seen = 0;
        for (unsigned f = 0; f < nf; f++) {
            ck_assert_uint_eq(cml_soa_field(nf, cml_soa_slot(nf, f)), f);
            seen |= 1u << cml_soa_slot(nf, f);
        }
        ck_assert_uint_eq(seen, (1u << nf) - 1);
        ck_assert_uint_eq(cml_soa_slot(nf, 0), 0); /* a contiguous kernel writes in bounds */
        for (int d = 1; d < (int)nf; d++) {
            int all = 1;
            for (unsigned f = 0; f < nf; f++)
                all &= (int)cml_soa_slot(nf, f) == (int)f * d;
            ck_assert_msg(!all, "%s: every field at out.x + f * %d * n", TASKS[t].check, d);
        }
        const cml_check *k = cml_check_find(TASKS[t].check);
        ck_assert_ptr_nonnull(k);
        cml_case_spec c = {.n = 257};
        float *want = malloc(nf * c.n * sizeof(float)), *got = malloc(nf * c.n * sizeof(float));
        k->expect(&c, 3, 0, nf * c.n, want);
        for (int contiguous = 0; contiguous <= 1; contiguous++) {
            soa_written(got, nf, c.n, contiguous, TASKS[t].value);
            unsigned wrong = 0; /* slots holding another field's values */
            for (unsigned s = 0; s < nf; s++)
                wrong += memcmp(got + s * c.n, want + s * c.n, c.n * sizeof(float)) != 0;
            if (contiguous)
                ck_assert_msg(wrong == nf - 1, "%s: %u slots wrong", TASKS[t].check, wrong);
            else
                ck_assert_msg(wrong == 0, "%s: %u slots wrong", TASKS[t].check, wrong);
        }
        free(want);
        free(got);
    }
}
END_TEST

/* Adds the layout tests to the spec suite. */
void spec_domains_layout_add(Suite *s)
{
    TCase *tc = tcase_create("domains_layout");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, copy_cases_hold_every_alignment_pair);
    tcase_add_test(tc, soa_outputs_lie_in_no_order_a_kernel_could_assume);
    suite_add_tcase(s, tc);
}
