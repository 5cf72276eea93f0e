/* Layout detection (platform.h): each name in a download is read as Canvas's, Moodle's or a
 * plain student folder or archive; the layout is the one all names share, and the students
 * are the names grouped by the platform's user id. */
#include "platform.h"
#include "unpack.h"
#include "batch.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { NAME_STRAY, NAME_PLAIN, NAME_CANVAS, NAME_MOODLE };

static const char *const NAMES[] = { "auto", "folders", "canvas", "moodle", "github" };

/* Contract in platform.h. */
int cml_platform_parse(const char *name)
{
    for (int i = 0; i < (int)(sizeof NAMES / sizeof NAMES[0]); i++)
        if (name && strcmp(name, NAMES[i]) == 0)
            return i;
    return -1;
}

/* Contract in platform.h. */
const char *cml_platform_name(cml_platform pf)
{
    return pf >= CML_PF_AUTO && pf <= CML_PF_GITHUB ? NAMES[pf] : "folders";
}

/* The digits at *p up to a '_' (skipped): copied to id; 0, or -1 when not there. */
static int take_id(const char **p, char *id, size_t len)
{
    size_t n = strspn(*p, "0123456789");
    if (n == 0 || n >= len || (*p)[n] != '_')
        return -1;
    snprintf(id, len, "%.*s", (int)n, *p);
    *p += n + 1;
    return 0;
}

/* Canvas: "name[_LATE]_userid_submissionid_original", the name without '_'. */
static int parse_canvas(const char *f, cml_identity *w, cml_item *it)
{
    const char *p = strchr(f, '_');
    char sub[64];
    if (!p || p == f || p - f >= (long)sizeof w->display)
        return -1;
    snprintf(w->display, sizeof w->display, "%.*s", (int)(p - f), f);
    p++;
    w->late = strncasecmp(p, "LATE_", 5) == 0;
    p += w->late ? 5 : 0;
    if (take_id(&p, w->id, sizeof w->id) < 0 || take_id(&p, sub, sizeof sub) < 0 || !p[0])
        return -1;
    snprintf(it->original, sizeof it->original, "%s", p);
    /* a re-upload of a name the student already had: Canvas adds "-N" before the extension */
    char *dot = strrchr(it->original, '.'), *end = dot ? dot : it->original + strlen(it->original);
    char *dash = end;
    while (dash > it->original && isdigit((unsigned char)dash[-1]))
        dash--;
    if (dash < end && dash - 1 > it->original && dash[-1] == '-') {
        it->rank = atoi(dash);
        memmove(dash - 1, end, strlen(end) + 1);
    }
    snprintf(w->platform, sizeof w->platform, "canvas");
    return 0;
}

/* Moodle: "Full Name_participantid_assignsubmission_PLUGIN[_[original]]" (the full name holds
 * no '_': Moodle writes them as spaces). *plugin_file: the plugin is "file". */
static int parse_moodle(const char *f, int is_dir, cml_identity *w, cml_item *it,
                        int *plugin_file)
{
    static const char MARK[] = "assignsubmission_";
    const char *p = strchr(f, '_');
    if (!p || p == f || p - f >= (long)sizeof w->display)
        return -1;
    snprintf(w->display, sizeof w->display, "%.*s", (int)(p - f), f);
    p++;
    if (take_id(&p, w->id, sizeof w->id) < 0 || strncmp(p, MARK, sizeof MARK - 1) != 0)
        return -1;
    p += sizeof MARK - 1;
    size_t plugin = strspn(p, "abcdefghijklmnopqrstuvwxyz");
    const char *rest = p + plugin + (p[plugin] == '_');
    if (plugin == 0 || (p[plugin] && p[plugin] != '_') || (is_dir ? rest[0] : !rest[0]))
        return -1;
    *plugin_file = plugin == 4 && strncmp(p, "file", 4) == 0;
    snprintf(it->original, sizeof it->original, "%s", is_dir ? f : rest);
    snprintf(w->platform, sizeof w->platform, "moodle");
    return 0;
}

/* A name of the download read by the rules: which kind, with its identity and item. */
static int classify(const char *dir, const char *name, cml_identity *w, cml_item *it,
                    int *use)
{
    char path[4096], stem[256];
    struct stat st;
    memset(w, 0, sizeof *w);
    memset(it, 0, sizeof *it);
    *use = 1;
    if (name[0] == '.' || strcmp(name, "__MACOSX") == 0 ||
        cml_fmt(path, sizeof path, "%s/%s", dir, name) < 0 || stat(path, &st) < 0)
        return NAME_STRAY;
    it->is_dir = S_ISDIR(st.st_mode);
    it->archive = S_ISREG(st.st_mode) &&
                  cml_archive_kind(name, stem, sizeof stem) != CML_ARCHIVE_NONE;
    snprintf(it->file, sizeof it->file, "%s", name);
    if (S_ISREG(st.st_mode) && parse_canvas(name, w, it) == 0)
        return NAME_CANVAS;
    memset(w, 0, sizeof *w);
    it->rank = 0;
    if ((S_ISREG(st.st_mode) || it->is_dir) && parse_moodle(name, it->is_dir, w, it, use) == 0)
        return NAME_MOODLE;
    memset(w, 0, sizeof *w);
    snprintf(w->platform, sizeof w->platform, "folders");
    snprintf(w->display, sizeof w->display, "%s", it->archive ? stem : name);
    snprintf(it->original, sizeof it->original, "%s", name);
    return it->is_dir || it->archive ? NAME_PLAIN : NAME_STRAY;
}

