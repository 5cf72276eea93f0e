/* The digest the harness keeps of every input a task only reads (issue 44: "inputs are only
 * read"; common/cml_inputs.cu): taken when the input is filled, taken again after the task's
 * checked launch, and compared. Internal to the harness library and its tests; C and CUDA. */
#ifndef CML_DIGEST_H
#define CML_DIGEST_H

#include "cml_rand.h" /* CML_HD, cml_mix64 */

/* Element i with bits b, under the run's secret key: summed (mod 2^64) over a buffer. For one
 * i the term is a bijection of b (b is XORed into a value fixed by key and i, then mixed by a
 * bijection), so a change to any one element changes the sum; a change to several leaves it
 * only when their terms' changes cancel, which without the key (random per run, never in a
 * symbol) has odds of about 2^-64. Any order of summing gives the same total: a GPU reduction
 * and host threads agree with each other and with a snapshot compared bit for bit. */
CML_HD uint64_t cml_digest_term(uint64_t key, uint64_t i, uint32_t b)
{
    return cml_mix64(cml_mix64(key ^ i) ^ (uint64_t)b);
}

#endif /* CML_DIGEST_H */
