/* Lab 05, SoA vs AoS: kernels and launch wrappers.
 * 5.1 runs a persistent grid sized by the occupancy calculator, each thread walking tiles of
 * BLOCK * ILP particles; 5.2 reads its two fields as float4 vectors (every SoA input array is its
 * own 256-byte aligned allocation) and finishes the last n % 4 particles as floats; 5.3 reads
 * each 32-byte record as two 16-byte halves and writes the eight arrays with streaming stores. */
#include "particles.h"

#include <algorithm>
#include <cstdint>

#define BLOCK 256
#define ILP 4

namespace {

__host__ __device__ constexpr size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* Blocks for a persistent launch of `kernel`: as many as fit on the GPU at once, at most `want`. */
template <typename K> unsigned resident_blocks(K kernel, size_t want)
{
    static int per_sm = 0; /* one kernel per instantiation: the answer never changes */
    if (per_sm == 0) {
        CML_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK, 0));
        per_sm = std::max(per_sm, 1);
    }
    const size_t most = (size_t)per_sm * (size_t)cml_sm_count();
    return (unsigned)std::max<size_t>(1, std::min(want, most));
}

} // namespace

// ---- 5.1 ---------------------------------------------------------------------------------
// updateSoA: tile t holds particles [t * BLOCK * ILP, (t + 1) * BLOCK * ILP); thread j of a block
// takes j, j + BLOCK, j + 2 * BLOCK, j + 3 * BLOCK of it: every warp access is 128 contiguous
// bytes, and a thread's 24 loads are all issued before its 12 stores.
__global__ void __launch_bounds__(BLOCK) updateSoA(Positions out, ParticlesSoA p, size_t n)
{
    const size_t tiles = ceil_div(n, (size_t)BLOCK * ILP);
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const size_t base = t * BLOCK * ILP + threadIdx.x;
        float nx[ILP], ny[ILP], nz[ILP];
#pragma unroll
        for (int k = 0; k < ILP; k++) {
            const size_t i = base + (size_t)k * BLOCK;
            if (i < n) {
                nx[k] = fmaf(p.vx[i], DT, p.x[i]);
                ny[k] = fmaf(p.vy[i], DT, p.y[i]);
                nz[k] = fmaf(p.vz[i], DT, p.z[i]);
            }
        }
#pragma unroll
        for (int k = 0; k < ILP; k++) {
            const size_t i = base + (size_t)k * BLOCK;
            if (i < n) {
                out.x[i] = nx[k];
                out.y[i] = ny[k];
                out.z[i] = nz[k];
            }
        }
    }
}

void launch_update_soa(Positions out, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    const unsigned blocks = resident_blocks(updateSoA, ceil_div(n, (size_t)BLOCK * ILP));
    updateSoA<<<blocks, BLOCK, 0, stream>>>(out, p, n);
    CML_CHECK_LAUNCH();
}

// ---- 5.2 ---------------------------------------------------------------------------------
// potentialSoA: charge and z are separate cudaMalloc-aligned arrays, as is energy, so particle
// group g (particles 4g .. 4g + 3) is one float4 of each. The n % 4 particles after the last
// whole group are done one float each: no vector ever reaches past an array's end.
__global__ void __launch_bounds__(BLOCK)
    potentialSoA(float *__restrict__ energy, ParticlesSoA p, size_t n)
{
    const size_t groups = n / 4;
    const float4 *__restrict__ q4 = reinterpret_cast<const float4 *>(p.charge);
    const float4 *__restrict__ z4 = reinterpret_cast<const float4 *>(p.z);
    float4 *__restrict__ e4 = reinterpret_cast<float4 *>(energy);
    const size_t first = blockIdx.x * (size_t)BLOCK * 2 + threadIdx.x;
    float4 q[2], z[2];
#pragma unroll
    for (int k = 0; k < 2; k++) {
        const size_t g = first + (size_t)k * BLOCK;
        if (g < groups)
            q[k] = q4[g], z[k] = z4[g];
    }
#pragma unroll
    for (int k = 0; k < 2; k++) {
        const size_t g = first + (size_t)k * BLOCK;
        if (g < groups)
            e4[g] = make_float4(q[k].x * z[k].x * E_Z, q[k].y * z[k].y * E_Z,
                                q[k].z * z[k].z * E_Z, q[k].w * z[k].w * E_Z);
    }
    /* the last n % 4 particles: threads 0..2 of block 0 */
    if (blockIdx.x == 0 && threadIdx.x < n % 4) {
        const size_t i = 4 * groups + threadIdx.x;
        energy[i] = p.charge[i] * p.z[i] * E_Z;
    }
}

void launch_potential_soa(float *d_energy, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    const size_t blocks = std::max<size_t>(1, ceil_div(n / 4, (size_t)BLOCK * 2));
    potentialSoA<<<(unsigned)blocks, BLOCK, 0, stream>>>(d_energy, p, n);
    CML_CHECK_LAUNCH();
}

// ---- 5.3 ---------------------------------------------------------------------------------
// aosToSoA: a record is two aligned float4s (d_in comes from cudaMalloc: 256-byte aligned), so
// a warp's two loads read 1 KB of whole sectors; its eight stores each write 128 contiguous
// bytes. The stores stream (st.global.cs): nothing reads the arrays again in this kernel.
__global__ void __launch_bounds__(BLOCK)
    aosToSoA(ParticlesSoA out, const Particle *__restrict__ in, size_t n)
{
    const float4 *__restrict__ rec = reinterpret_cast<const float4 *>(in);
    const size_t first = blockIdx.x * (size_t)(BLOCK * ILP) + threadIdx.x;
    float4 lo[ILP], hi[ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + (size_t)k * BLOCK;
        if (i < n) {
            lo[k] = __ldg(rec + 2 * i);
            hi[k] = __ldg(rec + 2 * i + 1);
        }
    }
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + (size_t)k * BLOCK;
        if (i < n) {
            __stcs(out.x + i, lo[k].x);
            __stcs(out.y + i, lo[k].y);
            __stcs(out.z + i, lo[k].z);
            __stcs(out.vx + i, lo[k].w);
            __stcs(out.vy + i, hi[k].x);
            __stcs(out.vz + i, hi[k].y);
            __stcs(out.mass + i, hi[k].z);
            __stcs(out.charge + i, hi[k].w);
        }
    }
}

void launch_aos_to_soa(ParticlesSoA out, const Particle *d_in, size_t n, cudaStream_t stream)
{
    const size_t blocks = ceil_div(n, (size_t)BLOCK * ILP);
    aosToSoA<<<(unsigned)blocks, BLOCK, 0, stream>>>(out, d_in, n);
    CML_CHECK_LAUNCH();
}
