/* The table of CPU references. Inputs are never materialised: cml_rand_f32(seed, stream, i)
 * gives input element i directly, so each check computes its expected output in output
 * order and the only memory stream while verifying is the lab's output file, read in order. */
#include "verify.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cml_rand.h"

/* copy: out[i] = in0[i], i < n */
static uint64_t copy_elems(const cml_case_spec *c, char *err, size_t errlen)
{
    if (c->n == 0)
        snprintf(err, errlen, "check copy needs n=<elements> (> 0)");
    return c->n;
}

static void copy_expect(const cml_case_spec *c, uint64_t seed, uint64_t first, size_t count,
                        float *dst)
{
    (void)c;
    for (size_t j = 0; j < count; j++)
        dst[j] = cml_rand_f32(seed, 0, first + j);
}

/* transpose: in0 is rows x cols row-major, out is cols x rows: out[c*rows + r] = in0[r*cols + c] */
static uint64_t transpose_elems(const cml_case_spec *c, char *err, size_t errlen)
{
    if (c->rows == 0 || c->cols == 0) {
        snprintf(err, errlen, "check transpose needs rows=<r>,cols=<c> (both > 0)");
        return 0;
    }
    if (c->rows > UINT64_MAX / 4 / c->cols) {
        snprintf(err, errlen, "rows x cols is too large");
        return 0;
    }
    return c->rows * c->cols;
}

static void transpose_expect(const cml_case_spec *c, uint64_t seed, uint64_t first,
                             size_t count, float *dst)
{
    uint64_t col = first / c->rows, row = first % c->rows; /* output index = col*rows + row */
    for (size_t j = 0; j < count; j++) {
        dst[j] = cml_rand_f32(seed, 0, row * c->cols + col);
        if (++row == c->rows) {
            row = 0;
            col++;
        }
    }
}

static void transpose_where(const cml_case_spec *c, uint64_t i, char *buf, size_t len)
{
    snprintf(buf, len, " (output row %" PRIu64 ", column %" PRIu64 ")", i / c->rows,
             i % c->rows);
}

/* gather: out[i] = in0[offset + i*stride], i < n, stride 0 read as 1. The checks named
 * `offset` (out[i] = in0[i + offset]) and `stride` (out[i] = in0[i * stride]) are the same. */
static uint64_t gather_stride(const cml_case_spec *c)
{
    return c->stride ? c->stride : 1;
}

static uint64_t gather_elems(const cml_case_spec *c, char *err, size_t errlen)
{
    if (c->n == 0) {
        snprintf(err, errlen, "this check needs n=<elements> (> 0), optionally offset=, stride=");
        return 0;
    }
    uint64_t s = gather_stride(c);
    if (c->offset == UINT64_MAX || c->n - 1 > (UINT64_MAX - 1 - c->offset) / s ||
        c->n > UINT64_MAX / 4) {
        snprintf(err, errlen, "offset + (n-1)*stride is too large");
        return 0;
    }
    return c->n;
}

static void gather_expect(const cml_case_spec *c, uint64_t seed, uint64_t first, size_t count,
                          float *dst)
{
    uint64_t s = gather_stride(c), at = c->offset + first * s;
    for (size_t j = 0; j < count; j++, at += s)
        dst[j] = cml_rand_f32(seed, 0, at);
}

static void gather_where(const cml_case_spec *c, uint64_t i, char *buf, size_t len)
{
    snprintf(buf, len, " (input index %" PRIu64 ")", c->offset + i * gather_stride(c));
}


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
 * whether or not either side fuses the multiply and the add: bit-exact. */
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

/* add2 (lab 07): out[i] = in0[i] + in1[i] over a rows x cols matrix; one rounding either side. */
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
        dst[j] = cml_rand_f32(seed, 0, first + j) + cml_rand_f32(seed, 1, first + j);
}

static void add2_where(const cml_case_spec *c, uint64_t i, char *buf, size_t len)
{
    snprintf(buf, len, " (row %" PRIu64 ", column %" PRIu64 ")", i / c->cols, i % c->cols);
}

static const cml_check CHECKS[] = {
    {"copy", "n", copy_elems, copy_expect, NULL},
    {"transpose", "rows,cols", transpose_elems, transpose_expect, transpose_where},
    {"gather", "n,offset,stride", gather_elems, gather_expect, gather_where},
    {"offset", "n,offset", gather_elems, gather_expect, gather_where},
    {"stride", "n,stride", gather_elems, gather_expect, gather_where},
    {"saxpy", "n,passes", saxpy_elems, saxpy_expect, NULL},
    {"add2", "rows,cols", add2_elems, add2_expect, add2_where},
};

#define NCHECKS (sizeof CHECKS / sizeof CHECKS[0])

/* The entry named `name`, or NULL when no such check exists. */
const cml_check *cml_check_find(const char *name)
{
    for (size_t i = 0; name && i < NCHECKS; i++)
        if (strcmp(CHECKS[i].name, name) == 0)
            return &CHECKS[i];
    return NULL;
}

/* Every check name, comma-separated, into buf (truncated to len), for error messages. */
void cml_check_names(char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < NCHECKS && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", CHECKS[i].name);
        used += w > 0 ? (size_t)w : 0;
    }
}
