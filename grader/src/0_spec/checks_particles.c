/* CPU references of Lab 05 (SoA vs AoS): the particle update, the two-field kernel and the layout
 * conversion, bit-exact by the choice of constants. The table at the end is
 * listed in checks.c. */
#include "checks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cml_layout.h"
#include "cml_rand.h"

/* Lab 05's particles: field f (0 x, 1 y, 2 z, 3 vx, 4 vy, 5 vz, 6 mass, 7 charge) of particle
 * i is cml_rand_f32_domain(seed, f, i): zero, negative, large, small and non-integer values, as
 * the sheet promises. DT = 2^-7 and E_Z = 2^-1 make every result exact in float, with or
 * without fused multiply-add, so these checks are bit-exact (the sign of a zero included). */
#define field(seed, f, i) cml_rand_f32_domain((seed), (uint32_t)(f), (i))
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

/* particles_move (5.1): out = x', y', z' in the slots of common/cml_layout.h (the harness hands
 * the student the three arrays there), x'[i] = x[i] + vx[i] * DT. */
static uint64_t move_elems(const cml_case_spec *c, char *err, size_t errlen)
{
    return particle_elems(c, 3, err, errlen);
}

static void move_expect(const cml_case_spec *c, uint64_t seed, uint64_t first, size_t count,
                        float *dst)
{
    for (size_t j = 0; j < count; j++) {
        uint32_t f = cml_soa_field(3, (unsigned)((first + j) / c->n));
        uint64_t i = (first + j) % c->n;
        dst[j] = field(seed, f, i) + field(seed, f + 3, i) * PARTICLE_DT;
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
        dst[j] = field(seed, 7, first + j) * field(seed, 2, first + j) * PARTICLE_EZ;
}

/* aos_to_soa (5.3): out = the eight field arrays, one after another in the slots of
 * common/cml_layout.h: out[slot(f)*n + i] = field f of particle i. */
static uint64_t soa_elems(const cml_case_spec *c, char *err, size_t errlen)
{
    return particle_elems(c, 8, err, errlen);
}

static void soa_expect(const cml_case_spec *c, uint64_t seed, uint64_t first, size_t count,
                       float *dst)
{
    for (size_t j = 0; j < count; j++) {
        uint32_t f = cml_soa_field(8, (unsigned)((first + j) / c->n));
        dst[j] = field(seed, f, (first + j) % c->n);
    }
}

/* 5.1 reads x, y, z, vx, vy, vz and writes x, y, z: 36 bytes a particle (run_update_soa). */
static uint64_t move_bytes(const cml_case_spec *c)
{
    return cml_mul_sat(c->n, 36);
}

/* 5.2 reads charge and z and writes one float: 12 bytes a particle (run_potential_soa). */
static uint64_t potential_bytes(const cml_case_spec *c)
{
    return cml_mul_sat(c->n, 12);
}

/* The array an output element belongs to: 5.1's output holds 3 slots, 5.3's 8. */
static void particle_where3(const cml_case_spec *c, uint64_t i, char *buf, size_t len)
{
    static const char *const NAMES[] = {"x", "y", "z"};
    snprintf(buf, len, " (array %s, particle %" PRIu64 ")",
             NAMES[cml_soa_field(3, (unsigned)(i / c->n % 3))], i % c->n);
}

static void particle_where(const cml_case_spec *c, uint64_t i, char *buf, size_t len)
{
    static const char *const NAMES[] = {"x", "y", "z", "vx", "vy", "vz", "mass", "charge"};
    snprintf(buf, len, " (array %s, particle %" PRIu64 ")",
             NAMES[cml_soa_field(8, (unsigned)(i / c->n % 8))], i % c->n);
}

const cml_check cml_checks_particles[] = {
    {"particles_move", "n", move_elems, move_expect, particle_where3, move_bytes, NULL},
    {"particles_potential", "n", potential_elems, potential_expect, NULL, potential_bytes, NULL},
    {"aos_to_soa", "n", soa_elems, soa_expect, particle_where, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL},
};
