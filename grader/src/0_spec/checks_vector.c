/* CPU references of Lab 04 (float4 alignment): points as float3 and as 16-byte structs. The table at the end is
 * listed in checks.c. */
#include "checks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cml_rand.h"

/* points3 / points4 (lab 04): n points of 3 or 4 floats; x, y, z become 2*v + (1, -2, 0.5),
 * a fourth float (w) is copied. The arithmetic is exact up to one rounding, as on the GPU.
 * Inputs (issue 44), as labs/04_float4/harness.cu fills them: x, y, z over a coordinate's
 * values (cml_rand_f32_domain), w over every value a float holds (cml_rand_f32_all), since the
 * sheet says w is "copied unchanged": a kernel that computed 1*w + 0 turned -0 into +0 and NaN
 * payloads into the canonical NaN, and passed while w was a float in [1, 4) checked to 1e-6. */
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
        float x = k == 3 ? cml_rand_f32_all(seed, 0, i) : cml_rand_f32_domain(seed, 0, i);
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

/* Contract in checks.h: points4's w (every fourth float from the fourth) is a pass-through. */
int cml_check_passthrough(const cml_check *chk, uint64_t *period, uint64_t *lane)
{
    if (!chk || !chk->name || strcmp(chk->name, "points4") != 0)
        return 0;
    *period = 4, *lane = 3;
    return 1;
}

const cml_check cml_checks_vector[] = {
    {"points3", "n", points3_elems, points3_expect, points3_where, NULL, NULL},
    {"points4", "n", points4_elems, points4_expect, points4_where, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL},
};
