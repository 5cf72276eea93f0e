/* Lab 06, zero-copy: the host-side functions the harness calls (pristine). You write them, and
 * the kernels they launch, in zerocopy.cu (6.1: the GPU works on host memory directly) and
 * copies.cu (6.2: copy in, compute, copy out; 6.3: pick the faster of the two). Every function
 * enqueues its work on `stream` and returns without synchronizing: the harness synchronizes. */
#ifndef ZEROCOPY_H
#define ZEROCOPY_H

#include "cml_lab.h" /* CML_TODO, CML_CHECK, CML_CHECK_LAUNCH, cml_sm_count */

#include <stddef.h>

/* a = 2: a power of two, so a*x is exact and a*x + y rounds once, with or without a fused
 * multiply-add: the GPU and the grader's CPU agree bit for bit. */
#define SAXPY_A 2.0f

/* Every saxpy below runs `passes` passes over the data (passes >= 1): the first computes
 * out[i] = SAXPY_A * x[i] + y[i], each further pass out[i] = SAXPY_A * x[i] + out[i].
 * x, y and out hold n floats of host memory; x and y are only read. */

/* 6.1 (zerocopy.cu): n floats of pinned host memory mapped into the GPU's address space
 * (NULL when it cannot be had). The harness frees it with cudaFreeHost. */
float *zc_alloc_mapped(size_t n);
/* 6.1: the passes on memory from zc_alloc_mapped, run by kernels that read and write it where
 * it lies: no device buffers, no copies. */
void zc_saxpy(float *h_out, const float *h_x, const float *h_y, size_t n, int passes,
              cudaStream_t stream);

/* 6.2 (copies.cu): the same passes the classic way: copy x and y into the device buffers d_x
 * and d_y (n floats each, given), run the passes there, copy the result into h_out. The host
 * buffers are pinned. */
void copy_saxpy(float *h_out, const float *h_x, const float *h_y, size_t n, int passes,
                float *d_x, float *d_y, cudaStream_t stream);

/* 6.3 (copies.cu): the same passes by whichever of 6.1 and 6.2 is faster for this `passes`.
 * The host buffers are pinned and mapped, so either way works; d_x and d_y are yours to use. */
void best_saxpy(float *h_out, const float *h_x, const float *h_y, size_t n, int passes,
                float *d_x, float *d_y, cudaStream_t stream);

#endif /* ZEROCOPY_H */
