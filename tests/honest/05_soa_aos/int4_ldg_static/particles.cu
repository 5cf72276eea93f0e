/* Lab 05, SoA vs AoS: 5.3 reads each record as two int4 (16 bytes of bits, copied bit for
 * bit), 5.1 and 5.2 read through __ldg; the block count per launch is cached in a static. */
#include "particles.h"

#include <cassert>

#define BLOCK 256
#define ILP 4

#define BLOCKS_FOR(n) ((unsigned)(((n) + BLOCK * ILP - 1) / (BLOCK * ILP))) /* blocks for n particles */

// load: the read-only data path for arrays this kernel never writes.
__device__ __forceinline__ float load(const float *p) { return __ldg(p); }

__global__ void __launch_bounds__(BLOCK)
    updateSoA(Positions out, ParticlesSoA p, size_t n)
{
    const size_t first = (size_t)blockIdx.x * BLOCK * ILP + threadIdx.x;
    float nx[ILP], ny[ILP], nz[ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + k * BLOCK;
        if (i < n) {
            nx[k] = load(p.x + i) + load(p.vx + i) * DT;
            ny[k] = load(p.y + i) + load(p.vy + i) * DT;
            nz[k] = load(p.z + i) + load(p.vz + i) * DT;
        }
    }
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + k * BLOCK;
        if (i < n)
            out.x[i] = nx[k], out.y[i] = ny[k], out.z[i] = nz[k];
    }
}

void launch_update_soa(Positions out, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    assert(n > 0);
    updateSoA<<<BLOCKS_FOR(n), BLOCK, 0, stream>>>(out, p, n);
    CML_CHECK_LAUNCH();
}

__global__ void __launch_bounds__(BLOCK)
    potentialSoA(float *__restrict__ energy, ParticlesSoA p, size_t n)
{
    const size_t first = (size_t)blockIdx.x * BLOCK * ILP + threadIdx.x;
    float e[ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + k * BLOCK;
        e[k] = i < n ? load(p.charge + i) * load(p.z + i) * E_Z : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + k * BLOCK;
        if (i < n)
            energy[i] = e[k];
    }
}

void launch_potential_soa(float *d_energy, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    potentialSoA<<<BLOCKS_FOR(n), BLOCK, 0, stream>>>(d_energy, p, n);
    CML_CHECK_LAUNCH();
}

// aosToSoA: int4 halves; __int_as_float keeps every bit (NaN payloads included).
__global__ void __launch_bounds__(BLOCK)
    aosToSoA(ParticlesSoA out, const Particle *__restrict__ in, size_t n)
{
    const int4 *rec = reinterpret_cast<const int4 *>(in);
    const size_t first = (size_t)blockIdx.x * BLOCK * ILP + threadIdx.x;
    int4 a[ILP], b[ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + k * BLOCK;
        if (i < n) {
            a[k] = __ldg(rec + 2 * i);
            b[k] = __ldg(rec + 2 * i + 1);
        }
    }
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = first + k * BLOCK;
        if (i >= n)
            continue;
        out.x[i] = __int_as_float(a[k].x);
        out.y[i] = __int_as_float(a[k].y);
        out.z[i] = __int_as_float(a[k].z);
        out.vx[i] = __int_as_float(a[k].w);
        out.vy[i] = __int_as_float(b[k].x);
        out.vz[i] = __int_as_float(b[k].y);
        out.mass[i] = __int_as_float(b[k].z);
        out.charge[i] = __int_as_float(b[k].w);
    }
}

// blocks_for: BLOCKS_FOR as a function; the last n and its grid are kept (most calls repeat n).
unsigned blocks_for(size_t n)
{
    static size_t last_n = 0;
    static unsigned last_blocks = 0;
    if (n != last_n) {
        last_n = n;
        last_blocks = BLOCKS_FOR(n);
    }
    return last_blocks;
}

void launch_aos_to_soa(ParticlesSoA out, const Particle *d_in, size_t n, cudaStream_t stream)
{
    aosToSoA<<<blocks_for(n), BLOCK, 0, stream>>>(out, d_in, n);
    CML_CHECK_LAUNCH();
}
