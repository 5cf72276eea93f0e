/* The calibration file (grader/src/5_time/calibration.c): what it saves it loads back, a
 * damaged file is refused with a message, and a file from another GPU is not used. The end to
 * end tests on the fake repository are in tests/test_calibration_cli.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibration.h"
#include "helpers.h"
#include "suites.h"
#include "util.h"

static char dir[64], path[CML_PATH], err[512];
static cml_calibration *cal; /* [0] written, [1] read back */

static const char RUN1[] = "hello protocol=1 lab=fake\ntime k=0 task=1.1 ms=2.0\ndone\n";
static const char RUN2[] = "hello protocol=1 lab=fake\ndone"; /* no final newline */

static void setup(void)
{
    test_tmpdir(dir, sizeof dir);
    cml_fmt(path, sizeof path, "%s/gpu.cal", dir);
    cal = calloc(2, sizeof *cal);
    ck_assert(cal != NULL);
    snprintf(cal->gpu, sizeof cal->gpu, "NVIDIA H100 80GB HBM3");
    cal->cc = 90;
    cal->driver = 13000;
    snprintf(cal->nvcc, sizeof cal->nvcc, "13.0.88");
    snprintf(cal->created, sizeof cal->created, "2025-01-01T00:00:00Z");
    ck_assert(cml_cal_put(cal, "01_fake", "aa", "1.1,n=65536,time", RUN1, strlen(RUN1)) == 0);
    ck_assert(cml_cal_put(cal, "02_fake", "bb", "2.1,n=8192,time", RUN2, strlen(RUN2)) == 0);
    err[0] = '\0';
}

static void teardown(void)
{
    cml_cal_free(&cal[0]);
    cml_cal_free(&cal[1]);
    free(cal);
    cml_rmtree(dir);
}

/* Save cal[0], then replace the file's text as `edit` says (NULL: keep it). */
static void save_then_write(const char *text)
{
    ck_assert_msg(cml_cal_save(path, &cal[0], err, sizeof err) == 0, "%s", err);
    if (text)
        test_write(path, text);
}

START_TEST(saved_file_loads_back_the_same_runs_and_id)
{
    save_then_write(NULL);
    ck_assert_msg(cml_cal_load(path, &cal[1], err, sizeof err) == 0, "%s", err);
    const cml_cal_run *a = cml_cal_find(&cal[1], "01_fake", "aa", "1.1,n=65536,time");
    const cml_cal_run *b = cml_cal_find(&cal[1], "02_fake", "bb", "2.1,n=8192,time");
    ck_assert_msg(cal[1].nruns == 2 && a && b && a->len == strlen(RUN1) &&
                  strcmp(a->text, RUN1) == 0 && strcmp(b->text, RUN2) == 0 &&
                  strcmp(cal[1].gpu, cal[0].gpu) == 0 && cal[1].cc == 90 &&
                  cal[1].driver == 13000 && strcmp(cal[1].id, cal[0].id) == 0 &&
                  strlen(cal[1].id) == 16, "read back: %d runs, id %s (saved %s)",
                  cal[1].nruns, cal[1].id, cal[0].id);
}
END_TEST

START_TEST(find_wants_lab_sha_and_case_list_all_equal)
{
    ck_assert(cml_cal_find(&cal[0], "01_fake", "aa", "1.1,n=65536,time") != NULL);
    ck_assert(cml_cal_find(&cal[0], "01_fake", "ab", "1.1,n=65536,time") == NULL);
    ck_assert(cml_cal_find(&cal[0], "01_fake", "aa", "1.1,n=65537,time") == NULL);
    ck_assert(cml_cal_find(&cal[0], "02_fake", "aa", "1.1,n=65536,time") == NULL);
}
END_TEST

START_TEST(put_with_the_same_key_replaces_the_run)
{
    ck_assert(cml_cal_put(cal, "01_fake", "aa", "1.1,n=65536,time", RUN2, strlen(RUN2)) == 0);
    const cml_cal_run *a = cml_cal_find(&cal[0], "01_fake", "aa", "1.1,n=65536,time");
    ck_assert_msg(cal->nruns == 2 && a && strcmp(a->text, RUN2) == 0, "%d runs", cal->nruns);
}
END_TEST

/* A file written by hand, not by cml_cal_save: another GPU's header, no newline after the last
 * run's text. Still a calibration. */
