/* The batch's plan (batch.h): which submissions, under which names and seeds. Archives are
 * unpacked by tar or unzip into a fresh folder of their own; staging later copies only the
 * whitelisted regular files out of it, so what an archive holds beyond them never matters. */
#include "batch.h"
#include "cml.h"
#include "platform.h"
#include "unpack.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Contract in batch.h. */
uint64_t cml_random_seed(void)
{
    uint64_t s = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, &s, sizeof s) != (ssize_t)sizeof s)
        s = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid();
    if (fd >= 0)
        close(fd);
    return s & ((1ull << 53) - 1); /* exact as a JSON number too */
}

/* name as a folder name (cml_folder_name), unique in p: a name another student's already
 * took gets "-2", then "-3", ... ("Émile" and "Emile" become Emile and Emile-2). */
static void safe_name(const char *name, const cml_plan *p, char *out, size_t len)
{
    char base[100];
    cml_folder_name(name, base, sizeof base);
    snprintf(out, len, "%s", base);
    for (int k = 2, clash = 1; clash; k++) {
        clash = 0;
        for (int j = 0; j < p->n && !clash; j++)
            clash = strcmp(p->e[j].name, out) == 0;
        if (clash)
            snprintf(out, len, "%.100s-%d", base, k);
    }
}

/* Add student s of download d to the plan: a folder as it is, an archive unpacked, loose
 * platform files gathered (platform.h); its identity kept with it. */
static void add_entry(cml_plan *p, const cml_download *d, int s, const char *out)
{
    const cml_student_src *st = &d->students[s];
    const cml_item *it = &d->items[st->first];
    char stem[128];
    enum cml_archive kind = !st->gather && it->archive
                            ? cml_archive_kind(it->file, stem, sizeof stem) : CML_ARCHIVE_NONE;
    cml_plan_entry *e = &p->e[p->n];
    memset(e, 0, sizeof *e);
    e->who = st->who;
    safe_name(st->base, p, e->name, sizeof e->name);
    cml_display_name(st->who.display[0] ? st->who.display : st->base, e->display,
                     sizeof e->display);
    e->seed = cml_random_seed();
    char src[CML_PATH]; /* the item; from: its top-level name in the download */
    cml_fmt(src, sizeof src, "%s/%s", d->dir, it->file);
    cml_fmt(e->from, sizeof e->from, "%s/%.*s", d->dir, (int)strcspn(it->file, "/"), it->file);
    /* plan.tsv is tab-separated, one entry a line */
    if (strpbrk(src, "\t\n\r") || strpbrk(st->who.display, "\t\n\r")) {
        snprintf(e->unusable, sizeof e->unusable, "not graded: its name holds a tab or a line "
                 "break; rename it");
    } else if (!st->gather && !kind) {
        char *real = realpath(src, NULL);
        snprintf(e->path, sizeof e->path, "%s", real ? real : src);
        free(real);
    } else if (cml_fmt(e->path, sizeof e->path, "%s/extracted/%s", out, e->name) < 0 ||
               (st->gather
                    ? cml_download_gather(d, s, e->path, e->unusable, sizeof e->unusable)
                    : cml_plan_extract(src, kind, e->path, e->unusable, sizeof e->unusable)) < 0) {
        if (!e->unusable[0])
            snprintf(e->unusable, sizeof e->unusable, "not graded: path too long");
    }
    p->n++;
}

/* Write the plan as out/plan.tsv (unusable entries keep their reason in a fifth column). */
static int plan_save(const char *out, const cml_plan *p)
{
    char path[CML_PATH], tmp[CML_PATH];
    if (cml_fmt(path, sizeof path, "%s/plan.tsv", out) < 0 ||
        cml_fmt(tmp, sizeof tmp, "%s.tmp", path) < 0)
        return -1;
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    for (int i = 0; i < p->n; i++) {
        const cml_identity *w = &p->e[i].who;
        fprintf(f, "%d\t%s\t%s\t%" PRIu64 "\t%s\t%s\t%s\t%s\t%d\t%s\n", i, p->e[i].name,
                p->e[i].path, p->e[i].seed, p->e[i].unusable, w->platform, w->id, w->display,
                w->late, p->e[i].from);
    }
    return fclose(f) == 0 && rename(tmp, path) == 0 ? 0 : -1;
}

/* The identity columns 6-10 of a plan.tsv line into e; a plan written before them: a plain
 * student named by the entry. */
