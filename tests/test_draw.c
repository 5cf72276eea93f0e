/* Drawn cases (`draw` in a task, 0_spec/spec_draw.c): parsed and checked at both ends of each
 * range, drawn from the grading's seed (the same seed draws the same cases, another seed others),
 * and graded like the spec's own cases: a lab that only knows the sheet's sizes fails them. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grade.h"
#include "helpers.h"
#include "spec.h"
#include "suites.h"
#include "util.h"
#include "verify.h"

#define HEAD "lab 01_x\nfiles k.cu\ntask 1.1\ncheck copy\npoints 6\ncase n=1000\n"

static char err[512];
static cml_lab_spec spec;

static int load(const char *text)
{
    char path[64];
    return test_spec_text(text, &spec, path, err, sizeof err);
}

static void rejected(const char *text, const char *what)
{
    ck_assert_int_eq(load(text), -1);
    ck_assert_msg(strstr(err, what) != NULL, "'%s' should contain '%s'", err, what);
}

START_TEST(draw_lines_are_checked_when_loaded)
{
    ck_assert_int_eq(load(HEAD "draw n=1..200000\ndraw n=1024..1048576/1024\n"), 0);
    ck_assert_int_eq(spec.tasks[0].ndraws, 2);
    ck_assert_int_eq(spec.tasks[0].ncases, 1); /* drawn only when a grading has its seed */
    rejected(HEAD "draw n=5..1\n", "is not key=low..high");
    rejected(HEAD "draw n=1..x\n", "is not key=low..high");
    rejected(HEAD "draw n=1..10/0\n", "is not key=low..high");
    rejected(HEAD "draw n=0..10\n", "its case 'n=0' is not valid");
    rejected(HEAD "draw rows=1..10\n", "is not valid"); /* a copy has no rows */
}
END_TEST

START_TEST(the_seed_decides_the_drawn_cases)
{
    ck_assert_int_eq(load(HEAD "draw n=1..200000\ndraw n=1024..1048576/1024\n"), 0);
    cml_lab_spec a = spec, b = spec, c = spec;
    ck_assert_int_eq(cml_spec_draw(&a, 11, err, sizeof err), 0);
    ck_assert_int_eq(cml_spec_draw(&b, 11, err, sizeof err), 0);
    ck_assert_int_eq(cml_spec_draw(&c, 12, err, sizeof err), 0);
    const cml_task_spec *t = &a.tasks[0];
    ck_assert_int_eq(t->ncases, 3);
    ck_assert_int_eq(t->drawn, 2);
    ck_assert(t->cases[1].n >= 1 && t->cases[1].n <= 200000 && !t->cases[1].timed);
    ck_assert(t->cases[2].n >= 1024 && t->cases[2].n <= 1048576 && t->cases[2].n % 1024 == 0);
    ck_assert_str_eq(t->cases[1].text, b.tasks[0].cases[1].text);
    ck_assert_str_eq(t->cases[2].text, b.tasks[0].cases[2].text);
    ck_assert_msg(strcmp(t->cases[1].text, c.tasks[0].cases[1].text) ||
                  strcmp(t->cases[2].text, c.tasks[0].cases[2].text),
                  "seeds 11 and 12 drew the same cases: %s, %s", t->cases[1].text,
                  t->cases[2].text);
    ck_assert_int_eq(cml_spec_draw(&a, 11, err, sizeof err), 0); /* once only */
    ck_assert_int_eq(a.tasks[0].ncases, 3);
}
END_TEST

/* Over 200 seeds, draws cover their range (no value stuck at one end). */
START_TEST(draws_spread_over_their_range)
{
    ck_assert_int_eq(load(HEAD "draw n=1..100\n"), 0);
    int low = 0, high = 0;
    for (uint64_t seed = 0; seed < 200; seed++) {
        cml_lab_spec s = spec;
        ck_assert_int_eq(cml_spec_draw(&s, seed, err, sizeof err), 0);
        low += s.tasks[0].cases[1].n <= 50;
        high += s.tasks[0].cases[1].n > 50;
    }
    ck_assert_msg(low > 60 && high > 60, "%d low, %d high", low, high);
}
END_TEST

/* Through the whole pipeline on the fake labs: the drawn case is run and verified like the
 * spec's own; a lab whose copy is right only for the sheet's sizes fails it. */
static double grade_with_draw(const char *mode, int *ncases, int *drawn_passed)
{
    char root[64], out[CML_PATH], path[CML_PATH];
    test_tmpdir(root, sizeof root);
    fake_root_make(root, 10, 30);
    cml_fmt(path, sizeof path, "%s/grader/specs/01_fake.spec", root);
    char *text = cml_read_text(path, 1 << 16, NULL), *with = NULL;
    ck_assert(text && asprintf(&with, "%s", text) > 0);
    char *at = strstr(with, "case n=65536 time\n");
    ck_assert(at != NULL);
    char *both = NULL;
    ck_assert(asprintf(&both, "%.*sdraw n=2..3000\n%s", (int)(at - with), with, at) > 0);
    test_write(path, both);
    free(text), free(with), free(both);
    cml_lab_spec specs[2];
    fake_root_specs(root, specs);
    cml_fmt(out, sizeof out, "%s/out", root);
    if (mode) {
        setenv("FAKE_MODE", mode, 1);
        setenv("FAKE_TASK", "1.1", 1);
    }
    cml_grade_opts o = { root, root, out, 99, 0, NULL, test_path("build/fake_lab"),
                         test_path("build/fake_lab"), NULL, NULL, { NULL, NULL }, NULL, 0 };
    cml_grading *g = calloc(1, sizeof *g);
    double build_s;
    ck_assert_msg(cml_grade(&o, specs, 1, g, &build_s, err, sizeof err) == 0, "%s", err);
    const cml_task_result *r = test_task(&g->labs[0], "1.1");
    *ncases = r->spec->ncases;
    *drawn_passed = r->cases[r->spec->ncases - 1].passed; /* drawn cases come last */
    double score = r->score;
    cml_grading_free(g);
    free(g);
    unsetenv("FAKE_MODE");
    unsetenv("FAKE_TASK");
    cml_rmtree(root);
    return score;
}

