/* The download opened (one archive unpacked), a platform student's submission made into a
 * folder of its own (platform.h): Canvas's and Moodle's loose files gathered under their
 * original names, so staging finds them as in any student folder; and the identity kept
 * beside the student's grading record. */
#include "platform.h"
#include "unpack.h"
#include "batch.h"
#include "json_write.h"
#include "stage.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GATHER_MAX_FILE (64u << 20) /* copied as is: staging refuses what is over its own cap */

/* Whether item i of student s is superseded: another of its items has the same original name
 * and a higher re-upload number (Canvas's "-N": the newest upload wins). */
static int superseded(const cml_download *d, const cml_student_src *s, int i)
{
    const cml_item *a = &d->items[i];
    for (int j = s->first; j < s->first + s->count; j++) {
        const cml_item *b = &d->items[j];
        if (j != i && strcmp(a->original, b->original) == 0 &&
            (b->rank > a->rank || (b->rank == a->rank && j < i)))
            return 1;
    }
    return 0;
}

/* An original name safe to create in the student's folder: no '/', not "." or "..". */
static int safe_original(const char *name)
{
    return name[0] && !strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

/* Contract in platform.h. */
int cml_download_gather(const cml_download *d, int s, const char *dest, char *why, size_t len)
{
    const cml_student_src *st = &d->students[s];
    char src[CML_PATH], dst[CML_PATH], stem[256], err[512];
    int archive = -1;
    for (int i = st->first; i < st->first + st->count && archive < 0; i++)
        if (d->items[i].archive && !superseded(d, st, i))
            archive = i;
    if (archive >= 0) {
        const cml_item *a = &d->items[archive];
        enum cml_archive kind = cml_archive_kind(a->original, stem, sizeof stem);
        if (cml_fmt(src, sizeof src, "%s/%s", d->dir, a->file) < 0 ||
            cml_plan_extract(src, kind ? kind : CML_ARCHIVE_ZIP, dest, why, len) < 0)
            return -1;
    } else if (cml_rmtree(dest) < 0 || cml_mkdirs(dest) < 0) {
        snprintf(why, len, "not graded: cannot create %.200s", dest);
        return -1;
    }
    for (int i = st->first; i < st->first + st->count; i++) {
        const cml_item *it = &d->items[i];
        if (i == archive || it->is_dir || superseded(d, st, i))
            continue;
        const char *name = safe_original(it->original) ? it->original : it->file;
        if (cml_fmt(src, sizeof src, "%s/%s", d->dir, it->file) < 0 ||
            cml_fmt(dst, sizeof dst, "%s/%s", dest, name) < 0 ||
            cml_copy_file(src, dst, GATHER_MAX_FILE, err, sizeof err) < 0) {
            snprintf(why, len, "not graded: its file %.100s could not be gathered (%.200s)",
                     it->file, err);
            return -1;
        }
    }
    return 0;
}

/* Contract in platform.h. */
int cml_download_open(const char *submissions, const char *out, char *dir, size_t len,
                        char *err, size_t errlen)
{
    char stem[128], why[512] = "";
    struct stat st;
    /* absolute: tar and unzip run in the folder they unpack into */
    char *abs = submissions ? realpath(submissions, NULL) : NULL;
    int kind = abs && stat(abs, &st) == 0 && S_ISREG(st.st_mode)
                   ? cml_archive_kind(abs, stem, sizeof stem) : CML_ARCHIVE_NONE;
    int rc = abs && (kind || S_ISDIR(st.st_mode)) ? 0 : -1;
    if (rc < 0)
        snprintf(err, errlen, "cannot read the submissions folder %s: give --submissions a "
                 "folder with one folder or archive per student, or a course platform's "
                 "download (folder or .zip)", submissions ? submissions : "(none)");
    else if (!kind)
        snprintf(dir, len, "%s", abs);
    else if (cml_fmt(dir, len, "%s/download", out) < 0 ||
             cml_plan_extract(abs, kind, dir, why, sizeof why) < 0)
        rc = -1;
    if (rc < 0 && why[0])
        snprintf(err, errlen, "the download %s was not unpacked: %s", submissions, why + 12);
    free(abs);
    return rc;
}

static void write_identity(FILE *f, const void *ctx)
{
    const cml_identity *w = ctx;
    json_w j = { .f = f };
    jw_begin_object(&j, NULL);
    jw_string(&j, "platform", w->platform);
    jw_string(&j, "id", w->id);
    jw_string(&j, "name", w->display);
    jw_bool(&j, "late", w->late);
    jw_end_object(&j);
    fputc('\n', f);
}

/* Contract in platform.h. */
int cml_identity_save(const char *dir, const cml_identity *w)
{
    char path[CML_PATH];
    if (cml_mkdirs(dir) < 0 || cml_fmt(path, sizeof path, "%s/identity.json", dir) < 0)
        return -1;
    return cml_write_atomic(path, write_identity, w);
}
