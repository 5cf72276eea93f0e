/* Lab 05, SoA vs AoS: the three kernels are templates over the particles per thread, launched
 * through one template helper. (This file has Windows line endings: written on a laptop.) */
#include "particles.h"

#define BLOCK 256
#define ILP 4

#define BLOCKS_FOR(n) ((unsigned)(((n) + BLOCK * ILP - 1) / (BLOCK * ILP))) /* blocks for n particles */

// ---- 5.1 ---------------------------------------------------------------------------------
// updateSoA<K>: K particles per thread, BLOCK apart; every load before the first store.
template <int K>
__global__ void __launch_bounds__(BLOCK)
    updateSoA(Positions out, ParticlesSoA p, size_t n)
{
    const size_t first = (size_t)blockIdx.x * BLOCK * K + threadIdx.x;
    float x[K], y[K], z[K], vx[K], vy[K], vz[K];
#pragma unroll
    for (int k = 0; k < K; k++) {
        const size_t i = first + (size_t)k * BLOCK;
        if (i < n) {
            x[k] = p.x[i], y[k] = p.y[i], z[k] = p.z[i];
            vx[k] = p.vx[i], vy[k] = p.vy[i], vz[k] = p.vz[i];
        }
    }
#pragma unroll
    for (int k = 0; k < K; k++) {
        const size_t i = first + (size_t)k * BLOCK;
        if (i < n) {
            out.x[i] = x[k] + vx[k] * DT;
            out.y[i] = y[k] + vy[k] * DT;
            out.z[i] = z[k] + vz[k] * DT;
        }
    }
}

// ---- 5.2 ---------------------------------------------------------------------------------
template <int K>
__global__ void __launch_bounds__(BLOCK)
    potentialSoA(float *__restrict__ energy, ParticlesSoA p, size_t n)
{
    const size_t first = (size_t)blockIdx.x * BLOCK * K + threadIdx.x;
    float q[K], z[K];
#pragma unroll
    for (int k = 0; k < K; k++) {
        const size_t i = first + (size_t)k * BLOCK;
        if (i < n)
            q[k] = p.charge[i], z[k] = p.z[i];
    }
#pragma unroll
    for (int k = 0; k < K; k++) {
        const size_t i = first + (size_t)k * BLOCK;
        if (i < n)
            energy[i] = q[k] * z[k] * E_Z;
    }
}

// ---- 5.3 ---------------------------------------------------------------------------------
// aosToSoA<K>: a record is two aligned float4 halves: x y z vx | vy vz mass charge.
template <int K>
__global__ void __launch_bounds__(BLOCK)
    aosToSoA(ParticlesSoA out, const Particle *__restrict__ in, size_t n)
{
    const float4 *in4 = reinterpret_cast<const float4 *>(in); // cudaMalloc: 256-byte aligned
    const size_t first = (size_t)blockIdx.x * BLOCK * K + threadIdx.x;
    float4 a[K], b[K];
#pragma unroll
    for (int k = 0; k < K; k++) {
        const size_t i = first + (size_t)k * BLOCK;
        if (i < n)
            a[k] = in4[2 * i], b[k] = in4[2 * i + 1];
    }
#pragma unroll
    for (int k = 0; k < K; k++) {
        const size_t i = first + (size_t)k * BLOCK;
        if (i < n) {
            out.x[i] = a[k].x, out.y[i] = a[k].y, out.z[i] = a[k].z, out.vx[i] = a[k].w;
            out.vy[i] = b[k].x, out.vz[i] = b[k].y, out.mass[i] = b[k].z, out.charge[i] = b[k].w;
        }
    }
}

// launch: one block of BLOCK threads per BLOCK * ILP particles.
template <typename Kernel, typename... Args>
void launch(Kernel kernel, size_t n, cudaStream_t stream, Args... args)
{
    kernel<<<BLOCKS_FOR(n), BLOCK, 0, stream>>>(args..., n);
    CML_CHECK_LAUNCH();
}

void launch_update_soa(Positions out, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    launch(updateSoA<ILP>, n, stream, out, p);
}

void launch_potential_soa(float *d_energy, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    launch(potentialSoA<ILP>, n, stream, d_energy, p);
}

void launch_aos_to_soa(ParticlesSoA out, const Particle *d_in, size_t n, cudaStream_t stream)
{
    launch(aosToSoA<ILP>, n, stream, out, d_in);
}
