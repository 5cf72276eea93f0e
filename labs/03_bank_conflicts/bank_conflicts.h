/* Lab 03, shared-memory bank conflicts: what the harness calls (pristine). You write these
 * functions, and the kernels they launch, in bank_conflicts.cu. Every wrapper launches on
 * `stream` and checks the launch with CML_CHECK_LAUNCH(). */
#ifndef BANK_CONFLICTS_H
#define BANK_CONFLICTS_H

#include "cml_lab.h" /* CML_TODO, CML_CHECK, CML_CHECK_LAUNCH */

#include <stddef.h>

/* 3.1 (host code): the conflict degree of one warp's shared-memory access in which lane t
 * (0..31) touches element t * stride_elems of an array of elem_bytes-byte elements (4, 8 or
 * 16), the array starting at bank 0. Rule: docs/03_bank_conflicts.md, section 3. */
int conflict_degree(int stride_elems, int elem_bytes);

/* 3.2: out[i] = 2 * in[i], i < n, staged through shared memory by 16 x 16 blocks, each block
 * owning 256 consecutive floats (the 2008 experiment), without bank conflicts. */
void launch_scale_row_major(float *d_out, const float *d_in, size_t n, cudaStream_t stream);

/* 3.3: in holds n / 1024 tiles of 32 x 32 floats (row-major, tiles one after another; every
 * value a small integer); out[t*1024 + i*32 + j] = sum over k of T[i][k] * T[j][k], where T is
 * tile t (the tile times its own transpose). 3.3a through a padded tile, 3.3b a swizzled one. */
void launch_gram_padded(float *d_out, const float *d_in, size_t n, cudaStream_t stream);
void launch_gram_swizzled(float *d_out, const float *d_in, size_t n, cudaStream_t stream);

#endif /* BANK_CONFLICTS_H */
