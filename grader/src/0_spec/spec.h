/* The grading spec reader (spec.c, spec_task.c, spec_technique.c): a lab's spec file into a
 * cml_lab_spec. Format in docs/ARCHITECTURE.md, "The grading spec".
 * Depends on cml.h (the spec types). spec_parse.h, the reader's internals, builds on it. */
#ifndef CML_SPEC_H
#define CML_SPEC_H

#include <stddef.h>

#include "cml.h"

/* Parse a spec file; 0 on success, else -1 with a message "file:line: what" in err. */
int cml_spec_load(const char *path, cml_lab_spec *out, char *err, size_t errlen);
/* The task whose id is `id`, or NULL. */
const cml_task_spec *cml_spec_task(const cml_lab_spec *s, const char *id);

#endif /* CML_SPEC_H */
