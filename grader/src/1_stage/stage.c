/* Stage: copy pristine files and the whitelisted student files into a fresh folder. */
#include "stage.h"
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

static int read_all(int fd, char *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t got = read(fd, buf + done, n - done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        done += (size_t)got;
    }
    return 0;
}

/* Contract in stage.h. Opened with O_NOFOLLOW and checked with fstat, so what is checked is
 * what is copied. */
int cml_copy_file(const char *src, const char *dst, size_t max_bytes, char *err, size_t errlen)
{
    int fd = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        snprintf(err, errlen, errno == ELOOP ? "%s is a symbolic link: submit the file itself"
                 : "cannot open %s (%s)", src, strerror(errno));
        return -1;
    }
    struct stat st;
    char *buf = NULL;
    int rc = -1;
    if (fstat(fd, &st) < 0)
        snprintf(err, errlen, "cannot stat %s (%s)", src, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        snprintf(err, errlen, "%s is not a regular file: submit the source file itself", src);
    else if ((size_t)st.st_size > max_bytes)
        snprintf(err, errlen, "%s is %lld bytes, more than the %zu allowed: submit the source "
                 "file only", src, (long long)st.st_size, max_bytes);
    else if (!(buf = malloc((size_t)st.st_size + 1)) || read_all(fd, buf, (size_t)st.st_size) < 0)
        snprintf(err, errlen, "cannot read %s (%s)", src, strerror(errno ? errno : EIO));
    else if (cml_write_file(dst, buf, (size_t)st.st_size) < 0)
        snprintf(err, errlen, "cannot write %s (%s): is the work folder writable?", dst,
                 strerror(errno));
    else
        rc = 0;
    free(buf);
    close(fd);
    return rc;
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

static int exists_nofollow(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Where the submission holds `file`: SUB/<lab>/<file> (SUB/<lab> a real folder), else
 * SUB/<file>. */
static int find_student_file(const char *sub, const char *lab, const char *file, char *path,
                             size_t len, char *err, size_t errlen)
{
    char labdir[CML_PATH];
    struct stat st;
    if (cml_fmt(labdir, sizeof labdir, "%s/%s", sub, lab) == 0 && lstat(labdir, &st) == 0) {
        if (S_ISLNK(st.st_mode)) {
            snprintf(err, errlen, "%s is a symbolic link: submit a real folder", labdir);
            return -1;
        }
        if (cml_fmt(path, len, "%s/%s", labdir, file) == 0 && exists_nofollow(path))
            return 0;
    }
    if (cml_fmt(path, len, "%s/%s", sub, file) == 0 && exists_nofollow(path))
        return 0;
    snprintf(err, errlen, "%s not found in the submission (looked for %s/%s/%s and %s/%s): put "
             "your file in one of those places", file, sub, lab, file, sub, file);
    return -1;
}

static int safe_name(const char *name, char *err, size_t errlen)
{
    if (name[0] && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, ".."))
        return 0;
    snprintf(err, errlen, "file name '%s' in the spec is not a plain file name: fix the spec", name);
    return -1;
}

/* Copy root/<from_dir>/<names> (or the student's files) into dir. */
static int stage_files(const char *from_dir, const char *sub, const char *lab,
                       const char (*names)[64], int n, const char *dir, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        char src[CML_PATH], dst[CML_PATH];
        if (safe_name(names[i], err, errlen) < 0)
            return -1;
        if (sub ? find_student_file(sub, lab, names[i], src, sizeof src, err, errlen) < 0
                : cml_fmt(src, sizeof src, "%s/%s", from_dir, names[i]) < 0)
            return -1;
        if (cml_fmt(dst, sizeof dst, "%s/%s", dir, names[i]) < 0 ||
            cml_copy_file(src, dst, sub ? CML_MAX_STUDENT_FILE : 64u << 20, err, errlen) < 0)
            return -1;
    }
    return 0;
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
             stage_files(labs, NULL, spec->lab, spec->harness, spec->nharness, dir, err,
                         errlen) < 0 ||
             stage_files(sols, student ? submission : NULL, spec->lab, spec->files,
                         spec->nfiles, dir, err, errlen) < 0 ||
             (!student && stage_files(sols, NULL, spec->lab, spec->reference_files,
                                      spec->nreference_files, dir, err, errlen) < 0) ? -1 : 0;
    if (rc < 0)
        cml_rmtree(dir);
    else if (errlen)
        err[0] = '\0';
    return rc;
}
