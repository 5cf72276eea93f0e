/* Labs 01 to 03 checked over what their sheets promise, from the shipped specs (issue 44, red
 * team of 2026-11-29): 1.1's grid-stride loop goes round at a graded size, 2.1/2.2's racecheck
 * takes a persistent-block loop, 3.2's values span every finite float, and 3.2/3.3's
 * technique is measured at the timed size with floors derived from the bytes moved. Each test
 * fails the wrong answer and passes a right one written differently. Part of the spec suite. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "cml_rand.h"
#include "helpers.h"
#include "spec.h"
#include "suites.h"

static cml_lab_spec labs[CML_MAX_LABS];
static int nlabs;
static char err[512];

static const cml_task_spec *task(const char *id)
{
    if (nlabs == 0)
        nlabs = cml_load_specs(test_root(), NULL, labs, CML_MAX_LABS, err, sizeof err);
    ck_assert_msg(nlabs == 7, "loaded %d shipped specs: %s", nlabs, err);
    for (int l = 0; l < nlabs; l++)
        for (int t = 0; t < labs[l].ntasks; t++)
            if (strcmp(labs[l].tasks[t].id, id) == 0)
                return &labs[l].tasks[t];
    ck_abort_msg("no task %s", id);
    return NULL;
}

/* rows, cols and n of a case's text ("rows=31,cols=33"), the only keys these tests read. */
static int parse_case(const char *text, cml_case_spec *c)
{
    memset(c, 0, sizeof *c);
    char buf[128];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        unsigned long long v;
        char key[16];
        if (sscanf(kv, "%15[a-z]=%llu", key, &v) != 2)
            return -1;
        if (strcmp(key, "rows") == 0)
            c->rows = v;
        else if (strcmp(key, "cols") == 0)
            c->cols = v;
        else if (strcmp(key, "n") == 0)
            c->n = v;
    }
    return 0;
}

/* The attack's copy (a software-pipelined grid-stride loop: the next element is loaded into
 * the register the current one waits in) and a plain grid-stride copy, element i, with T
 * threads in the grid: the two agree wherever the loop does not go round (i + T >= n). */
static float pipelined(uint64_t seed, uint64_t n, uint64_t T, uint64_t i)
{
    return cml_rand_f32_all(seed, 0, i + T < n ? i + T : i);
}

/* 1.1: a grid of up to 2^28 threads (the attack's 2^20 blocks of 256) takes its loop's later
 * iterations at some graded case, where the pipelined copy is wrong and a plain one right. */
START_TEST(copy_turns_every_grid_stride_loop_of_up_to_2_28_threads)
{
    const cml_task_spec *t = task("1.1");
    const uint64_t cap = (uint64_t)1 << 28;
    uint64_t largest = 0;
    for (int i = 0; i < t->ncases; i++)
        if (!t->cases[i].timed && t->cases[i].n > largest)
            largest = t->cases[i].n;
    ck_assert_msg(largest > cap, "1.1's largest untimed case is %llu floats: a grid of 2^28 "
                  "threads never turns its loop", (unsigned long long)largest);
    const cml_check *k = cml_check_find("copy");
    cml_case_spec c = {0};
    c.n = largest;
    float exp[64];
    k->expect(&c, 3, 0, 64, exp);
    int wrong = 0, plain_wrong = 0;
    for (uint64_t i = 0; i < 64; i++) {
        uint32_t a, b;
        const float got = pipelined(3, largest, cap, i), plain = cml_rand_f32_all(3, 0, i);
        memcpy(&a, &got, 4), memcpy(&b, &exp[i], 4);
        wrong += a != b;
        memcpy(&a, &plain, 4);
        plain_wrong += a != b;
    }
    ck_assert_msg(wrong > 0 && plain_wrong == 0, "pipelined copy wrong at %d, plain at %d",
                  wrong, plain_wrong);
}
END_TEST

