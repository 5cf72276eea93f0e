/* Lab 05, SoA vs AoS. Every kernel walks chunks of BLOCK * ILP particles with a grid-stride
 * loop (a capped grid); inside a chunk a thread takes ILP particles BLOCK apart, loads first.
 * 5.3 reads each 32-byte record as two ulonglong2 and splits the 64-bit lanes into fields. */
#include "particles.h"

#include <algorithm>

#define BLOCK 256
#define ILP 4

#define BLOCKS_FOR(n) ((unsigned)(((n) + BLOCK * ILP - 1) / (BLOCK * ILP))) /* blocks for n particles */

namespace {

constexpr size_t kChunk = (size_t)BLOCK * ILP;

unsigned grid_for(size_t n)
{
    const unsigned cover = BLOCKS_FOR(n);
    const unsigned cap = (unsigned)cml_sm_count() * 64u;
    return std::max(1u, std::min(cover, cap));
}

// Calls body(chunk_start) for every chunk this block owns.
template <typename Body>
__device__ __forceinline__ void for_each_chunk(size_t n, Body body)
{
    for (size_t start = (size_t)blockIdx.x * kChunk; start < n; start += (size_t)gridDim.x * kChunk)
        body(start + threadIdx.x);
}

__device__ __forceinline__ float lo_f(unsigned long long v) { return __uint_as_float((unsigned)(v & 0xffffffffull)); }
__device__ __forceinline__ float hi_f(unsigned long long v) { return __uint_as_float((unsigned)(v >> 32)); }

} // namespace

// ---- 5.1 ---------------------------------------------------------------------------------
__global__ void __launch_bounds__(BLOCK)
    updateSoA(Positions out, ParticlesSoA p, size_t n)
{
    for_each_chunk(n, [&](size_t first) {
        float x[ILP], y[ILP], z[ILP], vx[ILP], vy[ILP], vz[ILP];
#pragma unroll
        for (int k = 0; k < ILP; ++k) {
            const size_t i = first + (size_t)k * BLOCK;
            if (i < n) {
                x[k] = __ldg(p.x + i);
                y[k] = __ldg(p.y + i);
                z[k] = __ldg(p.z + i);
                vx[k] = __ldg(p.vx + i);
                vy[k] = __ldg(p.vy + i);
                vz[k] = __ldg(p.vz + i);
            }
        }
#pragma unroll
        for (int k = 0; k < ILP; ++k) {
            const size_t i = first + (size_t)k * BLOCK;
            if (i < n) {
                out.x[i] = x[k] + vx[k] * DT;
                out.y[i] = y[k] + vy[k] * DT;
                out.z[i] = z[k] + vz[k] * DT;
            }
        }
    });
}

void launch_update_soa(Positions out, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    updateSoA<<<grid_for(n), BLOCK, 0, stream>>>(out, p, n);
    CML_CHECK_LAUNCH();
}

// ---- 5.2 ---------------------------------------------------------------------------------
__global__ void __launch_bounds__(BLOCK)
    potentialSoA(float *__restrict__ energy, ParticlesSoA p, size_t n)
{
    for_each_chunk(n, [&](size_t first) {
        float q[ILP], z[ILP];
#pragma unroll
        for (int k = 0; k < ILP; ++k) {
            const size_t i = first + (size_t)k * BLOCK;
            if (i < n) {
                q[k] = __ldg(p.charge + i);
                z[k] = __ldg(p.z + i);
            }
        }
#pragma unroll
        for (int k = 0; k < ILP; ++k) {
            const size_t i = first + (size_t)k * BLOCK;
            if (i < n)
                energy[i] = q[k] * z[k] * E_Z;
        }
    });
}

void launch_potential_soa(float *d_energy, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    potentialSoA<<<grid_for(n), BLOCK, 0, stream>>>(d_energy, p, n);
    CML_CHECK_LAUNCH();
}

// ---- 5.3 ---------------------------------------------------------------------------------
__global__ void __launch_bounds__(BLOCK)
    aosToSoA(ParticlesSoA out, const Particle *__restrict__ in, size_t n)
{
    // a record is 32 bytes at a 32-byte multiple (cudaMalloc is 256-byte aligned): two
    // 16-byte halves of (x, y | z, vx) and (vy, vz | mass, charge)
    const ulonglong2 *__restrict__ rec = reinterpret_cast<const ulonglong2 *>(in);
    for_each_chunk(n, [&](size_t first) {
        ulonglong2 a[ILP], b[ILP];
#pragma unroll
        for (int k = 0; k < ILP; ++k) {
            const size_t i = first + (size_t)k * BLOCK;
            if (i < n) {
                a[k] = __ldg(rec + 2 * i);
                b[k] = __ldg(rec + 2 * i + 1);
            }
        }
#pragma unroll
        for (int k = 0; k < ILP; ++k) {
            const size_t i = first + (size_t)k * BLOCK;
            if (i < n) {
                out.x[i] = lo_f(a[k].x);
                out.y[i] = hi_f(a[k].x);
                out.z[i] = lo_f(a[k].y);
                out.vx[i] = hi_f(a[k].y);
                out.vy[i] = lo_f(b[k].x);
                out.vz[i] = hi_f(b[k].x);
                out.mass[i] = lo_f(b[k].y);
                out.charge[i] = hi_f(b[k].y);
            }
        }
    });
}

void launch_aos_to_soa(ParticlesSoA out, const Particle *d_in, size_t n, cudaStream_t stream)
{
    aosToSoA<<<grid_for(n), BLOCK, 0, stream>>>(out, d_in, n);
    CML_CHECK_LAUNCH();
}
