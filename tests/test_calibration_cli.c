/* `cml-grade calibrate` and `grade --calibration` end to end on the fake repository
 * (tests/fake_root.c): the stored reference runs stand in for live ones only where their key
 * still holds, are read as claims like a live run, and `calibrate --check` sees drift both ways. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch_fixture.h"
#include "calibration.h"
#include "helpers.h"
#include "suites.h"
#include "util.h"

static char cal_file[CML_PATH], subm[CML_PATH]; /* the calibration; the submission */

static void setup(void)
{
    batch_setup();
    unsetenv("FAKE_REF_MS");
    cml_fmt(subm, sizeof subm, "%s/labs", root);
    cml_fmt(cal_file, sizeof cal_file, "%s/fake.cal", root);
}

static void teardown(void)
{
    unsetenv("FAKE_REF_MS");
    batch_teardown();
}

/* `calibrate` of both fake labs into cal_file; asserts it worked. */
static void calibrate(void)
{
    const char *args[] = { "calibrate", "--root", root, "--out", cal_file, NULL };
    int rc = cli(args);
    ck_assert_msg(rc == 0, "calibrate exit %d:\n%s", rc, output);
}

/* `grade` into root/<name> (seed 42), with --calibration `cal` unless NULL; its exit status. */
static int grade(const char *name, const char *cal)
{
    cml_fmt(out, sizeof out, "%s/%s", root, name);
    const char *args[] = { "grade", "--root", root, "--submission", subm, "--out", out,
                           "--seed", "42", "--no-color", cal ? "--calibration" : NULL, cal,
                           NULL };
    return cli(args);
}

/* root/<name>/record.json (malloc'd); asserts it is there. */
static char *record_of(const char *name)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/%s/record.json", root, name);
    char *text = cml_read_text(path, 1u << 22, NULL);
    ck_assert_msg(text != NULL, "no %s; output:\n%s", path, output);
    return text;
}

/* The reference_run source the record gives lab ("calibration", ...) into buf. */
static const char *source_of(const char *record, const char *lab, char *buf, size_t len)
{
    char key[96];
    snprintf(key, sizeof key, "\"lab\": \"%s\"", lab);
    const char *at = strstr(record, key), *src = at ? strstr(at, "\"source\": \"") : NULL;
    snprintf(buf, len, "%.*s", src ? (int)strcspn(src + 11, "\"") : 4, src ? src + 11 : "none");
    return buf;
}

/* Replace the first `old` in the calibration file by `new`; with lab, within the text of
 * lab's run, whose byte count then follows. Asserts `old` was there. */
static void edit(const char *lab, const char *old, const char *new)
{
    char *text = cml_read_text(cal_file, 1u << 22, NULL), *fixed = NULL, head[96];
    char sha[65] = "", cases[2048] = "";
    size_t bytes = 0, len = 0;
    ck_assert(text != NULL);
    snprintf(head, sizeof head, "run %s ", lab ? lab : "");
    char *run = lab ? strstr(text, head) : NULL, *body = run ? strchr(run, '\n') + 1 : text;
    ck_assert_msg(!lab || (run && sscanf(run, "run %*s %64s %zu %2047[^\n]", sha, &bytes,
                                         cases) == 3), "no run of %s in the file", lab);
    char *at = strstr(body, old);
    ck_assert_msg(at && (!lab || at + strlen(old) <= body + bytes), "'%s' not there", old);
    FILE *f = open_memstream(&fixed, &len);
    fprintf(f, "%.*s", (int)((lab ? run : at) - text), text);
    if (lab) /* its run line with the new count, then its text up to `old` */
        fprintf(f, "run %s %s %zu %s\n%.*s", lab, sha, bytes + strlen(new) - strlen(old),
                cases, (int)(at - body), body);
    fprintf(f, "%s%s", new, at + strlen(old));
    fclose(f);
    test_write(cal_file, fixed);
    free(fixed);
    free(text);
}

START_TEST(calibrate_stores_one_run_per_lab)
{
    calibrate();
    cml_calibration *c = calloc(1, sizeof *c);
    char err[512];
    ck_assert_msg(cml_cal_load(cal_file, c, err, sizeof err) == 0, "%s", err);
    int both = c->nruns == 2 && strcmp(c->runs[0].lab, "01_fake") == 0 &&
               strcmp(c->runs[1].lab, "02_fake") == 0 && strcmp(c->gpu, "Fake GPU") == 0;
    cml_cal_free(c);
    free(c);
    ck_assert_msg(both, "the file holds the wrong runs; output:\n%s", output);
}
END_TEST

