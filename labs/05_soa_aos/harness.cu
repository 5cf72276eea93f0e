/* Lab 05 harness (pristine): the tasks and their cases, the given AoS and AoSoA kernels
 * (layouts.cuh), and the bench table: every layout's time, useful GB/s (the bytes the
 * computation needs), fraction of the copy bandwidth, and the AoS/SoA ratios of this run. The
 * student's kernels live in particles.cu. */
#include "layouts.cuh"

#include "cml_layout.h" /* where each SoA output array lies in the case's output buffer */

#include <stdio.h>

// ---- the right outputs, for self-checks (the grader computes its own) ----

static float field(uint64_t seed, int f, uint64_t i)
{
    return cml_rand_f32_domain(seed, (uint32_t)f, i);
}

/* 5.1 and the AoSoA update: x', y', z', n floats each, in the slots of cml_layout.h. */
static float expect_move(const cml_case *c, uint64_t seed, uint64_t i)
{
    const int f = (int)cml_soa_field(3, (unsigned)(i / c->n));
    const uint64_t p = i % c->n;
    return field(seed, f, p) + field(seed, f + 3, p) * DT;
}

static float expect_potential(const cml_case *, uint64_t seed, uint64_t i)
{
    return field(seed, 7, i) * field(seed, 2, i) * E_Z;
}

/* 5.3: out = the eight SoA arrays, one after another in the slots of cml_layout.h. */
static float expect_soa(const cml_case *c, uint64_t seed, uint64_t i)
{
    return field(seed, (int)cml_soa_field(FIELDS, (unsigned)(i / c->n)), i % c->n);
}

/* updateAoS: the moved records, field by field. */
static float expect_aos_update(const cml_case *, uint64_t seed, uint64_t i)
{
    const int f = (int)(i % FIELDS);
    const uint64_t p = i / FIELDS;
    return f < 3 ? field(seed, f, p) + field(seed, f + 3, p) * DT : field(seed, f, p);
}

// ---- inputs: the same particles in each layout ----

/* arg: the field f; its n values over the whole domain (cml_rand_f32_domain). */
static void fill_field(float *p, size_t n, uint64_t seed, uint64_t arg, cudaStream_t s)
{
    fillField<<<given_blocks(n), 256, 0, s>>>(p, n, seed, (uint32_t)arg);
    CML_CHECK_LAUNCH();
}

static int soa_input(size_t n, ParticlesSoA *p)
{
    float **fields[FIELDS] = {&p->x, &p->y, &p->z, &p->vx, &p->vy, &p->vz, &p->mass, &p->charge};
    static const char *const NAME[FIELDS] = {"p.x", "p.y", "p.z", "p.vx", "p.vy", "p.vz",
                                             "p.mass", "p.charge"};
    for (int f = 0; f < FIELDS; f++) {
        if (!(*fields[f] = cml_input_with(n, fill_field, (uint64_t)f)))
            return -1;
        cml_input_name(*fields[f], NAME[f]); /* only read: a change fails the case */
    }
    return 0;
}

/* arg: the particle count n, times 2, plus 1 for AoSoA. */
static void fill_layout(float *p, size_t, uint64_t seed, uint64_t arg, cudaStream_t s)
{
    const size_t n = arg / 2;
    if (arg & 1)
        fillAoSoA<<<given_blocks(n), 256, 0, s>>>(p, n, seed);
    else
        fillAoS<<<given_blocks(n * FIELDS), 256, 0, s>>>(p, n, seed);
    CML_CHECK_LAUNCH();
}

static float *layout_input(size_t n, int aosoa)
{
    const size_t elems = aosoa ? (n + LANES - 1) / LANES * LANES * FIELDS : n * FIELDS;
    return cml_input_with(elems, fill_layout, 2 * (uint64_t)n + (aosoa ? 1 : 0));
}

/* The three position arrays of a 3n-float output, in cml_layout.h's slots (not x, y, z in order:
 * nothing promises a student that out.y == out.x + n). */
static Positions positions_in(float *d_out, size_t n)
{
    return {d_out + cml_soa_slot(3, 0) * n, d_out + cml_soa_slot(3, 1) * n,
            d_out + cml_soa_slot(3, 2) * n};
}

// ---- run functions: allocate, fill, run; bytes = the useful bytes only ----

static int g_capture;     /* --bench: time each row once more and keep it in g_last_ms */
static double g_last_ms;

template <class F>
static void run(const cml_case *c, float *d_out, size_t out_elems, uint64_t useful, F launch)
{
    cml_run_case(c, d_out, out_elems, useful, launch);
    if (g_capture)
        g_last_ms = cml_time(cml_launcher_of(launch), d_out, out_elems * sizeof(float)).ms;
}

static void run_update_soa(const cml_case *c)
{
    const size_t n = c->n;
    ParticlesSoA p;
    float *d_out = soa_input(n, &p) == 0 ? cml_alloc(3 * n) : NULL;
    if (d_out)
        run(c, d_out, 3 * n, 36 * n, [&](cudaStream_t s) {
            launch_update_soa(positions_in(d_out, n), p, n, s);
        });
}

static void run_potential_soa(const cml_case *c)
{
    const size_t n = c->n;
    ParticlesSoA p;
    float *d_out = soa_input(n, &p) == 0 ? cml_alloc(n) : NULL;
    if (d_out)
        run(c, d_out, n, 12 * n, [&](cudaStream_t s) { launch_potential_soa(d_out, p, n, s); });
}

