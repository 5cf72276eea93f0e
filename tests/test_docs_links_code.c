/* Comments point only at files that exist: every repository path a comment or a header contract
 * of the grader, the harness library or the tests names (`grader/src/5_time/speed.c`,
 * `docs/SPEC.md`, a folder-relative `7_judge/judge.c`, a glob `linkrules*.c` under a folder) must
 * name a file. A path is a word of a comment holding a '/', whose first part is a top folder of
 * the repository or a folder of grader/src, and whose last part ends in a file extension the
 * project uses; words with a placeholder (NN, <lab>, {a,b}, XXXXXX) are not references. Code
 * outside comments is not read: strings name paths that need not exist yet. Added to the sheets
 * suite. No GPU. */
#include <check.h>
#include <dirent.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"
#include "suites.h"
#include "util.h"

static const char *const TOPS[] = { "docs", "grader", "tests", "labs", "solutions", "common",
                                    "scripts" };
static const char *const EXTS[] = { ".c", ".h", ".md", ".cu", ".cpp", ".sh", ".spec", ".rules",
                                    ".py" };

/* text with everything but its comments blanked (newlines kept, so lines still count): C
 * comments, or with hash set, a shell's or make's: '#' at a line's start or after a blank. */
static char *comments_of(const char *text, int hash)
{
    size_t n = strlen(text);
    char *out = malloc(n + 1);
    ck_assert(out != NULL);
    enum { CODE, LINE, BLOCK, STR, CHR } st = CODE;
    for (size_t i = 0; i < n; i++) {
        char c = text[i], next = i + 1 < n ? text[i + 1] : '\0';
        out[i] = c == '\n' ? '\n' : ' ';
        if (hash && st == CODE && c == '#' && (i == 0 || text[i - 1] == '\n' ||
                                              text[i - 1] == ' ' || text[i - 1] == '\t'))
            st = LINE;
        else if (hash && st != LINE)
            ;
        else if (st == CODE && c == '/' && next == '/')
            st = LINE, i++, out[i] = ' ';
        else if (st == CODE && c == '/' && next == '*')
            st = BLOCK, i++, out[i] = ' ';
        else if (st == CODE && (c == '"' || c == '\''))
            st = c == '"' ? STR : CHR;
        else if ((st == STR || st == CHR) && c == '\\')
            i += i + 1 < n, out[i] = text[i] == '\n' ? '\n' : ' ';
        else if ((st == STR && c == '"') || (st == CHR && c == '\''))
            st = CODE;
        else if (st == LINE && c == '\n')
            st = CODE;
        else if (st == BLOCK && c == '*' && next == '/')
            st = CODE, i++, out[i] = ' ';
        else if (st == LINE || st == BLOCK)
            out[i] = c;
    }
    out[n] = '\0';
    return out;
}

/* Whether word (n bytes) is a path reference: see the file's comment. *in_src: its first part
 * is a folder of grader/src (it resolves there). */
static int is_path(const char *w, size_t n, const char *root, int *in_src)
{
    char first[64], dir[CML_PATH];
    size_t f = strcspn(w, "/");
    if (f >= n || f == 0 || f >= sizeof first || w[0] == '.' || memmem(w, n, "NN", 2) ||
        memmem(w, n, "...", 3) ||
        memchr(w, '<', n) || memchr(w, '{', n) || memmem(w, n, "XXXX", 4))
        return 0;
    snprintf(first, sizeof first, "%.*s", (int)f, w);
    int ext = 0;
    for (size_t e = 0; e < sizeof EXTS / sizeof EXTS[0]; e++) {
        size_t el = strlen(EXTS[e]);
        ext |= n > el && strncmp(w + n - el, EXTS[e], el) == 0;
    }
    int top = 0;
    for (size_t t = 0; t < sizeof TOPS / sizeof TOPS[0]; t++)
        top |= strcmp(first, TOPS[t]) == 0;
    struct stat st;
    *in_src = !top && cml_fmt(dir, sizeof dir, "%s/grader/src/%s", root, first) == 0 &&
              stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
    return ext && (top || *in_src);
}

