/* Lab 05, SoA vs AoS. Variant: 5.3 stages a block's 256 records (8 KB, contiguous) into shared
 * memory with cooperative_groups::memcpy_async (asynchronous, cp.async on sm_80+), waits with
 * cooperative_groups::wait, and then each thread reads its own record from shared memory as two
 * 16-byte halves and writes the eight coalesced SoA arrays. 5.1 and 5.2 keep ILP particles of a
 * thread in a cuda::std::array, loads first. */
#include "particles.h"

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/std/array>

#include <algorithm>

namespace cg = cooperative_groups;

#define BLOCK 256
#define ILP 4

#define BLOCKS_FOR(n) ((unsigned)(((n) + BLOCK * ILP - 1) / (BLOCK * ILP))) /* blocks for n particles */

// ---- 5.1 ---------------------------------------------------------------------------------
__global__ void __launch_bounds__(BLOCK)
    updateSoA(Positions out, ParticlesSoA p, size_t n)
{
    const size_t first = (size_t)blockIdx.x * (BLOCK * ILP) + threadIdx.x;
    cuda::std::array<float3, ILP> pos{}, vel{};
#pragma unroll
    for (int k = 0; k < ILP; k++) { // particle first + k*BLOCK: lane l reads float first + l
        const size_t i = first + (size_t)k * BLOCK;
        if (i < n) {
            pos[k] = make_float3(p.x[i], p.y[i], p.z[i]);
            vel[k] = make_float3(p.vx[i], p.vy[i], p.vz[i]);
        }
    }
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + (size_t)k * BLOCK;
        if (i < n) {
            out.x[i] = pos[k].x + vel[k].x * DT;
            out.y[i] = pos[k].y + vel[k].y * DT;
            out.z[i] = pos[k].z + vel[k].z * DT;
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
    const size_t first = (size_t)blockIdx.x * (BLOCK * ILP) + threadIdx.x;
    cuda::std::array<float, ILP> q{}, z{};
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + (size_t)k * BLOCK;
        if (i < n)
            q[k] = p.charge[i], z[k] = p.z[i];
    }
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + (size_t)k * BLOCK;
        if (i < n)
            energy[i] = q[k] * z[k] * E_Z;
    }
}

void launch_potential_soa(float *d_energy, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    potentialSoA<<<BLOCKS_FOR(n), BLOCK, 0, stream>>>(d_energy, p, n);
    CML_CHECK_LAUNCH();
}

// ---- 5.3 ---------------------------------------------------------------------------------
// Chunk c = records [256c, 256c + 256) (the last one shorter): one contiguous piece of d_in,
// copied whole into `stage` by the block. Thread t then reads record t as two float4s (words
// 8t .. 8t + 7: a 16-byte access at a stride of 2 vectors, 2 passes per quarter-warp phase)
// and writes field f of particle 256c + t into array f: every store of a warp is 128 contiguous
// bytes of one array.
__global__ void __launch_bounds__(BLOCK)
    aosToSoA(ParticlesSoA out, const Particle *__restrict__ in, size_t n)
{
    __shared__ __align__(16) Particle stage[BLOCK];
    const cg::thread_block block = cg::this_thread_block();
    const unsigned t = threadIdx.x;
    const size_t chunks = (n + BLOCK - 1) / BLOCK;
    for (size_t c = blockIdx.x; c < chunks; c += gridDim.x) { // the same trips for the block
        const size_t base = c * BLOCK, count = std::min<size_t>(BLOCK, n - base);
        cg::memcpy_async(block, stage, in + base, sizeof(Particle) * count);
        cg::wait(block); // the copy is complete and visible to the whole block
        if (t < count) {
            const float4 lo = reinterpret_cast<const float4 *>(stage)[2 * t];
            const float4 hi = reinterpret_cast<const float4 *>(stage)[2 * t + 1];
            const size_t i = base + t;
            out.x[i] = lo.x, out.y[i] = lo.y, out.z[i] = lo.z, out.vx[i] = lo.w;
            out.vy[i] = hi.x, out.vz[i] = hi.y, out.mass[i] = hi.z, out.charge[i] = hi.w;
        }
        block.sync(); // nobody reads `stage` any more before the next chunk's copy refills it
    }
}

void launch_aos_to_soa(ParticlesSoA out, const Particle *d_in, size_t n, cudaStream_t stream)
{
    const size_t chunks = (n + BLOCK - 1) / BLOCK;
    const unsigned blocks =
        (unsigned)std::max<size_t>(1, std::min<size_t>(chunks, (size_t)cml_sm_count() * 8));
    aosToSoA<<<blocks, BLOCK, 0, stream>>>(out, d_in, n);
    CML_CHECK_LAUNCH();
}
