/* Lab 05, SoA vs AoS. In SoA every field is its own array, so four consecutive particles of a
 * field are one 16-byte word: 5.1 and 5.2 move each field as float4 (four particles a thread,
 * every load before the first store), with the n % 4 last particles as floats; 5.3 reads each
 * 32-byte record as two float4 with streaming hints and writes eight coalesced arrays. */
#include "particles.h"

#include <stdint.h>

#define BLOCK 256
#define ILP 4

namespace {

inline bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

inline unsigned grid_for(size_t units, size_t per_block)
{
    const size_t b = (units + per_block - 1) / per_block;
    return (unsigned)(b ? b : 1);
}

__device__ __forceinline__ float4 ld4(const float *p, size_t q)
{
    return __ldcs(reinterpret_cast<const float4 *>(p) + q);
}

__device__ __forceinline__ void st4(float *p, size_t q, float4 v)
{
    __stcs(reinterpret_cast<float4 *>(p) + q, v);
}

__device__ __forceinline__ float4 step4(float4 x, float4 v)
{
    return make_float4(x.x + v.x * DT, x.y + v.y * DT, x.z + v.z * DT, x.w + v.w * DT);
}

} // namespace

// ---- 5.1 ---------------------------------------------------------------------------------
// updateSoA: thread q moves particles 4q .. 4q + 3 (quads q < n / 4) when every array is
// 16-byte aligned (`vec`); otherwise, and for the n % 4 last particles, one particle a thread.
__global__ void __launch_bounds__(BLOCK)
    updateSoA(Positions out, ParticlesSoA p, size_t n, bool vec)
{
    const size_t t = blockIdx.x * (size_t)BLOCK + threadIdx.x;
    const size_t quads = vec ? n / 4 : 0;
    if (t < quads) {
        const float4 x = ld4(p.x, t), y = ld4(p.y, t), z = ld4(p.z, t);
        const float4 vx = ld4(p.vx, t), vy = ld4(p.vy, t), vz = ld4(p.vz, t);
        st4(out.x, t, step4(x, vx));
        st4(out.y, t, step4(y, vy));
        st4(out.z, t, step4(z, vz));
    }
    // the scalar rest: particles 4 * quads .. n - 1, spread over all threads
    const size_t T = (size_t)gridDim.x * BLOCK;
    for (size_t i = 4 * quads + t; i < n; i += T) {
        const float x = p.x[i], y = p.y[i], z = p.z[i];
        const float vx = p.vx[i], vy = p.vy[i], vz = p.vz[i];
        out.x[i] = x + vx * DT;
        out.y[i] = y + vy * DT;
        out.z[i] = z + vz * DT;
    }
}

void launch_update_soa(Positions out, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    const bool vec = aligned16(out.x) && aligned16(out.y) && aligned16(out.z) &&
                     aligned16(p.x) && aligned16(p.y) && aligned16(p.z) && aligned16(p.vx) &&
                     aligned16(p.vy) && aligned16(p.vz);
    // one thread a quad when vectorized; the scalar loop strides over the same grid
    const size_t units = vec ? (n / 4 > 0 ? n / 4 : 1) : (n + ILP - 1) / ILP;
    updateSoA<<<grid_for(units, BLOCK), BLOCK, 0, stream>>>(out, p, n, vec);
    CML_CHECK_LAUNCH();
}

// ---- 5.2 ---------------------------------------------------------------------------------
// potentialSoA: only charge and z are read, 8 bytes a particle; four particles a thread as
// float4, the rest as floats.
__global__ void __launch_bounds__(BLOCK)
    potentialSoA(float *__restrict__ energy, ParticlesSoA p, size_t n, bool vec)
{
    const size_t t = blockIdx.x * (size_t)BLOCK + threadIdx.x;
    const size_t quads = vec ? n / 4 : 0;
    if (t < quads) {
        const float4 c = ld4(p.charge, t), z = ld4(p.z, t);
        st4(energy, t,
            make_float4(c.x * z.x * E_Z, c.y * z.y * E_Z, c.z * z.z * E_Z, c.w * z.w * E_Z));
    }
    const size_t T = (size_t)gridDim.x * BLOCK;
    for (size_t i = 4 * quads + t; i < n; i += T)
        energy[i] = p.charge[i] * p.z[i] * E_Z;
}

void launch_potential_soa(float *d_energy, ParticlesSoA p, size_t n, cudaStream_t stream)
{
    const bool vec = aligned16(d_energy) && aligned16(p.charge) && aligned16(p.z);
    const size_t units = vec ? (n / 4 > 0 ? n / 4 : 1) : (n + ILP - 1) / ILP;
    potentialSoA<<<grid_for(units, BLOCK), BLOCK, 0, stream>>>(d_energy, p, n, vec);
    CML_CHECK_LAUNCH();
}

// ---- 5.3 ---------------------------------------------------------------------------------
// aosToSoA: a record is 32 bytes, two aligned 16-byte halves (d_in comes from cudaMalloc).
// A block owns BLOCK * ILP consecutive records; its warps read them as float4 pairs (every
// sector whole) with streaming loads, all before the first store, and write eight arrays.
__global__ void __launch_bounds__(BLOCK)
    aosToSoA(ParticlesSoA out, const Particle *__restrict__ in, size_t n)
{
    const float4 *__restrict__ rec = reinterpret_cast<const float4 *>(in);
    const size_t base = blockIdx.x * (size_t)(BLOCK * ILP) + threadIdx.x;
    float4 lo[ILP], hi[ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = base + (size_t)k * BLOCK;
        if (i < n) {
            lo[k] = __ldcs(rec + 2 * i);
            hi[k] = __ldcs(rec + 2 * i + 1);
        }
    }
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        const size_t i = base + (size_t)k * BLOCK;
        if (i >= n)
            break;
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

void launch_aos_to_soa(ParticlesSoA out, const Particle *d_in, size_t n, cudaStream_t stream)
{
    aosToSoA<<<grid_for(n, (size_t)BLOCK * ILP), BLOCK, 0, stream>>>(out, d_in, n);
    CML_CHECK_LAUNCH();
}
