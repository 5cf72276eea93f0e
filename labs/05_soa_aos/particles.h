/* Lab 05, SoA vs AoS: the particle layouts and the launch wrappers the harness calls
 * (pristine). You write the wrappers, and the kernels they launch, in particles.cu. Every
 * wrapper launches on `stream` and checks the launch with CML_CHECK_LAUNCH(). */
#ifndef PARTICLES_H
#define PARTICLES_H

#include "cml_lab.h" /* CML_TODO, CML_CHECK, CML_CHECK_LAUNCH */

#include <stddef.h>

/* Powers of two, so that x + vx * DT and charge * z * E_Z are exact in float in any order,
 * with or without fused multiply-add: the grader compares bit for bit. */
#define DT 0.0078125f /* 2^-7: the time step */
#define E_Z 0.5f      /* 2^-1: a uniform electric field along z */

/* Array of structures (AoS): one 32-byte record per particle. */
struct Particle {
    float x, y, z;    /* position */
    float vx, vy, vz; /* velocity */
    float mass, charge;
};

/* Structure of arrays (SoA): one array of n floats per field, each reached through its own
 * pointer: the arrays lie apart and in no particular order (never out.y == out.x + n). */
struct ParticlesSoA {
    float *x, *y, *z, *vx, *vy, *vz, *mass, *charge;
};

/* The three position arrays of an SoA system (5.1's output). */
struct Positions {
    float *x, *y, *z;
};

/* 5.1: out.x[i] = p.x[i] + p.vx[i] * DT, the same for y and z, i < n. */
void launch_update_soa(Positions out, ParticlesSoA p, size_t n, cudaStream_t stream);

/* 5.2: energy[i] = p.charge[i] * p.z[i] * E_Z (potential energy in the field), i < n. */
void launch_potential_soa(float *d_energy, ParticlesSoA p, size_t n, cudaStream_t stream);

/* 5.3: the same particles from AoS to SoA, bit for bit: out.x[i] = d_in[i].x, ..., i < n.
 * d_in is 256-byte aligned (it comes from cudaMalloc), so particle i starts at 32*i bytes. */
void launch_aos_to_soa(ParticlesSoA out, const Particle *d_in, size_t n, cudaStream_t stream);

#endif /* PARTICLES_H */
