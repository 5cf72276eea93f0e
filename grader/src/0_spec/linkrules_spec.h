/* Link rules as data (linkrules_parse.c): the names of grader/specs/link.rules and of a spec's
 * link_api and link_calls lines, read with the spec, and matching a symbol against them. The
 * checks of a student's object against them are 2_build's (linkrules.h).
 * Depends on cml.h (cml_link_rules). */
#ifndef CML_LINKRULES_SPEC_H
#define CML_LINKRULES_SPEC_H

#include <stddef.h>

#include "cml.h"

/* The file every lab shares, under the repository root. */
#define CML_LINK_RULES_FILE "grader/specs/link.rules"

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

/* The link_api name that symbol sym defines (by its C name, or as a C++ function by its
 * top-level name), or NULL when it is none of the lab's API. */
const char *cml_link_api_of(const cml_link_rules *r, const char *sym);

#endif /* CML_LINKRULES_SPEC_H */
