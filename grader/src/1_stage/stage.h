/* Stage: a fresh build folder per lab and side, holding pristine common/ and harness files
 * and only the whitelisted student (or reference) files. The trust boundary lives here. */
#ifndef CML_STAGE_H
#define CML_STAGE_H

#include <stddef.h>

#include "cml.h"
#include "find.h"

#define CML_MAX_STUDENT_FILE (1 << 20) /* 1 MiB: a source file, not a data set */

enum cml_side { CML_SIDE_STUDENT, CML_SIDE_REFERENCE };

/* "student" or "reference". */
const char *cml_side_name(enum cml_side side);

/* Create a fresh folder <work_dir>/<lab>-<side>-XXXXXX (work_dir is created if needed) and
 * copy into it: every file of root/common into common/, root/labs/<lab>/<harness files>, and the
 * spec's whitelisted files, for the student side from wherever the finder finds them in the
 * submission folder (cml_find_lab_files, find.h), for the reference side from
 * root/solutions/<lab>/. A symbolic link, anything not a regular file or a file over 1 MiB is
 * refused. The folder's path goes to dir. 0 on success (err emptied); CML_FIND_MISSING when a
 * student file is nowhere in the submission (err: "not handed in: ..."); -1 with a message in
 * err otherwise (and no folder left behind either way). */
int cml_stage(const char *root, const cml_lab_spec *spec, enum cml_side side,
              const char *submission, const char *work_dir, char *dir, size_t dirlen,
              char *err, size_t errlen);

#endif /* CML_STAGE_H */
