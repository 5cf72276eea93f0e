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
    const size_t first = blockIdx.x * (size_t)(BLOCK * ILP) + threadIdx.x;
    float x[ILP], y[ILP], z[ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + k * BLOCK;
        if (i < n) {
            x[k] = p.x[i] + p.vx[i] * DT;
            y[k] = p.y[i] + p.vy[i] * DT;
            z[k] = p.z[i] + p.vz[i] * DT;
        }
    }
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + k * BLOCK;
        if (i < n)
            out.x[i] = x[k], out.y[i] = y[k], out.z[i] = z[k];
    }
}

void launch_update_soa(Positions out, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    // TODO(5.1): launch updateSoA with BLOCK threads per block, then CML_CHECK_LAUNCH().
    updateSoA<<<BLOCKS_FOR(n), BLOCK, 0, stream>>>(out, p, n);
    CML_CHECK_LAUNCH();
}

// ---- 5.2 ---------------------------------------------------------------------------------
// potentialSoA: needs 2 of the 8 fields. In SoA it reads exactly those 8 bytes per particle;
// in AoS every 32-byte record would cross the bus whole.
__global__ void __launch_bounds__(BLOCK)
    potentialSoA(float *__restrict__ energy, ParticlesSoA p, size_t n)
{
    // TODO(5.2): energy[i] = p.charge[i] * p.z[i] * E_Z, ILP particles per thread as in 5.1.
    const size_t first = blockIdx.x * (size_t)(BLOCK * ILP) + threadIdx.x;
    float e[ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + k * BLOCK;
        if (i < n)
            e[k] = p.charge[i] * p.z[i] * E_Z;
    }
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + k * BLOCK;
        if (i < n)
            energy[i] = e[k];
    }
}

void launch_potential_soa(float *d_energy, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    // TODO(5.2): launch potentialSoA, then CML_CHECK_LAUNCH().
    potentialSoA<<<BLOCKS_FOR(n), BLOCK, 0, stream>>>(d_energy, p, n);
    CML_CHECK_LAUNCH();
}

// ---- 5.3 ---------------------------------------------------------------------------------
// aosToSoA: a particle is two aligned 16-byte halves, so each thread reads it with two
// float4 loads (a warp reads 1 KB, every sector whole), then writes eight coalesced arrays.
__global__ void __launch_bounds__(BLOCK)
    aosToSoA(ParticlesSoA out, const Particle *__restrict__ in, size_t n)
{
    // TODO(5.3): out.x[i] = in[i].x, ..., out.charge[i] = in[i].charge for ILP particles per
    //   thread, loads first. HINT: how many bytes does one load instruction of a warp move?
    const float4 *in4 = reinterpret_cast<const float4 *>(in);
    const size_t first = blockIdx.x * (size_t)(BLOCK * ILP) + threadIdx.x;
    float4 a[ILP], b[ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + k * BLOCK;
        if (i < n)
            a[k] = in4[2 * i], b[k] = in4[2 * i + 1];
    }
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + k * BLOCK;
        if (i < n) {
            out.x[i] = a[k].x, out.y[i] = a[k].y, out.z[i] = a[k].z, out.vx[i] = a[k].w;
            out.vy[i] = b[k].x, out.vz[i] = b[k].y, out.mass[i] = b[k].z, out.charge[i] = b[k].w;
        }
    }
}

// planted bug (slow, correct): the naive per-element conversion
__global__ void aosToSoAGather(ParticlesSoA out, const Particle *__restrict__ in, size_t n)
{
    float *const planes[8] = {out.x, out.y, out.z, out.vx, out.vy, out.vz, out.mass, out.charge};
    const size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (j < 8 * n)
        planes[j / n][j % n] = reinterpret_cast<const float *>(in)[(j % n) * 8 + j / n];
}

void launch_aos_to_soa(ParticlesSoA out, const Particle *d_in, size_t n, cudaStream_t stream)
{
    // TODO(5.3): launch aosToSoA, then CML_CHECK_LAUNCH().
    /* planted bug: one thread per output float; lane i reads in[i].f, 32 bytes apart, so each
       load touches 32 sectors for 128 useful bytes and every sector comes back 8 times */
    aosToSoAGather<<<(unsigned)((8 * n + 255) / 256), 256, 0, stream>>>(out, d_in, n);
    CML_CHECK_LAUNCH();
}
