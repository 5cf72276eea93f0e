/* The batch's plan (batch.h): which submissions, under which names and seeds. Archives are
 * unpacked (unpack.h) into a fresh folder of their own; staging later copies only the
 * whitelisted regular files out of it, so what an archive holds beyond them never matters. */
#include "batch.h"
#include "cml.h"
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

/* name with everything outside [A-Za-z0-9._-] as '_', never "." or "..", unique in p. */
static void safe_name(const char *name, const cml_plan *p, char *out, size_t len)
{
    char base[100];
    size_t i = 0;
    for (; name[i] && i < sizeof base - 1; i++) {
        char c = name[i];
        base[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '-' || c == '_' ? c : '_';
    }
    base[i] = '\0';
    if (base[0] == '.' || !base[0])
        base[0] = '_';
    snprintf(out, len, "%s", base);
    for (int k = 2, clash = 1; clash; k++) {
        clash = 0;
        for (int j = 0; j < p->n && !clash; j++)
            clash = strcmp(p->e[j].name, out) == 0;
        if (clash)
            snprintf(out, len, "%.100s-%d", base, k);
    }
}

/* Unpack archive (of kind) into dir for the plan: 0, or -1 with why as an unusable entry's
 * reason. The module below the batch (unpack.h) does the work and keeps the caps. */
static int extract(const char *archive, enum cml_archive kind, const char *dir, char *why,
                   size_t len)
{
    char because[sizeof ((cml_plan_entry *)0)->unusable];
    if (cml_unpack(archive, kind, dir, because, sizeof because) == 0)
        return 0;
    snprintf(why, len, "not graded: %.230s", because);
    return -1;
}

/* Add directory entry `d` of folder `from` to the plan (a folder, or an archive unpacked). */
static void add_entry(cml_plan *p, const char *from, const char *d, const char *out)
{
    char path[CML_PATH], stem[128];
    struct stat st;
    if (d[0] == '.' || cml_fmt(path, sizeof path, "%s/%s", from, d) < 0 ||
        stat(path, &st) < 0)
        return;
    enum cml_archive kind = S_ISREG(st.st_mode) ? cml_archive_kind(d, stem, sizeof stem)
                                                : CML_ARCHIVE_NONE;
    if (!S_ISDIR(st.st_mode) && !kind)
        return; /* a stray file in the export: not a submission */
    cml_plan_entry *e = &p->e[p->n];
    memset(e, 0, sizeof *e);
    safe_name(kind ? stem : d, p, e->name, sizeof e->name);
    e->seed = cml_random_seed();
    if (strpbrk(path, "\t\n\r")) { /* plan.tsv is tab-separated, one entry a line */
        snprintf(e->unusable, sizeof e->unusable, "not graded: its name holds a tab or a line "
                 "break; rename it");
    } else if (!kind) {
        char *real = realpath(path, NULL);
        snprintf(e->path, sizeof e->path, "%s", real ? real : path);
        free(real);
    } else if (cml_fmt(e->path, sizeof e->path, "%s/extracted/%s", out, e->name) < 0 ||
               extract(path, kind, e->path, e->unusable, sizeof e->unusable) < 0) {
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
    for (int i = 0; i < p->n; i++)
        fprintf(f, "%d\t%s\t%s\t%" PRIu64 "\t%s\n", i, p->e[i].name, p->e[i].path, p->e[i].seed,
                p->e[i].unusable);
    return fclose(f) == 0 && rename(tmp, path) == 0 ? 0 : -1;
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
        char *field[5] = { line }, *save = NULL;
        int k = 0;
        line[strcspn(line, "\n")] = '\0';
        for (char *t = strtok_r(line, "\t", &save); t && k < 5; t = strtok_r(NULL, "\t", &save))
            field[k++] = t;
        if (k < 4)
            continue;
        snprintf(e->name, sizeof e->name, "%s", field[1]);
        snprintf(e->path, sizeof e->path, "%s", field[2]);
        e->seed = strtoull(field[3], NULL, 10);
        snprintf(e->unusable, sizeof e->unusable, "%s", k > 4 ? field[4] : "");
        p->n++;
    }
    fclose(f);
    return 0;
}

/* Contract in batch.h. */
int cml_plan_make(const char *submissions, const char *out, cml_plan *p, char *err,
                  size_t errlen)
{
    char path[CML_PATH];
    if (cml_fmt(path, sizeof path, "%s/plan.tsv", out) == 0 && access(path, F_OK) == 0)
        return cml_plan_load(out, p, err, errlen); /* resumed: same names, same seeds */
    memset(p, 0, sizeof *p);
    struct dirent **list = NULL;
    /* absolute: tar and unzip run in the folder they unpack into */
    char *abs = submissions ? realpath(submissions, NULL) : NULL;
    int n = abs ? scandir(abs, &list, NULL, alphasort) : -1;
    p->e = calloc(CML_BATCH_MAX, sizeof *p->e);
    if (n < 0 || !p->e || cml_mkdirs(out) < 0) {
        snprintf(err, errlen, n < 0 ? "cannot read the submissions folder %s: give "
                 "--submissions a folder with one folder or archive per student"
                 : "cannot create the output folder %s", n < 0 ? submissions : out);
        free(p->e);
        p->e = NULL;
        free(abs);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (p->n < CML_BATCH_MAX)
            add_entry(p, abs, list[i]->d_name, out);
        free(list[i]);
    }
    free(list);
    free(abs);
    if (p->n == 0) {
        snprintf(err, errlen, "no submission in %s (one folder or .zip/.tar/.tar.gz per "
                 "student)", submissions);
        return -1;
    }
    if (plan_save(out, p) < 0) {
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
