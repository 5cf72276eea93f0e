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

/* points3 / points4 (lab 04): n points of 3 or 4 floats; x, y, z become 2*v + (1, -2, 0.5),
 * a fourth float (w) is copied. The arithmetic is exact up to one rounding, as on the GPU. */
static uint64_t points_elems(const cml_case_spec *c, int width, char *err, size_t errlen)
{
    if (c->n == 0 || c->n > UINT64_MAX / 16) {
        snprintf(err, errlen, "this check needs n=<points> (> 0)");
        return 0;
    }
    return width * c->n;
}

static uint64_t points3_elems(const cml_case_spec *c, char *err, size_t errlen)
{
    return points_elems(c, 3, err, errlen);
}

static uint64_t points4_elems(const cml_case_spec *c, char *err, size_t errlen)
{
    return points_elems(c, 4, err, errlen);
}

static void points_expect(uint64_t seed, uint64_t first, size_t count, float *dst, int width)
{
    static const float D[4] = {1.0f, -2.0f, 0.5f, 0.0f};
    for (size_t j = 0; j < count; j++) {
        uint64_t i = first + j, k = i % (uint64_t)width;
        float x = cml_rand_f32(seed, 0, i);
        dst[j] = k == 3 ? x : 2.0f * x + D[k];
    }
}

static void points3_expect(const cml_case_spec *c, uint64_t seed, uint64_t first, size_t count,
                           float *dst)
{
    (void)c;
    points_expect(seed, first, count, dst, 3);
}

static void points4_expect(const cml_case_spec *c, uint64_t seed, uint64_t first, size_t count,
                           float *dst)
{
    (void)c;
    points_expect(seed, first, count, dst, 4);
}

static void points3_where(const cml_case_spec *c, uint64_t i, char *buf, size_t len)
{
    (void)c;
    snprintf(buf, len, " (point %" PRIu64 ", %c)", i / 3, "xyz"[i % 3]);
}

static void points4_where(const cml_case_spec *c, uint64_t i, char *buf, size_t len)
{
    (void)c;
    snprintf(buf, len, " (point %" PRIu64 ", %c)", i / 4, "xyzw"[i % 4]);
}

/* conflict_degree (lab 03, task 3.1): out[size*n + stride] = the conflict degree of a warp
 * whose lane t reads element t*stride of an array of (4 << size)-byte elements, strides
 * 0..n-1, 32 banks of 4-byte words. The warp is served in phases of 128 bytes (32, 16 or 8
 * lanes); a phase needs as many passes as its busiest bank has DISTINCT words; the degree is
 * the worst phase's count (docs/03_bank_conflicts.md, section 3). */
static uint64_t degree_elems(const cml_case_spec *c, char *err, size_t errlen)
{
    if (c->n == 0 || c->n > 4096) {
        snprintf(err, errlen, "check conflict_degree needs n=<strides> between 1 and 4096");
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
        dst[j] = (float)bank_degree((first + j) % c->n, 4 << ((first + j) / c->n));
}

static void degree_where(const cml_case_spec *c, uint64_t i, char *buf, size_t len)
{
    snprintf(buf, len, " (stride %" PRIu64 ", %d-byte elements)", i % c->n, 4 << (i / c->n));
}

/* scale2 (lab 03, task 3.2): out[i] = 2 * in0[i], exact. */
static void scale2_expect(const cml_case_spec *c, uint64_t seed, uint64_t first, size_t count,
                          float *dst)
{
    (void)c;
    for (size_t j = 0; j < count; j++)
        dst[j] = 2.0f * cml_rand_f32(seed, 0, first + j);
}

/* tile_gram (lab 03, task 3.3): in0 holds n/1024 tiles T of 32 x 32 small integers
 * (element i = (rand_u64(seed, 0, i) >> 60) - 8); out[t*1024 + r*32 + c] = sum over k of
 * T[r][k] * T[c][k]. Integer sums below 2^24: exact in any order. */
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
                t[e] = (int)(cml_rand_u64(seed, 0, tile * 1024 + (uint64_t)e) >> 60) - 8;
        }
        const int *a = &t[(i % 1024) / 32 * 32], *b = &t[i % 32 * 32];
        int acc = 0;
        for (int k = 0; k < 32; k++)
            acc += a[k] * b[k];
        dst[j] = (float)acc;
    }
}

