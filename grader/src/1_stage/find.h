/* Find: where a student's submission holds a lab's files, whatever shape it was handed in
 * (flat or one folder per lab; at the top, under one top folder, under labs/ or solutions/
 * at any depth). The one finder every grading stages from (stage.c). */
#ifndef CML_FIND_H
#define CML_FIND_H

#include <stddef.h>

#include "cml.h"
#include "util.h"

#define CML_FIND_MAX_DEPTH 6         /* folders above a student file, from the submission's top */
#define CML_FIND_MAX_ENTRIES 20000   /* files and folders one search looks at */
#define CML_FIND_MISSING (-2)        /* cml_find_lab_files: a file is nowhere to be found */

/* Each of spec's student files (spec->files) in the submission folder sub, its path into
 * paths[k] (sub/<relative path>). The search walks sub up to CML_FIND_MAX_DEPTH folders
 * deep, never through a symbolic link, skipping hidden entries (.git/, .DS_Store, ._* from
 * macOS) and __MACOSX/. A file's candidates rank: first those whose folder is named after the
 * lab (<lab>/<file>: labs/01_x/, myname/labs/01_x/, solutions/01_x/...), then any other
 * (flat); within a rank the one nearest the top. Two candidates of the best rank with
 * different contents are ambiguous; equal contents are one file.
 * 0: every file found. CML_FIND_MISSING: some file is nowhere (err: "not handed in: ...",
 * naming them and where to put them). -1: an ambiguity (err names both paths, relative to
 * sub), a file that is a symbolic link, or a submission too large to search. */
int cml_find_lab_files(const char *sub, const cml_lab_spec *spec, char (*paths)[CML_PATH],
                       char *err, size_t errlen);

#endif /* CML_FIND_H */
