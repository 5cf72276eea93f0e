/* CPU references of Labs 06 and 07 (zero-copy, unified memory): saxpy over several passes and the
 * matrix sum, bit-exact by the choice of constants. The table at the end is
 * listed in checks.c. */
#include "checks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cml_rand.h"

/* ---- labs 06 and 07 (host-involved) ---- */

/* The value of key `key` in a case's text ("n=9,passes=3"), or `fallback` when absent. */
static uint64_t case_text_key(const cml_case_spec *c, const char *key, uint64_t fallback)
{
    size_t k = strlen(key);
    for (const char *s = c->text; *s; s += strcspn(s, ","), s += (*s == ','))
        if (strncmp(s, key, k) == 0 && s[k] == '=')
            return strtoull(s + k + 1, NULL, 10);
    return fallback;
}

/* saxpy (lab 06): out = 2*in0 + in1, then passes-1 more times out = 2*in0 + out; passes= from
 * the case (default 1). a = 2 makes 2*x exact, so each pass rounds once here and on the GPU,
 * whether or not either side fuses the multiply and the add: bit-exact. saxpy_mapped is the
 * same output, its bytes counted as zero-copy moves them. */
static uint64_t saxpy_elems(const cml_case_spec *c, char *err, size_t errlen)
{
    uint64_t passes = case_text_key(c, "passes", 1);
    if (c->n == 0 || c->n > UINT64_MAX / 4 || passes < 1 || passes > 1000) {
        snprintf(err, errlen, "check saxpy needs n=<elements> (> 0) and passes between 1 and 1000");
        return 0;
    }
    return c->n;
}

static void saxpy_expect(const cml_case_spec *c, uint64_t seed, uint64_t first, size_t count,
                         float *dst)
{
    uint64_t passes = case_text_key(c, "passes", 1);
    for (size_t j = 0; j < count; j++) {
        float x = cml_rand_f32(seed, 0, first + j), out = cml_rand_f32(seed, 1, first + j);
        for (uint64_t p = 0; p < passes; p++)
            out = 2.0f * x + out;
        dst[j] = out;
    }
}

/* Over the host link, as lab 06's harness counts it (link_io): x and y in, the result out, once
 * for the copies (6.2, 6.3: the least any strategy moves) ... */
static uint64_t saxpy_bytes(const cml_case_spec *c)
{
    return cml_mul_sat(c->n, 3 * 4);
}

/* ... and once per pass for zero-copy (6.1, check saxpy_mapped): every pass reads x and the
 * running result from host memory and writes the result back. */
static uint64_t saxpy_mapped_bytes(const cml_case_spec *c)
{
    return cml_mul_sat(cml_mul_sat(c->n, 3 * 4), case_text_key(c, "passes", 1));
}

/* add2 (lab 07): out[i] = in0[i] + in1[i] over a rows x cols matrix; one rounding either side,
 * over every kind of finite float (cml_rand_f32_any, as lab 07's harness fills A and B). */
static uint64_t add2_elems(const cml_case_spec *c, char *err, size_t errlen)
{
    if (c->rows == 0 || c->cols == 0 || c->rows > UINT64_MAX / 4 / c->cols) {
        snprintf(err, errlen, "check add2 needs rows=<r>,cols=<c> (both > 0, not too large)");
        return 0;
    }
    return c->rows * c->cols;
}

static void add2_expect(const cml_case_spec *c, uint64_t seed, uint64_t first, size_t count,
                        float *dst)
{
    (void)c;
    for (size_t j = 0; j < count; j++)
        dst[j] = cml_rand_f32_any(seed, 0, first + j) + cml_rand_f32_any(seed, 1, first + j);
}

/* Lab 07's harness: both matrices to the GPU and the sum back, 3 * rows * cols floats. */
static uint64_t add2_bytes(const cml_case_spec *c)
{
    return cml_mul_sat(cml_mul_sat(c->rows, c->cols), 3 * 4);
}

static void add2_where(const cml_case_spec *c, uint64_t i, char *buf, size_t len)
{
    snprintf(buf, len, " (row %" PRIu64 ", column %" PRIu64 ")", i / c->cols, i % c->cols);
}

/* Over the link each way: two inputs in, the result out (bytes = in + out, as above). */
static void link_two_in_one_out(uint64_t bytes, uint64_t *h2d, uint64_t *d2h)
{
    *h2d = bytes / 3 * 2;
    *d2h = bytes / 3;
}

static void saxpy_link(const cml_case_spec *c, uint64_t *h2d, uint64_t *d2h)
{
    link_two_in_one_out(saxpy_bytes(c), h2d, d2h);
}

static void saxpy_mapped_link(const cml_case_spec *c, uint64_t *h2d, uint64_t *d2h)
{
    link_two_in_one_out(saxpy_mapped_bytes(c), h2d, d2h);
}

static void add2_link(const cml_case_spec *c, uint64_t *h2d, uint64_t *d2h)
{
    link_two_in_one_out(add2_bytes(c), h2d, d2h);
}

const cml_check cml_checks_host[] = {
    {"saxpy", "n,passes", saxpy_elems, saxpy_expect, NULL, saxpy_bytes, saxpy_link},
    {"saxpy_mapped", "n,passes", saxpy_elems, saxpy_expect, NULL, saxpy_mapped_bytes,
     saxpy_mapped_link},
    {"add2", "rows,cols", add2_elems, add2_expect, add2_where, add2_bytes, add2_link},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL},
};
