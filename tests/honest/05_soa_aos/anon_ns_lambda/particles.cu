/* Lab 05, SoA vs AoS: kernels in an anonymous namespace; inside each kernel a small lambda
 * names "the k-th particle of this thread", and a host lambda computes the grid. 🧪 */
#include "particles.h"

#define BLOCK 256
#define ILP 4

namespace {

// updateSoA: six unit-stride reads per particle, three unit-stride writes; ILP particles,
// BLOCK apart, all loads first.
__global__ void __launch_bounds__(BLOCK)
    updateSoA(Positions out, ParticlesSoA p, size_t n)
{
    const size_t base = (size_t)blockIdx.x * (BLOCK * ILP) + threadIdx.x;
    auto idx = [base](int k) { return base + (size_t)k * BLOCK; };
    float3 pos[ILP], vel[ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++)
        if (idx(k) < n) {
            pos[k] = make_float3(p.x[idx(k)], p.y[idx(k)], p.z[idx(k)]);
            vel[k] = make_float3(p.vx[idx(k)], p.vy[idx(k)], p.vz[idx(k)]);
        }
#pragma unroll
    for (int k = 0; k < ILP; k++)
        if (idx(k) < n) {
            out.x[idx(k)] = pos[k].x + vel[k].x * DT;
            out.y[idx(k)] = pos[k].y + vel[k].y * DT;
            out.z[idx(k)] = pos[k].z + vel[k].z * DT;
        }
}

// potentialSoA: only charge and z cross the bus.
__global__ void __launch_bounds__(BLOCK)
    potentialSoA(float *__restrict__ energy, ParticlesSoA p, size_t n)
{
    const size_t base = (size_t)blockIdx.x * (BLOCK * ILP) + threadIdx.x;
    auto idx = [base](int k) { return base + (size_t)k * BLOCK; };
    float2 qz[ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++)
        if (idx(k) < n)
            qz[k] = make_float2(p.charge[idx(k)], p.z[idx(k)]);
#pragma unroll
    for (int k = 0; k < ILP; k++)
        if (idx(k) < n)
            energy[idx(k)] = qz[k].x * qz[k].y * E_Z;
}

// aosToSoA: two float4 loads per record (16-byte halves of a 32-byte, 32-byte aligned record).
__global__ void __launch_bounds__(BLOCK)
    aosToSoA(ParticlesSoA out, const Particle *__restrict__ in, size_t n)
{
    const size_t base = (size_t)blockIdx.x * (BLOCK * ILP) + threadIdx.x;
    auto idx = [base](int k) { return base + (size_t)k * BLOCK; };
    const float4 *halves = reinterpret_cast<const float4 *>(in);
    float4 lo[ILP], hi[ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++)
        if (idx(k) < n) {
            lo[k] = halves[2 * idx(k)];
            hi[k] = halves[2 * idx(k) + 1];
        }
    auto put = [&](size_t i, const float4 &l, const float4 &h) {
        out.x[i] = l.x, out.y[i] = l.y, out.z[i] = l.z, out.vx[i] = l.w;
        out.vy[i] = h.x, out.vz[i] = h.y, out.mass[i] = h.z, out.charge[i] = h.w;
    };
#pragma unroll
    for (int k = 0; k < ILP; k++)
        if (idx(k) < n)
            put(idx(k), lo[k], hi[k]);
}

const auto grid_of = [](size_t n) {
    return dim3((unsigned)((n + BLOCK * ILP - 1) / (BLOCK * ILP)));
};

} // namespace

void launch_update_soa(Positions out, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    updateSoA<<<grid_of(n), BLOCK, 0, stream>>>(out, p, n);
    CML_CHECK_LAUNCH();
}

void launch_potential_soa(float *d_energy, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    potentialSoA<<<grid_of(n), BLOCK, 0, stream>>>(d_energy, p, n);
    CML_CHECK_LAUNCH();
}

void launch_aos_to_soa(ParticlesSoA out, const Particle *d_in, size_t n, cudaStream_t stream)
{
    aosToSoA<<<grid_of(n), BLOCK, 0, stream>>>(out, d_in, n);
    CML_CHECK_LAUNCH();
}
