/* The finder (grader/src/1_stage/find.c): a lab's student files found in every common shape
 * of a submission folder, with junk, links and ambiguity refused by name. On the fake root's
 * lab 01_fake (file fake.cu); the archive shapes are in tests/test_find_archives.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "find.h"
#include "helpers.h"
#include "stage.h"
#include "suites.h"
#include "util.h"

static char root[64], sub[CML_PATH], found[CML_MAX_FILES][CML_PATH], err[2048];
static cml_lab_spec specs[2];

static void setup(void)
{
    test_tmpdir(root, sizeof root);
    fake_root_make(root, 20, 20);
    fake_root_specs(root, specs);
    cml_fmt(sub, sizeof sub, "%s/sub", root);
    ck_assert(cml_mkdirs(sub) == 0);
}

static void teardown(void)
{
    cml_rmtree(root);
}

/* sub/rel with text (its folders made). */
static void put(const char *rel, const char *text)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/%s", sub, rel);
    *strrchr(path, '/') = '\0';
    ck_assert(cml_mkdirs(path) == 0);
    path[strlen(path)] = '/';
    test_write(path, text);
}

/* The finder on lab 01_fake: its result; found[0] and err hold the rest. */
static int find01(void)
{
    err[0] = '\0';
    found[0][0] = '\0';
    return cml_find_lab_files(sub, &specs[0], found, err, sizeof err);
}

/* Whether the finder chose sub/rel for fake.cu. */
static int chose(const char *rel)
{
    char want[CML_PATH];
    cml_fmt(want, sizeof want, "%s/%s", sub, rel);
    return find01() == 0 && strcmp(found[0], want) == 0;
}

START_TEST(flat_folder_is_found)
{
    put("fake.cu", "mine\n");
    put("other.cu", "lab two\n");
    ck_assert_msg(chose("fake.cu"), "found '%s', err '%s'", found[0], err);
}
END_TEST

START_TEST(lab_shaped_folder_is_found)
{
    put("01_fake/fake.cu", "mine\n");
    ck_assert_msg(chose("01_fake/fake.cu"), "found '%s', err '%s'", found[0], err);
}
END_TEST

/* How most people zip a folder: everything under myname/. Fails on the old finder (it looked
 * only at SUB/<lab>/<file> and SUB/<file>). */
START_TEST(one_top_folder_is_descended)
{
    put("myname/fake.cu", "mine\n");
    ck_assert_msg(chose("myname/fake.cu"), "found '%s', err '%s'", found[0], err);
}
END_TEST

START_TEST(labs_under_a_top_folder_is_found)
{
    put("myname/labs/01_fake/fake.cu", "mine\n");
    put("myname/labs/01_fake/harness.cu", "a copy of the harness\n");
    ck_assert_msg(chose("myname/labs/01_fake/fake.cu"), "found '%s', err '%s'", found[0], err);
}
END_TEST

START_TEST(solutions_shaped_folder_is_found)
{
    put("solutions/01_fake/fake.cu", "mine\n");
    ck_assert_msg(chose("solutions/01_fake/fake.cu"), "found '%s', err '%s'", found[0], err);
}
END_TEST

/* <lab>/<file> outranks a flat file even when the flat one lies nearer the top. */
START_TEST(lab_folder_wins_over_a_flat_file_nearer_the_top)
{
    put("fake.cu", "an old draft\n");
    put("work/labs/01_fake/fake.cu", "mine\n");
    ck_assert_msg(chose("work/labs/01_fake/fake.cu"), "found '%s', err '%s'", found[0], err);
}
END_TEST

/* Two different files of the same rank: an error naming both, relative to the submission.
 * Fails on a finder that silently picks one. */
START_TEST(two_different_candidates_are_an_error_naming_both)
{
    put("a/fake.cu", "one\n");
    put("b/fake.cu", "another\n");
    ck_assert_msg(find01() == -1 && strstr(err, "a/fake.cu") && strstr(err, "b/fake.cu") &&
                  strstr(err, "keep only") && !strstr(err, sub), "err '%s'", err);
}
END_TEST

/* The same file twice (a copy beside the original) is one file, not an ambiguity. */
START_TEST(identical_copies_are_one_file)
{
    put("a/fake.cu", "mine\n");
    put("b/fake.cu", "mine\n");
    ck_assert_msg(chose("a/fake.cu"), "found '%s', err '%s'", found[0], err);
}
END_TEST

/* macOS's __MACOSX/ and ._ files, .git/ and .DS_Store are never candidates: here each holds a
 * decoy nearer the top than the real file, which is the one found. */