/* Tiles of an h x w tiling over rows x cols. */
static uint64_t tiles(uint64_t rows, uint64_t cols, uint64_t h, uint64_t w)
{
    return ((rows + h - 1) / h) * ((cols + w - 1) / w);
}

/* 2.1 and 2.2: a sanitized case holds more tiles than 8 x the blocks an H100 or H200 holds at
 * once (132 SMs x 2048 threads, blocks of 256 with 32 x 32 tiles, of 512 with 64 x 64), so a
 * grid capped there walks several tiles per block under racecheck; 1500 x 1501 did not, for
 * the attack's 4096 blocks of 64 x 64 tiles. */
START_TEST(transpose_racecheck_walks_a_capped_grid_over_several_tiles)
{
    static const char *ids[] = {"2.1", "2.2"};
    static const struct { uint64_t tile, blocks_held; } shapes[] = {{32, 132 * 8}, {64, 132 * 4}};
    for (int k = 0; k < 2; k++) {
        const cml_task_spec *t = task(ids[k]);
        ck_assert_int_gt(t->nsanitize_cases, 0);
        for (int s = 0; s < 2; s++) {
            uint64_t most = 0;
            for (int i = 0; i < t->nsanitize_cases; i++) {
                cml_case_spec c;
                ck_assert(parse_case(t->sanitize_cases[i], &c) == 0);
                uint64_t n = tiles(c.rows, c.cols, shapes[s].tile, shapes[s].tile);
                most = n > most ? n : most;
            }
            ck_assert_msg(most > 8 * shapes[s].blocks_held && most > 4096,
                          "%s: at most %llu tiles of %llu x %llu under the sanitizers", ids[k],
                          (unsigned long long)most, (unsigned long long)shapes[s].tile,
                          (unsigned long long)shapes[s].tile);
        }
    }
    ck_assert_uint_le(tiles(1500, 1501, 64, 64), 4096); /* what main sanitized: no loop */
}
END_TEST

/* The attack's doubling: 1 added to the exponent field. */
static float exponent_add(float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    b += 1u << 23;
    memcpy(&x, &b, 4);
    return x;
}

static int same_bits(float a, float b)
{
    return memcmp(&a, &b, 4) == 0;
}

/* 3.2: out = 2 * in for any float. The inputs of a 4097-float case hold both zeros,
 * subnormals, the top binade (doubled to infinity), negative and non-integer values; the
 * exponent add fails there, x + x and ldexpf(x, 1) match the grader bit for bit. */
START_TEST(scale2_inputs_span_every_kind_of_float)
{
    const cml_check *k = cml_check_find("scale2");
    cml_case_spec c = {0};
    c.n = 4097;
    static float exp[4097];
    for (uint64_t seed = 1; seed <= 8; seed++) {
        k->expect(&c, seed, 0, c.n, exp);
        int pz = 0, nz = 0, sub = 0, inf = 0, neg = 0, frac = 0, attack_wrong = 0;
        for (uint64_t i = 0; i < c.n; i++) {
            const float x = cml_rand_f32_any(seed, 0, i);
            ck_assert(isfinite(x));
            pz += x == 0.0f && !signbit(x);
            nz += x == 0.0f && signbit(x);
            sub += fpclassify(x) == FP_SUBNORMAL;
            inf += isinf(exp[i]) != 0;
            neg += x < 0.0f;
            frac += isfinite(x) && x != floorf(x);
            attack_wrong += !same_bits(exponent_add(x), exp[i]);
            ck_assert_msg(same_bits(x + x, exp[i]) && same_bits(ldexpf(x, 1), exp[i]),
                          "seed %llu, element %llu: %a doubled differs",
                          (unsigned long long)seed, (unsigned long long)i, (double)x);
        }
        ck_assert_msg(pz && nz && sub && inf && neg && frac && attack_wrong,
                      "seed %llu: +0 %d, -0 %d, subnormal %d, inf %d, negative %d, "
                      "fraction %d, exponent add wrong %d", (unsigned long long)seed, pz, nz,
                      sub, inf, neg, frac, attack_wrong);
    }
    /* on main's inputs ([1, 4)) the exponent add was right everywhere */
    for (uint64_t i = 0; i < 4097; i++) {
        const float x = cml_rand_f32(1, 0, i);
        ck_assert(same_bits(exponent_add(x), 2.0f * x));
    }
}
END_TEST

