/* Labs 04 and 05's contracts at the layout level (issue 44, red team of 2026-11-29): every
 * alignment pair of 4.1's two pointers in the fixed cases of every grading. Read from the
 * shipped specs (what every grading gets) and, for the other direction, from a spec holding
 * only the sheet's old cases, which the test must find short. Part of the spec suite. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Adds the layout tests to the spec suite. */
void spec_domains_layout_add(Suite *s)
{
    TCase *tc = tcase_create("domains_layout");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, copy_cases_hold_every_alignment_pair);
    suite_add_tcase(s, tc);
}
