/* Unpack: a submission handed in as an archive (.zip, .tar, .tar.gz, .tgz, .tar.xz, .tar.bz2)
 * unpacked by unzip or tar into a fresh folder, watched so that an archive bomb cannot fill the
 * disk. `grade --submission FILE` and the batch's plan (batch_plan.c) both use it; staging then
 * copies only the whitelisted regular files out of the folder (find.h, stage.h). */
#ifndef CML_UNPACK_H
#define CML_UNPACK_H

#include <stddef.h>

enum cml_archive { CML_ARCHIVE_NONE = 0, CML_ARCHIVE_TAR, CML_ARCHIVE_ZIP };

#define CML_UNPACK_TIMEOUT_S 120.0
#define CML_UNPACK_MAX_MB 256        /* unpacked bytes of one archive (CML_EXTRACT_MAX_MB) */
#define CML_UNPACK_MAX_ENTRIES 20000 /* files and folders of one archive */
#define CML_UNPACK_MAX_DEPTH 64      /* folders within folders: deeper is not counted, refused */

/* The archive kind of a file name by its extension, case-insensitive: CML_ARCHIVE_TAR for
 * .tar, .tar.gz, .tgz, .tar.xz, .tar.bz2 (tar detects the compression), CML_ARCHIVE_ZIP for
 * .zip, else CML_ARCHIVE_NONE. stem (when not NULL) gets the name without the extension. */
enum cml_archive cml_archive_kind(const char *name, char *stem, size_t len);

/* Unpack archive (a file of that kind) into dir, which is emptied or created first, with tar
 * (CML_TAR) or unzip (CML_UNZIP), under a watch: unpacking past CML_EXTRACT_MAX_MB MiB (1 to
 * 65536; default 256), CML_UNPACK_MAX_ENTRIES entries or CML_UNPACK_MAX_DEPTH folders deep,
 * or past CML_UNPACK_TIMEOUT_S, is stopped and what it wrote removed (tar refuses members
 * with ".." and strips a leading "/"; unzip skips ".." members). Either path may be relative.
 * 0, or -1 with why (one line: what went wrong and what to do). */
int cml_unpack(const char *archive, enum cml_archive kind, const char *dir, char *why,
               size_t len);

/* The folder a submission's files are found in, into sub: the submission itself, unless it is
 * an archive file (by cml_archive_kind); then a fresh folder <work>/submission-XXXXXX it is
 * unpacked into by cml_unpack, and *unpacked is set: the caller removes it when done.
 * 0, or -1 with a message naming the submission in err (nothing left behind). */
int cml_unpack_submission(const char *submission, const char *work, char *sub, size_t len,
                          int *unpacked, char *err, size_t errlen);

#endif /* CML_UNPACK_H */