static void plan_identity(cml_plan_entry *e, char *const *field, int k)
{
    snprintf(e->who.platform, sizeof e->who.platform, "%s", k > 5 && field[5][0] ? field[5]
                                                                              : "folders");
    snprintf(e->who.id, sizeof e->who.id, "%s", k > 6 ? field[6] : "");
    snprintf(e->who.display, sizeof e->who.display, "%s", k > 7 ? field[7] : e->name);
    e->who.late = k > 8 && atoi(field[8]) != 0;
    snprintf(e->from, sizeof e->from, "%s", k > 9 ? field[9] : "");
}

/* Contract in batch.h. */
int cml_plan_load(const char *out, cml_plan *p, char *err, size_t errlen)
{
    char path[CML_PATH], line[5000];
    memset(p, 0, sizeof *p);
    FILE *f = cml_fmt(path, sizeof path, "%s/plan.tsv", out) == 0 ? fopen(path, "r") : NULL;
    p->e = calloc(CML_BATCH_MAX, sizeof *p->e);
    if (!f || !p->e) {
        snprintf(err, errlen, "no plan in %s (%s): run cml-grade batch or slurm with "
                 "--submissions first", out, f ? "out of memory" : strerror(errno));
        if (f)
            fclose(f);
        cml_plan_free(p);
        return -1;
    }
    while (p->n < CML_BATCH_MAX && fgets(line, sizeof line, f)) {
        cml_plan_entry *e = &p->e[p->n];
        char *field[10] = { line }, *rest = line;
        int k = 0;
        line[strcspn(line, "\n")] = '\0';
        while (rest && k < 10) /* empty fields count: columns 6-10 came later (platform.h) */
            field[k++] = strsep(&rest, "\t");
        if (k < 4)
            continue;
        snprintf(e->name, sizeof e->name, "%s", field[1]);
        snprintf(e->path, sizeof e->path, "%s", field[2]);
        e->seed = strtoull(field[3], NULL, 10);
        snprintf(e->unusable, sizeof e->unusable, "%s", k > 4 ? field[4] : "");
        plan_identity(e, field, k);
        cml_display_name(e->who.display[0] ? e->who.display : e->name, e->display,
                         sizeof e->display);
        p->n++;
    }
    fclose(f);
    return 0;
}

/* Contract in batch.h. */
int cml_plan_make(const char *submissions, const char *out, cml_plan *p, char *err,
                  size_t errlen)
{
    return cml_plan_make_for(submissions, out, CML_PF_AUTO, p, err, errlen);
}

/* Contract in batch.h. */
int cml_plan_make_for(const char *submissions, const char *out, cml_platform forced,
                      cml_plan *p, char *err, size_t errlen)
{
    char path[CML_PATH], dir[CML_PATH];
    cml_download d;
    if (cml_fmt(path, sizeof path, "%s/plan.tsv", out) == 0 && access(path, F_OK) == 0)
        return cml_plan_load(out, p, err, errlen); /* resumed: same names, same seeds */
    memset(p, 0, sizeof *p);
    if (cml_mkdirs(out) < 0) {
        snprintf(err, errlen, "cannot create the output folder %s", out);
        return -1;
    }
    if (cml_download_open(submissions, out, dir, sizeof dir, err, errlen) < 0 ||
        cml_download_scan(dir, forced, &d, err, errlen) < 0)
        return -1;
    p->e = calloc(CML_BATCH_MAX, sizeof *p->e);
    for (int s = 0; p->e && s < d.nstudents && p->n < CML_BATCH_MAX; s++)
        add_entry(p, &d, s, out);
    fprintf(stderr, "batch: %s layout, %d student(s)%s\n", cml_platform_name(d.layout), p->n,
            d.mixed ? " (the download mixes layouts: each name is read as its platform writes "
            "it, the rest as plain folders and archives; --platform chooses one)" : "");
    cml_download_free(&d);
    for (int i = 0; i < p->n; i++)
        if (cml_fmt(path, sizeof path, "%s/students/%s", out, p->e[i].name) == 0)
            cml_identity_save(path, &p->e[i].who);
    if (!p->e || plan_save(out, p) < 0) {
        snprintf(err, errlen, "cannot write %s/plan.tsv: is the output folder writable?", out);
        return -1;
    }
    return 0;
}

/* Contract in batch.h. */
void cml_plan_free(cml_plan *p)
{
    free(p->e);
    p->e = NULL;
    p->n = 0;
}
