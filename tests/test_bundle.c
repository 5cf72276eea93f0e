/* The student bundle (`make student-bundle`, scripts/student-bundle.sh): nothing under
 * solutions/ or tests/, no kernel of solutions/ that the skeletons do not already give, and a
 * grader that builds from the bundle alone. Runs make, tar and gcc (and nvcc for the probe). */
#include <check.h>
#include <ctype.h>
#include <ftw.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "suites.h"
#include "util.h"

#define TOP "cuda-memory-labs" /* the bundle's one top folder */

static char tmp[64], bundle[CML_PATH], unpacked[CML_PATH];

/* Builds the bundle with make into tmp and unpacks it there. */
static void setup(void)
{
    char cmd[3 * CML_PATH];
    test_tmpdir(tmp, sizeof tmp);
    cml_fmt(bundle, sizeof bundle, "%s/b.tar.gz", tmp);
    cml_fmt(unpacked, sizeof unpacked, "%s/%s", tmp, TOP);
    snprintf(cmd, sizeof cmd, "make -s -C '%s' student-bundle BUNDLE='%s' >/dev/null && "
             "tar -xzf '%s' -C '%s'", test_root(), bundle, bundle, tmp);
    ck_assert_msg(system(cmd) == 0, "failed: %s", cmd);
}

static void teardown(void)
{
    cml_rmtree(tmp);
}

/* text with every run of white space made one space, in a new string. */
static char *squeeze(const char *text)
{
    char *out = malloc(strlen(text) + 1), *o = out;
    for (const char *c = text; out && *c; c++)
        if (!isspace((unsigned char)*c))
            *o++ = *c;
        else if (o > out && o[-1] != ' ')
            *o++ = ' ';
    if (out)
        *o = '\0';
    return out;
}

/* ---- every file of a tree, squeezed, in one list (nftw keeps no context: these statics are
 * filled by one walk at a time and freed by files_free) ---- */
static char **files;
static int nfiles;

static int add_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)ftw;
    char *text = type == FTW_F ? cml_read_text(path, 1u << 24, NULL) : NULL;
    if (text) {
        files = realloc(files, (nfiles + 1) * sizeof *files);
        files[nfiles++] = squeeze(text);
        free(text);
    }
    return 0;
}

static int found_in_files(const char *needle)
{
    for (int i = 0; i < nfiles; i++)
        if (files[i] && strstr(files[i], needle))
            return 1;
    return 0;
}

static void files_free(void)
{
    for (int i = 0; i < nfiles; i++)
        free(files[i]);
    free(files);
    files = NULL, nfiles = 0;
}

/* ---- kernels: `__global__ ... name(params) { body }` ---- */
typedef struct {
    char name[96];
    char *body; /* squeezed, braces included */
} kernel;

/* The kernels defined in text (declarations skipped) into k; how many. */
static int kernels_of(const char *text, kernel *k, int max)
{
    int n = 0;
    const char *g = strstr(text, "__global__");
    for (; g && n < max; g = strstr(g + 1, "__global__")) {
        const char *open = g + strcspn(g, "{;");
        if (*open != '{')
            continue;
        const char *p = open;
        while (p > g && isspace((unsigned char)p[-1]))
            p--;
        int depth = 0; /* back over the parameter list */
        do {
            p--;
            depth += (*p == ')') - (*p == '(');
        } while (p > g && depth > 0);
        const char *end = p;
        while (end > g && isspace((unsigned char)end[-1]))
            end--;
        const char *start = end;
        while (start > g && (isalnum((unsigned char)start[-1]) || start[-1] == '_'))
            start--;
        snprintf(k[n].name, sizeof k[n].name, "%.*s", (int)(end - start), start);
        const char *c = open;
        depth = 0;
        do
            depth += (*c == '{') - (*c == '}');
        while (*++c && depth > 0);
        char *body = strndup(open, (size_t)(c - open));
        k[n].body = squeeze(body);
        free(body);
        n++;
    }
    return n;
}

