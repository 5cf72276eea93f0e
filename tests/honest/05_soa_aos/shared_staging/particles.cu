/* Lab 05, SoA vs AoS: 5.3 stages each block's records through dynamic shared memory (the tiled
 * alternative section 5 mentions): coalesced 16-byte loads of the raw records, one barrier,
 * then eight coalesced stores. Barriers through cooperative groups. */
#include "particles.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define BLOCK 256
#define ILP 4

#define BLOCKS_FOR(n) ((unsigned)(((n) + BLOCK * ILP - 1) / (BLOCK * ILP))) /* blocks for n particles */

constexpr int STAGED = BLOCK * 2;          // particles per block in 5.3
constexpr int HALVES = 2 * STAGED;         // float4s per block in 5.3
static_assert(sizeof(Particle) == 2 * sizeof(float4), "a record is two 16-byte halves");

// ---- 5.1 ---------------------------------------------------------------------------------
__global__ void __launch_bounds__(BLOCK)
    updateSoA(Positions out, ParticlesSoA p, size_t n)
{
    const size_t first = blockIdx.x * (size_t)(BLOCK * ILP) + threadIdx.x;
    float r[3][ILP], v[3][ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + k * BLOCK;
        if (i < n) {
            r[0][k] = p.x[i], r[1][k] = p.y[i], r[2][k] = p.z[i];
            v[0][k] = p.vx[i], v[1][k] = p.vy[i], v[2][k] = p.vz[i];
        }
    }
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + k * BLOCK;
        if (i < n) {
            out.x[i] = r[0][k] + v[0][k] * DT;
            out.y[i] = r[1][k] + v[1][k] * DT;
            out.z[i] = r[2][k] + v[2][k] * DT;
        }
    }
}

void launch_update_soa(Positions out, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    updateSoA<<<BLOCKS_FOR(n), BLOCK, 0, stream>>>(out, p, n);
    CML_CHECK_LAUNCH();
}

// ---- 5.2 ---------------------------------------------------------------------------------
__global__ void __launch_bounds__(BLOCK)
    potentialSoA(float *__restrict__ energy, ParticlesSoA p, size_t n)
{
    const size_t first = blockIdx.x * (size_t)(BLOCK * ILP) + threadIdx.x;
    float c[ILP], z[ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + k * BLOCK;
        c[k] = i < n ? p.charge[i] : 0.0f;
        z[k] = i < n ? p.z[i] : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + k * BLOCK;
        if (i < n)
            energy[i] = c[k] * z[k] * E_Z;
    }
}

void launch_potential_soa(float *d_energy, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    potentialSoA<<<BLOCKS_FOR(n), BLOCK, 0, stream>>>(d_energy, p, n);
    CML_CHECK_LAUNCH();
}

// ---- 5.3 ---------------------------------------------------------------------------------
// aosToSoA: block b owns particles [b*STAGED, (b+1)*STAGED): thread t loads halves t, t+256,
// t+512, t+768 of them (a warp reads 512 contiguous bytes per load), then converts particles
// t and t + 256 from shared memory.
__global__ void __launch_bounds__(BLOCK)
    aosToSoA(ParticlesSoA out, const Particle *__restrict__ in, size_t n)
{
    extern __shared__ float4 staged[]; // HALVES float4s
    cg::thread_block block = cg::this_thread_block();
    const size_t p0 = (size_t)blockIdx.x * STAGED;
    const size_t halves_here = 2 * (n - p0 < (size_t)STAGED ? n - p0 : (size_t)STAGED);
    const float4 *src = reinterpret_cast<const float4 *>(in) + 2 * p0;
#pragma unroll
    for (int q = threadIdx.x; q < HALVES; q += BLOCK)
        if ((size_t)q < halves_here)
            staged[q] = src[q];
    block.sync();
#pragma unroll
    for (int j = threadIdx.x; j < STAGED; j += BLOCK) {
        const size_t i = p0 + j;
        if (i >= n)
            break;
        const float4 a = staged[2 * j], b = staged[2 * j + 1];
        out.x[i] = a.x, out.y[i] = a.y, out.z[i] = a.z, out.vx[i] = a.w;
        out.vy[i] = b.x, out.vz[i] = b.y, out.mass[i] = b.z, out.charge[i] = b.w;
    }
}

void launch_aos_to_soa(ParticlesSoA out, const Particle *d_in, size_t n, cudaStream_t stream)
{
    const unsigned blocks = (unsigned)((n + STAGED - 1) / STAGED);
    aosToSoA<<<blocks, BLOCK, HALVES * sizeof(float4), stream>>>(out, d_in, n);
    CML_CHECK_LAUNCH();
}
