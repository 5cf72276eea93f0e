/* Lab 05, SoA vs AoS. Variant: 5.3 reads a warp's 32 records (1 KB) with two fully contiguous
 * 512-byte float4 loads per warp instead of two strided ones, and redistributes the fields with
 * warp shuffles so that lane l holds particle l; 5.2 uses float4 loads and stores when its three
 * arrays allow it (a scalar tail for n % 4 and a scalar path otherwise); 5.1 keeps the ILP
 * particles of a thread in small register arrays, loads first. */
#include "particles.h"

#include <algorithm>
#include <cstdint>

#define BLOCK 256
#define ILP 4

#define BLOCKS_FOR(n) ((unsigned)(((n) + BLOCK * ILP - 1) / (BLOCK * ILP))) /* blocks for n particles */

// ---- 5.1 ---------------------------------------------------------------------------------
// Thread t of block b owns particles b*BLOCK*ILP + t + k*BLOCK, k < ILP: at every k the warp's
// lanes touch 32 consecutive floats of each array.
__global__ void __launch_bounds__(BLOCK)
    updateSoA(Positions out, ParticlesSoA p, size_t n)
{
    const size_t first = (size_t)blockIdx.x * (BLOCK * ILP) + threadIdx.x;
    float x[ILP], y[ILP], z[ILP], vx[ILP], vy[ILP], vz[ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + (size_t)k * BLOCK;
        if (i < n) {
            x[k] = p.x[i], y[k] = p.y[i], z[k] = p.z[i];
            vx[k] = p.vx[i], vy[k] = p.vy[i], vz[k] = p.vz[i];
        }
    }
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + (size_t)k * BLOCK;
        if (i < n) {
            out.x[i] = x[k] + vx[k] * DT;
            out.y[i] = y[k] + vy[k] * DT;
            out.z[i] = z[k] + vz[k] * DT;
        }
    }
}

void launch_update_soa(Positions out, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    updateSoA<<<BLOCKS_FOR(n), BLOCK, 0, stream>>>(out, p, n);
    CML_CHECK_LAUNCH();
}

// ---- 5.2 ---------------------------------------------------------------------------------
// Vector v = floats 4v .. 4v + 3; a thread takes ILP vectors BLOCK apart. The floats after the
// last whole vector (n % 4 of them) go float by float, in block 0.
__global__ void __launch_bounds__(BLOCK)
    potentialSoA(float *__restrict__ energy, ParticlesSoA p, size_t n)
{
    const bool vec = (((uintptr_t)energy | (uintptr_t)p.charge | (uintptr_t)p.z) & 15) == 0;
    const size_t first = (size_t)blockIdx.x * (BLOCK * ILP) + threadIdx.x;
    if (!vec) { // one float per step, ILP per thread
#pragma unroll
        for (int k = 0; k < ILP; k++) {
            const size_t i = first + (size_t)k * BLOCK;
            if (i < n)
                energy[i] = p.charge[i] * p.z[i] * E_Z;
        }
        return;
    }
    const size_t nv = n / 4;
    const float4 *q4 = reinterpret_cast<const float4 *>(p.charge);
    const float4 *z4 = reinterpret_cast<const float4 *>(p.z);
    float4 *e4 = reinterpret_cast<float4 *>(energy);
    float4 q[ILP], z[ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t v = first + (size_t)k * BLOCK;
        if (v < nv)
            q[k] = __ldcs(q4 + v), z[k] = __ldcs(z4 + v);
    }
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t v = first + (size_t)k * BLOCK;
        if (v < nv)
            e4[v] = make_float4(q[k].x * z[k].x * E_Z, q[k].y * z[k].y * E_Z,
                                q[k].z * z[k].z * E_Z, q[k].w * z[k].w * E_Z);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4) { // the tail: particles 4*nv .. n - 1
        const size_t i = 4 * nv + threadIdx.x;
        energy[i] = p.charge[i] * p.z[i] * E_Z;
    }
}

