/* Lab 05, SoA vs AoS.
 * My version: 5.1 and 5.2 give each thread 8 particles of a 128-thread block (8 particles, 128
 * apart, all loads before any store, read through __ldg). 5.3 splits every 32-byte record
 * into its two aligned 16-byte halves and gives each half to its own thread: lane pairs
 * (2m, 2m+1) hold one particle, the even lane x, y, z, vx and the odd lane vy, vz, mass,
 * charge. A warp's load is then 512 contiguous bytes, and each of its four stores writes 16
 * consecutive floats into each of two arrays: every sector it touches is written whole. */
#include "particles.h"

#include <stdint.h>

#define BLOCK 256
#define ILP 4

// the shape of 5.1 and 5.2
constexpr int kThreads = 128;
constexpr int kPer = 8; // particles per thread, kThreads apart

static unsigned blocks_for(size_t items, size_t per_block)
{
    return (unsigned)((items + per_block - 1) / per_block); // integer arithmetic: any n
}

// ---- 5.1 ---------------------------------------------------------------------------------
// updateSoA: six unit-stride input arrays, three output arrays; mass and charge untouched.
__global__ void __launch_bounds__(kThreads) updateSoA(Positions out, ParticlesSoA p, size_t n)
{
    const size_t first = (size_t)blockIdx.x * (kThreads * kPer) + threadIdx.x;
    float nx[kPer], ny[kPer], nz[kPer];
#pragma unroll
    for (int k = 0; k < kPer; k++) {
        const size_t i = first + (size_t)k * kThreads;
        if (i < n) {
            nx[k] = __ldg(p.x + i) + __ldg(p.vx + i) * DT;
            ny[k] = __ldg(p.y + i) + __ldg(p.vy + i) * DT;
            nz[k] = __ldg(p.z + i) + __ldg(p.vz + i) * DT;
        }
    }
#pragma unroll
    for (int k = 0; k < kPer; k++) {
        const size_t i = first + (size_t)k * kThreads;
        if (i < n) {
            out.x[i] = nx[k];
            out.y[i] = ny[k];
            out.z[i] = nz[k];
        }
    }
}

void launch_update_soa(Positions out, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    updateSoA<<<blocks_for(n, kThreads * kPer), kThreads, 0, stream>>>(out, p, n);
    CML_CHECK_LAUNCH();
}

// ---- 5.2 ---------------------------------------------------------------------------------
// potentialSoA: 8 bytes read per particle (charge and z), 4 written; every particle computed,
// zero charges and zero positions included.
__global__ void __launch_bounds__(kThreads)
    potentialSoA(float *__restrict__ energy, ParticlesSoA p, size_t n)
{
    const size_t first = (size_t)blockIdx.x * (kThreads * kPer) + threadIdx.x;
    float e[kPer];
#pragma unroll
    for (int k = 0; k < kPer; k++) {
        const size_t i = first + (size_t)k * kThreads;
        if (i < n)
            e[k] = __ldg(p.charge + i) * __ldg(p.z + i) * E_Z;
    }
#pragma unroll
    for (int k = 0; k < kPer; k++) {
        const size_t i = first + (size_t)k * kThreads;
        if (i < n)
            energy[i] = e[k];
    }
}

void launch_potential_soa(float *d_energy, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    potentialSoA<<<blocks_for(n, kThreads * kPer), kThreads, 0, stream>>>(d_energy, p, n);
    CML_CHECK_LAUNCH();
}

// ---- 5.3 ---------------------------------------------------------------------------------
// aosToSoA: half-record h = 2*i + s of particle i (s = 0: x y z vx, s = 1: vy vz mass charge)
// is one aligned float4 (d_in is 256-byte aligned, a record is 32 bytes). Each thread moves
// 2 * ILP halves (as many bytes as ILP whole records), BLOCK apart, loads first.
__global__ void __launch_bounds__(BLOCK)
    aosToSoA(ParticlesSoA out, const Particle *__restrict__ in, size_t n)
{
    const float4 *__restrict__ halves = reinterpret_cast<const float4 *>(in);
    const size_t nhalves = 2 * n;
    constexpr int H = 2 * ILP; // halves per thread
    const size_t first = (size_t)blockIdx.x * (BLOCK * H) + threadIdx.x;
    const bool second_half = threadIdx.x & 1; // BLOCK and first are even: same for every k
    // where this lane's four floats go
    float *const d0 = second_half ? out.vy : out.x;
    float *const d1 = second_half ? out.vz : out.y;
    float *const d2 = second_half ? out.mass : out.z;
    float *const d3 = second_half ? out.charge : out.vx;

    float4 v[H];
#pragma unroll
    for (int k = 0; k < H; k++) {
        const size_t h = first + (size_t)k * BLOCK;
        if (h < nhalves)
            v[k] = __ldg(halves + h);
    }
#pragma unroll
    for (int k = 0; k < H; k++) {
        const size_t h = first + (size_t)k * BLOCK;
        if (h < nhalves) {
            const size_t i = h >> 1; // the particle
            d0[i] = v[k].x;
            d1[i] = v[k].y;
            d2[i] = v[k].z;
            d3[i] = v[k].w;
        }
    }
}

void launch_aos_to_soa(ParticlesSoA out, const Particle *d_in, size_t n, cudaStream_t stream)
{
    aosToSoA<<<blocks_for(2 * n, BLOCK * 2 * ILP), BLOCK, 0, stream>>>(out, d_in, n);
    CML_CHECK_LAUNCH();
}
