/* Planted bugs as patches against the reference solution: a small unified-diff applier that
 * finds each hunk by its exact text, and the step that turns a patch into a submission folder. */
#include "planted.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define MAX_TEXT (4u << 20)

/* A growing string. */
typedef struct {
    char *s;
    size_t len, cap;
} buf;

static void buf_add(buf *b, const char *p, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s)
            abort();
    }
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}

/* The length of the line at p, its newline included. */
static size_t line_len(const char *p)
{
    const char *nl = strchr(p, '\n');
    return nl ? (size_t)(nl - p + 1) : strlen(p);
}

/* The hunk whose "@@ -a,b +c,d @@" line is at *p, split into the text it expects (context and
 * removed lines) and the text it leaves (context and added lines); *p moves past the hunk. The
 * counts in the header bound the hunk, so a following "--- " file line is not taken for it. */
static void hunk_sides(const char **p, buf *old, buf *new)
{
    unsigned long a, nold = 1, c, nnew = 1;
    if (sscanf(*p, "@@ -%lu,%lu +%lu,%lu", &a, &nold, &c, &nnew) != 4 &&
        sscanf(*p, "@@ -%lu +%lu,%lu", &a, &c, &nnew) != 3 &&
        sscanf(*p, "@@ -%lu,%lu +%lu", &a, &nold, &c) != 3)
        nold = nnew = 1;
    *p += line_len(*p);
    while (**p && (nold > 0 || nnew > 0 || **p == '\\')) {
        size_t n = line_len(*p);
        char kind = **p;
        if (kind != '+' && kind != '\\')
            buf_add(old, *p + 1, n - 1), nold -= nold > 0;
        if (kind != '-' && kind != '\\')
            buf_add(new, *p + 1, n - 1), nnew -= nnew > 0;
        *p += n;
    }
}

/* Does the "+++ " line at p name `file` (by basename)? */
static int names_file(const char *p, const char *file)
{
    size_t n = line_len(p);
    const char *end = p + n, *name = p + 4;
    while (end > name && (end[-1] == '\n' || end[-1] == '\r'))
        end--;
    const char *tab = memchr(name, '\t', (size_t)(end - name));
    if (tab)
        end = tab;
    for (const char *q = name; q < end; q++)
        if (*q == '/')
            name = q + 1;
    return (size_t)(end - name) == strlen(file) && strncmp(name, file, strlen(file)) == 0;
}

/* Contract in planted.h. */
char *planted_apply(const char *text, const char *patch, const char *file, int *applied,
                    char *err, size_t errlen)
{
    buf out = {0}, old = {0}, new = {0};
    const char *from = text, *p = patch;
    int mine = 0;
    *applied = 0;
    buf_add(&out, "", 0);
    while (*p) {
        if (strncmp(p, "+++ ", 4) == 0)
            mine = names_file(p, file);
        if (strncmp(p, "@@", 2) != 0) {
            p += line_len(p);
            continue;
        }
        old.len = new.len = 0;
        buf_add(&old, "", 0), buf_add(&new, "", 0);
        hunk_sides(&p, &old, &new);
        if (!mine)
            continue;
        const char *at = strstr(from, old.s);
        while (at && at != text && at[-1] != '\n')
            at = strstr(at + 1, old.s);
        if (!at) {
            snprintf(err, errlen, "%s: hunk %d does not match the solution any more:\n%.300s",
                     file, *applied + 1, old.s);
            free(out.s), free(old.s), free(new.s);
            return NULL;
        }
        buf_add(&out, from, (size_t)(at - from));
        buf_add(&out, new.s, new.len);
        from = at + old.len;
        (*applied)++;
    }
    buf_add(&out, from, strlen(from));
    free(old.s), free(new.s);
    return out.s;
}

/* Copy src/name to dest/name, patched with `patch`; *applied counts the hunks used. */
static int patch_one(const char *src, const char *dest, const char *name, const char *patch,
                     int *applied, char *err, size_t errlen)
{
    char from[CML_PATH], to[CML_PATH];
    if (cml_fmt(from, sizeof from, "%s/%s", src, name) < 0 ||
        cml_fmt(to, sizeof to, "%s/%s", dest, name) < 0) {
        snprintf(err, errlen, "%s: path too long", name);
        return -1;
    }
    char *text = cml_read_text(from, MAX_TEXT, NULL);
    if (!text) {
        snprintf(err, errlen, "cannot read %s: %s", from, strerror(errno));
        return -1;
    }
    int n = 0;
    char *patched = planted_apply(text, patch, name, &n, err, errlen);
    free(text);
    int rc = patched && cml_write_file(to, patched, strlen(patched)) == 0 ? 0 : -1;
    if (patched && rc < 0)
        snprintf(err, errlen, "cannot write %s: %s", to, strerror(errno));
    free(patched);
    *applied += n;
    return rc;
}

