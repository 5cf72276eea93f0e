/* Course platform downloads (platform.c) and the files the platforms import (gradebook_lms.c),
 * on the fake repository (no GPU): a Canvas zip with a late student, a re-upload "-1" and a
 * student's own zip inside; Moodle folders with spaces and non-ASCII names, its older flat
 * layout; GitHub Classroom clones; a mixed download; old plan.tsv files. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch_fixture.h"
#include "helpers.h"
#include "platform.h"
#include "suites.h"
#include "util.h"

/* The fake labs' two student files, with lab 01's replaced by `fake` when not NULL, as
 * dir/<prefix>fake.cu and dir/<prefix>other.cu. */
static void lab_files(const char *dir, const char *prefix, const char *fake)
{
    char path[CML_PATH], src[CML_PATH];
    cml_mkdirs(dir);
    cml_fmt(path, sizeof path, "%s/%sfake.cu", dir, prefix);
    cml_fmt(src, sizeof src, "%s/labs/01_fake/fake.cu", root);
    if (fake)
        test_write(path, fake);
    else
        sh("cp %s \"%s\"", src, path);
    cml_fmt(path, sizeof path, "%s/%sother.cu", dir, prefix);
    cml_fmt(src, sizeof src, "%s/labs/02_fake/other.cu", root);
    sh("cp %s \"%s\"", src, path);
}

/* Canvas's "Download Submissions" zip: smithjohn on time; doejane LATE, whose fake.cu was
 * uploaded twice (the first BROKEN, the newer "fake-1.cu"); leeann's own zip. */
static void canvas_download(char *zip, size_t len)
{
    char dir[CML_PATH], tmp[CML_PATH];
    cml_fmt(dir, sizeof dir, "%s/canvas", root);
    lab_files(dir, "smithjohn_1001_5001_", NULL);
    lab_files(dir, "doejane_LATE_1002_5002_", NULL);
    sh("cd %s && mv doejane_LATE_1002_5002_fake.cu doejane_LATE_1002_5002_fake-1.cu && "
       "echo BROKEN > doejane_LATE_1002_5002_fake.cu%s", dir, "");
    cml_fmt(tmp, sizeof tmp, "%s/leeann", root);
    lab_files(tmp, "", NULL);
    sh("cd %s && zip -q -r leeann_1003_5003_mywork.zip . && mv leeann_1003_5003_mywork.zip %s/",
       tmp, dir);
    cml_fmt(zip, len, "%s/submissions.zip", root);
    sh("cd %s && zip -q -r %s .", dir, zip);
}

/* Moodle's "Download all submissions" in folders: "Émile Zoë" (older folder name with the
 * trailing '_', plus an online text folder), "Ann Lee" (newer name) who uploaded a zip. */
static void moodle_download(void)
{
    char dir[CML_PATH];
    cml_fmt(dir, sizeof dir, "%s/Émile Zoë_20001_assignsubmission_file_", sub);
    lab_files(dir, "", NULL);
    cml_fmt(dir, sizeof dir, "%s/Émile Zoë_20001_assignsubmission_onlinetext_", sub);
    cml_mkdirs(dir);
    sh("echo '<p>see files</p>' > \"%s/onlinetext.html\"%s", dir, "");
    cml_fmt(dir, sizeof dir, "%s/Ann Lee_20002_assignsubmission_file", sub);
    lab_files(dir, "", NULL);
    sh("cd \"%s\" && zip -q -m work.zip fake.cu other.cu%s", dir, "");
}

/* cml-grade batch over `from` with extra options (NULL-terminated, at most 4); its exit. */
static int batch(const char *from, const char *x1, const char *x2)
{
    const char *args[] = { "batch", "--root", root, "--submissions", from, "--out", out,
                           "--gpus", "0", "--no-calibration", x1, x2, NULL };
    return cli(args);
}

/* out/rel, read (NULL when missing); the caller frees it. */
static char *out_file(const char *rel)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/%s", out, rel);
    return cml_read_text(path, 1 << 20, NULL);
}

static int full(const char *name)
{
    cml_student_status s = status_of(name);
    return strcmp(s.state, "graded") == 0 && s.max > 0 && s.score == s.max;
}

START_TEST(canvas_zip_is_graded_per_student_under_original_names)
{
    char zip[CML_PATH];
    canvas_download(zip, sizeof zip);
    int rc = batch(zip, NULL, NULL);
    char *plan = out_file("plan.tsv");
    ck_assert_msg(rc == 0 && full("smithjohn_1001") && full("doejane_1002") &&
                  full("leeann_1003") && plan && strstr(plan, "\tcanvas\t1002\tdoejane\t1\t"),
                  "exit %d; plan:\n%s\noutput:\n%s", rc, plan ? plan : "(none)", output);
    free(plan);
}
END_TEST