START_TEST(student_bundle_holds_no_solution_or_test_path)
{
    char cmd[2 * CML_PATH], *list = NULL;
    size_t len = 0;
    snprintf(cmd, sizeof cmd, "tar -tzf '%s'", bundle);
    FILE *p = popen(cmd, "r"), *m = open_memstream(&list, &len);
    for (int ch; p && (ch = fgetc(p)) != EOF;)
        fputc(ch, m);
    fclose(m);
    ck_assert_int_eq(p ? pclose(p) : -1, 0);
    ck_assert_msg(strstr(list, TOP "/labs/02_transpose/transpose.cu") &&
                  strstr(list, TOP "/grader/specs/02_transpose.spec") &&
                  strstr(list, TOP "/README.md") && strstr(list, TOP "/Makefile"),
                  "the bundle lacks a lab, a spec, its README or its Makefile:\n%s", list);
    static const char *const never[] = { "/solutions/", "/tests/", "/build/", "/docs/bench/",
                                         "/.git/" };
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
        ck_assert_msg(!strstr(list, never[i]), "the bundle holds %s:\n%s", never[i], list);
    free(list);
}
END_TEST

START_TEST(student_bundle_holds_no_solution_kernel)
{
    char pattern[CML_PATH], labs[CML_PATH];
    static kernel k[256];
    int nk = 0, checked = 0;
    glob_t gl;
    cml_fmt(pattern, sizeof pattern, "%s/solutions/*/*.cu*", test_root());
    ck_assert_int_eq(glob(pattern, 0, NULL, &gl), 0);
    for (size_t i = 0; i < gl.gl_pathc; i++) {
        char *text = cml_read_text(gl.gl_pathv[i], 1u << 22, NULL);
        nk += text ? kernels_of(text, k + nk, 256 - nk) : 0;
        free(text);
    }
    globfree(&gl);
    cml_fmt(labs, sizeof labs, "%s/labs", test_root());
    nftw(labs, add_file, 16, FTW_PHYS); /* what the skeletons give: those kernels may appear */
    int given[256], declared[256];
    for (int i = 0; i < nk; i++) {
        given[i] = found_in_files(k[i].body);
        declared[i] = found_in_files(k[i].name);
    }
    files_free();
    nftw(unpacked, add_file, 16, FTW_PHYS);
    for (int i = 0; i < nk; i++) {
        ck_assert_msg(given[i] || !found_in_files(k[i].body),
                      "the bundle holds the body of solution kernel %s", k[i].name);
        ck_assert_msg(declared[i] || !found_in_files(k[i].name),
                      "the bundle names %s, a kernel only solutions/ defines", k[i].name);
        checked += !given[i];
    }
    files_free();
    for (int i = 0; i < nk; i++)
        free(k[i].body);
    ck_assert_msg(checked >= 10, "only %d solution kernels found to check", checked);
}
END_TEST

START_TEST(student_bundle_builds_the_grader_alone)
{
    char cmd[2 * CML_PATH], grader[CML_PATH];
    snprintf(cmd, sizeof cmd, "make -s -C '%s' -j2 all >'%s/make.log' 2>&1", unpacked, tmp);
    int rc = system(cmd);
    cml_fmt(grader, sizeof grader, "%s/build/cml-grade", unpacked);
    cml_fmt(cmd, sizeof cmd, "%s/make.log", tmp);
    char *log = cml_read_text(cmd, 1u << 20, NULL);
    size_t n = log ? strlen(log) : 0;
    ck_assert_msg(rc == 0 && access(grader, X_OK) == 0, "make all in the bundle failed (%d): "
                  "...%s", rc, log ? log + (n > 600 ? n - 600 : 0) : "(no log)");
    free(log);
}
END_TEST

/* Contract: tests/test_practice.c adds this case to the practice suite. */
TCase *bundle_tcase(void)
{
    TCase *tc = tcase_create("student bundle");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, student_bundle_holds_no_solution_or_test_path);
    tcase_add_test(tc, student_bundle_holds_no_solution_kernel);
    tcase_add_test(tc, student_bundle_builds_the_grader_alone);
    return tc;
}