static void gram_where(const cml_case_spec *c, uint64_t i, char *buf, size_t len)
{
    (void)c;
    snprintf(buf, len, " (tile %" PRIu64 ", row %" PRIu64 ", column %" PRIu64 ")", i / 1024,
             i % 1024 / 32, i % 32);
}

/* Lab 05's particles: field f (0 x, 1 y, 2 z, 3 vx, 4 vy, 5 vz, 6 mass, 7 charge) of particle
 * i is cml_rand_f32(seed, f, i). DT = 2^-7 and E_Z = 2^-1 make every result exact in float,
 * with or without fused multiply-add, so these checks are bit-exact. */
#define PARTICLE_DT 0.0078125f
#define PARTICLE_EZ 0.5f

static uint64_t particle_elems(const cml_case_spec *c, uint64_t per, char *err, size_t errlen)
{
    if (c->n == 0 || c->n > ((uint64_t)1 << 36)) {
        snprintf(err, errlen, "this check needs n=<particles> between 1 and 2^36");
        return 0;
    }
    return per * c->n;
}

/* particles_move (5.1): out = [x' | y' | z'], x'[i] = x[i] + vx[i] * DT. */
static uint64_t move_elems(const cml_case_spec *c, char *err, size_t errlen)
{
    return particle_elems(c, 3, err, errlen);
}

static void move_expect(const cml_case_spec *c, uint64_t seed, uint64_t first, size_t count,
                        float *dst)
{
    for (size_t j = 0; j < count; j++) {
        uint32_t f = (uint32_t)((first + j) / c->n);
        uint64_t i = (first + j) % c->n;
        dst[j] = cml_rand_f32(seed, f, i) + cml_rand_f32(seed, f + 3, i) * PARTICLE_DT;
    }
}

/* particles_potential (5.2): out[i] = charge[i] * z[i] * E_Z. */
static uint64_t potential_elems(const cml_case_spec *c, char *err, size_t errlen)
{
    return particle_elems(c, 1, err, errlen);
}

static void potential_expect(const cml_case_spec *c, uint64_t seed, uint64_t first, size_t count,
                             float *dst)
{
    (void)c;
    for (size_t j = 0; j < count; j++)
        dst[j] = cml_rand_f32(seed, 7, first + j) * cml_rand_f32(seed, 2, first + j) * PARTICLE_EZ;
}

/* aos_to_soa (5.3): out = the eight field arrays, one after another: out[f*n + i] = field f. */
static uint64_t soa_elems(const cml_case_spec *c, char *err, size_t errlen)
{
    return particle_elems(c, 8, err, errlen);
}

static void soa_expect(const cml_case_spec *c, uint64_t seed, uint64_t first, size_t count,
                       float *dst)
{
    for (size_t j = 0; j < count; j++)
        dst[j] = cml_rand_f32(seed, (uint32_t)((first + j) / c->n), (first + j) % c->n);
}

static void particle_where(const cml_case_spec *c, uint64_t i, char *buf, size_t len)
{
    static const char *const NAMES[] = {"x", "y", "z", "vx", "vy", "vz", "mass", "charge"};
    snprintf(buf, len, " (array %s, particle %" PRIu64 ")", NAMES[i / c->n % 8], i % c->n);
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
    {"points3", "n", points3_elems, points3_expect, points3_where},
    {"points4", "n", points4_elems, points4_expect, points4_where},
    {"conflict_degree", "n", degree_elems, degree_expect, degree_where},
    {"scale2", "n", copy_elems, scale2_expect, NULL},
    {"tile_gram", "n", gram_elems, gram_expect, gram_where},
    {"particles_move", "n", move_elems, move_expect, particle_where},
    {"particles_potential", "n", potential_elems, potential_expect, NULL},
    {"aos_to_soa", "n", soa_elems, soa_expect, particle_where},
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
