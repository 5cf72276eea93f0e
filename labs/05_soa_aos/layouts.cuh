/* Lab 05 given kernels (pristine, included by harness.cu): the AoS "before" of 5.1 and 5.2,
 * an AoSoA variant of both for the bench, and the kernels that fill every layout with the same
 * particles: field f of particle i is cml_rand_f32_domain(seed, f, i), f = 0 (x) ... 7
 * (charge): zero, negative, large and small values among them (cml_rand.h). */
#ifndef LAYOUTS_CUH
#define LAYOUTS_CUH

#include "particles.h"

enum { FIELDS = 8, LANES = 32 }; /* AoSoA: groups of 32 particles, field by field */

// updateAoS: the natural AoS code. Each field access of a warp strides 32 bytes, so the warp's
// records are fetched whole (mass and charge too) and the whole record is written back.
__global__ void updateAoS(Particle *__restrict__ out, const Particle *__restrict__ in, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        Particle q = in[i];
        q.x += q.vx * DT, q.y += q.vy * DT, q.z += q.vz * DT;
        out[i] = q;
    }
}

// potentialAoS: needs charge and z, 8 of the record's 32 bytes; the sectors bring all 32.
__global__ void potentialAoS(float *__restrict__ energy, const Particle *__restrict__ in, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        energy[i] = in[i].charge * in[i].z * E_Z;
}

/* AoSoA element: field f of particle i sits at (i / 32) * 256 + f * 32 + i % 32. */
__host__ __device__ inline size_t aosoa_at(size_t i, int f)
{
    return (i / LANES) * (FIELDS * LANES) + (size_t)f * LANES + i % LANES;
}

// updateAoSoA: groups of 32 particles stored field by field: a warp reads 128 contiguous
// bytes per field, like SoA, from one 1 KB block. Writes SoA positions, like 5.1.
__global__ void updateAoSoA(Positions out, const float *__restrict__ in, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        out.x[i] = in[aosoa_at(i, 0)] + in[aosoa_at(i, 3)] * DT;
        out.y[i] = in[aosoa_at(i, 1)] + in[aosoa_at(i, 4)] * DT;
        out.z[i] = in[aosoa_at(i, 2)] + in[aosoa_at(i, 5)] * DT;
    }
}

// potentialAoSoA: two 128-byte rows of each 1 KB group: 8 useful bytes per particle read.
__global__ void potentialAoSoA(float *__restrict__ energy, const float *__restrict__ in, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        energy[i] = in[aosoa_at(i, 7)] * in[aosoa_at(i, 2)] * E_Z;
}

/* The grid of the given kernels: enough blocks for 16 per SM, each thread looping. */
static inline unsigned given_blocks(size_t n)
{
    const size_t want = (n + 255) / 256, most = (size_t)cml_sm_count() * 16;
    return (unsigned)(want < most ? want : most);
}

// ---- filling every layout with the same particles ----

__global__ void fillAoS(float *p, size_t n, uint64_t seed)
{
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < n * FIELDS;
         j += (size_t)gridDim.x * blockDim.x)
        p[j] = cml_rand_f32_domain(seed, (uint32_t)(j % FIELDS), j / FIELDS);
}

__global__ void fillField(float *p, size_t n, uint64_t seed, uint32_t f)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = cml_rand_f32_domain(seed, f, i);
}

__global__ void fillAoSoA(float *p, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        for (int f = 0; f < FIELDS; f++)
            p[aosoa_at(i, f)] = cml_rand_f32_domain(seed, (uint32_t)f, i);
}

#endif /* LAYOUTS_CUH */