/* The missing paths of one file's comments, "file:line: path" into why; how many. */
static int check_comments(const char *file, const char *text, int hash, const char *root,
                          char *why, size_t len)
{
    static const char WORD[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_./*-{}<>";
    char *c = comments_of(text, hash);
    int bad = 0, line = 1;
    for (const char *p = c; *p;) {
        size_t n = strspn(p, WORD);
        if (n == 0) {
            line += *p == '\n';
            p++;
            continue;
        }
        while (n > 0 && (p[n - 1] == '.' || p[n - 1] == '-')) /* a sentence's full stop */
            n--;
        int in_src = 0;
        char path[CML_PATH];
        glob_t g;
        if (n > 0 && is_path(p, n, root, &in_src) &&
            cml_fmt(path, sizeof path, "%s/%s%.*s", root, in_src ? "grader/src/" : "", (int)n,
                    p) == 0) {
            int found = glob(path, 0, NULL, &g) == 0 && g.gl_pathc > 0;
            globfree(&g);
            if (!found) {
                size_t used = strlen(why);
                snprintf(why + used, len - used, "%s:%d: %.*s\n", file, line, (int)n, p);
                bad++;
            }
        }
        p += strspn(p, WORD);
    }
    free(c);
    return bad;
}

/* Every .c, .h, .cu, .cpp (C comments) and .sh (hash comments) beneath dir (relative to root),
 * checked; depth levels down. */
static int check_sources(const char *root, const char *dir, int depth, char *why, size_t len)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/%s", root, dir);
    DIR *d = opendir(path);
    ck_assert_msg(d != NULL, "cannot open %s", path);
    int bad = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char rel[CML_PATH];
        const char *dot = strrchr(e->d_name, '.');
        struct stat st;
        if (e->d_name[0] == '.' || cml_fmt(rel, sizeof rel, "%s/%s", dir, e->d_name) < 0 ||
            cml_fmt(path, sizeof path, "%s/%s", root, rel) < 0 || stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode) && depth > 0)
            bad += check_sources(root, rel, depth - 1, why, len);
        else if (S_ISREG(st.st_mode) && dot && (!strcmp(dot, ".c") || !strcmp(dot, ".h") ||
                                                !strcmp(dot, ".cu") || !strcmp(dot, ".cpp") ||
                                                !strcmp(dot, ".sh"))) {
            char *text = cml_read_text(path, 4u << 20, NULL);
            bad += text ? check_comments(rel, text, !strcmp(dot, ".sh"), root, why, len) : 0;
            free(text);
        }
    }
    closedir(d);
    return bad;
}

START_TEST(every_path_in_a_code_comment_exists)
{
    static char why[16384];
    why[0] = '\0';
    const char *root = test_root();
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/Makefile", root);
    char *make = cml_read_text(path, 1 << 20, NULL);
    ck_assert(make != NULL);
    int bad = check_sources(root, "grader/src", 1, why, sizeof why) +
              check_sources(root, "grader/trace", 0, why, sizeof why) +
              check_sources(root, "common", 0, why, sizeof why) +
              check_sources(root, "tests", 0, why, sizeof why) +
              check_sources(root, "scripts", 1, why, sizeof why) +
              check_comments("Makefile", make, 1, root, why, sizeof why);
    free(make);
    ck_assert_msg(bad == 0, "%d path(s) named in comments do not exist:\n%s", bad, why);
}
END_TEST

/* The checker itself: a missing path in a comment is caught with its line, folder-relative
 * and globbed paths that exist are not, nor a path in a string, a placeholder or a sentence. */
START_TEST(a_missing_path_in_a_comment_is_caught)
{
    char why[2048] = "";
    const char *text = "/* see grader/src/7_judge/judge.c and 7_judge/publish.c,\n"
                       " * 2_build/linkrules*.c, labs/NN_name/EXERCISE.md. */\n"
                       "const char *s = \"grader/src/none.c\"; // docs/GONE.md\n"
                       "/* and 7_judge/score.c. */\n";
    int bad = check_comments("x.c", text, 0, test_root(), why, sizeof why);
    ck_assert_msg(bad == 2 && strstr(why, "x.c:3: docs/GONE.md") &&
                  strstr(why, "x.c:4: 7_judge/score.c"), "%d: %s", bad, why);
    why[0] = '\0'; /* a Makefile's or a script's comment, not its commands */
    bad = check_comments("Makefile", "# see grader/src/build.c\nCC := grader/src/x.c # "
                         "docs/SPEC.md\n", 1, test_root(), why, sizeof why);
    ck_assert_msg(bad == 1 && strstr(why, "Makefile:1: grader/src/build.c"), "%d: %s", bad,
                  why);
}
END_TEST

/* Contract in suites.h. */
void docs_links_code_add(Suite *s)
{
    TCase *tc = tcase_create("links_code");
    tcase_add_test(tc, every_path_in_a_code_comment_exists);
    tcase_add_test(tc, a_missing_path_in_a_comment_is_caught);
    suite_add_tcase(s, tc);
}
