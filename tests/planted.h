/* Planted-bug submissions are kept as patches against the reference solution
 * (tests/planted/<lab>/<bug>/bug.patch, a unified diff), so a change to a solution cannot leave
 * a stale copy behind: a patch whose context no longer matches fails loudly. */
#ifndef CML_TEST_PLANTED_H
#define CML_TEST_PLANTED_H

#include <stddef.h>

/* Apply a unified diff to the text of one file. Hunks are located by their exact context and
 * removed lines (line numbers are ignored), in order. Returns the patched text (free it), or
 * NULL with the reason in err when a hunk does not match. Only the hunks for `file` (the
 * basename after "+++ ") are applied; *applied counts them. */
char *planted_apply(const char *text, const char *patch, const char *file, int *applied,
                    char *err, size_t errlen);

/* Materialise one planted bug: copy every file of root/solutions/<lab>/ into dest (an existing
 * folder), then apply bug_dir/bug.patch to them. 0 on success; -1 with the reason in err when a
 * file cannot be read or written, or when a hunk, or the whole patch, applies nowhere. */
int planted_materialize(const char *root, const char *lab, const char *bug_dir, const char *dest,
                        char *err, size_t errlen);

/* One planted bug: its folder (tests/planted/<lab>/<bug>) and its lab. */
typedef struct {
    char dir[4096];
    char lab[64];
} planted_bug;

/* Every base/<lab>/<bug>/ holding an EXPECT file, in name order, at most max; the count. */
int planted_find(const char *base, planted_bug *out, int max);

#endif /* CML_TEST_PLANTED_H */
