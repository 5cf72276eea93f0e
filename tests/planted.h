/* Planted-bug submissions are kept as patches against the reference solution
 * (tests/planted/<lab>/<bug>/bug.patch, a unified diff), so a change to a solution cannot leave
 * a stale copy behind: a patch whose context no longer matches fails loudly. */
#ifndef CML_TEST_PLANTED_H
#define CML_TEST_PLANTED_H

#include <stddef.h>

#include "helpers.h"

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

/* The verdict an EXPECT text ("<task> <status> [text the detail must contain]" lines) pins for
 * `task`, into want and text; both left as they are when the task is not listed. */
void planted_expected(const char *expect, const char *task, char *want, size_t wlen, char *text,
                      size_t tlen);

/* Compare the summary.tsv lines of `lab` with EXPECT: each pinned task has its status and a
 * detail holding its text, every other task passed. "" in msg when they agree, else the first
 * disagreement (also when no line of the lab is there). */
void planted_compare(const test_summary_line *lines, int n, const char *expect, const char *lab,
                     char *msg, size_t len);

#endif /* CML_TEST_PLANTED_H */
