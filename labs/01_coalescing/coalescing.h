/* Lab 01, global-memory coalescing: the launch wrappers the harness calls (pristine).
 * You write them, and the kernels they launch, in coalescing.cu. Every wrapper launches on
 * `stream` and checks the launch with CML_CHECK_LAUNCH(). */
#ifndef COALESCING_H
#define COALESCING_H

#include "cml_lab.h" /* CML_TODO, CML_CHECK, CML_CHECK_LAUNCH */

#include <stddef.h>

/* 1.1: out[i] = in[i] for i < n. */
void launch_copy_coalesced(float *d_out, const float *d_in, size_t n, cudaStream_t stream);

/* 1.2a and 1.2b: in is rows x cols, row-major; out is cols x rows: out[c*rows + r] = in[r*cols + c]. */
void launch_transpose_naive_read_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                           cudaStream_t stream);
void launch_transpose_naive_write_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                            cudaStream_t stream);

/* 1.3: out[i] = in[offset + i*stride] for i < n; in holds offset + (n-1)*stride + 1 floats. */
void launch_copy_offset_stride(float *d_out, const float *d_in, size_t n, size_t offset,
                               size_t stride, cudaStream_t stream);

#endif /* COALESCING_H */
