/* Lab 07, unified memory: the functions the harness calls (pristine). You write them, and the
 * kernel they launch, in managed.cu. The matrices are rows x cols floats, row-major, in managed
 * memory; every function enqueues its work on `stream` and returns without synchronizing. */
#ifndef MANAGED_H
#define MANAGED_H

#include "cml_lab.h" /* CML_TODO, CML_CHECK, CML_CHECK_LAUNCH */
#include "cml_um.h"  /* cml_mem_prefetch, cml_mem_advise, cml_loc_device, cml_loc_host */

#include <stddef.h>

/* 7.1: n floats of managed memory (NULL when it cannot be had); the harness frees it. */
float *um_alloc(size_t n);
/* 7.1: C = A + B, element by element, by a kernel that simply touches managed memory. */
void um_add(float *C, const float *A, const float *B, int rows, int cols, cudaStream_t stream);

/* 7.2: the same sum with prefetches: A, B and C to GPU `device` before the kernel, C to the
 * host after it, all on `stream`. */
void um_add_prefetched(float *C, const float *A, const float *B, int rows, int cols, int device,
                       cudaStream_t stream);

/* 7.3: advice for the three matrices (n floats each), given once after allocation and before the
 * host writes A and B; then, on every run, um_add_advised: the sum, with the prefetches that the
 * advice still calls for. */
void um_advise(float *C, const float *A, const float *B, size_t n, int device);
void um_add_advised(float *C, const float *A, const float *B, int rows, int cols, int device,
                    cudaStream_t stream);

#endif /* MANAGED_H */
