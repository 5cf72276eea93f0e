/* Lab 05, SoA vs AoS: the kernels you write and their launch wrappers. Edit only this file;
 * the harness (harness.cu) allocates, fills, checks and times. Build and grade with
 * `make grade LAB=05`; EXERCISE.md walks through the tasks. */
#include "particles.h"

// Each thread handles ILP particles, BLOCK apart, and issues all its loads before its first
// store: one float per array per thread is not enough bytes in flight to keep HBM busy.
#define BLOCK 256
#define ILP 4

#define BLOCKS_FOR(n) ((unsigned)(((n) + BLOCK * ILP - 1) / (BLOCK * ILP))) /* blocks for n particles */

// ---- 5.1 ---------------------------------------------------------------------------------
// updateSoA: six input arrays and three output arrays, each walked with unit stride: every
// warp-wide load or store is one 128-byte line, and mass and charge are never touched.
__global__ void __launch_bounds__(BLOCK)
    updateSoA(Positions out, ParticlesSoA p, size_t n)
{
    // TODO(5.1): out.x[i] = p.x[i] + p.vx[i] * DT (and y, z) for the ILP particles
    //   first + k * BLOCK of this thread, k < ILP; all loads before the first store.
    //   HINT: which i does lane 0 of a warp take at step k, and which does lane 1?
}

void launch_update_soa(Positions out, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    // TODO(5.1): launch updateSoA with BLOCK threads per block, then CML_CHECK_LAUNCH().
    CML_TODO("5.1", "write updateSoA and launch it");
    (void)out, (void)p, (void)n, (void)stream; // stub: delete
}

// ---- 5.2 ---------------------------------------------------------------------------------
// potentialSoA: needs 2 of the 8 fields. In SoA it reads exactly those 8 bytes per particle;
// in AoS every 32-byte record would cross the bus whole.
__global__ void __launch_bounds__(BLOCK)
    potentialSoA(float *__restrict__ energy, ParticlesSoA p, size_t n)
{
    // TODO(5.2): energy[i] = p.charge[i] * p.z[i] * E_Z, ILP particles per thread as in 5.1.
}

void launch_potential_soa(float *d_energy, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    // TODO(5.2): launch potentialSoA, then CML_CHECK_LAUNCH().
    CML_TODO("5.2", "write potentialSoA and launch it");
    (void)d_energy, (void)p, (void)n, (void)stream; // stub: delete
}

// ---- 5.3 ---------------------------------------------------------------------------------
// aosToSoA: a particle is two aligned 16-byte halves, so each thread reads it with two
// float4 loads (a warp reads 1 KB, every sector whole), then writes eight coalesced arrays.
__global__ void __launch_bounds__(BLOCK)
    aosToSoA(ParticlesSoA out, const Particle *__restrict__ in, size_t n)
{
    // TODO(5.3): out.x[i] = in[i].x, ..., out.charge[i] = in[i].charge for ILP particles per
    //   thread, loads first. HINT: how many bytes does one load instruction of a warp move?
}

void launch_aos_to_soa(ParticlesSoA out, const Particle *d_in, size_t n, cudaStream_t stream)
{
    // TODO(5.3): launch aosToSoA, then CML_CHECK_LAUNCH().
    CML_TODO("5.3", "write aosToSoA and launch it");
    (void)out, (void)d_in, (void)n, (void)stream; // stub: delete
}
