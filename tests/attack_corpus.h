/* The attack corpus, tests/attacks/gpu/<lab>/<attack>/ (README.md there): submissions written as
 * a student who wants points without the work would, kept in the planted format (bug.patch
 * against the solution, EXPECT; tests/planted.h). A patch may name the grader's paths by
 * placeholder, as an attacker who has read a grading log would know them: @ROOT@ the
 * repository, @OUT@ the grading's --out, @OTHER@ another submission's output folder. */
#ifndef CML_TEST_ATTACK_CORPUS_H
#define CML_TEST_ATTACK_CORPUS_H

#include <stddef.h>
#include <stdint.h>

#include "planted.h"

#define ATTACK_MAX 128

/* Every attack (tests/attacks/gpu/<lab>/<attack>/ with an EXPECT), in name order; the count.
 * Found once; safe at suite creation. */
int attack_find(const planted_bug **out);

/* The solution of a->lab with a's patch applied, in dest (an existing folder), the placeholders
 * replaced by test_root(), out and other. 0, or -1 with the reason in err. */
int attack_materialize(const planted_bug *a, const char *dest, const char *out,
                       const char *other, char *err, size_t len);

/* Whether a's EXPECT pins build-error: the attack is decided at build time, without a GPU. */
int attack_at_build(const planted_bug *a);

/* a's EXPECT text (malloc'd; "" when unreadable). */
char *attack_expect(const planted_bug *a);

/* FNV-1a over every path, mode and byte beneath dir, continuing from h (h when dir is
 * missing). Entries whose name starts with `skip` (NULL: none) are left out. */
uint64_t attack_tree_sum(const char *dir, uint64_t h, const char *skip);

/* The repository files a grading must never change: grader/, labs/, solutions/, common/. */
uint64_t attack_repo_sum(void);

#endif /* CML_TEST_ATTACK_CORPUS_H */
