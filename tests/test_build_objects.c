/* The harness objects builds keep (build.h, object_cache): a reference build keeps its harness
 * object, and every later build of the lab with the same compiler copies it instead of compiling
 * it, whatever the student's file says; a student's build keeps none (its folder is also written
 * by the compile of the student's file); a changed harness file, or a kept object changed since,
 * is compiled again. With the fake nvcc of tests/fake_root.c, which logs every output it
 * writes. Added to the build suite. No GPU. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "helpers.h"
#include "stage.h"
#include "suites.h"
#include "util.h"

/* Stage lab 01_fake's side (the student's from a submission whose fake.cu holds `source`),
 * build it with the object cache `cache` (and, for the reference, the binary cache beside it),
 * and return how many times the fake nvcc wrote harness.o. */
static int build_counting_harness(const char *root, const cml_lab_spec *spec,
                                  enum cml_side side, const char *source, const char *cache)
{
    char sub[CML_PATH], path[CML_PATH], log[CML_PATH], err[512], bins[CML_PATH];
    cml_fmt(sub, sizeof sub, "%s/sub", root);
    cml_fmt(path, sizeof path, "%s/sub/fake.cu", root);
    cml_fmt(log, sizeof log, "%s/nvcc.log", root);
    cml_fmt(bins, sizeof bins, "%s/binaries", root);
    cml_mkdirs(sub);
    test_write(path, source);
    unlink(log);
    setenv("FAKE_NVCC_LOG", log, 1);
    cml_build b = { .spec = spec, .cc = 90, .object_cache = cache,
                    .cache_dir = side == CML_SIDE_REFERENCE ? bins : NULL };
    cml_fmt(path, sizeof path, "%s/work", root);
    ck_assert_msg(cml_stage(root, spec, side, side == CML_SIDE_STUDENT ? sub : NULL, path,
                            b.dir, sizeof b.dir, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(cml_build_lab(&b), "build failed: %s", b.log ? b.log : "");
    cml_build_free(&b);
    cml_rmtree(b.dir);
    cml_rmtree(bins); /* the reference binary is built, not found, every time */
    unsetenv("FAKE_NVCC_LOG");
    char *text = cml_read_text(log, 1 << 16, NULL);
    int n = 0;
    for (const char *p = text; p && (p = strstr(p, "harness.o")); p++)
        n++;
    free(text);
    return n;
}

START_TEST(a_reference_build_keeps_the_harness_object_for_every_later_build)
{
    char root[CML_PATH], work[CML_PATH], cache[CML_PATH];
    cml_lab_spec two[2];
    enum cml_side st = CML_SIDE_STUDENT, ref = CML_SIDE_REFERENCE;
    fake_root_setup(root, sizeof root, 10, 10, two, work, sizeof work);
    cml_fmt(cache, sizeof cache, "%s/build/cache", root);
    ck_assert_int_eq(build_counting_harness(root, &two[0], st, "// a student\n", cache), 1);
    ck_assert_int_eq(build_counting_harness(root, &two[0], st, "// a student\n", cache), 1);
    ck_assert_int_eq(build_counting_harness(root, &two[0], ref, "", cache), 1);
    ck_assert_int_eq(build_counting_harness(root, &two[0], ref, "", cache), 0);
    ck_assert_int_eq(build_counting_harness(root, &two[0], st, "// one student\n", cache), 0);
    ck_assert_int_eq(build_counting_harness(root, &two[0], st, "// another\n", cache), 0);
    ck_assert_int_eq(build_counting_harness(root, &two[0], st, "// no cache\n", NULL), 1);
    cml_rmtree(root);
}
END_TEST

START_TEST(a_changed_harness_or_kept_object_is_compiled_again)
{
    char root[CML_PATH], work[CML_PATH], cache[CML_PATH], path[CML_PATH], cmd[3 * CML_PATH];
    cml_lab_spec two[2];
    enum cml_side st = CML_SIDE_STUDENT, ref = CML_SIDE_REFERENCE;
    fake_root_setup(root, sizeof root, 10, 10, two, work, sizeof work);
    cml_fmt(cache, sizeof cache, "%s/build/cache", root);
    ck_assert_int_eq(build_counting_harness(root, &two[0], ref, "", cache), 1);
    cml_fmt(path, sizeof path, "%s/labs/01_fake/harness.cu", root);
    test_write(path, "// fake source: ld.shared bar.sync, the harness changed\n");
    ck_assert_int_eq(build_counting_harness(root, &two[0], st, "// a student\n", cache), 1);
    ck_assert_int_eq(build_counting_harness(root, &two[0], ref, "", cache), 1);
    ck_assert_int_eq(build_counting_harness(root, &two[0], st, "// a student\n", cache), 0);
    /* every kept harness object rewritten after it was kept: none may be linked */
    snprintf(cmd, sizeof cmd, "for f in '%s'/01_fake-sm90-harness-*/harness.o; do "
             "echo forged > \"$f\"; done", cache);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(build_counting_harness(root, &two[0], st, "// a student\n", cache), 1);
    cml_rmtree(root);
}
END_TEST

/* One reference build of lab 01_fake from its staged folder, on a thread of its own. */
typedef struct {
    cml_build b;
    int ok;
} ref_build;

static void *build_ref(void *arg)
{
    ref_build *r = arg;
    r->ok = cml_build_lab(&r->b);
    return NULL;
}

/* Two builds of one reference at once, as a batch's calibration and its first grading make on
 * an empty cache, each with a 1 s compiler: the second waits for the first and finds its binary,
 * so the lab is linked once, not twice. */
START_TEST(builds_of_one_reference_at_once_link_it_once)
{
    char root[CML_PATH], work[CML_PATH], path[CML_PATH], bins[CML_PATH], log[CML_PATH], err[512];
    cml_lab_spec two[2];
    fake_root_setup(root, sizeof root, 10, 10, two, work, sizeof work);
    cml_fmt(bins, sizeof bins, "%s/binaries", root);
    cml_fmt(log, sizeof log, "%s/nvcc.log", root);
    setenv("FAKE_NVCC_LOG", log, 1);
    setenv("FAKE_NVCC_SLEEP", "1", 1);
    ref_build r[2];
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        r[i] = (ref_build){ .b = { .spec = &two[0], .cc = 90, .cache_dir = bins } };
        cml_fmt(path, sizeof path, "%s/work%d", root, i);
        ck_assert_msg(cml_stage(root, &two[0], CML_SIDE_REFERENCE, NULL, path, r[i].b.dir,
                                sizeof r[i].b.dir, err, sizeof err) == 0, "%s", err);
    }
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, build_ref, &r[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    unsetenv("FAKE_NVCC_SLEEP");
    unsetenv("FAKE_NVCC_LOG");
    char *text = cml_read_text(log, 1 << 16, NULL);
    int links = 0;
    for (const char *p = text; p && *p; p += strcspn(p, "\n"), p += *p == '\n') {
        size_t n = strcspn(p, "\n");
        links += (n == 3 || (n > 3 && p[n - 4] == '/')) && strncmp(p + n - 3, "lab", 3) == 0;
    }
    ck_assert_msg(r[0].ok && r[1].ok, "%s %s", r[0].b.log ? r[0].b.log : "",
                  r[1].b.log ? r[1].b.log : "");
    ck_assert_msg(links == 1 && r[0].b.cached + r[1].b.cached == 1, "%d links, cached %d %d:\n%s",
                  links, r[0].b.cached, r[1].b.cached, text ? text : "");
    ck_assert_str_eq(r[0].b.bin, r[1].b.bin); /* both run the stored binary */
    free(text);
    for (int i = 0; i < 2; i++)
        cml_build_free(&r[i].b);
    cml_rmtree(root);
}
END_TEST

/* Contract in suites.h. */
void build_objects_add(Suite *s)
{
    TCase *tc = tcase_create("build_objects");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, a_reference_build_keeps_the_harness_object_for_every_later_build);
    tcase_add_test(tc, a_changed_harness_or_kept_object_is_compiled_again);
    tcase_add_test(tc, builds_of_one_reference_at_once_link_it_once);
    suite_add_tcase(s, tc);
}
