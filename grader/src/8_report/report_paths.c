/* report_paths: what a student reads names files as the student knows them. A compiler's log,
 * a stage error, a rule hit or a sanitizer's message can hold the grading server's folders
 * (the staged build folder, the submission's real path, the repository, a batch's folders);
 * the student's reports are written from a copy of the grading whose every text went through
 * cml_student_text. record.json, the instructor's, keeps the paths as they were. */
#include "report.h"
#include "stage.h"

#include <stdlib.h>
#include <string.h>

/* Whether c can be part of a path as logs write them (a boundary is anything else). */
static int path_char(unsigned char c)
{
    return c > ' ' && !strchr("\"'`()<>[]{},;=|", c);
}

/* Whether c continues a file or folder name (so a folder's name is not matched inside a
 * longer one: /srv/sub does not hide /srv/subway). */
static int name_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '-' || c >= 0x80;
}

/* The length of the staged-folder prefix at the token t[0..n), through its '/', or 0. A staged
 * folder is cml_stage's "<lab>-<side>-XXXXXX" (mkdtemp's six characters), wherever --out put
 * it; *alone is set when the token ends there (the folder itself is named). */
static size_t staged_prefix(const char *t, size_t n, int *alone)
{
    const char *sides[] = { cml_side_name(CML_SIDE_STUDENT), cml_side_name(CML_SIDE_REFERENCE) };
    for (size_t i = 0; i < n; i++) {
        if (t[i] != '-' || (i > 0 && t[i - 1] == '/'))
            continue;
        for (int s = 0; s < 2; s++) {
            size_t k = strlen(sides[s]), end = i + 1 + k + 1 + 6;
            if (end > n || strncmp(t + i + 1, sides[s], k) != 0 || t[i + 1 + k] != '-')
                continue;
            int ok = 1;
            for (size_t j = i + k + 2; j < end; j++)
                ok &= name_char((unsigned char)t[j]) && t[j] != '.' && t[j] != '-';
            if (!ok || (end < n && t[end] != '/'))
                continue;
            *alone = end == n;
            return end < n ? end + 1 : end;
        }
    }
    return 0;
}

/* A server folder and what it becomes when named alone. */
typedef struct {
    const char *dir;
    size_t len;
    const char *alone;
} folder;

/* The grading's folders, longest first (the most specific wins: an unpacked submission lies
 * inside a batch's output folder). How many, at most 3 + CML_MAX_OTHERS. */
static int folders_of(const cml_grading *g, folder *f)
{
    const char *dirs[3 + CML_MAX_OTHERS] = { g->submission, g->out_dir, g->root };
    const char *alone[3 + CML_MAX_OTHERS] = { "your submission", "the grader's folder",
                                              "the grader's folder" };
    int n = 0;
    for (int i = 0; i < CML_MAX_OTHERS; i++)
        dirs[3 + i] = g->others[i], alone[3 + i] = "another submission's folder";
    for (int i = 0; i < 3 + CML_MAX_OTHERS; i++) {
        size_t len = strlen(dirs[i]);
        while (len > 1 && dirs[i][len - 1] == '/')
            len--;
        if (len < 2 || dirs[i][0] != '/')
            continue; /* "" or "/": nothing to hide, or everything */
        int at = n++;
        while (at > 0 && f[at - 1].len < len) {
            f[at] = f[at - 1];
            at--;
        }
        f[at] = (folder){ dirs[i], len, alone[i] };
    }
    return n;
}

/* Writes the token t[0..n) with its server folder taken off. */
static void put_token(FILE *m, const char *t, size_t n, const folder *f, int nf)
{
    int alone = 0;
    size_t skip = staged_prefix(t, n, &alone);
    if (skip) {
        fputs(alone ? "the build folder" : "", m);
        fwrite(t + skip, 1, n - skip, m);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < nf && (i == 0 || !name_char((unsigned char)t[i - 1])); k++) {
            size_t len = f[k].len;
            if (i + len > n || strncmp(t + i, f[k].dir, len) != 0 ||
                (i + len < n && t[i + len] != '/' && name_char((unsigned char)t[i + len])))
                continue;
            size_t slash = i + len < n && t[i + len] == '/';
            fputs(slash ? "" : f[k].alone, m);
            fwrite(t + i + len + slash, 1, n - i - len - slash, m);
            return;
        }
        fputc(t[i], m);
    }
}

/* Contract in report.h. */
char *cml_student_text(const cml_grading *g, const char *s)
{
    folder f[3 + CML_MAX_OTHERS];
    int nf = folders_of(g, f);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = s ? open_memstream(&buf, &len) : NULL;
    if (!m)
        return NULL;
    for (size_t i = 0, n = strlen(s); i < n;) {
        size_t t = 0;
        while (i + t < n && path_char((unsigned char)s[i + t]))
            t++;
        if (t == 0)
            fputc(s[i++], m);
        else
            put_token(m, s + i, t, f, nf), i += t;
    }
    fclose(m);
    return buf;
}

/* dst (a text field of `size` bytes) rewritten in place. */
static void rewrite_field(const cml_grading *g, char *dst, size_t size)
{
    char *t = cml_student_text(g, dst);
    if (t)
        snprintf(dst, size, "%s", t);
    free(t);
}

#define REWRITE(g, field) rewrite_field(g, field, sizeof field)

/* A task's texts: its detail, every case's reason and every check's detail. */
static void rewrite_task(const cml_grading *g, cml_task_result *r)
{
    REWRITE(g, r->detail);
    for (int c = 0; c < CML_MAX_CASES; c++)
        REWRITE(g, r->cases[c].reason);
    for (int k = 0; k < CML_MAX_TECH; k++)
        REWRITE(g, r->tech[k].detail);
    for (int k = 0; k < CML_SANITIZERS; k++)
        REWRITE(g, r->sanitizers[k].detail);
}

/* Contract in report.h. */
cml_grading *cml_student_view(const cml_grading *g)
{
    cml_grading *v = malloc(sizeof *v);
    if (!v)
        return NULL;
    memcpy(v, g, sizeof *v);
    for (int i = 0; i < CML_MAX_LABS; i++)
        v->labs[i].build_log = NULL; /* the view's own copies, or none */
    int ok = 1;
    for (int i = 0; i < g->nlabs && i < CML_MAX_LABS; i++) {
        if (g->labs[i].build_log)
            ok &= (v->labs[i].build_log = cml_student_text(g, g->labs[i].build_log)) != NULL;
        for (int k = 0; k < CML_MAX_TASKS; k++)
            rewrite_task(g, &v->labs[i].tasks[k]);
    }
    REWRITE(g, v->no_gpu_reason);
    REWRITE(g, v->sandbox_missing);
    REWRITE(g, v->calibration_note);
    const char *slash = strrchr(g->submission, '/'); /* the folder's own name, not its path */
    if (slash && slash[1])
        snprintf(v->submission, sizeof v->submission, "%s", slash + 1);
    if (!ok) {
        cml_student_view_free(v);
        return NULL;
    }
    return v;
}

/* Contract in report.h. */
void cml_student_view_free(cml_grading *v)
{
    for (int i = 0; v && i < CML_MAX_LABS; i++)
        free(v->labs[i].build_log);
    free(v);
}
