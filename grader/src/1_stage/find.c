/* Find a lab's student files in a submission of any common shape (find.h). One bounded walk
 * per lab ranks every entry named like one of its files; the ranks are the whole rule, so a
 * student can be told it in two sentences (README.md, CLASS_GUIDE.md). */
#include "find.h"
#include "util.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define RANK_FLAT 1000 /* added to a flat candidate's depth: any <lab>/<file> ranks above it */

/* One file's best candidates so far: the best (rank, relative path) and a different file of
 * the same rank, if any. */
typedef struct {
    int rank;             /* lower is better; -1: none yet */
    char best[CML_PATH];  /* relative to the submission */
    char tie[CML_PATH];   /* "" unless a different file of the same rank was seen */
} candidates;

/* The walk's state: the lab, its files' candidates, what was looked at. */
typedef struct {
    const char *sub;
    const cml_lab_spec *spec;
    candidates *c;        /* spec->nfiles of them */
    long entries;
    char link[CML_PATH];  /* the first symbolic link named like the lab's folder */
} walk;

/* Entries never searched: hidden ones (.git/, .DS_Store, macOS's ._name AppleDouble files)
 * and the __MACOSX/ folder macOS's Finder adds to a zip. */
static int junk(const char *name)
{
    return name[0] == '.' || strcmp(name, "__MACOSX") == 0;
}

/* Whether the files sub/a and sub/b hold the same bytes (both regular, read whole). */
static int same_contents(const char *sub, const char *a, const char *b)
{
    char pa[CML_PATH], pb[CML_PATH];
    struct stat sa, sb;
    if (cml_fmt(pa, sizeof pa, "%s/%s", sub, a) < 0 || cml_fmt(pb, sizeof pb, "%s/%s", sub, b) < 0 ||
        lstat(pa, &sa) < 0 || lstat(pb, &sb) < 0 || !S_ISREG(sa.st_mode) ||
        !S_ISREG(sb.st_mode) || sa.st_size != sb.st_size)
        return 0;
    size_t na = 0, nb = 0, cap = (size_t)sa.st_size + 1;
    char *ta = cml_read_text(pa, cap, &na), *tb = cml_read_text(pb, cap, &nb);
    int same = ta && tb && na == nb && memcmp(ta, tb, na) == 0;
    free(ta);
    free(tb);
    return same;
}

/* Entry rel (named name, in a folder named parent, depth folders below the top) as a
 * candidate for every file of the lab it is named after. */
static void consider(walk *w, const char *rel, const char *name, const char *parent, int depth)
{
    for (int k = 0; k < w->spec->nfiles; k++) {
        candidates *c = &w->c[k];
        if (strcmp(name, w->spec->files[k]) != 0)
            continue;
        int rank = depth + (parent && strcmp(parent, w->spec->lab) == 0 ? 0 : RANK_FLAT);
        if (c->rank < 0 || rank < c->rank) {
            c->rank = rank;
            snprintf(c->best, sizeof c->best, "%s", rel);
            c->tie[0] = '\0';
        } else if (rank == c->rank && !c->tie[0] && !same_contents(w->sub, c->best, rel)) {
            snprintf(c->tie, sizeof c->tie, "%s", rel);
        }
    }
}

/* Walk folder rel ("" for the top; named parent) of the submission, depth folders down:
 * every entry is considered, folders are entered while the depth allows, links never.
 * 0, or -1 with err set (too many entries, or the top folder unreadable). */
