/* The table of CPU references. Inputs are never materialised: a generator of cml_rand.h gives
 * input element i directly, so each check computes its expected output in output order and the
 * only memory stream while verifying is the lab's output file, read in order.
 * copy, transpose and gather move floats and are compared bit for bit, so their inputs hold
 * every float bit pattern (cml_rand_f32_all: -0, infinities, NaNs with payloads, subnormals;
 * issue 44): a move done by arithmetic (1*x + 0, 2x - x) rewrites some and fails. Labs 01 and
 * 02's harnesses fill their inputs with it, and lab 04's for 4.1 (`offset`; red team round 5:
 * a copy as 2v - v, exact on cml_rand_f32's [1, 4), passed there). */
#include "checks.h"

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
        dst[j] = cml_rand_f32_all(seed, 0, first + j);
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
        dst[j] = cml_rand_f32_all(seed, 0, row * c->cols + col);
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

/* gather over every float bit pattern (lab 01's 1.3, and offset: lab 04's 4.1) */
static void gather_expect(const cml_case_spec *c, uint64_t seed, uint64_t first, size_t count,
                          float *dst)
{
    uint64_t s = gather_stride(c), at = c->offset + first * s;
    for (size_t j = 0; j < count; j++, at += s)
        dst[j] = cml_rand_f32_all(seed, 0, at);
}

static void gather_where(const cml_case_spec *c, uint64_t i, char *buf, size_t len)
{
    snprintf(buf, len, " (input index %" PRIu64 ")", c->offset + i * gather_stride(c));
}

static const cml_check CORE[] = {
    {"copy", "n", copy_elems, copy_expect, NULL, NULL, NULL},
    {"transpose", "rows,cols", transpose_elems, transpose_expect, transpose_where, NULL, NULL},
    {"gather", "n,offset,stride", gather_elems, gather_expect, gather_where, NULL, NULL},
    {"offset", "n,offset", gather_elems, gather_expect, gather_where, NULL, NULL},
    {"stride", "n,stride", gather_elems, gather_expect, gather_where, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL},
};

/* Every table of checks, each ended by a row whose name is NULL. */
static const cml_check *const TABLES[] = {
    CORE, cml_checks_shared, cml_checks_vector, cml_checks_particles, cml_checks_host,
};
#define NTABLES (sizeof TABLES / sizeof TABLES[0])

/* The entry named `name`, or NULL when no such check exists. */
const cml_check *cml_check_find(const char *name)
{
    for (size_t t = 0; name && t < NTABLES; t++)
        for (const cml_check *c = TABLES[t]; c->name; c++)
            if (strcmp(c->name, name) == 0)
                return c;
    return NULL;
}

/* Contract in checks.h. The default, one read and one write of every output element, is what
 * every harness of the device-memory labs passes as `bytes` (2 * elems * sizeof(float)). */
uint64_t cml_case_bytes(const cml_task_spec *t, const cml_case_spec *c)
{
    const cml_check *chk = cml_check_find(t->check);
    char err[160];
    if (!chk)
        return 0;
    if (chk->bytes)
        return chk->bytes(c);
    return cml_mul_sat(chk->out_elems(c, err, sizeof err), 8);
}

/* Every check name, comma-separated, into buf (truncated to len), for error messages. */
void cml_check_names(char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (size_t t = 0; t < NTABLES; t++)
        for (const cml_check *c = TABLES[t]; c->name && used < len; c++) {
            int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", c->name);
            used += w > 0 ? (size_t)w : 0;
        }
}
