/* Link rules: what a student's object file may define and call (TRUST.md, hold 3). The
 * student's .cu is compiled alone (nvcc -c), and its object is checked with nm and objdump
 * before it is linked with the pristine harness: a definition that would replace a harness or
 * library function, a call the lab does not need, code that runs before or after main, or a
 * system call in host code is a build error that names the symbol and the rule. */
#ifndef CML_LINKRULES_H
#define CML_LINKRULES_H

#include <stddef.h>

#include "cml.h"

/* The file every lab shares, under the repository root. */
#define CML_LINK_RULES_FILE "grader/specs/link.rules"

/* Outcome of cml_link_check. */
enum cml_link_result { CML_LINK_PASSED = 0, CML_LINK_NOT_ENFORCED = 1, CML_LINK_VIOLATED = 2 };

/* Append the names of one directive line (whitespace-separated patterns) to r under `list`
 * (and `group` for deny). 0, or -1 with a message (no file:line) in err. */
int cml_link_add(cml_link_rules *r, int list, const char *group, char *args, char *err,
                 size_t errlen);

/* Read a link.rules file (format at its top) and append its names to r; sets
 * r->common_loaded. 0, or -1 with "path:line: what" in err. */
int cml_link_rules_load(const char *path, cml_link_rules *r, char *err, size_t errlen);

/* Whether `sym` matches a pattern of `list` (fnmatch glob). For CML_LINK_API a C++ symbol
 * matches by its top-level name: `_Z8um_allocm` matches `um_alloc`. The matching entry's group
 * goes to *group when non-NULL. */
int cml_link_match(const cml_link_rules *r, int list, const char *sym, const char **group);

/* Check the student objects of a staged folder. student_cu[i] is a student source relative to
 * dir, compiled to <base>.o beside it with nvcc --keep --keep-dir <keep_dir> (relative to dir);
 * pristine_o are the harness and common objects (relative to dir). Returns CML_LINK_PASSED,
 * CML_LINK_NOT_ENFORCED (no link.rules loaded, or nm/objdump missing: *report says so) or
 * CML_LINK_VIOLATED (*report: one "link rule: ..." line per violation). *report is malloc'd
 * or NULL; free it. */
int cml_link_check(const cml_link_rules *r, const char *dir, char *const *student_cu,
                   int nstudent, char *const *pristine_o, int npristine, const char *keep_dir,
                   char **report);

#endif /* CML_LINKRULES_H */
