/* Lab 02, shared-memory transpose: the launch wrappers the harness calls (pristine).
 * You write them, and the kernels they launch, in transpose.cu. in is rows x cols, row-major;
 * out is cols x rows: out[c*rows + r] = in[r*cols + c]. Launch on `stream`, then CML_CHECK_LAUNCH(). */
#ifndef TRANSPOSE_H
#define TRANSPOSE_H

#include "cml_lab.h" /* CML_TODO, CML_CHECK, CML_CHECK_LAUNCH */

/* 2.1: through a shared-memory tile, reads and writes coalesced (bank conflicts allowed). */
void launch_transpose_coalesced(float *d_out, const float *d_in, int rows, int cols,
                                cudaStream_t stream);

/* 2.2: the same without shared-memory bank conflicts, and fast. */
void launch_transpose_no_bank_conflicts(float *d_out, const float *d_in, int rows, int cols,
                                        cudaStream_t stream);

#endif /* TRANSPOSE_H */