START_TEST(missing_reference_file_fails_calibrate_with_one_message)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/solutions/02_fake/other.cu", root);
    unlink(path);
    const char *args[] = { "calibrate", "--root", root, "--out", cal_file, NULL };
    int rc = cli(args);
    ck_assert_msg(rc == 2 && strstr(output, "02_fake: ") && strstr(output, "other.cu") &&
                  !strstr(output, "did not compile") && access(cal_file, F_OK) != 0,
                  "exit %d (want 2, no file):\n%s", rc, output);
}
END_TEST

/* Every summary.tsv line of root/a equals root/b's in lab, task, status and score. */
static int same_scores(const char *a, const char *b)
{
    test_summary_line la[16], lb[16];
    char pa[CML_PATH], pb[CML_PATH];
    cml_fmt(pa, sizeof pa, "%s/%s", root, a);
    cml_fmt(pb, sizeof pb, "%s/%s", root, b);
    int na = test_read_summary(pa, la, 16), nb = test_read_summary(pb, lb, 16);
    for (int i = 0; na == nb && i < na; i++)
        if (strcmp(la[i].task, lb[i].task) || strcmp(la[i].status, lb[i].status) ||
            la[i].score != lb[i].score)
            return 0;
    return na == nb && na == 5;
}

START_TEST(grading_with_calibration_scores_as_a_live_grading)
{
    calibrate();
    setenv("FAKE_MODE", "slow", 1); /* 1.2 slow: its score rests on the reference's time */
    setenv("FAKE_TASK", "1.2", 1);
    grade("live", NULL);
    grade("cal", cal_file);
    char *rec = record_of("cal"), s1[64], s2[64], id[40], err[512];
    cml_calibration *c = calloc(1, sizeof *c);
    ck_assert_msg(cml_cal_load(cal_file, c, err, sizeof err) == 0, "%s", err);
    snprintf(id, sizeof id, "\"id\": \"%s\"", c->id);
    free(c);
    int ok = same_scores("live", "cal") && strstr(rec, id) &&
             !strcmp(source_of(rec, "01_fake", s1, 64), "calibration") &&
             !strcmp(source_of(rec, "02_fake", s2, 64), "calibration");
    free(rec);
    ck_assert_msg(ok, "sources %s, %s (want calibration), id %s; output:\n%s", s1, s2, id,
                  output);
}
END_TEST

START_TEST(changed_case_list_measures_only_that_lab_live)
{
    char spec[CML_PATH];
    calibrate();
    cml_fmt(spec, sizeof spec, "%s/grader/specs/01_fake.spec", root);
    char *text = cml_read_text(spec, 1u << 16, NULL), *at = strstr(text, "n=65536 time");
    ck_assert(at != NULL);
    at[6] = '7'; /* n=65537: the timed case moved */
    test_write(spec, text);
    free(text);
    grade("cal", cal_file);
    char *rec = record_of("cal"), s1[64], s2[64];
    source_of(rec, "01_fake", s1, 64);
    source_of(rec, "02_fake", s2, 64);
    free(rec);
    ck_assert_msg(!strcmp(s1, "measured in this grading") && !strcmp(s2, "calibration"),
                  "sources %s, %s; output:\n%s", s1, s2, output);
}
END_TEST

START_TEST(calibration_from_another_gpu_measures_every_lab_live)
{
    calibrate();
    edit(NULL, "gpu Fake GPU\n", "gpu NVIDIA H100 80GB HBM3\n");
    grade("cal", cal_file);
    char *rec = record_of("cal"), s1[64], s2[64];
    int ok = !strcmp(source_of(rec, "01_fake", s1, 64), "measured in this grading") &&
             !strcmp(source_of(rec, "02_fake", s2, 64), "measured in this grading") &&
             strstr(rec, "was measured on NVIDIA H100 80GB HBM3") && strstr(rec, "measured live");
    free(rec);
    ck_assert_msg(ok, "sources %s, %s; output:\n%s", s1, s2, output);
}
END_TEST

START_TEST(unreadable_calibration_stops_the_grading)
{
    char missing[CML_PATH];
    cml_fmt(missing, sizeof missing, "%s/no-such.cal", root);
    int rc = grade("cal", missing);
    ck_assert_msg(rc == 2 && strstr(output, missing) && strstr(output, "no such file"),
                  "exit %d (want 2); output:\n%s", rc, output);
}
END_TEST

/* A stored run edited (old -> new in 01_fake's run text) to claim what was not asked, or to end
 * before `done`, with the student slow in 1.1: the run is not trusted, the reference is
 * measured live (the progress says why: `warns`), and 1.1 is judged slow against it, not
 * given its performance points unjudged. */
