/* Lab 05, SoA vs AoS. The fields a kernel touches are tables of pointers walked by unrolled
 * loops; one templated "ILP slots" helper gives every kernel its BLOCK-apart particles. */
#include "particles.h"

#define BLOCK 256
#define ILP 4

#define BLOCKS_FOR(n) ((unsigned)(((n) + BLOCK * ILP - 1) / (BLOCK * ILP))) /* blocks for n particles */

namespace {

// The ILP particles of this thread: first + k * BLOCK, k < ILP; valid[k] says which exist.
struct Slots {
    size_t idx[ILP];
    bool valid[ILP];
    __device__ __forceinline__ explicit Slots(size_t n)
    {
        const size_t first = (size_t)blockIdx.x * (BLOCK * ILP) + threadIdx.x;
#pragma unroll
        for (int k = 0; k < ILP; ++k) {
            idx[k] = first + (size_t)k * BLOCK;
            valid[k] = idx[k] < n;
        }
    }
};

// Reads NF arrays at this thread's slots (all loads first), returns them field-major.
template <int NF>
__device__ __forceinline__ void gather(float (&v)[NF][ILP], const float *const (&src)[NF],
                                       const Slots &s)
{
#pragma unroll
    for (int f = 0; f < NF; ++f)
#pragma unroll
        for (int k = 0; k < ILP; ++k)
            v[f][k] = s.valid[k] ? __ldg(src[f] + s.idx[k]) : 0.0f;
}

} // namespace

// ---- 5.1 ---------------------------------------------------------------------------------
__global__ void __launch_bounds__(BLOCK)
    updateSoA(Positions out, ParticlesSoA p, size_t n)
{
    const Slots s(n);
    const float *const src[6] = {p.x, p.y, p.z, p.vx, p.vy, p.vz};
    float *const dst[3] = {out.x, out.y, out.z};
    float v[6][ILP];
    gather<6>(v, src, s);
#pragma unroll
    for (int d = 0; d < 3; ++d)
#pragma unroll
        for (int k = 0; k < ILP; ++k)
            if (s.valid[k])
                dst[d][s.idx[k]] = v[d][k] + v[d + 3][k] * DT;
}

void launch_update_soa(Positions out, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    if (n == 0)
        return;
    updateSoA<<<BLOCKS_FOR(n), BLOCK, 0, stream>>>(out, p, n);
    CML_CHECK_LAUNCH();
}

// ---- 5.2 ---------------------------------------------------------------------------------
__global__ void __launch_bounds__(BLOCK)
    potentialSoA(float *__restrict__ energy, ParticlesSoA p, size_t n)
{
    const Slots s(n);
    const float *const src[2] = {p.charge, p.z};
    float v[2][ILP];
    gather<2>(v, src, s);
#pragma unroll
    for (int k = 0; k < ILP; ++k)
        if (s.valid[k])
            energy[s.idx[k]] = v[0][k] * v[1][k] * E_Z;
}

void launch_potential_soa(float *d_energy, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    if (n == 0)
        return;
    potentialSoA<<<BLOCKS_FOR(n), BLOCK, 0, stream>>>(d_energy, p, n);
    CML_CHECK_LAUNCH();
}

// ---- 5.3 ---------------------------------------------------------------------------------
static_assert(sizeof(Particle) == 32, "a particle is two 16-byte halves");

__global__ void __launch_bounds__(BLOCK)
    aosToSoA(ParticlesSoA out, const Particle *__restrict__ in, size_t n)
{
    const Slots s(n);
    // d_in comes from cudaMalloc (256-byte aligned) and a record is 32 bytes: both halves of
    // every particle are 16-byte aligned float4s
    const float4 *__restrict__ halves = reinterpret_cast<const float4 *>(in);
    float4 lo[ILP], hi[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
        lo[k] = hi[k] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (s.valid[k]) {
            lo[k] = __ldg(halves + 2 * s.idx[k]);
            hi[k] = __ldg(halves + 2 * s.idx[k] + 1);
        }
    }
    float *const dst[8] = {out.x, out.y, out.z, out.vx, out.vy, out.vz, out.mass, out.charge};
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
        if (!s.valid[k])
            continue;
        const float f[8] = {lo[k].x, lo[k].y, lo[k].z, lo[k].w, hi[k].x, hi[k].y, hi[k].z, hi[k].w};
#pragma unroll
        for (int q = 0; q < 8; ++q)
            dst[q][s.idx[k]] = f[q];
    }
}

void launch_aos_to_soa(ParticlesSoA out, const Particle *d_in, size_t n, cudaStream_t stream)
{
    if (n == 0)
        return;
    aosToSoA<<<BLOCKS_FOR(n), BLOCK, 0, stream>>>(out, d_in, n);
    CML_CHECK_LAUNCH();
}
