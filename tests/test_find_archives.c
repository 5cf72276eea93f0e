/* Submissions handed in as archives, graded end to end on the fake repository: `grade
 * --submission FILE` in every archive shape (zip, tar.gz, tgz, tar, a zip made on macOS), and a
 * batch over archives beside a student who left a lab out (status `missing` in every report).
 * Part of the find suite (tests/test_find.c). Each fails on a grader that reads an archive's
 * top folder as the submission, or cannot grade an archive at all. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_fixture.h"
#include "helpers.h"
#include "suites.h"
#include "util.h"

/* root/shape/rel with text, for an archive to be made of root/shape. */
static void shape_file(const char *rel, const char *text)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/shape/%s", root, rel);
    *strrchr(path, '/') = '\0';
    ck_assert(cml_mkdirs(path) == 0);
    path[strlen(path)] = '/';
    test_write(path, text);
}

/* Both fake labs' files under the folder `prefix` of root/shape ("myname/labs/"). */
static void both_labs(const char *prefix, int lab_folders)
{
    char rel[CML_PATH];
    cml_fmt(rel, sizeof rel, "%s%sfake.cu", prefix, lab_folders ? "01_fake/" : "");
    shape_file(rel, "// fake source: ld.shared bar.sync\n");
    cml_fmt(rel, sizeof rel, "%s%sother.cu", prefix, lab_folders ? "02_fake/" : "");
    shape_file(rel, "// fake source: ld.shared bar.sync\n");
}

/* `cml-grade grade --submission sub/name`; whether every task of both labs passed and the
 * unpacked copy was removed after. */
static int graded_in_full(const char *name)
{
    char path[CML_PATH];
    test_summary_line lines[16];
    cml_fmt(path, sizeof path, "%s/%s", sub, name);
    const char *args[] = { "grade", "--root", root, "--submission", path, "--out", out,
                           "--seed", "42", "--no-color", NULL };
    int rc = cli(args), n = test_read_summary(out, lines, 16), passed = 0;
    for (int i = 0; i < n; i++)
        passed += strcmp(lines[i].status, "passed") == 0;
    cml_fmt(path, sizeof path, "ls -d %s/work/submission-* >/dev/null 2>&1", out);
    int left = system(path) == 0; /* the unpacked copy outlived the grading */
    return rc == 0 && n > 0 && passed == n && !left;
}

START_TEST(zip_with_a_top_folder_is_graded)
{
    both_labs("myname/", 1);
    sh("cd %s/shape && zip -qr %s/myname.zip myname", root, sub);
    ck_assert_msg(graded_in_full("myname.zip"), "output:\n%s", output);
}
END_TEST

/* A machine without unzip (the GPU machines have python3 and no unzip): the zip is unpacked
 * by python3's zipfile module, and graded the same. */
START_TEST(zip_is_graded_without_unzip)
{
    both_labs("myname/labs/", 1);
    sh("cd %s/shape && zip -qr %s/myname.zip myname", root, sub);
    setenv("CML_UNZIP", "/nonexistent/unzip", 1);
    int ok = graded_in_full("myname.zip");
    unsetenv("CML_UNZIP");
    ck_assert_msg(ok, "output:\n%s", output);
}
END_TEST

START_TEST(tar_gz_with_labs_under_a_top_folder_is_graded)
{
    both_labs("myname/labs/", 1);
    shape_file("myname/labs/01_fake/harness.cu", "a copy of the harness\n");
    sh("tar -czf %s/myname.tar.gz -C %s/shape myname", sub, root);
    ck_assert_msg(graded_in_full("myname.tar.gz"), "output:\n%s", output);
}
END_TEST

START_TEST(tgz_of_a_flat_folder_is_graded)
{
    both_labs("myname/", 0);
    sh("tar -czf %s/myname.tgz -C %s/shape myname", sub, root);
    ck_assert_msg(graded_in_full("myname.tgz"), "output:\n%s", output);
}
END_TEST

START_TEST(plain_tar_of_solutions_shaped_folders_is_graded)
{
    both_labs("solutions/", 1);
    sh("tar -cf %s/myname.tar -C %s/shape solutions", sub, root);
    ck_assert_msg(graded_in_full("myname.tar"), "output:\n%s", output);
}
END_TEST

/* What macOS's "Compress" makes: the folder, plus __MACOSX/ with ._ AppleDouble files, and a
 * .DS_Store; none of them is taken for a student file. */
START_TEST(zip_made_on_macos_is_graded)
{
    both_labs("myname/", 1);
    shape_file("myname/.DS_Store", "finder data\n");
    shape_file("__MACOSX/myname/01_fake/._fake.cu", "apple double\n");
    shape_file("__MACOSX/myname/._01_fake", "apple double\n");
    sh("cd %s/shape && zip -qr %s/myname.zip myname __MACOSX", root, sub);
    ck_assert_msg(graded_in_full("myname.zip"), "output:\n%s", output);
}
END_TEST

/* An archive that will not unpack stops `grade` with exit 2 and one line saying so, naming it;
 * nothing of it is left under the output's work folder. */