/* GitHub Classroom's "assignment-" prefix shared by every plain folder: the longest common
 * prefix cut after its last '-', each name longer than it. Its length, or 0 when none. */
static size_t classroom_prefix(const cml_download *d, const int *kind)
{
    const char *first = NULL;
    size_t n = 0;
    for (int i = 0; i < d->nitems; i++) {
        if (kind[i] != NAME_PLAIN || !d->items[i].is_dir)
            continue;
        const char *f = d->items[i].file;
        if (!first)
            first = f, n = strlen(f);
        for (size_t k = 0; k < n; k++)
            if (f[k] != first[k])
                n = k;
    }
    while (n > 0 && first[n - 1] != '-')
        n--;
    for (int i = 0; n && i < d->nitems; i++)
        if (kind[i] == NAME_PLAIN && d->items[i].is_dir && strlen(d->items[i].file) <= n)
            n = 0;
    return n;
}

/* Whether the folder dir/name holds a .git (a clone). */
static int is_clone(const char *dir, const char *name)
{
    char path[4096];
    struct stat st;
    return cml_fmt(path, sizeof path, "%s/%s/.git", dir, name) == 0 && stat(path, &st) == 0;
}

/* The layout from the kinds of names found (AUTO when forced is AUTO: detect). */
static cml_platform decide(cml_download *d, cml_platform forced, const int *kind)
{
    int count[4] = { 0 }, clones = 0, folders = 0;
    for (int i = 0; i < d->nitems; i++) {
        count[kind[i]]++;
        folders += kind[i] == NAME_PLAIN && d->items[i].is_dir;
        clones += kind[i] == NAME_PLAIN && d->items[i].is_dir && is_clone(d->dir, d->items[i].file);
    }
    if (forced != CML_PF_AUTO)
        return forced;
    int layouts = !!count[NAME_PLAIN] + !!count[NAME_CANVAS] + !!count[NAME_MOODLE];
    d->mixed = layouts > 1;
    if (layouts != 1)
        return CML_PF_FOLDERS;
    if (count[NAME_CANVAS])
        return CML_PF_CANVAS;
    if (count[NAME_MOODLE])
        return CML_PF_MOODLE;
    return folders == count[NAME_PLAIN] && folders >= 2 && clones > 0 &&
           classroom_prefix(d, kind) ? CML_PF_GITHUB : CML_PF_FOLDERS;
}

/* The plan entry's name from a platform name: the name as the platform wrote it, then "_id"
 * ("Émile Zoë", 20001: "Émile Zoë_20001"); the plan makes it a folder name (cml_folder_name:
 * "Emile_Zoe_20001"), the one place names are transliterated. */
static void entry_base(const cml_identity *w, char *out, size_t len)
{
    int id = w->id[0] && strcmp(w->platform, "github") != 0;
    snprintf(out, len, "%s%s%s", w->display, id ? "_" : "", id ? w->id : "");
}

/* The student of item i: the existing one with the same id (grouped platforms), else new. */
static int student_of(cml_download *d, const cml_identity *w, int group)
{
    for (int s = 0; group && s < d->nstudents; s++)
        if (strcmp(d->students[s].who.platform, w->platform) == 0 &&
            strcmp(d->students[s].who.id, w->id) == 0) {
            d->students[s].who.late |= w->late;
            return s;
        }
    cml_student_src *s = &d->students[d->nstudents];
    memset(s, 0, sizeof *s);
    s->who = *w;
    entry_base(w, s->base, sizeof s->base);
    return d->nstudents++;
}

static int by_student(const void *a, const void *b)
{
    const cml_item *x = a, *y = b;
    return x->student != y->student ? x->student - y->student : strcmp(x->file, y->file);
}

/* Item it read by the plain rule: a student folder or archive named by the student (0), or
 * nothing to grade (-1). GitHub Classroom folders drop the assignment prefix of `skip` bytes. */
static int plain(cml_item *it, cml_identity *w, cml_platform layout, size_t skip)
{
    char stem[256];
    memset(w, 0, sizeof *w);
    it->rank = 0;
    snprintf(it->original, sizeof it->original, "%.255s", it->file);
    if (!it->is_dir && !it->archive)
        return -1;
    if (it->archive)
        cml_archive_kind(it->file, stem, sizeof stem);
    snprintf(w->display, sizeof w->display, "%.255s", it->archive ? stem : it->file);
    snprintf(w->platform, sizeof w->platform, "folders");
    if (layout == CML_PF_GITHUB && it->is_dir) {
        snprintf(w->platform, sizeof w->platform, "github");
        snprintf(w->id, sizeof w->id, "%s", it->file + skip);
        snprintf(w->display, sizeof w->display, "%s", w->id);
    }
    return 0;
}