static int walk_folder(walk *w, const char *rel, const char *parent, int depth, char *err,
                       size_t errlen)
{
    char dir[CML_PATH], child[CML_PATH], path[CML_PATH];
    struct dirent **list = NULL;
    if (cml_fmt(dir, sizeof dir, "%s%s%s", w->sub, rel[0] ? "/" : "", rel) < 0)
        return 0; /* a path too long to name holds no file a student meant to hand in */
    int n = scandir(dir, &list, NULL, alphasort), rc = 0;
    if (n < 0 && depth == 0) {
        snprintf(err, errlen, "cannot read the submission folder %.900s: give --submission a "
                 "folder or an archive (.zip, .tar, .tar.gz, .tgz)", w->sub);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        struct stat st;
        int skip = rc < 0 || !strcmp(name, ".") || !strcmp(name, "..") || junk(name);
        if (!skip && ++w->entries > CML_FIND_MAX_ENTRIES) {
            snprintf(err, errlen, "the submission holds more than %d files and folders: hand "
                     "in the lab files only", CML_FIND_MAX_ENTRIES);
            rc = -1;
        } else if (!skip &&
                   cml_fmt(child, sizeof child, "%s%s%s", rel, rel[0] ? "/" : "", name) == 0 &&
                   cml_fmt(path, sizeof path, "%s/%s", w->sub, child) == 0 &&
                   lstat(path, &st) == 0) {
            consider(w, child, name, parent, depth);
            if (S_ISLNK(st.st_mode) && !w->link[0] && strcmp(name, w->spec->lab) == 0)
                snprintf(w->link, sizeof w->link, "%s", child);
            if (S_ISDIR(st.st_mode) && depth + 1 <= CML_FIND_MAX_DEPTH)
                rc = walk_folder(w, child, name, depth + 1, err, errlen);
        }
        free(list[i]);
    }
    free(list);
    return rc;
}

/* The error for file k's search, if it found one to refuse: ambiguity or a link. 0 if none. */
static int refuse(const walk *w, int k, char *err, size_t errlen)
{
    const candidates *c = &w->c[k];
    const char *file = w->spec->files[k];
    char path[CML_PATH];
    struct stat st;
    if (c->rank >= 0 && c->tie[0]) {
        snprintf(err, errlen, "two different %s in the submission, %.900s and %.900s: keep only "
                 "the one to grade (delete or rename the other)", file, c->best, c->tie);
        return -1;
    }
    if (c->rank >= 0 && cml_fmt(path, sizeof path, "%s/%s", w->sub, c->best) == 0 &&
        lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        snprintf(err, errlen, "%.900s is a symbolic link, which is never followed: hand in the "
                 "file itself", c->best);
        return -1;
    }
    if (c->rank < 0 && w->link[0]) {
        snprintf(err, errlen, "%s not found: %.900s is a symbolic link, which is never "
                 "followed: hand in the real folder", file, w->link);
        return -1;
    }
    return 0;
}

/* The "not handed in" message naming every file of the lab with no candidate. */
static void missing_message(const walk *w, char *err, size_t errlen)
{
    size_t len = (size_t)snprintf(err, errlen, "not handed in: ");
    int first = -1;
    for (int k = 0; k < w->spec->nfiles && len < errlen; k++)
        if (w->c[k].rank < 0) {
            len += (size_t)snprintf(err + len, errlen - len, "%s%s", first < 0 ? "" : ", ",
                                    w->spec->files[k]);
            first = first < 0 ? k : first;
        }
    if (len < errlen)
        snprintf(err + len, errlen - len, " is nowhere in the submission: put %s in a folder "
                 "named %s (%s/%s), or at the submission's top",
                 w->spec->nfiles > 1 ? "each file" : "it", w->spec->lab, w->spec->lab,
                 w->spec->files[first]);
}

/* Contract in find.h. */
int cml_find_lab_files(const char *sub, const cml_lab_spec *spec, char (*paths)[CML_PATH],
                       char *err, size_t errlen)
{
    walk w = { sub, spec, calloc((size_t)spec->nfiles + 1, sizeof *w.c), 0, "" };
    int rc = 0, missing = 0;
    if (!w.c) {
        snprintf(err, errlen, "out of memory searching the submission");
        return -1;
    }
    for (int k = 0; k < spec->nfiles; k++)
        w.c[k].rank = -1;
    if (walk_folder(&w, "", NULL, 0, err, errlen) < 0)
        rc = -1;
    for (int k = 0; rc == 0 && k < spec->nfiles; k++) {
        rc = refuse(&w, k, err, errlen);
        missing |= w.c[k].rank < 0;
        if (rc == 0 && w.c[k].rank >= 0 &&
            cml_fmt(paths[k], CML_PATH, "%s/%s", sub, w.c[k].best) < 0) {
            snprintf(err, errlen, "path too long in the submission: %.900s", w.c[k].best);
            rc = -1;
        }
    }
    if (rc == 0 && missing) {
        missing_message(&w, err, errlen);
        rc = CML_FIND_MISSING;
    }
    free(w.c);
    return rc;
}