START_TEST(archive_that_will_not_unpack_is_a_clear_error)
{
    char path[CML_PATH];
    sh("head -c 3000 /dev/urandom > %s/myname.zip%s", sub, "");
    cml_fmt(path, sizeof path, "%s/myname.zip", sub);
    const char *args[] = { "grade", "--root", root, "--submission", path, "--out", out, NULL };
    int rc = cli(args);
    ck_assert_msg(rc == 2 && strstr(output, "myname.zip: the archive could not be unpacked") &&
                  !strstr(output, "Score:"), "exit %d, output:\n%s", rc, output);
    cml_fmt(path, sizeof path, "ls -d %s/work/submission-* >/dev/null 2>&1", out);
    ck_assert_msg(system(path) != 0, "an unpacked folder was left under %s/work", out);
}
END_TEST

/* Two different fake.cu at one rank: lab 01 is a build-error naming both, under its own heading
 * (no compiler ran), and lab 02 is graded. Fails when the finder picks one silently, or the
 * report says "The compiler said". */
START_TEST(ambiguous_files_cost_only_that_lab_and_are_named)
{
    both_labs("myname/a/", 0);
    shape_file("myname/b/fake.cu", "// another draft\n");
    const char *args[] = { "grade", "--root", root, "--submission", NULL, "--out", out,
                           "--no-color", NULL };
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/shape", root);
    args[4] = path;
    cli(args);
    ck_assert_msg(strstr(output, "two different fake.cu in the submission, myname/a/fake.cu "
                         "and myname/b/fake.cu") &&
                  strstr(output, "Not built: the submission's files were refused:") &&
                  !strstr(output, "The compiler said") && strstr(output, "Score: 8/32"),
                  "output:\n%s", output);
}
END_TEST

/* out/students/name/file holds text. */
static int report_has(const char *name, const char *file, const char *text)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/students/%s/%s", out, name, file);
    char *t = cml_read_text(path, 1 << 22, NULL);
    int has = t && strstr(t, text);
    free(t);
    return has;
}

/* A batch over a zip with a top folder, a tar.gz with myname/labs/ and a folder without lab
 * 02: the archives are graded in full (the batch unpacks with the same module as grade), and
 * lab 02 of the third is `missing` with what to do, in every report and the gradebook,
 * never a build error under "The compiler said". */
START_TEST(batch_grades_archives_and_marks_a_lab_not_handed_in_missing)
{
    char path[CML_PATH];
    both_labs("alice/", 1);
    sh("cd %s/shape && zip -qr %s/alice.zip alice", root, sub);
    both_labs("bob/labs/", 1);
    sh("tar -czf %s/bob.tar.gz -C %s/shape bob", sub, root);
    student("carol", NULL);
    cml_fmt(path, sizeof path, "%s/carol/02_fake", sub);
    cml_rmtree(path);
    const char *args[] = { "batch", "--root", root, "--submissions", sub, "--out", out,
                           "--gpus", "0", "--no-calibration", NULL };
    int rc = cli(args);
    cml_student_status a = status_of("alice"), b = status_of("bob"), c = status_of("carol");
    ck_assert_msg(rc == 0 && a.max > 0 && a.score == a.max && b.score == b.max &&
                  strcmp(c.state, "graded") == 0 && c.score > 0 && c.score < c.max,
                  "exit %d; alice %s %g/%g, bob %s %g/%g, carol %s %g/%g; output:\n%s", rc,
                  a.state, a.score, a.max, b.state, b.score, b.max, c.state, c.score, c.max,
                  output);
    const char *put = "put it in a folder named 02_fake";
    ck_assert(report_has("carol", "summary.tsv", "\tmissing\t"));
    ck_assert(report_has("carol", "summary.tsv", "not handed in: other.cu is nowhere"));
    ck_assert(report_has("carol", "record.json", "\"missing\""));
    ck_assert(report_has("carol", "results.json", put));
    ck_assert(report_has("carol", "junit.xml", "missing"));
    ck_assert(report_has("carol", "feedback.md", "Nothing to build:"));
    ck_assert(report_has("carol", "feedback.html", put));
    ck_assert(report_has("carol", "grade.log", put));
    ck_assert(!report_has("carol", "grade.log", "The compiler said"));
    ck_assert(!report_has("carol", "feedback.md", "The compiler said"));
    cml_fmt(path, sizeof path, "%s/gradebook.csv", out);
    char *book = cml_read_text(path, 1 << 20, NULL);
    ck_assert_msg(book && strstr(book, "02_fake: missing"), "gradebook:\n%s", book);
    free(book);
}
END_TEST

/* Contract in suites.h. */
void find_archives_add(Suite *s)
{
    TCase *tc = tcase_create("archives");
    tcase_add_checked_fixture(tc, batch_setup, batch_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, zip_with_a_top_folder_is_graded);
    tcase_add_test(tc, zip_is_graded_without_unzip);
    tcase_add_test(tc, tar_gz_with_labs_under_a_top_folder_is_graded);
    tcase_add_test(tc, tgz_of_a_flat_folder_is_graded);
    tcase_add_test(tc, plain_tar_of_solutions_shaped_folders_is_graded);
    tcase_add_test(tc, zip_made_on_macos_is_graded);
    tcase_add_test(tc, archive_that_will_not_unpack_is_a_clear_error);
    tcase_add_test(tc, ambiguous_files_cost_only_that_lab_and_are_named);
    tcase_add_test(tc, batch_grades_archives_and_marks_a_lab_not_handed_in_missing);
    suite_add_tcase(s, tc);
}