START_TEST(canvas_gradebook_import_has_canvas_columns_and_points_possible)
{
    char zip[CML_PATH], want[512];
    canvas_download(zip, sizeof zip);
    int rc = batch(zip, "--canvas-assignment", "Lab 1 (4242)");
    cml_student_status s = status_of("doejane_1002");
    char *csv = out_file("canvas-grades.csv"), *fb = out_file("feedback-canvas/doejane_1002.html");
    snprintf(want, sizeof want, "Student,ID,SIS User ID,SIS Login ID,Section,Lab 1 (4242)\r\n"
             "Points Possible,,,,,%g\r\n", s.max);
    ck_assert_msg(rc == 0 && csv && strncmp(csv, want, strlen(want)) == 0 && fb, "exit %d; "
                  "canvas-grades.csv:\n%s\nwanted it to start:\n%s\nfeedback file %s", rc,
                  csv ? csv : "(none)", want, fb ? "written" : "missing");
    snprintf(want, sizeof want, "\r\ndoejane,1002,,,,%g\r\n", s.score);
    ck_assert_msg(strstr(csv, want) && strstr(csv, "\r\nleeann,1003,,,,"), "no row %s in:\n%s",
                  want, csv);
    free(csv);
    /* the gradebook keeps Canvas's LATE marker for the instructor's late policy */
    csv = out_file("gradebook.csv");
    ck_assert_msg(csv && strstr(csv, ",late\r\n") && strstr(csv, "\r\ndoejane,") &&
                  strstr(strstr(csv, "\r\ndoejane,"), ",late\r\n") &&
                  strstr(strstr(csv, "\r\nsmithjohn,"), ",\r\n"), "gradebook.csv:\n%s",
                  csv ? csv : "(none)");
    free(csv);
    free(fb);
}
END_TEST

START_TEST(moodle_folders_keep_full_names_and_participant_ids)
{
    moodle_download();
    int rc = batch(sub, NULL, NULL);
    char *who = out_file("students/Emile_Zoe_20001/identity.json");
    ck_assert_msg(rc == 0 && full("Emile_Zoe_20001") && full("Ann_Lee_20002") && who &&
                  strstr(who, "\"name\": \"Émile Zoë\"") && strstr(who, "\"id\": \"20001\""),
                  "exit %d; identity %s\n%s", rc, who ? who : "(none)", output);
    free(who);
}
END_TEST

START_TEST(moodle_worksheet_and_feedback_zip_are_what_moodle_uploads)
{
    char want[512], cmd[2 * CML_PATH];
    moodle_download();
    int rc = batch(sub, NULL, NULL);
    cml_student_status s = status_of("Emile_Zoe_20001");
    char *csv = out_file("moodle-grading-worksheet.csv");
    char *fb = out_file("feedback-upload/Émile Zoë_20001_assignsubmission_file_/feedback.html");
    static const char HEADER[] = "Identifier,Full name,Email address,Status,Grade,Maximum "
        "Grade,Grade can be changed,Last modified (submission),Last modified (grade),Feedback "
        "comments\r\n";
    snprintf(want, sizeof want, "\nParticipant 20001,Émile Zoë,,Submitted for grading,%g,%g,"
             "Yes,,20", s.score, s.max); /* then the ISO 8601 time of the grades */
    ck_assert_msg(rc == 0 && csv && strncmp(csv, HEADER, strlen(HEADER)) == 0 &&
                  strstr(csv, want) && fb,
                  "exit %d; worksheet:\n%s\nwanted it to start:\n%s\nfeedback %s", rc,
                  csv ? csv : "(none)", want, fb ? "written" : "missing");
    snprintf(cmd, sizeof cmd, "unzip -l %s/feedback-upload.zip | grep -q "
             "' Émile Zoë_20001_assignsubmission_file_/feedback.html$'", out);
    ck_assert_msg(system(cmd) == 0, "feedback-upload.zip lacks the student's folder");
    free(csv);
    free(fb);
}
END_TEST

START_TEST(moodle_flat_files_are_gathered_by_participant)
{
    lab_files(sub, "Bob Day_30001_assignsubmission_file_", NULL);
    int rc = batch(sub, NULL, NULL);
    char *cu = out_file("extracted/Bob_Day_30001/fake.cu");
    ck_assert_msg(rc == 0 && full("Bob_Day_30001") && cu, "exit %d; gathered fake.cu %s\n%s",
                  rc, cu ? "yes" : "missing", output);
    free(cu);
}
END_TEST

START_TEST(github_classroom_clones_are_named_by_username)
{
    student("lab1-alice", NULL);
    student("lab1-bob-smith", NULL);
    sh("mkdir -p %s/lab1-alice/.git && echo ref > %s/lab1-alice/.git/HEAD", sub, sub);
    int rc = batch(sub, NULL, NULL);
    char *plan = out_file("plan.tsv");
    ck_assert_msg(rc == 0 && full("alice") && full("bob-smith") && plan &&
                  strstr(plan, "\tgithub\tbob-smith\tbob-smith\t0\t"), "exit %d; plan:\n%s\n%s",
                  rc, plan ? plan : "(none)", output);
    free(plan);
}
END_TEST

