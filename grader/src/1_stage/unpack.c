/* Unpack an archive a student handed in (unpack.h). The watch counts what is on the disk, not
 * what the archive's listing claims: a zip's listing can lie about its sizes. */
#include "unpack.h"
#include "run.h"
#include "util.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Contract in unpack.h. */
enum cml_archive cml_archive_kind(const char *name, char *stem, size_t len)
{
    static const struct { const char *ext; enum cml_archive kind; } exts[] = {
        { ".tar.gz", CML_ARCHIVE_TAR }, { ".tgz", CML_ARCHIVE_TAR },
        { ".tar.xz", CML_ARCHIVE_TAR }, { ".tar.bz2", CML_ARCHIVE_TAR },
        { ".tar", CML_ARCHIVE_TAR }, { ".zip", CML_ARCHIVE_ZIP } };
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t e = strlen(exts[i].ext);
        if (n > e && strcasecmp(name + n - e, exts[i].ext) == 0) {
            if (stem)
                snprintf(stem, len, "%.*s", (int)(n - e), name);
            return exts[i].kind;
        }
    }
    return CML_ARCHIVE_NONE;
}

/* What an archive has unpacked so far: bytes of its files (their sizes) and entries, and
 * whether it nests deeper than could be counted (which must not hide bytes from the count). */
typedef struct {
    const char *dir;
    uint64_t max_bytes, bytes;
    long entries;
    int too_deep;
} unpacked;

static void count_tree(const char *dir, unpacked *u, int depth)
{
    DIR *d = depth < CML_UNPACK_MAX_DEPTH ? opendir(dir) : NULL;
    u->too_deep |= depth >= CML_UNPACK_MAX_DEPTH;
    for (struct dirent *e; d && (e = readdir(d)) && u->entries <= CML_UNPACK_MAX_ENTRIES;) {
        char p[CML_PATH];
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (cml_fmt(p, sizeof p, "%s/%s", dir, e->d_name) < 0) {
            u->too_deep = 1; /* a path too long to name: what lies there cannot be counted */
            continue;
        }
        if (lstat(p, &st) < 0)
            continue;
        u->entries++;
        u->bytes += S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
        if (S_ISDIR(st.st_mode))
            count_tree(p, u, depth + 1);
    }
    if (d)
        closedir(d);
}

/* The unpacking's watch (cml_watch_hook): stop once the archive unpacked past the caps. */
static int unpacked_too_much(void *ctx)
{
    unpacked *u = ctx;
    u->bytes = 0;
    u->entries = 0;
    u->too_deep = 0;
    count_tree(u->dir, u, 0);
    return u->bytes > u->max_bytes || u->entries > CML_UNPACK_MAX_ENTRIES || u->too_deep;
}

/* The unpacked-size cap: CML_EXTRACT_MAX_MB (1 to 65536), else CML_UNPACK_MAX_MB. */
static uint64_t unpack_max_bytes(void)
{
    const char *v = getenv("CML_EXTRACT_MAX_MB");
    long mb = v ? strtol(v, NULL, 10) : 0;
    return (uint64_t)(mb >= 1 && mb <= 65536 ? mb : CML_UNPACK_MAX_MB) << 20;
}

/* Why the tool failed, on one line, into why. */
static void tool_failed(const cml_proc_result *r, const char *name, char *why, size_t len)
{
    char how[200];
    cml_proc_describe(r, CML_UNPACK_TIMEOUT_S, how, sizeof how);
    snprintf(why, len, "the archive could not be unpacked (%s %s%s%.100s): hand in a .zip, "
             ".tar or .tar.gz that opens", name, r->started ? how : "is not installed",
             r->output_len ? ": " : "", r->output ? r->output : "");
    for (char *c = why; *c; c++)
        if (*c == '\n' || *c == '\t' || *c == '\r')
            *c = ' ';
}

/* The tool that unpacks kind, into tool, and its name: tar ($CML_TAR); for a zip, unzip
 * ($CML_UNZIP), else python3's zipfile module ($CML_PYTHON), which drops ".." and leading "/"
 * from member names as unzip does (the GPU machines have python3 but no unzip). 0, or -1 when
 * none is installed. */
static int find_unpacker(enum cml_archive kind, char *tool, size_t len, const char **name)
{
    *name = kind == CML_ARCHIVE_ZIP ? "unzip" : "tar";
    if (cml_find_tool(kind == CML_ARCHIVE_ZIP ? "CML_UNZIP" : "CML_TAR", *name, tool, len) == 0)
        return 0;
    if (kind != CML_ARCHIVE_ZIP)
        return -1;
    *name = "python3";
    return cml_find_tool("CML_PYTHON", "python3", tool, len);
}