/* The value of a technique check's limit for metric text `part` in task t (min or max). */
static const cml_tech_spec *ncu_check(const cml_task_spec *t, const char *part)
{
    for (int i = 0; i < t->ntech; i++)
        if (t->tech[i].kind == CML_TECH_NCU && strstr(t->tech[i].metric, part))
            return &t->tech[i];
    ck_abort_msg("%s measures no %s", t->id, part);
    return NULL;
}

/* 3.2, 3.3a, 3.3b: the technique is measured on the timed case's size (at 2^20 a kernel that
 * staged only below 4M floats passed), no PTX text decides it, and 3.2's floors are the bytes
 * of one staging over the widest access: 4n/512 stores or cp.asyncs, 4n/128 loads;
 * the solution's three steps (4194304 each at 2^26) pass, a run without shared traffic not. */
START_TEST(lab03_technique_is_measured_at_the_timed_size)
{
    static const char *ids[] = {"3.2", "3.3a", "3.3b"};
    for (int k = 0; k < 3; k++) {
        const cml_task_spec *t = task(ids[k]);
        const char *timed = NULL;
        for (int i = 0; i < t->ncases; i++)
            if (t->cases[i].timed)
                timed = t->cases[i].text;
        ck_assert_ptr_nonnull(timed);
        ck_assert_str_eq(t->ncu_case, timed);
        for (int i = 0; i < t->ntech; i++)
            ck_assert_msg(t->tech[i].kind == CML_TECH_NCU, "%s: a %d check (not measured)",
                          t->id, (int)t->tech[i].kind);
    }
    const cml_task_spec *t = task("3.2");
    cml_case_spec c;
    ck_assert(parse_case(t->ncu_case, &c) == 0);
    const double bytes = 4.0 * (double)c.n, solution = 2.0 * bytes / 128;
    const cml_tech_spec *st = ncu_check(t, "wavefronts_mem_shared_op_st");
    const cml_tech_spec *ld = ncu_check(t, "wavefronts_mem_shared_op_ld");
    ck_assert(strstr(st->metric, "ldgsts") != NULL);
    ck_assert_double_eq(st->min, bytes / 512);
    ck_assert_double_eq(ld->min, bytes / 128); /* one read of each float, 128 bytes a wavefront */
    ck_assert(solution >= st->min && solution >= ld->min && 0.0 < st->min && 0.0 < ld->min);
    const cml_tech_spec *conf = ncu_check(t, "bank_conflicts_pipe_lsu_mem_shared_op_ld");
    /* half of a 2-way conflict on each of the two steps of that kind */
    ck_assert_double_eq(conf->max, 0.5 * solution);
    ck_assert_double_eq(ncu_check(t, "bank_conflicts_pipe_lsu_mem_shared_op_st")->max,
                        0.5 * solution);
}
END_TEST

/* Labs 01 and 02 likewise: 1.2a, 1.2b, 2.1 and 2.2 measure their counters on a timed case
 * (1024 x 1024 before: a kernel that coalesced, staged or padded only below some size passed),
 * with limits for 8192 x 8192. Issue 44: a naive transpose is strided on its other side (at
 * least 3 sectors in 8 floats: a coalesced side is 1 in 8, the sheet's naive kernel 8 in 8, a
 * 16-wide block 4 in 8) and a tiled one coalesced on both (at most 2 in 8). */