/* Contract in planted.h. */
int planted_materialize(const char *root, const char *lab, const char *bug_dir, const char *dest,
                        char *err, size_t errlen)
{
    char src[CML_PATH], patch_path[CML_PATH];
    cml_fmt(src, sizeof src, "%s/solutions/%s", root, lab);
    cml_fmt(patch_path, sizeof patch_path, "%s/bug.patch", bug_dir);
    char *patch = cml_read_text(patch_path, MAX_TEXT, NULL);
    DIR *d = patch ? opendir(src) : NULL;
    if (!d) {
        snprintf(err, errlen, "cannot read %s: %s", patch ? src : patch_path, strerror(errno));
        free(patch);
        return -1;
    }
    int rc = 0, applied = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));)
        if (e->d_name[0] != '.')
            rc = patch_one(src, dest, e->d_name, patch, &applied, err, errlen);
    closedir(d);
    free(patch);
    if (rc == 0 && applied == 0) {
        snprintf(err, errlen, "%s applies to no file of %s", patch_path, src);
        rc = -1;
    }
    return rc;
}

/* The bug folders of one lab folder with an EXPECT file, appended to out from index n. */
static int find_in_lab(const char *base, const char *lab, planted_bug *out, int n, int max)
{
    char dir[CML_PATH], expect[CML_PATH];
    struct dirent **bugs = NULL;
    int nb = lab[0] == '.' || cml_fmt(dir, sizeof dir, "%s/%s", base, lab) < 0
             ? -1 : scandir(dir, &bugs, NULL, alphasort);
    for (int j = 0; j < nb; j++) {
        if (bugs[j]->d_name[0] != '.' && n < max &&
            cml_fmt(expect, sizeof expect, "%s/%s/EXPECT", dir, bugs[j]->d_name) == 0 &&
            access(expect, R_OK) == 0) {
            cml_fmt(out[n].dir, sizeof out[n].dir, "%s/%s", dir, bugs[j]->d_name);
            snprintf(out[n++].lab, sizeof out[0].lab, "%.63s", lab);
        }
        free(bugs[j]);
    }
    free(nb >= 0 ? bugs : NULL);
    return n;
}

/* Contract in planted.h. */
int planted_find(const char *base, planted_bug *out, int max)
{
    struct dirent **labs = NULL;
    int nl = scandir(base, &labs, NULL, alphasort), n = 0;
    for (int i = 0; i < nl; i++) {
        n = find_in_lab(base, labs[i]->d_name, out, n, max);
        free(labs[i]);
    }
    free(nl >= 0 ? labs : NULL);
    return n;
}

/* Contract in planted.h. */
void planted_expected(const char *expect, const char *task, char *want, size_t wlen, char *text,
                      size_t tlen)
{
    for (const char *p = expect; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        char line[600], id[16], status[32];
        int used = 0;
        snprintf(line, sizeof line, "%.*s", (int)strcspn(p, "\n"), p);
        if (sscanf(line, "%15s %31s %n", id, status, &used) >= 2 && strcmp(id, task) == 0) {
            snprintf(want, wlen, "%s", status);
            snprintf(text, tlen, "%s", line + used);
            return;
        }
    }
}

/* Whether `status` is one of `want`'s statuses, separated by '|' ("wrong|sanitizer": a race
 * the output may or may not show, which fails either way). */
static int status_is_one_of(const char *status, const char *want)
{
    size_t len = strlen(status);
    for (const char *p = want; *p; p += strcspn(p, "|"), p += *p == '|')
        if (strncmp(p, status, len) == 0 && (p[len] == '|' || p[len] == '\0'))
            return 1;
    return 0;
}

/* Contract in planted.h. */
void planted_compare(const test_summary_line *lines, int n, const char *expect, const char *lab,
                     char *msg, size_t len)
{
    int seen = 0;
    msg[0] = '\0';
    for (int i = 0; i < n && !msg[0]; i++) {
        if (strcmp(lines[i].lab, lab) != 0)
            continue;
        seen++;
        char want[32] = "passed", text[512] = "";
        planted_expected(expect, lines[i].task, want, sizeof want, text, sizeof text);
        if (!status_is_one_of(lines[i].status, want) || !strstr(lines[i].detail, text))
            snprintf(msg, len, "task %.15s: got %.31s (%.900s), want %s%s%.500s", lines[i].task,
                     lines[i].status, lines[i].detail, want, text[0] ? " with " : "", text);
    }
    if (!seen)
        snprintf(msg, len, "no summary.tsv line for lab %s", lab);
}
