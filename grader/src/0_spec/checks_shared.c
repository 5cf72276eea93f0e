/* CPU references of Lab 03 (bank conflicts): the conflict-degree rule, the 2008 scale experiment and the
 * tile-times-its-transpose kernel, each bit-exact. The table at the end is
 * listed in checks.c. */
#include "checks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cml_rand.h"

/* conflict_degree (lab 03, task 3.1): out[size*n + stride] = the conflict degree of a warp
 * whose lane t reads element t*stride of an array of (4 << size)-byte elements, strides
 * offset..offset+n-1 (the first stride is the case's `offset`, 0 when absent; strides stay
 * below 2^22, so lane 31's word index fits an int), 32 banks of 4-byte words. The warp is served in phases of 128 bytes (32, 16 or 8
 * lanes); a phase needs as many passes as its busiest bank has DISTINCT words; the degree is
 * the worst phase's count (docs/03_bank_conflicts.md, section 3). */
#define DEGREE_MAX_STRIDE ((uint64_t)1 << 22) /* the sheet's domain: strides below 2^22 */

static uint64_t degree_elems(const cml_case_spec *c, char *err, size_t errlen)
{
    if (c->n == 0 || c->n > 4096 || c->offset > DEGREE_MAX_STRIDE - c->n) {
        snprintf(err, errlen, "check conflict_degree needs n=<strides> between 1 and 4096 and "
                 "offset=<first stride> with offset + n at most 2^22");
        return 0;
    }
    return 3 * c->n;
}

static int bank_degree(uint64_t stride, int elem_bytes)
{
    const int words = elem_bytes / 4, lanes = 128 / elem_bytes;
    int worst = 0;
    for (int phase = 0; phase < 32 / lanes; phase++) {
        uint64_t w[32]; /* the phase's words, kept sorted and without repeats */
        int nw = 0, per_bank[32] = {0};
        for (int lane = phase * lanes; lane < (phase + 1) * lanes; lane++)
            for (int part = 0; part < words; part++) {
                uint64_t word = (uint64_t)lane * stride * (uint64_t)words + (uint64_t)part;
                int at = 0;
                while (at < nw && w[at] < word)
                    at++;
                if (at < nw && w[at] == word)
                    continue;
                memmove(&w[at + 1], &w[at], (size_t)(nw - at) * sizeof w[0]);
                w[at] = word;
                nw++;
            }
        for (int i = 0; i < nw; i++)
            per_bank[w[i] % 32]++;
        for (int b = 0; b < 32; b++)
            worst = per_bank[b] > worst ? per_bank[b] : worst;
    }
    return worst;
}

static void degree_expect(const cml_case_spec *c, uint64_t seed, uint64_t first, size_t count,
                          float *dst)
{
    (void)seed;
    for (size_t j = 0; j < count; j++)
        dst[j] = (float)bank_degree(c->offset + (first + j) % c->n, 4 << ((first + j) / c->n));
}

/* 3.1 is host code whose table the harness copies in: it counts no bytes (and is not timed). */
static uint64_t degree_bytes(const cml_case_spec *c)
{
    (void)c;
    return 0;
}

static void degree_where(const cml_case_spec *c, uint64_t i, char *buf, size_t len)
{
    snprintf(buf, len, " (stride %" PRIu64 ", %d-byte elements)", c->offset + i % c->n,
             4 << (i / c->n));
}

/* scale2 (lab 03, task 3.2): out[i] = 2 * in0[i], exact, over every finite float
 * (cml_rand_f32_any: zeros, subnormals, the top binade, whose double is infinity). */
static uint64_t scale2_elems(const cml_case_spec *c, char *err, size_t errlen)
{
    if (c->n == 0) {
        snprintf(err, errlen, "check scale2 needs n=<elements> (> 0)");
        return 0;
    }
    return c->n;
}

static void scale2_expect(const cml_case_spec *c, uint64_t seed, uint64_t first, size_t count,
                          float *dst)
{
    (void)c;
    for (size_t j = 0; j < count; j++)
        dst[j] = 2.0f * cml_rand_f32_any(seed, 0, first + j);
}

/* tile_gram (lab 03, task 3.3): in0 holds n/1024 tiles T of 32 x 32 values k/64, k in
 * [-512, 512) (cml_rand_fixed10: negative, zero, non-integer, more than 8 bits, rows of one
 * kind); out[t*1024 + r*32 + c] = sum over k of T[r][k] * T[c][k], a multiple of 2^-12 of at
 * most 2^11: exact in any order. Summed here as integers (the k's), scaled once by 2^-12: a zero
 * is +0, the sum from 0.0f the sheet asks for. */
static uint64_t gram_elems(const cml_case_spec *c, char *err, size_t errlen)
{
    if (c->n == 0 || c->n % 1024 != 0 || c->n > ((uint64_t)1 << 40)) {
        snprintf(err, errlen, "check tile_gram needs n=<floats>, a multiple of 1024 (tiles)");
        return 0;
    }
    return c->n;
}

static void gram_expect(const cml_case_spec *c, uint64_t seed, uint64_t first, size_t count,
                        float *dst)
{
    (void)c;
    int t[1024];
    uint64_t tile = UINT64_MAX;
    for (size_t j = 0; j < count; j++) {
        uint64_t i = first + j;
        if (i / 1024 != tile) {
            tile = i / 1024;
            for (int e = 0; e < 1024; e++)
                t[e] = cml_rand_fixed10_k(seed, 0, tile * 1024 + (uint64_t)e);
        }
        const int *a = &t[(i % 1024) / 32 * 32], *b = &t[i % 32 * 32];
        int acc = 0;
        for (int k = 0; k < 32; k++)
            acc += a[k] * b[k];
        dst[j] = (float)acc * 0x1p-12f;
    }
}

static void gram_where(const cml_case_spec *c, uint64_t i, char *buf, size_t len)
{
    (void)c;
    snprintf(buf, len, " (tile %" PRIu64 ", row %" PRIu64 ", column %" PRIu64 ")", i / 1024,
             i % 1024 / 32, i % 32);
}

const cml_check cml_checks_shared[] = {
    {"conflict_degree", "n,offset", degree_elems, degree_expect, degree_where, degree_bytes, NULL},
    {"scale2", "n", scale2_elems, scale2_expect, NULL, NULL, NULL},
    {"tile_gram", "n", gram_elems, gram_expect, gram_where, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL},
};
