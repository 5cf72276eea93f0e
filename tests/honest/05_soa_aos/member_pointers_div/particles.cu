/* Lab 05, SoA vs AoS, written once for all fields: pointers to members name the SoA arrays,
 * index sequences unroll over them, and cudaLaunchKernelEx launches. */
#include "particles.h"

#include <cstdlib>
#include <tuple>
#include <utility>

#define BLOCK 256
#define ILP 4
#define BLOCKS_FOR(n) ((unsigned)(((n) + BLOCK * ILP - 1) / (BLOCK * ILP))) /* blocks for n particles */

// Field F of the SoA struct (in the record's order) and of Positions, as pointers to members.
template <size_t F> __host__ __device__ constexpr auto soa_member() noexcept
{
    constexpr float *ParticlesSoA::*m[8] = {
        &ParticlesSoA::x,  &ParticlesSoA::y,  &ParticlesSoA::z,    &ParticlesSoA::vx,
        &ParticlesSoA::vy, &ParticlesSoA::vz, &ParticlesSoA::mass, &ParticlesSoA::charge};
    return m[F];
}
template <size_t F> __host__ __device__ constexpr auto pos_member() noexcept
{
    if constexpr (F == 0)
        return &Positions::x;
    else if constexpr (F == 1)
        return &Positions::y;
    else
        return &Positions::z;
}

template <class T> inline constexpr size_t per_block_v = (size_t)BLOCK * ILP;

__host__ __device__ constexpr size_t particle(unsigned block, unsigned thread, int k) noexcept
{
    return (size_t)block * per_block_v<float> + thread + (size_t)k * BLOCK;
}

// ---- 5.1 ---------------------------------------------------------------------------------
template <size_t... F>
__device__ __forceinline__ void update_one(Positions &out, const ParticlesSoA &p, size_t i,
                                           const float (&pos)[3], const float (&vel)[3],
                                           std::index_sequence<F...>)
{
    (((out.*pos_member<F>())[i] = pos[F] + vel[F] * DT), ...);
}

template <size_t First, size_t... F>
__device__ __forceinline__ void load_three(float (&v)[3], const ParticlesSoA &p, size_t i,
                                           std::index_sequence<F...>)
{
    ((v[F] = (p.*soa_member<First + F>())[i]), ...);
}

__global__ void __launch_bounds__(BLOCK)
    updateSoA(Positions out, ParticlesSoA p, size_t n)
{
    float pos[ILP][3], vel[ILP][3];
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
        const size_t i = particle(blockIdx.x, threadIdx.x, k);
        if (i < n) {
            load_three<0>(pos[k], p, i, std::make_index_sequence<3>{});
            load_three<3>(vel[k], p, i, std::make_index_sequence<3>{});
        }
    }
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
        const size_t i = particle(blockIdx.x, threadIdx.x, k);
        if (i < n)
            update_one(out, p, i, pos[k], vel[k], std::make_index_sequence<3>{});
    }
}

// ---- 5.2 ---------------------------------------------------------------------------------
__global__ void __launch_bounds__(BLOCK)
    potentialSoA(float *__restrict__ energy, ParticlesSoA p, size_t n)
{
    float2 qz[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
        const size_t i = particle(blockIdx.x, threadIdx.x, k);
        qz[k] = i < n ? make_float2(p.charge[i], p.z[i]) : make_float2(0.f, 0.f);
    }
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
        const size_t i = particle(blockIdx.x, threadIdx.x, k);
        if (i < n)
            energy[i] = qz[k].x * qz[k].y * E_Z;
    }
}

// ---- 5.3 ---------------------------------------------------------------------------------
template <size_t... F>
__device__ __forceinline__ void scatter(const ParticlesSoA &out, size_t i, float4 a, float4 b,
                                        std::index_sequence<F...>)
{
    const float v[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
    (((out.*soa_member<F>())[i] = v[F]), ...);
}

__global__ void __launch_bounds__(BLOCK)
    aosToSoA(ParticlesSoA out, const Particle *__restrict__ in, size_t n)
{
    const float4 *__restrict__ h = reinterpret_cast<const float4 *>(in);
    float4 a[ILP], b[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
        const size_t i = particle(blockIdx.x, threadIdx.x, k);
        if (i < n) {
            a[k] = h[2 * i];
            b[k] = h[2 * i + 1];
        }
    }
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
        const size_t i = particle(blockIdx.x, threadIdx.x, k);
        if (i < n)
            scatter(out, i, a[k], b[k], std::make_index_sequence<8>{});
    }
}

// ---- launching ---------------------------------------------------------------------------
template <class... KArgs, class... Args>
static void launch_ex(void (*kernel)(KArgs...), unsigned blocks, cudaStream_t stream,
                      Args... args)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks ? blocks : 1);
    cfg.blockDim = dim3(BLOCK);
    cfg.stream = stream;
    CML_CHECK(cudaLaunchKernelEx(&cfg, kernel, args...));
    CML_CHECK_LAUNCH();
}

void launch_update_soa(Positions out, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    launch_ex(updateSoA, BLOCKS_FOR(n), stream, out, p, n);
}

void launch_potential_soa(float *d_energy, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    launch_ex(potentialSoA, BLOCKS_FOR(n), stream, d_energy, p, n);
}

void launch_aos_to_soa(ParticlesSoA out, const Particle *d_in, size_t n, cudaStream_t stream)
{
    const auto [whole, rest] = std::lldiv((long long)n, (long long)per_block_v<Particle>);
    launch_ex(aosToSoA, (unsigned)(whole + (rest != 0)), stream, out, d_in, n);
}