/* A Moodle student's one folder that holds a single archive and nothing else: that archive
 * becomes the item, to be unpacked like any student archive. */
static void moodle_archive_inside(const char *dir, cml_item *it)
{
    char path[4096], stem[256], only[256] = "";
    int n = 0;
    DIR *dp = cml_fmt(path, sizeof path, "%s/%s", dir, it->file) == 0 ? opendir(path) : NULL;
    for (struct dirent *e; dp && (e = readdir(dp));)
        if (e->d_name[0] != '.' && n++ == 0)
            snprintf(only, sizeof only, "%s", e->d_name);
    if (dp)
        closedir(dp);
    if (n == 1 && cml_archive_kind(only, stem, sizeof stem) != CML_ARCHIVE_NONE &&
        cml_fmt(path, sizeof path, "%s/%s", it->file, only) == 0 && strlen(path) < sizeof it->file) {
        snprintf(it->file, sizeof it->file, "%s", path);
        it->is_dir = 0;
        it->archive = 1;
    }
}

/* Every kept item to its student, then the items grouped by student. */
static void group(cml_download *d, const int *kind, cml_identity *who, const int *use)
{
    size_t skip = d->layout == CML_PF_GITHUB ? classroom_prefix(d, kind) : 0;
    int k = 0;
    for (int i = 0; i < d->nitems; i++) {
        cml_item it = d->items[i];
        /* a mixed download (a course's downloads poured into one folder) reads each name as
         * its own platform names it, so a Canvas file keeps its student and a Moodle folder
         * its name; a forced layout reads only its own platform's names so */
        int platform_name = (kind[i] == NAME_CANVAS && (d->layout == CML_PF_CANVAS || d->mixed)) ||
                            (kind[i] == NAME_MOODLE && (d->layout == CML_PF_MOODLE || d->mixed));
        if (platform_name && !use[i])
            continue; /* Moodle's online text or comments: not source files */
        if (!platform_name && plain(&it, &who[i], d->layout, skip) < 0)
            continue;
        it.student = student_of(d, &who[i], platform_name);
        d->items[k++] = it;
    }
    d->nitems = k;
    qsort(d->items, (size_t)k, sizeof *d->items, by_student);
    for (int i = 0; i < k; i++) {
        cml_student_src *s = &d->students[d->items[i].student];
        s->first = s->count++ ? s->first : i;
    }
    for (int s = 0; s < d->nstudents; s++) {
        cml_student_src *st = &d->students[s];
        cml_item *it = &d->items[st->first];
        st->gather = strcmp(st->who.platform, "canvas") == 0 ||
                     (strcmp(st->who.platform, "moodle") == 0 && !(st->count == 1 && it->is_dir));
        if (strcmp(st->who.platform, "moodle") == 0 && !st->gather)
            moodle_archive_inside(d->dir, it);
    }
}

/* Contract in platform.h. */
int cml_download_scan(const char *dir, cml_platform forced, cml_download *d, char *err,
                      size_t errlen)
{
    struct dirent **list = NULL;
    memset(d, 0, sizeof *d);
    snprintf(d->dir, sizeof d->dir, "%s", dir);
    int n = scandir(dir, &list, NULL, alphasort);
    int *kind = n >= 0 ? calloc((size_t)n + 1, 2 * sizeof *kind) : NULL;
    cml_identity *who = n >= 0 ? calloc((size_t)n + 1, sizeof *who) : NULL;
    d->items = n >= 0 ? calloc((size_t)n + 1, sizeof *d->items) : NULL;
    d->students = n >= 0 ? calloc((size_t)n + 1, sizeof *d->students) : NULL;
    int ok = kind && who && d->items && d->students;
    for (int i = 0; i < n; i++) {
        int *use = kind + n + 1 + d->nitems;
        if (ok && (kind[d->nitems] = classify(dir, list[i]->d_name, &who[d->nitems],
                                              &d->items[d->nitems], use)) != NAME_STRAY)
            d->nitems++;
        free(list[i]);
    }
    free(list);
    if (ok) {
        d->layout = decide(d, forced, kind);
        group(d, kind, who, kind + n + 1);
    }
    free(kind);
    free(who);
    if (!ok || d->nstudents == 0) {
        snprintf(err, errlen, n < 0 ? "cannot read the submissions folder %s: give --submissions "
                 "a folder or a course platform's download (.zip)" : !ok ? "out of memory "
                 "reading %s" : "no submission in %s (one folder or .zip/.tar/.tar.gz per "
                 "student, or a Canvas, Moodle or GitHub Classroom download)", dir);
        cml_download_free(d);
        return -1;
    }
    return 0;
}

/* Contract in platform.h. */
void cml_download_free(cml_download *d)
{
    free(d->items);
    free(d->students);
    d->items = NULL;
    d->students = NULL;
    d->nitems = d->nstudents = 0;
}