START_TEST(macos_and_git_junk_is_ignored)
{
    put("__MACOSX/01_fake/fake.cu", "resource fork\n");
    put(".git/01_fake/fake.cu", "an old commit\n");
    put("myname/.DS_Store", "finder data\n");
    put("myname/01_fake/._fake.cu", "apple double\n");
    put("myname/01_fake/fake.cu", "mine\n");
    ck_assert_msg(chose("myname/01_fake/fake.cu"), "found '%s', err '%s'", found[0], err);
}
END_TEST

/* A file named like the student's that is a symbolic link is refused by name, and so is a
 * linked lab folder (never followed, so the file behind it is not found). */
START_TEST(symbolic_links_are_refused)
{
    char target[CML_PATH], link[CML_PATH];
    cml_fmt(target, sizeof target, "%s/solutions/01_fake/fake.cu", root);
    cml_fmt(link, sizeof link, "%s/fake.cu", sub);
    ck_assert(symlink(target, link) == 0);
    ck_assert_msg(find01() == -1 && strstr(err, "fake.cu is a symbolic link"), "err '%s'", err);
    unlink(link);
    cml_fmt(target, sizeof target, "%s/solutions/01_fake", root);
    cml_fmt(link, sizeof link, "%s/01_fake", sub);
    ck_assert(symlink(target, link) == 0);
    ck_assert_msg(find01() == -1 && strstr(err, "01_fake is a symbolic link"), "err '%s'", err);
}
END_TEST

/* The search is bounded: six folders down is found, seven is not handed in. */
START_TEST(search_stops_six_folders_down)
{
    put("a/b/c/d/e/01_fake/fake.cu", "mine\n");
    ck_assert_msg(chose("a/b/c/d/e/01_fake/fake.cu"), "found '%s', err '%s'", found[0], err);
    cml_fmt(found[1], sizeof found[1], "%s/a", sub);
    cml_rmtree(found[1]);
    put("a/b/c/d/e/f/01_fake/fake.cu", "mine\n");
    ck_assert_msg(find01() == CML_FIND_MISSING, "err '%s'", err);
}
END_TEST

/* A lab of two files with one handed in: missing, naming only the file that is not there. */
START_TEST(multi_file_lab_names_the_file_not_handed_in)
{
    snprintf(specs[0].files[1], sizeof specs[0].files[1], "extra.cu");
    specs[0].nfiles = 2;
    put("01_fake/fake.cu", "mine\n");
    ck_assert_msg(find01() == CML_FIND_MISSING && strstr(err, "not handed in: extra.cu is") &&
                  strstr(err, "01_fake/extra.cu") && !strstr(err, "fake.cu,"), "err '%s'", err);
}
END_TEST

/* Staging uses the finder: the file from a top folder arrives under its spec name. */
START_TEST(staging_copies_what_the_finder_found)
{
    char work[CML_PATH], dir[CML_PATH], path[CML_PATH];
    put("myname/labs/01_fake/fake.cu", "found it\n");
    cml_fmt(work, sizeof work, "%s/work", root);
    int rc = cml_stage(root, &specs[0], CML_SIDE_STUDENT, sub, work, dir, sizeof dir, err,
                       sizeof err);
    cml_fmt(path, sizeof path, "%s/fake.cu", dir);
    char *text = rc == 0 ? cml_read_text(path, 1 << 20, NULL) : NULL;
    ck_assert_msg(text && strcmp(text, "found it\n") == 0, "rc %d (%s)", rc, err);
    free(text);
}
END_TEST

/* The finder's suite; the archive shapes are added from tests/test_find_archives.c. */
Suite *find_suite(void)
{
    Suite *s = suite_create("find");
    TCase *tc = tcase_create("folders");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, flat_folder_is_found);
    tcase_add_test(tc, lab_shaped_folder_is_found);
    tcase_add_test(tc, one_top_folder_is_descended);
    tcase_add_test(tc, labs_under_a_top_folder_is_found);
    tcase_add_test(tc, solutions_shaped_folder_is_found);
    tcase_add_test(tc, lab_folder_wins_over_a_flat_file_nearer_the_top);
    tcase_add_test(tc, two_different_candidates_are_an_error_naming_both);
    tcase_add_test(tc, identical_copies_are_one_file);
    tcase_add_test(tc, macos_and_git_junk_is_ignored);
    tcase_add_test(tc, symbolic_links_are_refused);
    tcase_add_test(tc, search_stops_six_folders_down);
    tcase_add_test(tc, multi_file_lab_names_the_file_not_handed_in);
    tcase_add_test(tc, staging_copies_what_the_finder_found);
    suite_add_tcase(s, tc);
    find_archives_add(s);
    return s;
}
