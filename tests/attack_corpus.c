/* The attack corpus (attack_corpus.h): finding the attacks, turning one into a submission
 * folder with the planted machinery plus the placeholders, and the checksums the attack tests
 * take before and after a grading. */
#include "attack_corpus.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"
#include "util.h"

#define MAX_SOURCE (4u << 20)

/* Contract in attack_corpus.h. */
int attack_find(const planted_bug **out)
{
    static planted_bug attacks[ATTACK_MAX];
    static int n = -1;
    if (n < 0)
        n = planted_find(test_path("tests/attacks/gpu"), attacks, ATTACK_MAX);
    *out = attacks;
    return n;
}

/* text with every `from` replaced by `to` (malloc'd). */
static char *replace_all(const char *text, const char *from, const char *to)
{
    size_t nf = strlen(from), nt = strlen(to), count = 0;
    for (const char *p = strstr(text, from); p; p = strstr(p + nf, from))
        count++;
    char *out = malloc(strlen(text) + count * (nt > nf ? nt - nf : 0) + 1), *w = out;
    if (!out)
        return NULL;
    for (const char *p = text, *hit; *p; p = hit + nf) {
        hit = strstr(p, from);
        size_t keep = hit ? (size_t)(hit - p) : strlen(p);
        memcpy(w, p, keep), w += keep;
        if (!hit)
            break;
        memcpy(w, to, nt), w += nt;
    }
    *w = '\0';
    return out;
}

/* dest/name with the three placeholders filled in. 0, or -1 with the reason in err. */
static int fill_placeholders(const char *dest, const char *name, const char *const subst[3][2],
                             char *err, size_t len)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/%s", dest, name);
    char *text = cml_read_text(path, MAX_SOURCE, NULL);
    for (int i = 0; text && i < 3; i++) {
        char *next = replace_all(text, subst[i][0], subst[i][1]);
        free(text);
        text = next;
    }
    int rc = text && cml_write_file(path, text, strlen(text)) == 0 ? 0 : -1;
    if (rc < 0)
        snprintf(err, len, "cannot fill the placeholders of %s: %s", path, strerror(errno));
    free(text);
    return rc;
}

/* Contract in attack_corpus.h. */
int attack_materialize(const planted_bug *a, const char *dest, const char *out,
                       const char *other, char *err, size_t len)
{
    if (planted_materialize(test_root(), a->lab, a->dir, dest, err, len) < 0)
        return -1;
    const char *const subst[3][2] = { { "@ROOT@", test_root() }, { "@OUT@", out },
                                      { "@OTHER@", other } };
    DIR *d = opendir(dest);
    int rc = d ? 0 : -1;
    for (struct dirent *e; rc == 0 && d && (e = readdir(d));)
        if (e->d_name[0] != '.')
            rc = fill_placeholders(dest, e->d_name, subst, err, len);
    if (d)
        closedir(d);
    return rc;
}

/* Contract in attack_corpus.h. */
char *attack_expect(const planted_bug *a)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/EXPECT", a->dir);
    char *text = cml_read_text(path, 1u << 16, NULL);
    return text ? text : strdup("");
}

/* Contract in attack_corpus.h. */
int attack_at_build(const planted_bug *a)
{
    char *expect = attack_expect(a);
    int yes = strstr(expect, " build-error") != NULL;
    free(expect);
    return yes;
}

/* An entry of a tree walk, in name order so the sum does not depend on the file system. */
static int by_name(const struct dirent **x, const struct dirent **y)
{
    return strcmp((*x)->d_name, (*y)->d_name);
}

/* Contract in attack_corpus.h. */
uint64_t attack_tree_sum(const char *dir, uint64_t h, const char *skip)
{
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, by_name);
    for (int i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        char p[CML_PATH];
        struct stat st;
        if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
            !(skip && strncmp(name, skip, strlen(skip)) == 0) &&
            cml_fmt(p, sizeof p, "%s/%s", dir, name) == 0 && lstat(p, &st) == 0) {
            h = cml_fnv1a(cml_fnv1a(h, p, strlen(p)), &st.st_mode, sizeof st.st_mode);
            size_t flen = 0;
            char *bytes = S_ISREG(st.st_mode) ? cml_read_text(p, 1u << 30, &flen) : NULL;
            h = bytes ? cml_fnv1a(h, bytes, flen) : cml_fnv1a(h, &st.st_size, sizeof st.st_size);
            free(bytes);
            if (S_ISDIR(st.st_mode))
                h = attack_tree_sum(p, h, NULL);
        }
        free(list[i]);
    }
    free(n >= 0 ? list : NULL);
    return h;
}

/* Contract in attack_corpus.h. */
uint64_t attack_repo_sum(void)
{
    const char *dirs[] = { "grader", "labs", "solutions", "common" };
    uint64_t h = CML_FNV_INIT;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        h = attack_tree_sum(test_path(dirs[i]), h, NULL);
    return h;
}
