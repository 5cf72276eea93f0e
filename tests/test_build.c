/* Every lab's skeleton (labs/) and solution (solutions/) compiles through build.c, for sm_90
 * (or $CUDA_ARCH), with nvcc and host-compiler warnings as errors, passes the link rules, and
 * its student files give PTX (for technique checks). Needs nvcc (and binutils), not a GPU. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "grade.h"
#include "helpers.h"
#include "stage.h"
#include "suites.h"
#include "util.h"

static cml_lab_spec specs[CML_MAX_LABS];
static int nspecs;

/* Stage `side` of lab i (skeleton from labs/ or the solution) and build it strictly. */
static void build_strict(int i, enum cml_side side)
{
    char work[64], err[1024], sub[CML_PATH];
    cml_build b = { .spec = &specs[i], .cc = cml_default_cc(), .werror = 1, .timeout_s = 600 };
    cml_fmt(sub, sizeof sub, "%s/labs", test_root());
    test_tmpdir(work, sizeof work);
    int staged = cml_stage(test_root(), &specs[i], side, sub, work, b.dir, sizeof b.dir, err,
                           sizeof err);
    ck_assert_msg(staged == 0, "%s: %s", specs[i].lab, err);
    int ok = cml_build_lab(&b);
    ck_assert_msg(ok, "%s (%s) does not compile warning-free for sm_%d:\n%.6000s", specs[i].lab,
                  side == CML_SIDE_STUDENT ? "skeleton" : "solution", b.cc, b.log ? b.log : "");
    ck_assert_msg(!b.log || !strstr(b.log, "link rules not enforced"), "%s: %s", specs[i].lab,
                  b.log); /* it built, and its objects passed the link rules */
    cml_build_free(&b);
    cml_rmtree(work);
}

START_TEST(skeleton_compiles_without_warnings)
{
    build_strict(_i, CML_SIDE_STUDENT);
}
END_TEST

START_TEST(solution_compiles_without_warnings)
{
    build_strict(_i, CML_SIDE_REFERENCE);
}
END_TEST

START_TEST(every_spec_loads)
{
    char err[512];
    cml_lab_spec *all = calloc(CML_MAX_LABS, sizeof *all);
    int n = cml_load_specs(test_root(), NULL, all, CML_MAX_LABS, err, sizeof err);
    free(all);
    ck_assert_msg(n >= 1, "grader/specs: %s", err);
}
END_TEST

/* Whether CML_COMMON_SOURCES holds `path`. */
static int listed_common(const char *path)
{
    for (int i = 0; i < CML_NCOMMON; i++)
        if (CML_COMMON_SOURCES[i] && strcmp(CML_COMMON_SOURCES[i], path) == 0)
            return 1;
    return 0;
}

/* The Makefile links every .cu and .cpp of common/ but probe.cu; the grader,
 * CML_COMMON_SOURCES. */
START_TEST(grader_compiles_the_common_sources_the_makefile_does)
{
    char common[CML_PATH], path[CML_PATH], missing[1024] = "";
    struct dirent **list = NULL;
    cml_fmt(common, sizeof common, "%s/common", test_root());
    int n = scandir(common, &list, NULL, alphasort), found = 0;
    ck_assert_msg(n > 0, "cannot list %s", common);
    for (int i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        size_t len = strlen(name);
        int source = (len > 3 && strcmp(name + len - 3, ".cu") == 0) ||
                     (len > 4 && strcmp(name + len - 4, ".cpp") == 0);
        if (source && strcmp(name, "probe.cu") != 0) {
            found++;
            cml_fmt(path, sizeof path, "common/%s", name);
            if (!listed_common(path))
                snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %.60s",
                         path);
        }
        free(list[i]);
    }
    free(list);
    ck_assert_msg(!missing[0] && found == CML_NCOMMON, "CML_COMMON_SOURCES (grader/src/build.c) "
                  "lists %d files; common/ holds %d, and these are not listed:%s", CML_NCOMMON,
                  found, missing);
}
END_TEST

START_TEST(ptx_of_every_solution_file_is_emitted)
{
    char work[64], err[1024], ptx[CML_PATH], *log = NULL;
    cml_build b = { .spec = &specs[_i] };
    test_tmpdir(work, sizeof work);
    ck_assert_msg(cml_stage(test_root(), &specs[_i], CML_SIDE_REFERENCE, NULL, work, b.dir,
                            sizeof b.dir, err, sizeof err) == 0, "%s", err);
    int entries = 0;
    for (int f = 0; f < specs[_i].nfiles; f++) {
        int rc = cml_build_ptx(b.dir, specs[_i].files[f], cml_default_cc(), ptx, sizeof ptx, &log);
        char *text = rc == 0 ? cml_read_text(ptx, 1u << 26, NULL) : NULL;
        entries += text && strstr(text, ".entry") ? 1 : 0;
        free(text);
        free(log);
    }
    cml_rmtree(work);
    ck_assert_msg(entries == specs[_i].nfiles, "%s: %d of %d files gave PTX with a kernel",
                  specs[_i].lab, entries, specs[_i].nfiles);
}
END_TEST

/* One test per spec in grader/specs and side. */
Suite *build_suite(void)
{
    char err[512];
    Suite *s = suite_create("build");
    TCase *tc = tcase_create("every lab");
    nspecs = cml_load_specs(test_root(), NULL, specs, CML_MAX_LABS, err, sizeof err);
    if (nspecs < 0) {
        fprintf(stderr, "build suite: %s\n", err);
        nspecs = 0;
    }
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, every_spec_loads);
    tcase_add_test(tc, grader_compiles_the_common_sources_the_makefile_does);
    tcase_add_loop_test(tc, skeleton_compiles_without_warnings, 0, nspecs);
    tcase_add_loop_test(tc, solution_compiles_without_warnings, 0, nspecs);
    tcase_add_loop_test(tc, ptx_of_every_solution_file_is_emitted, 0, nspecs);
    suite_add_tcase(s, tc);
    return s;
}
