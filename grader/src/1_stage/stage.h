/* Stage: a fresh build folder per lab and side, holding pristine common/ and harness files
 * and only the whitelisted student (or reference) files. The trust boundary lives here. */
#ifndef CML_STAGE_H
#define CML_STAGE_H

#include <stddef.h>

#include "cml.h"

#define CML_MAX_STUDENT_FILE (1 << 20) /* 1 MiB: a source file, not a data set */

enum cml_side { CML_SIDE_STUDENT, CML_SIDE_REFERENCE };

/* "student" or "reference". */
const char *cml_side_name(enum cml_side side);

/* Create a fresh folder <work_dir>/<lab>-<side>-XXXXXX (work_dir is created if needed) and
 * copy into it: every file of root/common into common/, root/labs/<lab>/<harness files>, and the spec's
 * whitelisted files, from the submission for the student side (SUB/<lab>/<file>, else
 * SUB/<file>) or from root/solutions/<lab>/ for the reference side. A missing file, a symbolic
 * link, anything not a regular file or a file over 1 MiB is refused. The folder's path goes to
 * dir. 0 on success (err emptied); -1 with a message in err (and no folder left behind). */
int cml_stage(const char *root, const cml_lab_spec *spec, enum cml_side side,
              const char *submission, const char *work_dir, char *dir, size_t dirlen,
              char *err, size_t errlen);

/* Copy one regular file (never through a symbolic link) of at most max_bytes to dst.
 * 0 on success; -1 with a message naming src in err. */
int cml_copy_file(const char *src, const char *dst, size_t max_bytes, char *err, size_t errlen);

#endif /* CML_STAGE_H */
