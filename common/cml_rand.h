/* Seeded input generation shared bit for bit by the CUDA harness (host or device code)
 * and the C grader: a counter-based hash, so element i depends only on (seed, stream, i).
 * Values are finite floats of magnitude in [1, 4) with 23 random mantissa bits: distinct
 * enough that a misplaced element is caught by a bit-exact compare, and never NaN. */
#ifndef CML_RAND_H
#define CML_RAND_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define CML_HD __host__ __device__ __forceinline__
#else
#define CML_HD static inline
#endif

/* splitmix64 finaliser: a bijective 64-bit mix. */
CML_HD uint64_t cml_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* 64 random bits for element i of input stream `stream` (0, 1, ... per input buffer). */
CML_HD uint64_t cml_rand_u64(uint64_t seed, uint32_t stream, uint64_t i)
{
    return cml_mix64(cml_mix64(seed ^ ((uint64_t)stream << 56)) ^ i);
}

/* Element i as a float: sign from bit 63, exponent 0 or 1 from bit 62, mantissa from 23 bits. */
CML_HD float cml_rand_f32(uint64_t seed, uint32_t stream, uint64_t i)
{
    uint64_t r = cml_rand_u64(seed, stream, i);
    uint32_t bits = (uint32_t)((r >> 63) << 31)          /* sign */
                  | (uint32_t)(127u + ((r >> 62) & 1u)) << 23 /* exponent: [1,2) or [2,4) */
                  | (uint32_t)(r & 0x7FFFFFu);           /* mantissa */
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* The poison pattern the harness writes into every output buffer before a run:
 * all bytes 0xFF, a NaN for float, so an element nobody wrote fails the compare. */
#define CML_POISON_BYTE 0xFF

#endif /* CML_RAND_H */