static void run_aos_to_soa(const cml_case *c)
{
    const size_t n = c->n;
    const Particle *d_in = (const Particle *)layout_input(n, 0);
    float *d_out = d_in ? cml_alloc(FIELDS * n) : NULL;
    if (!d_out)
        return;
    ParticlesSoA out;
    float **fields[FIELDS] = {&out.x, &out.y, &out.z, &out.vx, &out.vy, &out.vz, &out.mass,
                              &out.charge};
    for (int f = 0; f < FIELDS; f++) /* in cml_layout.h's slots, not in field order */
        *fields[f] = d_out + cml_soa_slot(FIELDS, (unsigned)f) * n;
    run(c, d_out, FIELDS * n, 64 * n, [&](cudaStream_t s) { launch_aos_to_soa(out, d_in, n, s); });
}

/* The given kernels, AoS (aosoa = 0) or AoSoA (1), update (potential = 0) or potential. */
template <int AOSOA, int POTENTIAL> static void run_given(const cml_case *c)
{
    const size_t n = c->n;
    const float *d_in = layout_input(n, AOSOA);
    const size_t out_elems = POTENTIAL ? n : AOSOA ? 3 * n : FIELDS * n;
    float *d_out = d_in ? cml_alloc(out_elems) : NULL;
    if (d_out)
        run(c, d_out, out_elems, (POTENTIAL ? 12 : 36) * n, [&](cudaStream_t s) {
            const unsigned blocks = given_blocks(n);
            const Particle *aos = (const Particle *)d_in;
            if (POTENTIAL && AOSOA)
                potentialAoSoA<<<blocks, 256, 0, s>>>(d_out, d_in, n);
            else if (POTENTIAL)
                potentialAoS<<<blocks, 256, 0, s>>>(d_out, aos, n);
            else if (AOSOA)
                updateAoSoA<<<blocks, 256, 0, s>>>(positions_in(d_out, n), d_in, n);
            else
                updateAoS<<<blocks, 256, 0, s>>>((Particle *)d_out, aos, n);
            CML_CHECK_LAUNCH();
        });
}

// ---- the lab ----

static const cml_task TASKS[] = {
    {"5.1", "updateSoA", "n", "n=16777216", run_update_soa, expect_move},
    {"5.2", "potentialSoA", "n", "n=33554432", run_potential_soa, expect_potential},
    {"5.3", "aosToSoA", "n", "n=16777216", run_aos_to_soa, expect_soa},
};
static const cml_task GIVEN[] = {
    {"5.1", "updateAoS (given)", "n", "", run_given<0, 0>, expect_aos_update},
    {"5.1", "updateAoSoA (given)", "n", "", run_given<1, 0>, expect_move},
    {"5.2", "potentialAoS (given)", "n", "", run_given<0, 1>, expect_potential},
    {"5.2", "potentialAoSoA (given)", "n", "", run_given<1, 1>, expect_potential},
};

/* One row; its time (ms) when it ran, else 0. */
static double row(const cml_task *t, const char *spec)
{
    g_capture = 1;
    const double ms = cml_table_run(t, spec) == CML_ROW_RAN ? g_last_ms : 0;
    g_capture = 0;
    return ms;
}

static void ratio(const char *what, double aos_ms, double soa_ms)
{
    if (aos_ms > 0 && soa_ms > 0) {
        printf("  ratio %s: %.4f / %.4f ms = %.2fx\n", what, aos_ms, soa_ms, aos_ms / soa_ms);
        cml_record("note task=- msg=ratio %s %.4f / %.4f ms = %.2fx", what, aos_ms, soa_ms,
                   aos_ms / soa_ms);
    }
}

static void bench(void)
{
    const char *n16 = "n=16777216", *n32 = "n=33554432";
    cml_table_title("5.1: position update, 16M particles (GB/s: useful bytes, 36 per particle)");
    const double aos = row(&GIVEN[0], n16), aosoa = row(&GIVEN[1], n16);
    const double soa = row(&TASKS[0], n16);
    ratio("update AoS / SoA (ANCHORS H200: 2.63x)", aos, soa);
    ratio("update AoSoA / SoA", aosoa, soa);
    if (soa > 0)
        printf("  updateSoA: %.3f of the copy bandwidth in useful bytes (target >= 0.85)\n",
               36.0 * 16777216 / (soa * 1e6) / cml_copy_gbps());
    cml_table_title("5.2: potential energy, 2 of 8 fields, 32M particles (useful: 12 B each)");
    const double paos = row(&GIVEN[2], n32), paosoa = row(&GIVEN[3], n32);
    const double psoa = row(&TASKS[1], n32);
    ratio("potential AoS / SoA", paos, psoa);
    ratio("potential AoSoA / SoA", paosoa, psoa);
    cml_table_title("5.3: AoS to SoA, 16M particles (useful: 64 B each, all of it)");
    row(&TASKS[2], n16);
}

static void extras(void)
{
    cml_table_title("for comparison: the given AoS and AoSoA kernels");
    cml_table_run(&GIVEN[0], "n=16777216");
    cml_table_run(&GIVEN[1], "n=16777216");
    cml_table_run(&GIVEN[2], "n=33554432");
    cml_table_run(&GIVEN[3], "n=33554432");
}

int main(int argc, char **argv)
{
    static const cml_lab lab = {"05_soa_aos", "SoA vs AoS", TASKS,
                                (int)(sizeof TASKS / sizeof TASKS[0]), bench, extras};
    return cml_main(argc, argv, &lab);
}