/* A folder that mixes layouts (downloads poured into one folder): each name is read as its
 * own platform writes it, so carol's folder is carol and the Canvas files are smithjohn's. */
START_TEST(mixed_download_reads_each_name_by_its_platform)
{
    cml_download d;
    char err[512];
    student("carol", NULL);
    lab_files(sub, "smithjohn_1001_5001_", NULL);
    ck_assert_int_eq(cml_download_scan(sub, CML_PF_AUTO, &d, err, sizeof err), 0);
    int carol = -1, smith = -1;
    for (int s = 0; s < d.nstudents; s++) {
        carol = strcmp(d.students[s].who.display, "carol") == 0 ? s : carol;
        smith = strcmp(d.students[s].who.platform, "canvas") == 0 &&
                strcmp(d.students[s].who.id, "1001") == 0 ? s : smith;
    }
    ck_assert_msg(d.layout == CML_PF_FOLDERS && d.mixed && d.nstudents == 2 && carol >= 0 &&
                  smith >= 0 && d.students[smith].gather && d.students[smith].count == 2,
                  "layout %s, mixed %d, %d students", cml_platform_name(d.layout), d.mixed,
                  d.nstudents);
    cml_download_free(&d);
}
END_TEST

START_TEST(forced_platform_reads_folders_as_classroom_clones)
{
    cml_download d;
    char err[512];
    student("hw2-dana", NULL);
    student("hw2-eli", NULL); /* no .git: detection says plain folders */
    ck_assert_int_eq(cml_download_scan(sub, CML_PF_AUTO, &d, err, sizeof err), 0);
    ck_assert_msg(d.layout == CML_PF_FOLDERS, "detected %s", cml_platform_name(d.layout));
    cml_download_free(&d);
    ck_assert_int_eq(cml_download_scan(sub, cml_platform_parse("github"), &d, err, sizeof err), 0);
    ck_assert_msg(d.layout == CML_PF_GITHUB && strcmp(d.students[0].who.id, "dana") == 0,
                  "forced: %s, id %s", cml_platform_name(d.layout), d.students[0].who.id);
    cml_download_free(&d);
}
END_TEST

START_TEST(old_plan_loads_as_plain_students_and_new_columns_load)
{
    char path[CML_PATH], err[512];
    cml_plan p;
    cml_mkdirs(out);
    cml_fmt(path, sizeof path, "%s/plan.tsv", out);
    test_write(path, "0\talice\t/s/alice\t42\t\n1\tbob\t/s/bob.zip\t43\tnot graded: broken\n"
                     "2\tdoejane_1002\t/o/x\t44\t\tcanvas\t1002\tdoejane\t1\t/d/doejane_f.cu\n");
    ck_assert_int_eq(cml_plan_load(out, &p, err, sizeof err), 0);
    ck_assert_msg(p.n == 3 && strcmp(p.e[0].who.platform, "folders") == 0 &&
                  strcmp(p.e[0].who.display, "alice") == 0 && p.e[0].seed == 42 &&
                  strcmp(p.e[1].unusable, "not graded: broken") == 0 &&
                  strcmp(p.e[2].who.id, "1002") == 0 && p.e[2].who.late == 1 &&
                  strcmp(p.e[2].from, "/d/doejane_f.cu") == 0, "loaded %d entries: %s/%s %s; "
                  "%s; id %s late %d from %s", p.n, p.e[0].who.platform, p.e[0].who.display,
                  p.e[1].unusable, p.e[2].who.id, p.e[2].who.id, p.e[2].who.late, p.e[2].from);
    cml_plan_free(&p);
}
END_TEST

START_TEST(batch_refuses_an_unknown_platform)
{
    student("alice", NULL);
    int rc = batch(sub, "--platform", "blackboard");
    ck_assert_msg(rc == 2 && strstr(output, "--platform takes"), "exit %d\n%s", rc, output);
}
END_TEST

Suite *platforms_suite(void)
{
    Suite *s = suite_create("platforms");
    TCase *tc = tcase_create("platforms");
    tcase_add_checked_fixture(tc, batch_setup, batch_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, canvas_zip_is_graded_per_student_under_original_names);
    tcase_add_test(tc, canvas_gradebook_import_has_canvas_columns_and_points_possible);
    tcase_add_test(tc, moodle_folders_keep_full_names_and_participant_ids);
    tcase_add_test(tc, moodle_worksheet_and_feedback_zip_are_what_moodle_uploads);
    tcase_add_test(tc, moodle_flat_files_are_gathered_by_participant);
    tcase_add_test(tc, github_classroom_clones_are_named_by_username);
    tcase_add_test(tc, mixed_download_reads_each_name_by_its_platform);
    tcase_add_test(tc, forced_platform_reads_folders_as_classroom_clones);
    tcase_add_test(tc, old_plan_loads_as_plain_students_and_new_columns_load);
    tcase_add_test(tc, batch_refuses_an_unknown_platform);
    suite_add_tcase(s, tc);
    return s;
}
