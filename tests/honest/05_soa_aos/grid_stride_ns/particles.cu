/* Lab 05, SoA vs AoS: kernels in namespace `soa`, each a grid-stride loop unrolled four ways
 * (four particles, one grid apart, loaded before any is stored). Kommentar: Teilchen, Größe. */
#include "particles.h"

#include <algorithm>

#define BLOCK 256
#define ILP 4

namespace soa {

// grid_threads / global_id: the loop's stride and start.
__device__ __forceinline__ size_t grid_threads() { return (size_t)gridDim.x * blockDim.x; }
__device__ __forceinline__ size_t global_id() { return (size_t)blockIdx.x * blockDim.x + threadIdx.x; }

__device__ __forceinline__ void move_one(const Positions &out, const ParticlesSoA &p, size_t i)
{
    out.x[i] = p.x[i] + p.vx[i] * DT;
    out.y[i] = p.y[i] + p.vy[i] * DT;
    out.z[i] = p.z[i] + p.vz[i] * DT;
}

__global__ void __launch_bounds__(BLOCK)
    updateSoA(Positions out, ParticlesSoA p, size_t n)
{
    const size_t T = grid_threads();
    size_t i = global_id();
    for (; i + (ILP - 1) * T < n; i += ILP * T) {
        float x[ILP], y[ILP], z[ILP], vx[ILP], vy[ILP], vz[ILP];
#pragma unroll
        for (int k = 0; k < ILP; k++) {
            const size_t j = i + k * T;
            x[k] = p.x[j], y[k] = p.y[j], z[k] = p.z[j];
            vx[k] = p.vx[j], vy[k] = p.vy[j], vz[k] = p.vz[j];
        }
#pragma unroll
        for (int k = 0; k < ILP; k++) {
            const size_t j = i + k * T;
            out.x[j] = x[k] + vx[k] * DT;
            out.y[j] = y[k] + vy[k] * DT;
            out.z[j] = z[k] + vz[k] * DT;
        }
    }
    for (; i < n; i += T) // fewer than ILP rounds left
        move_one(out, p, i);
}

__global__ void __launch_bounds__(BLOCK)
    potentialSoA(float *__restrict__ energy, ParticlesSoA p, size_t n)
{
    const size_t T = grid_threads();
    size_t i = global_id();
    for (; i + (ILP - 1) * T < n; i += ILP * T) {
        float q[ILP], z[ILP];
#pragma unroll
        for (int k = 0; k < ILP; k++)
            q[k] = p.charge[i + k * T], z[k] = p.z[i + k * T];
#pragma unroll
        for (int k = 0; k < ILP; k++)
            energy[i + k * T] = q[k] * z[k] * E_Z;
    }
    for (; i < n; i += T)
        energy[i] = p.charge[i] * p.z[i] * E_Z;
}

__global__ void __launch_bounds__(BLOCK)
    aosToSoA(ParticlesSoA out, const Particle *__restrict__ in, size_t n)
{
    const float4 *h = reinterpret_cast<const float4 *>(in);
    const size_t T = grid_threads();
    for (size_t i0 = global_id(); i0 < n; i0 += ILP * T) {
        float4 a[ILP], b[ILP];
#pragma unroll
        for (int k = 0; k < ILP; k++) {
            const size_t i = i0 + k * T;
            if (i < n)
                a[k] = h[2 * i], b[k] = h[2 * i + 1];
        }
#pragma unroll
        for (int k = 0; k < ILP; k++) {
            const size_t i = i0 + k * T;
            if (i < n) {
                out.x[i] = a[k].x, out.y[i] = a[k].y, out.z[i] = a[k].z, out.vx[i] = a[k].w;
                out.vy[i] = b[k].x, out.vz[i] = b[k].y, out.mass[i] = b[k].z;
                out.charge[i] = b[k].w;
            }
        }
    }
}

// grid: enough for every SM at full occupancy, fewer for small n (a round needs ILP per thread).
unsigned grid(size_t n)
{
    const size_t want = (n + BLOCK * ILP - 1) / (BLOCK * ILP);
    return (unsigned)std::clamp<size_t>(want, 1, (size_t)cml_sm_count() * (2048 / BLOCK));
}

} // namespace soa

void launch_update_soa(Positions out, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    soa::updateSoA<<<soa::grid(n), BLOCK, 0, stream>>>(out, p, n);
    const cudaError_t launched = cudaGetLastError();
    CML_CHECK(launched);
    CML_CHECK_LAUNCH();
}

void launch_potential_soa(float *d_energy, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    soa::potentialSoA<<<soa::grid(n), BLOCK, 0, stream>>>(d_energy, p, n);
    CML_CHECK_LAUNCH();
}

void launch_aos_to_soa(ParticlesSoA out, const Particle *d_in, size_t n, cudaStream_t stream)
{
    soa::aosToSoA<<<soa::grid(n), BLOCK, 0, stream>>>(out, d_in, n);
    CML_CHECK_LAUNCH();
}