START_TEST(hand_written_file_without_final_newline_loads)
{
    test_write(path, "cml-calibration 1\ngpu Fake GPU\ncc 80\ndriver 12000\nnvcc 12.4\n"
                     "created 2025-01-01T00:00:00Z\nrun 01_fake cc 4 1.1,n=4,time\ndone");
    ck_assert_msg(cml_cal_load(path, &cal[1], err, sizeof err) == 0, "%s", err);
    const cml_cal_run *r = cml_cal_find(&cal[1], "01_fake", "cc", "1.1,n=4,time");
    ck_assert_msg(r && strcmp(r->text, "done") == 0 && strcmp(cal[1].gpu, "Fake GPU") == 0 &&
                  cal[1].cc == 80, "run %s, gpu %s", r ? r->text : "(none)", cal[1].gpu);
}
END_TEST

/* Load must fail, with a message naming the file and containing `why`. */
static void refused(const char *why)
{
    int rc = cml_cal_load(path, &cal[1], err, sizeof err);
    ck_assert_msg(rc == -1 && strstr(err, path) && strstr(err, why) && cal[1].nruns == 0,
                  "load gave %d, '%s' (want -1 and '%s')", rc, err, why);
}

START_TEST(file_cut_inside_its_header_is_refused)
{
    save_then_write("cml-calibration 1\ngpu NVIDIA H100 80GB HBM3\ncc 90\ndri");
    refused("header lacks");
}
END_TEST

START_TEST(file_with_another_magic_is_refused)
{
    save_then_write("cml-calibration 2\ngpu X\ncc 90\ndriver 1\nnvcc 1\ncreated now\n");
    refused("not a calibration file");
}
END_TEST

START_TEST(run_whose_byte_count_runs_past_the_end_is_refused)
{
    char text[1024];
    snprintf(text, sizeof text, "cml-calibration 1\ngpu X\ncc 90\ndriver 1\nnvcc 1\ncreated "
             "now\nrun 01_fake aa %zu 1.1,n=65536,time\n%s", strlen(RUN1) + 1, RUN1);
    save_then_write(text);
    refused("truncated");
}
END_TEST

START_TEST(saved_file_cut_short_is_refused)
{
    save_then_write(NULL);
    size_t len = 0;
    char *text = cml_read_text(path, 1u << 20, &len);
    ck_assert(text && len > 10);
    text[len - 10] = '\0'; /* the last run's text loses its end */
    test_write(path, text);
    free(text);
    refused("truncated");
}
END_TEST

START_TEST(missing_file_is_refused)
{
    refused("cannot read it");
}
END_TEST

/* cml_cal_matches_gpu on a grading with this GPU (name, cc, driver) changed as told. */
static int matches(const char *name, int cc, int driver, char *why, size_t len)
{
    cml_grading *g = calloc(1, sizeof *g);
    ck_assert(g != NULL);
    snprintf(g->gpu_name, sizeof g->gpu_name, "%s", name);
    g->cc = cc;
    g->driver = driver;
    why[0] = '\0';
    int m = cml_cal_matches_gpu(&cal[0], g, why, len);
    free(g);
    return m;
}

START_TEST(same_gpu_matches_and_another_is_measured_live)
{
    char why[320];
    ck_assert_int_eq(matches("NVIDIA H100 80GB HBM3", 90, 13000, why, sizeof why), 1);
    ck_assert_msg(matches("NVIDIA H200", 90, 13000, why, sizeof why) == 0 &&
                  strstr(why, "NVIDIA H200") && strstr(why, "measured live"), "%s", why);
    ck_assert_msg(matches("NVIDIA H100 80GB HBM3", 90, 12080, why, sizeof why) == 0 &&
                  strstr(why, "12080") && strstr(why, "measured live"), "%s", why);
    ck_assert_int_eq(matches("NVIDIA H100 80GB HBM3", 80, 13000, why, sizeof why), 0);
}
END_TEST

/* The calibration suite: the file here, the CLI on the fake repository beside it. */
Suite *calibration_suite(void)
{
    Suite *s = suite_create("calibration");
    TCase *tc = tcase_create("file");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, saved_file_loads_back_the_same_runs_and_id);
    tcase_add_test(tc, find_wants_lab_sha_and_case_list_all_equal);
    tcase_add_test(tc, put_with_the_same_key_replaces_the_run);
    tcase_add_test(tc, hand_written_file_without_final_newline_loads);
    tcase_add_test(tc, file_cut_inside_its_header_is_refused);
    tcase_add_test(tc, file_with_another_magic_is_refused);
    tcase_add_test(tc, run_whose_byte_count_runs_past_the_end_is_refused);
    tcase_add_test(tc, saved_file_cut_short_is_refused);
    tcase_add_test(tc, missing_file_is_refused);
    tcase_add_test(tc, same_gpu_matches_and_another_is_measured_live);
    suite_add_tcase(s, tc);
    calibration_cli_add(s);
    return s;
}