START_TEST(drawn_case_is_graded_like_the_others)
{
    int n = 0, drawn = 0;
    ck_assert_double_eq(grade_with_draw(NULL, &n, &drawn), 10); /* 6 correct + 4 performance */
    ck_assert_int_eq(n, 4);
    ck_assert(drawn);
}
END_TEST

START_TEST(lab_that_knows_only_the_sheet_fails_the_drawn_case)
{
    int n = 0, drawn = 1;
    double score = grade_with_draw("sheet_only", &n, &drawn);
    ck_assert_int_eq(n, 4);
    ck_assert(!drawn);
    ck_assert_msg(score < 10, "a table of the sheet's answers kept full marks (%g)", score);
}
END_TEST

/* The shipped specs (grader/specs): every task draws, so no grading is only the sheet's sizes,
 * and what it draws stays within a budget: untimed, at most 2^24 output floats a case (64 MiB)
 * and 2^27 a lab (the sizes above 2^20 of labs 04 and 05, issue 44, are most of it). */
#define SHIPPED_MAX_ELEMS 16777216 /* 64 MiB of floats per output */
#define SHIPPED_MAX_LAB_ELEMS 134217728 /* 512 MiB of floats drawn in one lab's grading */
#define SHIPPED_SEEDS 8

static cml_lab_spec shipped[CML_MAX_LABS];

static int load_shipped(void)
{
    int n = cml_load_specs(test_root(), NULL, shipped, CML_MAX_LABS, err, sizeof err);
    ck_assert_msg(n == 7, "loaded %d shipped specs: %s", n, err);
    return n;
}

START_TEST(every_shipped_task_draws_cases)
{
    char bare[256] = "";
    for (int l = 0, n = load_shipped(); l < n; l++)
        for (int t = 0; t < shipped[l].ntasks; t++)
            if (shipped[l].tasks[t].ndraws == 0)
                cml_fmt(bare + strlen(bare), sizeof bare - strlen(bare), " %s",
                        shipped[l].tasks[t].id);
    ck_assert_msg(bare[0] == '\0', "tasks without a draw line:%s", bare);
}
END_TEST

START_TEST(shipped_draws_give_small_valid_cases)
{
    char bad[512] = "";
    for (int l = 0, n = load_shipped(); l < n; l++)
        for (uint64_t seed = 1; seed <= SHIPPED_SEEDS; seed++) {
            cml_lab_spec s = shipped[l];
            ck_assert_msg(cml_spec_draw(&s, seed, err, sizeof err) == 0, "%s", err);
            uint64_t lab_elems = 0;
            for (int t = 0; t < s.ntasks; t++)
                for (int k = s.tasks[t].ncases - s.tasks[t].drawn; k < s.tasks[t].ncases; k++) {
                    const cml_case_spec *c = &s.tasks[t].cases[k];
                    char why[160] = "";
                    uint64_t elems = cml_check_find(s.tasks[t].check)->out_elems(c, why,
                                                                               sizeof why);
                    lab_elems += elems;
                    if (c->timed || elems == 0 || elems > SHIPPED_MAX_ELEMS)
                        cml_fmt(bad + strlen(bad), sizeof bad - strlen(bad), " %s:%s", s.lab,
                                c->text);
                }
            if (lab_elems > SHIPPED_MAX_LAB_ELEMS)
                cml_fmt(bad + strlen(bad), sizeof bad - strlen(bad), " %s (seed %llu): %llu in all",
                        s.lab, (unsigned long long)seed, (unsigned long long)lab_elems);
        }
    ck_assert_msg(bad[0] == '\0', "drawn cases timed, invalid or over %d elements (a lab: %d):%s",
                  SHIPPED_MAX_ELEMS, SHIPPED_MAX_LAB_ELEMS, bad);
}
END_TEST

/* Adds the draw tests to the spec suite. */
void spec_draw_add(Suite *s)
{
    TCase *tc = tcase_create("draws");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, draw_lines_are_checked_when_loaded);
    tcase_add_test(tc, the_seed_decides_the_drawn_cases);
    tcase_add_test(tc, draws_spread_over_their_range);
    tcase_add_test(tc, drawn_case_is_graded_like_the_others);
    tcase_add_test(tc, lab_that_knows_only_the_sheet_fails_the_drawn_case);
    tcase_add_test(tc, every_shipped_task_draws_cases);
    tcase_add_test(tc, shipped_draws_give_small_valid_cases);
    suite_add_tcase(s, tc);
}
