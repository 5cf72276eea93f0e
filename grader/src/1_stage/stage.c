/* Stage: copy pristine files and the whitelisted student files into a fresh folder. */
#include "stage.h"
#include "find.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Side names as used in folder names and messages. */
const char *cml_side_name(enum cml_side side)
{
    return side == CML_SIDE_STUDENT ? "student" : "reference";
}

/* Copy every regular file of root/common into dir/common. */
static int stage_common(const char *root, const char *dir, char *err, size_t errlen)
{
    char from[CML_PATH], to[CML_PATH], src[CML_PATH], dst[CML_PATH];
    if (cml_fmt(from, sizeof from, "%s/common", root) < 0 ||
        cml_fmt(to, sizeof to, "%s/common", dir) < 0 || mkdir(to, 0755) < 0) {
        snprintf(err, errlen, "cannot create %s/common (%s)", dir, strerror(errno));
        return -1;
    }
    DIR *d = opendir(from);
    if (!d) {
        snprintf(err, errlen, "cannot open %s (%s): is --root the repository's top folder?",
                 from, strerror(errno));
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        struct stat st;
        if (e->d_name[0] == '.' || cml_fmt(src, sizeof src, "%s/%s", from, e->d_name) < 0 ||
            lstat(src, &st) < 0 || !S_ISREG(st.st_mode))
            continue;
        rc = cml_fmt(dst, sizeof dst, "%s/%s", to, e->d_name) < 0 ? -1
             : cml_copy_file(src, dst, 64u << 20, err, errlen);
    }
    closedir(d);
    return rc;
}

static int safe_name(const char *name, char *err, size_t errlen)
{
    if (name[0] && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, ".."))
        return 0;
    snprintf(err, errlen, "file name '%s' in the spec is not a plain file name: fix the spec", name);
    return -1;
}

/* Copy root/<from_dir>/<names> into dir. */
static int stage_files(const char *from_dir, const char (*names)[64], int n, const char *dir,
                       char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        char src[CML_PATH], dst[CML_PATH];
        if (safe_name(names[i], err, errlen) < 0 ||
            cml_fmt(src, sizeof src, "%s/%s", from_dir, names[i]) < 0 ||
            cml_fmt(dst, sizeof dst, "%s/%s", dir, names[i]) < 0 ||
            cml_copy_file(src, dst, 64u << 20, err, errlen) < 0)
            return -1;
    }
    return 0;
}

/* dir/labs/<lab>/: a copy of the lab's headers where the repository keeps them, which the build
 * searches (-I labs/<lab>), so that a student file written in the repository and naming them
 * by that place (`#include "../../common/cml_lab.h"`, `"../04_float4/vectorized.h"`) finds
 * them inside the staged folder, as it did there. */
static int stage_repository_paths(const cml_lab_spec *spec, const char *dir, char *err,
                                  size_t errlen)
{
    char to[CML_PATH], src[CML_PATH], dst[CML_PATH];
    if (cml_fmt(to, sizeof to, "%s/labs/%s", dir, spec->lab) < 0 || cml_mkdirs(to) < 0) {
        snprintf(err, errlen, "cannot create %s/labs/%s (%s)", dir, spec->lab, strerror(errno));
        return -1;
    }
    for (int i = 0; i < spec->nharness; i++)
        if (!cml_is_cu(spec->harness[i]) &&
            (cml_fmt(src, sizeof src, "%s/%s", dir, spec->harness[i]) < 0 ||
             cml_fmt(dst, sizeof dst, "%s/%s", to, spec->harness[i]) < 0 ||
             cml_copy_file(src, dst, 64u << 20, err, errlen) < 0))
            return -1;
    return 0;
}

/* Copy the student's files of spec, wherever the finder finds them in sub (find.h), into dir
 * under their spec names. 0, CML_FIND_MISSING or -1, with err. */
static int stage_student(const char *sub, const cml_lab_spec *spec, const char *dir, char *err,
                         size_t errlen)
{
    char (*src)[CML_PATH] = calloc(CML_MAX_FILES, sizeof *src), dst[CML_PATH];
    int rc = src ? 0 : -1;
    for (int i = 0; rc == 0 && i < spec->nfiles; i++)
        rc = safe_name(spec->files[i], err, errlen);
    if (rc == 0)
        rc = cml_find_lab_files(sub, spec, src, err, errlen);
    for (int i = 0; rc == 0 && i < spec->nfiles; i++)
        rc = cml_fmt(dst, sizeof dst, "%s/%s", dir, spec->files[i]) < 0 ||
             cml_copy_file(src[i], dst, CML_MAX_STUDENT_FILE, err, errlen) < 0 ? -1 : 0;
    if (!src)
        snprintf(err, errlen, "out of memory staging the submission");
    free(src);
    return rc;
}

/* Contract in stage.h. */
int cml_stage(const char *root, const cml_lab_spec *spec, enum cml_side side,
              const char *submission, const char *work_dir, char *dir, size_t dirlen,
              char *err, size_t errlen)
{
    char labs[CML_PATH], sols[CML_PATH];
    if (cml_mkdirs(work_dir) < 0 ||
        cml_fmt(dir, dirlen, "%s/%s-%s-XXXXXX", work_dir, spec->lab, cml_side_name(side)) < 0 ||
        !mkdtemp(dir)) {
        snprintf(err, errlen, "cannot create a build folder under %s (%s): choose a writable "
                 "--out", work_dir, strerror(errno));
        return -1;
    }
    int student = side == CML_SIDE_STUDENT;
    snprintf(err, errlen, "path too long under %s: use a shorter --root or --out", root);
    int rc = cml_fmt(labs, sizeof labs, "%s/labs/%s", root, spec->lab) < 0 ||
             cml_fmt(sols, sizeof sols, "%s/solutions/%s", root, spec->lab) < 0 ||
             stage_common(root, dir, err, errlen) < 0 ||
             stage_files(labs, spec->harness, spec->nharness, dir, err, errlen) < 0 ||
             stage_repository_paths(spec, dir, err, errlen) < 0 ? -1 : 0;
    if (rc == 0 && student)
        rc = stage_student(submission, spec, dir, err, errlen);
    else if (rc == 0)
        rc = stage_files(sols, spec->files, spec->nfiles, dir, err, errlen) < 0 ||
             stage_files(sols, spec->reference_files, spec->nreference_files, dir, err,
                         errlen) < 0 ? -1 : 0;
    if (rc < 0)
        cml_rmtree(dir);
    else if (errlen)
        err[0] = '\0';
    return rc;
}
