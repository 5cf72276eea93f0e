/* Lab 04, 16-byte vector access: the launch wrappers the harness calls (pristine).
 * You write them, and the kernels they launch, in vectorized.cu. Every wrapper launches on
 * `stream` and checks the launch with CML_CHECK_LAUNCH(). */
#ifndef VECTORIZED_H
#define VECTORIZED_H

#include "cml_lab.h" /* CML_TODO, CML_CHECK, CML_CHECK_LAUNCH */

#include <stddef.h>

/* 4.1: out[i] = in[i] for i < n. d_in and d_out start on any float (4-byte) boundary: cudaMalloc
 * gives 256-byte alignment, but the harness passes pointers 0 to 3 floats past it, the same
 * amount for both or different amounts. Write nothing outside out[0..n). */
void launch_copy_vec4(float *d_out, const float *d_in, size_t n, cudaStream_t stream);

/* 4.2: n points (x, y, z), each moved to 2*(x, y, z) + (POINT_DX, POINT_DY, POINT_DZ).
 * 4.2a: packed, 3 floats a point (d_in, d_out hold 3n floats, 16-byte aligned).
 * 4.2b: padded, 4 floats a point (4n floats, 16-byte aligned); w is copied through unchanged. */
#define POINT_DX 1.0f
#define POINT_DY -2.0f
#define POINT_DZ 0.5f
void launch_transform_float3(float *d_out, const float *d_in, size_t n, cudaStream_t stream);
void launch_transform_point4(float *d_out, const float *d_in, size_t n, cudaStream_t stream);

#endif /* VECTORIZED_H */
