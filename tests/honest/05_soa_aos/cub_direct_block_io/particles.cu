/* Lab 05, SoA vs AoS.
 * My version does its memory traffic with CUB's thread-level block I/O helpers
 * (cub/block/block_load.cuh, block_store.cuh): a block owns a tile of BLOCK * ILP particles,
 * and cub::LoadDirectStriped / StoreDirectStriped move it in the striped arrangement (item k
 * of thread t is element t + k * BLOCK of the tile: unit stride across a warp, ILP loads in
 * flight per thread before the first store). Only the last tile takes the guarded overloads.
 * 5.3 loads each record as the thread's "blocked" 8 items, through
 * cub::LoadDirectBlockedVectorized (two 16-byte loads per record), and writes each field with
 * unit stride. No device-wide algorithm, no allocation: block-level device code only. */
#include "particles.h"

#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>

#define BLOCK 256
#define ILP 4

constexpr int TILE = BLOCK * ILP; // particles per block in 5.1 and 5.2

static unsigned tiles_for(size_t n, size_t per_tile)
{
    return (unsigned)((n + per_tile - 1) / per_tile);
}

// Loads ILP striped items of one field of this block's tile (guarded on the last tile).
__device__ __forceinline__ void load_field(const float *field, size_t tile0, int valid,
                                           float (&v)[ILP])
{
    if (valid >= TILE)
        cub::LoadDirectStriped<BLOCK>((int)threadIdx.x, field + tile0, v);
    else
        cub::LoadDirectStriped<BLOCK>((int)threadIdx.x, field + tile0, v, valid);
}

__device__ __forceinline__ void store_field(float *field, size_t tile0, int valid,
                                            float (&v)[ILP])
{
    if (valid >= TILE)
        cub::StoreDirectStriped<BLOCK>((int)threadIdx.x, field + tile0, v);
    else
        cub::StoreDirectStriped<BLOCK>((int)threadIdx.x, field + tile0, v, valid);
}

// ---- 5.1 ---------------------------------------------------------------------------------
// updateSoA: load x, vx, y, vy, z, vz (6 * ILP loads in flight), compute, store x, y, z.
__global__ void __launch_bounds__(BLOCK) updateSoA(Positions out, ParticlesSoA p, size_t n)
{
    const size_t tile0 = (size_t)blockIdx.x * TILE;
    const size_t left = n - tile0;
    const int valid = left < (size_t)TILE ? (int)left : TILE;
    float x[ILP], vx[ILP], y[ILP], vy[ILP], z[ILP], vz[ILP];
    load_field(p.x, tile0, valid, x);
    load_field(p.vx, tile0, valid, vx);
    load_field(p.y, tile0, valid, y);
    load_field(p.vy, tile0, valid, vy);
    load_field(p.z, tile0, valid, z);
    load_field(p.vz, tile0, valid, vz);
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        x[k] = x[k] + vx[k] * DT; // items past `valid` are never stored
        y[k] = y[k] + vy[k] * DT;
        z[k] = z[k] + vz[k] * DT;
    }
    store_field(out.x, tile0, valid, x);
    store_field(out.y, tile0, valid, y);
    store_field(out.z, tile0, valid, z);
}

void launch_update_soa(Positions out, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    updateSoA<<<tiles_for(n, TILE), BLOCK, 0, stream>>>(out, p, n);
    CML_CHECK_LAUNCH();
}

// ---- 5.2 ---------------------------------------------------------------------------------
// potentialSoA: charge and z only, 8 bytes a particle; every particle computed.
__global__ void __launch_bounds__(BLOCK)
    potentialSoA(float *__restrict__ energy, ParticlesSoA p, size_t n)
{
    const size_t tile0 = (size_t)blockIdx.x * TILE;
    const size_t left = n - tile0;
    const int valid = left < (size_t)TILE ? (int)left : TILE;
    float q[ILP], z[ILP];
    load_field(p.charge, tile0, valid, q);
    load_field(p.z, tile0, valid, z);
#pragma unroll
    for (int k = 0; k < ILP; k++)
        q[k] = q[k] * z[k] * E_Z;
    store_field(energy, tile0, valid, q);
}

void launch_potential_soa(float *d_energy, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    potentialSoA<<<tiles_for(n, TILE), BLOCK, 0, stream>>>(d_energy, p, n);
    CML_CHECK_LAUNCH();
}

// ---- 5.3 ---------------------------------------------------------------------------------
// aosToSoA: thread t of block b owns particle b*BLOCK + t; its 8 floats are its blocked items.
// On a full tile they come in as two float4 loads (the records are 32 bytes, d_in 256-byte
// aligned); the last tile loads only the valid floats. Each field store is unit-stride.
__global__ void __launch_bounds__(BLOCK)
    aosToSoA(ParticlesSoA out, const Particle *__restrict__ in, size_t n)
{
    const size_t first = (size_t)blockIdx.x * BLOCK;
    const size_t left = n - first;
    const int valid = left < (size_t)BLOCK ? (int)left : BLOCK; // particles in this tile
    const float *tile = reinterpret_cast<const float *>(in + first);
    float r[8];
    if (valid == BLOCK)
        // (CUB's signature takes a non-const pointer; it only reads through it)
        cub::LoadDirectBlockedVectorized((int)threadIdx.x, const_cast<float *>(tile), r);
    else
        cub::LoadDirectBlocked((int)threadIdx.x, tile, r, valid * 8);
    if ((int)threadIdx.x < valid) {
        const size_t i = first + threadIdx.x;
        out.x[i] = r[0];
        out.y[i] = r[1];
        out.z[i] = r[2];
        out.vx[i] = r[3];
        out.vy[i] = r[4];
        out.vz[i] = r[5];
        out.mass[i] = r[6];
        out.charge[i] = r[7];
    }
}

void launch_aos_to_soa(ParticlesSoA out, const Particle *d_in, size_t n, cudaStream_t stream)
{
    aosToSoA<<<tiles_for(n, BLOCK), BLOCK, 0, stream>>>(out, d_in, n);
    CML_CHECK_LAUNCH();
}