/* Run tool (`name`) on archive into dir (both absolute: the tool runs inside dir), watched. */
static int unpack_watched(const char *tool_path, const char *name, const char *archive,
                          const char *dir, char *why, size_t len)
{
    char *tar[] = { (char *)tool_path, "-xf", (char *)archive, "-C", (char *)dir,
                    "--no-same-owner", "--no-same-permissions", NULL };
    char *unzip[] = { (char *)tool_path, "-qq", "-o", (char *)archive, "-d", (char *)dir, NULL };
    char *python[] = { (char *)tool_path, "-I", "-m", "zipfile", "-e", (char *)archive,
                       (char *)dir, NULL };
    cml_proc_result r;
    unpacked u = { dir, unpack_max_bytes(), 0, 0, 0 };
    const cml_watch_hook watch = { unpacked_too_much, &u };
    cml_run_watched(!strcmp(name, "tar") ? tar : !strcmp(name, "unzip") ? unzip : python, dir,
                    CML_UNPACK_TIMEOUT_S, 4096, &watch, &r);
    int too_much = r.watch_stopped || unpacked_too_much(&u); /* also what it left at the end */
    int ok = r.started && r.exited && r.exit_code == 0 && !r.timed_out && !too_much;
    if (too_much) {
        snprintf(why, len, "the archive unpacks to more than %llu MiB or %d files, or deeper "
                 "than %d folders (stopped at %llu MiB, %ld files%s): hand in the source files "
                 "only", (unsigned long long)(u.max_bytes >> 20), CML_UNPACK_MAX_ENTRIES,
                 CML_UNPACK_MAX_DEPTH, (unsigned long long)(u.bytes >> 20), u.entries,
                 u.too_deep ? ", too deep" : "");
        cml_rmtree(dir);
    } else if (!ok) {
        tool_failed(&r, name, why, len);
    }
    cml_proc_result_free(&r);
    return ok ? 0 : -1;
}

/* Contract in unpack.h. */
int cml_unpack(const char *archive, enum cml_archive kind, const char *dir, char *why,
               size_t len)
{
    char tool[CML_PATH];
    const char *name = NULL;
    if (kind == CML_ARCHIVE_NONE) {
        snprintf(why, len, "%.900s is not an archive this grader unpacks (.zip, .tar, .tar.gz, "
                 ".tgz, .tar.xz, .tar.bz2)", archive);
        return -1;
    }
    if (find_unpacker(kind, tool, sizeof tool, &name) < 0) {
        snprintf(why, len, "%s is not installed, so the archive was not unpacked: install it "
                 "(or unpack the archive yourself)", kind == CML_ARCHIVE_ZIP ? "neither unzip "
                 "nor python3" : "tar");
        return -1;
    }
    char *abs_archive = realpath(archive, NULL), *abs_dir = NULL;
    if (abs_archive && cml_rmtree(dir) == 0 && cml_mkdirs(dir) == 0)
        abs_dir = realpath(dir, NULL);
    int rc = -1;
    if (!abs_archive)
        snprintf(why, len, "cannot read the archive %.900s", archive);
    else if (!abs_dir)
        snprintf(why, len, "cannot create %.900s: is the output folder writable?", dir);
    else
        rc = unpack_watched(tool, name, abs_archive, abs_dir, why, len);
    free(abs_archive);
    free(abs_dir);
    return rc;
}

/* Contract in unpack.h. */
int cml_unpack_submission(const char *submission, const char *work, char *sub, size_t len,
                          int *unpacked, char *err, size_t errlen)
{
    struct stat st;
    const char *base = strrchr(submission, '/') ? strrchr(submission, '/') + 1 : submission;
    enum cml_archive kind = cml_archive_kind(base, NULL, 0);
    char why[512];
    *unpacked = 0;
    if (kind == CML_ARCHIVE_NONE || stat(submission, &st) < 0 || !S_ISREG(st.st_mode)) {
        if (cml_fmt(sub, len, "%s", submission) == 0)
            return 0; /* a folder: the finder's to search */
        snprintf(err, errlen, "the submission's path is too long: %.900s", submission);
        return -1;
    }
    if (cml_mkdirs(work) < 0 || cml_fmt(sub, len, "%s/submission-XXXXXX", work) < 0 ||
        !mkdtemp(sub)) {
        snprintf(err, errlen, "cannot create a folder under %.900s to unpack the submission "
                 "into: choose a writable --out", work);
        return -1;
    }
    if (cml_unpack(submission, kind, sub, why, sizeof why) < 0) {
        snprintf(err, errlen, "%.500s: %s", submission, why);
        cml_rmtree(sub);
        return -1;
    }
    *unpacked = 1;
    return 0;
}