START_TEST(labs_01_02_measure_on_a_timed_case)
{
    static const struct {
        const char *id, *metric;
        double min, max;
    } want[] = {
        {"1.2a", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 0, 16777216},
        {"1.2a", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 25165824, 0},
        {"1.2b", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 0, 16777216},
        {"1.2b", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 25165824, 0},
        {"2.1", "sm__sass_data_bytes_mem_shared_op_st.sum", 67108864, 0},
        {"2.1", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 0, 16777216},
        {"2.1", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 0, 16777216},
        {"2.2", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 0, 1048576},
        {"2.2", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 0, 1048576},
        {"2.2", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 0, 16777216},
        {"2.2", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 0, 16777216},
    };
    const double per_float = 8192.0 * 8192.0, coalesced = per_float / 8, half_wide = per_float / 2;
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        const cml_task_spec *t = task(want[k].id);
        int timed = 0;
        for (int i = 0; i < t->ncases; i++)
            timed |= t->cases[i].timed && strcmp(t->ncu_case, t->cases[i].text) == 0;
        ck_assert_msg(timed, "%s measures %s, no timed case", t->id, t->ncu_case);
        ck_assert_str_eq(t->ncu_case, "rows=8192,cols=8192");
        const cml_tech_spec *c = ncu_check(t, want[k].metric);
        const int min_ok = want[k].min == 0 ? c->min <= 0 : c->min == want[k].min;
        ck_assert_msg(min_ok && (want[k].max == 0 || c->max == want[k].max),
                      "%s: %s %g..%g", t->id, c->metric, c->min, c->max);
        if (strstr(c->metric, "global_op")) { /* sectors: `*`, every kernel the case ran */
            ck_assert_msg(c->task_kernels, "%s: %s names a kernel", t->id, c->metric);
            if (c->min > 0) /* naive: a coalesced side fails, a 16-wide naive block passes */
                ck_assert(coalesced < c->min && c->min < half_wide);
            else /* coalesced: a strided side fails */
                ck_assert(c->max >= coalesced && c->max < half_wide);
        }
    }
}
END_TEST

/* 1.2a, 1.2b, 2.1 and 2.2 promise any rows and cols (issue 44): their fixed cases hold both
 * dimensions a multiple of 256, exactly one (each way), neither, a tall-thin and a short-wide
 * matrix, so a guard skipped where one dimension is a tile multiple meets a case. */
START_TEST(transposes_cover_every_tile_multiple_combination)
{
    static const char *ids[] = {"1.2a", "1.2b", "2.1", "2.2"};
    for (int k = 0; k < 4; k++) {
        const cml_task_spec *t = task(ids[k]);
        int seen = 0, tall = 0, wide = 0;
        for (int i = 0; i < t->ncases; i++) {
            cml_case_spec c;
            ck_assert(parse_case(t->cases[i].text, &c) == 0);
            seen |= 1 << ((c.rows % 256 == 0) * 2 + (c.cols % 256 == 0));
            tall |= c.rows >= 256 * c.cols && c.cols > 1;
            wide |= c.cols >= 256 * c.rows && c.rows > 1;
        }
        ck_assert_msg(seen == 15 && tall && wide, "%s: combinations %x, tall %d, wide %d", t->id,
                      seen, tall, wide);
    }
}
END_TEST

/* Adds these tests to the spec suite. */
void spec_contract_0103_add(Suite *s)
{
    TCase *tc = tcase_create("contract_0103");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, copy_turns_every_grid_stride_loop_of_up_to_2_28_threads);
    tcase_add_test(tc, transpose_racecheck_walks_a_capped_grid_over_several_tiles);
    tcase_add_test(tc, scale2_inputs_span_every_kind_of_float);
    tcase_add_test(tc, lab03_technique_is_measured_at_the_timed_size);
    tcase_add_test(tc, labs_01_02_measure_on_a_timed_case);
    tcase_add_test(tc, transposes_cover_every_tile_multiple_combination);
    suite_add_tcase(s, tc);
}