void launch_potential_soa(float *d_energy, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    const bool vec = (((uintptr_t)d_energy | (uintptr_t)p.charge | (uintptr_t)p.z) & 15) == 0;
    // vector path: n / 4 vectors (at least one block, for the tail); scalar path: n floats
    const size_t items = vec ? n / 4 : n;
    potentialSoA<<<std::max(1u, BLOCKS_FOR(items)), BLOCK, 0, stream>>>(d_energy, p, n);
    CML_CHECK_LAUNCH();
}

// ---- 5.3 ---------------------------------------------------------------------------------
// A warp takes 32 particles at a time (base, base + 1, ..., base + 31): 64 float4s, 1 KB. Lane l
// loads float4s l and 32 + l of that KB (two contiguous 512-byte requests). Particle base + l is
// float4s 2l (x, y, z, vx) and 2l + 1 (vy, vz, mass, charge): for l < 16 they sit in the first
// load of lanes 2l and 2l + 1, for l >= 16 in the second load of lanes 2l - 32 and 2l - 31,
// i.e. of lanes (2l) & 31 and (2l + 1) & 31 in either case.
constexpr unsigned FULL = 0xffffffffu;

__device__ __forceinline__ float pick(float a, float b, int src, bool low)
{
    const float from_a = __shfl_sync(FULL, a, src), from_b = __shfl_sync(FULL, b, src);
    return low ? from_a : from_b;
}

__global__ void __launch_bounds__(BLOCK)
    aosToSoA(ParticlesSoA out, const Particle *__restrict__ in, size_t n)
{
    const float4 *in4 = reinterpret_cast<const float4 *>(in); // 256-byte aligned (cudaMalloc)
    const int lane = threadIdx.x & 31;
    const size_t warp = ((size_t)blockIdx.x * BLOCK + threadIdx.x) / 32;
    const size_t warps = (size_t)gridDim.x * (BLOCK / 32);
    const int lo = (2 * lane) & 31, hi = (2 * lane + 1) & 31;
    const bool low = lane < 16;
    for (size_t base = warp * 32; base < n; base += warps * 32) { // the same for the whole warp
        // float4 q of this KB belongs to particle base + q / 2: load it only if that exists
        float4 a = make_float4(0.f, 0.f, 0.f, 0.f), b = a;
        if (base + lane / 2 < n)
            a = __ldcs(in4 + 2 * base + lane);
        if (base + 16 + lane / 2 < n)
            b = __ldcs(in4 + 2 * base + 32 + lane);
        // every lane takes part in every shuffle (full mask), valid particle or not
        const float x = pick(a.x, b.x, lo, low), y = pick(a.y, b.y, lo, low);
        const float z = pick(a.z, b.z, lo, low), vx = pick(a.w, b.w, lo, low);
        const float vy = pick(a.x, b.x, hi, low), vz = pick(a.y, b.y, hi, low);
        const float mass = pick(a.z, b.z, hi, low), charge = pick(a.w, b.w, hi, low);
        const size_t i = base + lane;
        if (i < n) {
            out.x[i] = x, out.y[i] = y, out.z[i] = z;
            out.vx[i] = vx, out.vy[i] = vy, out.vz[i] = vz;
            out.mass[i] = mass, out.charge[i] = charge;
        }
    }
}

void launch_aos_to_soa(ParticlesSoA out, const Particle *d_in, size_t n, cudaStream_t stream)
{
    const size_t warps_needed = (n + 31) / 32;
    const size_t blocks = std::min<size_t>((warps_needed + BLOCK / 32 - 1) / (BLOCK / 32),
                                           (size_t)cml_sm_count() * 8);
    aosToSoA<<<(unsigned)std::max<size_t>(1, blocks), BLOCK, 0, stream>>>(out, d_in, n);
    CML_CHECK_LAUNCH();
}