static void forged_run_is_measured_live(const char *old, const char *new, const char *warns)
{
    calibrate();
    edit("01_fake", old, new);
    setenv("FAKE_MODE", "slow", 1);
    setenv("FAKE_TASK", "1.1", 1);
    grade("cal", cal_file);
    test_summary_line lines[16];
    int n = test_read_summary(out, lines, 16);
    const test_summary_line *t = test_summary_find(lines, n, "01_fake", "1.1");
    char *rec = record_of("cal"), s1[64], s2[64];
    int ok = t && !strcmp(t->status, "slow") && strstr(output, warns) &&
             !strcmp(source_of(rec, "01_fake", s1, 64), "measured in this grading") &&
             !strcmp(source_of(rec, "02_fake", s2, 64), "calibration");
    free(rec);
    ck_assert_msg(ok, "1.1 %s (%s), sources %s, %s; output:\n%s", t ? t->status : "missing",
                  t ? t->detail : "", s1, s2, output);
}

START_TEST(stored_run_with_another_task_id_is_not_trusted)
{
    forged_run_is_measured_live("case k=0 task=1.1 ", "case k=0 task=1.3 ", "was tampered");
}
END_TEST

START_TEST(stored_run_with_a_case_not_asked_is_not_trusted)
{
    forged_run_is_measured_live("\ndone\n", "\ncase k=5 task=1.1 status=ok elems=1 elem_bytes=4 "
                                "file=case5.bin\ndone\n", "was tampered");
}
END_TEST

START_TEST(stored_run_without_done_is_not_trusted)
{
    forged_run_is_measured_live("\ndone\n", "\n", "never wrote done");
}
END_TEST

/* calibrate --check of both labs against cal_file, the fake reference's time set to ms. */
static int check_at(const char *ms)
{
    const char *args[] = { "calibrate", "--root", root, "--check", cal_file, "--lab", "01",
                           "--lab", "02", NULL };
    if (ms)
        setenv("FAKE_REF_MS", ms, 1);
    return cli(args);
}

START_TEST(check_against_a_fresh_calibration_is_ok)
{
    calibrate();
    int rc = check_at(NULL);
    ck_assert_msg(rc == 0 && strstr(output, "01_fake: 1.000x") && !strstr(output, "DRIFT"),
                  "exit %d (want 0):\n%s", rc, output);
}
END_TEST

START_TEST(check_within_tolerance_is_ok)
{
    calibrate(); /* the fake reference takes 2 ms; 2.1 ms is 5% slower, under 6% */
    int rc = check_at("2.1");
    ck_assert_msg(rc == 0 && strstr(output, "1.050x") && !strstr(output, "DRIFT"),
                  "exit %d (want 0):\n%s", rc, output);
}
END_TEST

START_TEST(check_sees_a_slower_reference_as_drift)
{
    calibrate();
    setenv("FAKE_REF_MODE", "slow", 1); /* 3 times the calibration's time */
    int rc = check_at(NULL);
    ck_assert_msg(rc == 3 && strstr(output, "3.000x") && strstr(output, "DRIFT"),
                  "exit %d (want 3):\n%s", rc, output);
}
END_TEST

START_TEST(check_sees_a_faster_reference_as_drift)
{
    calibrate();
    int rc = check_at("1.8"); /* 10% faster */
    ck_assert_msg(rc == 3 && strstr(output, "0.900x") && strstr(output, "DRIFT"),
                  "exit %d (want 3):\n%s", rc, output);
}
END_TEST

START_TEST(check_without_the_lab_in_the_file_is_not_comparable)
{
    calibrate();
    edit(NULL, "run 02_fake ", "run 03_fake ");
    int rc = check_at(NULL);
    ck_assert_msg(rc == 2 && strstr(output, "02_fake: not comparable"),
                  "exit %d (want 2):\n%s", rc, output);
}
END_TEST

/* Contract in suites.h. */
void calibration_cli_add(Suite *s)
{
    TCase *tc = tcase_create("cli");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, calibrate_stores_one_run_per_lab);
    tcase_add_test(tc, missing_reference_file_fails_calibrate_with_one_message);
    tcase_add_test(tc, grading_with_calibration_scores_as_a_live_grading);
    tcase_add_test(tc, changed_case_list_measures_only_that_lab_live);
    tcase_add_test(tc, calibration_from_another_gpu_measures_every_lab_live);
    tcase_add_test(tc, unreadable_calibration_stops_the_grading);
    tcase_add_test(tc, stored_run_with_another_task_id_is_not_trusted);
    tcase_add_test(tc, stored_run_with_a_case_not_asked_is_not_trusted);
    tcase_add_test(tc, stored_run_without_done_is_not_trusted);
    tcase_add_test(tc, check_against_a_fresh_calibration_is_ok);
    tcase_add_test(tc, check_within_tolerance_is_ok);
    tcase_add_test(tc, check_sees_a_slower_reference_as_drift);
    tcase_add_test(tc, check_sees_a_faster_reference_as_drift);
    tcase_add_test(tc, check_without_the_lab_in_the_file_is_not_comparable);
    suite_add_tcase(s, tc);
}
