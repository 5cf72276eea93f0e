/* The docs point only at files that exist: every relative Markdown link (resolved from the page's
 * folder, an anchor dropped) and every repository path written in backticks (`docs/TRUST.md`,
 * `grader/src/base/util.c`, resolved from the root) of every Markdown page of the repository. Paths
 * with the placeholder NN (`labs/NN_name/EXERCISE.md`) and links inside code spans are not
 * references; a glob (`grader/src/sandbox/sandbox*.c`) must name at least one file. Added to the
 * sheets suite. No GPU. */
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

static const char *const TOPS[] = { "docs/", "grader/", "tests/", "labs/", "solutions/",
                                    "common/", "scripts/" };

/* Whether path names a file (a glob, `linkrules*.c`, names at least one). */
static int exists(const char *path)
{
    glob_t g;
    int found = glob(path, 0, NULL, &g) == 0 && g.gl_pathc > 0;
    globfree(&g);
    return found;
}

/* Appends "page: what target" to why when the file a reference names is missing. */
static int missing(const char *page, const char *what, const char *target, size_t n,
                   const char *base, char *why, size_t len)
{
    char path[CML_PATH], name[CML_PATH];
    snprintf(name, sizeof name, "%.*s", (int)n, target);
    name[strcspn(name, "#")] = '\0';
    if (!name[0] || strstr(name, "NN") || strstr(name, "://") || strncmp(name, "mailto:", 7) == 0)
        return 0;
    cml_fmt(path, sizeof path, "%s/%s", base, name);
    if (exists(path))
        return 0;
    size_t used = strlen(why);
    snprintf(why + used, len - used, "%s: %s %s does not exist\n", page, what, name);
    return 1;
}

/* Contract below: the broken references of one page's text. `dir` is the page's folder (links
 * resolve there), `root` the repository's (backticked paths resolve there). */
static int check_text(const char *page, const char *text, const char *dir, const char *root,
                      char *why, size_t len)
{
    int bad = 0, code = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '`') {
            const char *end = strchr(p + 1, '`');
            size_t n = end ? (size_t)(end - p - 1) : 0;
            for (size_t t = 0; end && t < sizeof TOPS / sizeof TOPS[0]; t++)
                if (strncmp(p + 1, TOPS[t], strlen(TOPS[t])) == 0 && !memchr(p + 1, ' ', n) &&
                    memchr(p + 1, '.', n)) /* a file, not a folder or a command */
                    bad += missing(page, "path", p + 1, n, root, why, len);
            code = 1;
            p = end ? end : p;
            continue;
        }
        if (p[0] == ']' && p[1] == '(' && !code) {
            size_t n = strcspn(p + 2, ") \n");
            if (p[2 + n] == ')')
                bad += missing(page, "link", p + 2, n, dir, why, len);
        }
        code = 0;
    }
    return bad;
}

/* Every .md file beneath dir (not build/, .git/ or the device's folders), checked. */
static int check_tree(const char *dir, const char *root, char *why, size_t len, int depth)
{
    DIR *d = opendir(dir);
    int bad = 0;
    for (struct dirent *e; d && depth < 8 && (e = readdir(d));) {
        char path[CML_PATH];
        size_t n = strlen(e->d_name);
        if (e->d_name[0] == '.' || strcmp(e->d_name, "build") == 0 ||
            cml_fmt(path, sizeof path, "%s/%s", dir, e->d_name) < 0)
            continue;
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            bad += check_tree(path, root, why, len, depth + 1);
        else if (n > 3 && strcmp(e->d_name + n - 3, ".md") == 0) {
            char *text = cml_read_text(path, 4u << 20, NULL);
            bad += text ? check_text(path + strlen(root) + 1, text, dir, root, why, len) : 0;
            free(text);
        }
    }
    if (d)
        closedir(d);
    return bad;
}

START_TEST(every_link_and_path_in_the_docs_exists)
{
    static char why[16384];
    why[0] = '\0';
    int bad = check_tree(test_root(), test_root(), why, sizeof why, 0);
    ck_assert_msg(bad == 0, "%d reference(s) to missing files:\n%s", bad, why);
}
END_TEST

/* The check itself: a page citing a missing file is caught, a page written with anchors,
 * addresses, placeholders and code spans is not. */
START_TEST(a_missing_file_is_caught_and_other_references_are_not)
{
    char why[2048] = "";
    const char *root = test_root();
    int bad = check_text("x.md", "see `docs/THREATS.md` and [the note](docs/gone.md)\n", root,
                         root, why, sizeof why);
    int good = check_text("y.md", "[arch](docs/ARCHITECTURE.md#link-rules), "
                          "[web](https://example.org/a.md), `labs/NN_name/EXERCISE.md`, "
                          "`[](size_t)`, `grader/src/2_build/linkrules*.c`\n", root, root, why,
                          sizeof why);
    ck_assert_msg(bad == 2 && good == 0 && strstr(why, "docs/THREATS.md"), "%d %d: %s", bad,
                  good, why);
}
END_TEST

/* Contract in suites.h. */
void docs_links_add(Suite *s)
{
    TCase *tc = tcase_create("links");
    tcase_add_test(tc, every_link_and_path_in_the_docs_exists);
    tcase_add_test(tc, a_missing_file_is_caught_and_other_references_are_not);
    suite_add_tcase(s, tc);
}
