/* The grader's lowest folder stays the lowest: every `#include "..."` of grader/src/base/ names
 * a header of base/ itself or of common/ (the harness's shared headers, cml_rand.h), never one
 * of the pipeline's folders, so base/ can be read, built and tested alone. (A status table in
 * 7_score/ that base/cml.h included once made base, 5_verify and 7_score one include cycle.)
 * Added to the sheets suite. No GPU. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "suites.h"
#include "util.h"

/* Whether `name` is a file of folder `dir` under root. */
static int in_folder(const char *root, const char *dir, const char *name)
{
    char path[CML_PATH];
    FILE *f = cml_fmt(path, sizeof path, "%s/%s/%s", root, dir, name) == 0 ? fopen(path, "r")
                                                                           : NULL;
    if (f)
        fclose(f);
    return f != NULL;
}

/* The quoted includes of `text` (from file `file`) that are neither base/'s nor common/'s,
 * appended to why; how many. */
static int foreign_includes(const char *root, const char *file, const char *text, char *why,
                            size_t len)
{
    int bad = 0;
    for (const char *p = strstr(text, "#include \""); p; p = strstr(p + 1, "#include \"")) {
        char name[200];
        const char *start = p + 10, *end = strchr(start, '"');
        if (!end || end - start >= (long)sizeof name)
            continue;
        snprintf(name, sizeof name, "%.*s", (int)(end - start), start);
        if (in_folder(root, "grader/src/base", name) || in_folder(root, "common", name))
            continue;
        size_t used = strlen(why);
        snprintf(why + used, len - used, "%s includes \"%s\"\n", file, name);
        bad++;
    }
    return bad;
}

START_TEST(base_includes_only_base_and_common)
{
    char dir[CML_PATH], path[CML_PATH], why[4096] = "";
    snprintf(dir, sizeof dir, "%s/grader/src/base", test_root());
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int bad = 0, files = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n < 3 || (strcmp(e->d_name + n - 2, ".c") && strcmp(e->d_name + n - 2, ".h")))
            continue;
        char *text = cml_fmt(path, sizeof path, "%s/%s", dir, e->d_name) == 0
                     ? cml_read_text(path, 1 << 20, NULL) : NULL;
        ck_assert_ptr_nonnull(text);
        bad += foreign_includes(test_root(), e->d_name, text, why, sizeof why);
        files++;
        free(text);
    }
    closedir(d);
    ck_assert_msg(files >= 8 && bad == 0, "%d file(s) of base/, %d foreign include(s):\n%s",
                  files, bad, why);
}
END_TEST

/* The check itself: an include of a pipeline folder's header is caught, base's and common's
 * are not. */
START_TEST(an_include_of_a_pipeline_header_is_caught)
{
    char why[512] = "";
    int bad = foreign_includes(test_root(), "cml.h", "#include \"status.h\"\n#include "
                               "\"cml_rand.h\"\n#include <stdio.h>\n#include \"score.h\"\n",
                               why, sizeof why);
    ck_assert_msg(bad == 1 && strstr(why, "\"score.h\""), "%d: %s", bad, why);
}
END_TEST

/* Contract in suites.h. */
void layers_add(Suite *s)
{
    TCase *tc = tcase_create("layers");
    tcase_add_test(tc, base_includes_only_base_and_common);
    tcase_add_test(tc, an_include_of_a_pipeline_header_is_caught);
    suite_add_tcase(s, tc);
}
