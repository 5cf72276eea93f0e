/* The reports: the terminal text a student reads (rendered into memory), and the JSON, Gradescope
 * and TSV files, checked with a strict JSON validator against hostile strings. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_valid.h"
#include "report.h"
#include "suites.h"

static cml_grading *g;
static cml_lab_spec lab;
static char dir[64], path[128];

static void fill_tasks(void)
{
    cml_task_spec *t = &lab.tasks[0];
    strcpy(t->id, "1.1");
    strcpy(t->title, "Coalesced copy: consecutive threads touch consecutive addresses");
    strcpy(t->hint, "Section 2: which address does lane 0 touch?");
    t->points = 6, t->perf_points = 4, t->ncases = 3;
    t = &lab.tasks[1];
    strcpy(t->id, "1.2a");
    strcpy(t->title, "Naive transpose");
    strcpy(t->hint, "Section 4, \"Two naive transposes\": which side is strided?");
    t->points = 6, t->ncases = 4;
    for (int i = 0; i < 4; i++)
        snprintf(lab.tasks[1].cases[i].text, sizeof lab.tasks[1].cases[i].text, "n=%d", 4097 + i);
    lab.ntasks = 2;
}

static void fill_results(cml_lab_result *l)
{
    cml_task_result *r = &l->tasks[0];
    r->spec = &lab.tasks[0];
    r->status = CML_STATUS_PASSED;
    r->cases_passed = 3, r->score = 10, r->max_score = 10, r->timed = 1;
    r->ms = 0.18, r->ref_ms = 0.178, r->ratio = 1.0112, r->copy_fraction = 0.92;
    strcpy(r->detail, "1.01x the reference time (full credit up to 1.15x, none from 2.5x)");
    for (int i = 0; i < 3; i++)
        r->cases[i].passed = 1;
    r = &l->tasks[1];
    r->spec = &lab.tasks[1];
    r->status = CML_STATUS_WRONG;
    r->cases_passed = 3, r->score = 4.5, r->max_score = 6;
    for (int i = 0; i < 4; i++)
        r->cases[i].passed = i != 1;
    r->cases[1].nbad = 12, r->cases[1].nmis = 1;
    r->cases[1].mis[0] = (cml_mismatch){5, 1.2345678f, NAN};
    strcpy(r->detail, "case n=4098: 12 of 4098 elements differ; first at index 5");
    l->ntasks = 2, l->score = 14.5, l->max_score = 16, l->built = 1, l->ref_built = 1;
}

static void setup(void)
{
    memset(&lab, 0, sizeof lab);
    strcpy(lab.lab, "01_coalescing");
    strcpy(lab.title, "Global-memory coalescing");
    strcpy(lab.note, "docs/01_coalescing.md");
    fill_tasks();
    g = calloc(1, sizeof *g);
    g->seed = UINT64_MAX;
    strcpy(g->submission, "/home/student/submission");
    strcpy(g->started_at, "2025-01-01T00:00:00Z");
    g->have_gpu = 1, g->cc = 90, g->sms = 132, g->driver = 13000, g->runtime = 13000;
    strcpy(g->gpu_name, "NVIDIA H100 80GB HBM3");
    strcpy(g->nvcc_version, "13.0");
    g->nlabs = 1, g->score = 14.5, g->max_score = 16;
    g->labs[0].spec = &lab;
    fill_results(&g->labs[0]);
    strcpy(dir, "/tmp/cml_report_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out.json", dir);
}

static void teardown(void)
{
    unlink(path);
    rmdir(dir);
    free(g);
}

/* The terminal report as a malloc'd string. */
static char *render(int color)
{
    static char *buf; /* static: open_memstream keeps its address until fclose */
    static size_t len;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    cml_report_terminal(f, g, color);
    fclose(f);
    return buf;
}

/* A whole file as a malloc'd string; *len gets its length. */
static char *slurp(const char *p, size_t *len)
{
    FILE *f = fopen(p, "rb");
    ck_assert_ptr_nonnull(f);
    char *buf = malloc(1 << 20);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

/* The last line of s (without its newline), in a static buffer. */
static const char *last_line(const char *s)
{
    static char line[256];
    size_t n = strlen(s);
    ck_assert_uint_gt(n, 0);
    ck_assert_int_eq(s[n - 1], '\n');
    const char *start = s + n - 1;
    while (start > s && start[-1] != '\n')
        start--;
    snprintf(line, sizeof line, "%.*s", (int)(s + n - 1 - start), start);
    return line;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

START_TEST(report_ends_with_score_line)
{
    char *out = render(0);
    ck_assert_str_eq(last_line(out), "Score: 14.5/16");
    free(out);
}
END_TEST

START_TEST(score_line_is_plain_even_in_colour)
{
    g->score = 38.5, g->max_score = 40;
    char *out = render(1);
    ck_assert_str_eq(last_line(out), "Score: 38.5/40");
    free(out);
}
END_TEST

START_TEST(score_line_rounds_to_two_decimals)
{
    g->score = 20.0 / 3, g->max_score = 10;
    char *out = render(0);
    ck_assert_str_eq(last_line(out), "Score: 6.67/10");
    free(out);
}
END_TEST

START_TEST(no_colour_unless_asked)
{
    char *plain = render(0), *colour = render(1);
    ck_assert_ptr_null(strchr(plain, '\033'));
    ck_assert_ptr_nonnull(strstr(colour, "\033[32m"));
    free(plain);
    free(colour);
}
END_TEST

START_TEST(header_names_gpu_versions_seed_and_submission)
{
    char *out = render(0);
    ck_assert_ptr_nonnull(strstr(out, "/home/student/submission"));
    ck_assert_ptr_nonnull(strstr(out, "seed 18446744073709551615"));
    ck_assert_ptr_nonnull(strstr(out, "NVIDIA H100 80GB HBM3, compute capability 9.0, 132 SMs, "
                                      "driver 13.0, runtime 13.0, nvcc 13.0"));
    free(out);
}
END_TEST

START_TEST(table_row_shows_cases_times_ratio_bandwidth_and_points)
{
    char *out = render(0);
    const char *row = strstr(out, "\n1.1 ");
    ck_assert_ptr_nonnull(row);
    ck_assert_ptr_nonnull(strstr(row, "3/3"));
    ck_assert_ptr_nonnull(strstr(row, "0.180"));
    ck_assert_ptr_nonnull(strstr(row, "0.178"));
    ck_assert_ptr_nonnull(strstr(row, "1.01x"));
    ck_assert_ptr_nonnull(strstr(row, "92%"));
    ck_assert_ptr_nonnull(strstr(row, "10/10"));
    ck_assert_ptr_nonnull(strstr(out, "3/4"));
    ck_assert_ptr_nonnull(strstr(out, "4.5/6"));
    free(out);
}
END_TEST

START_TEST(long_title_is_truncated)
{
    char *out = render(0);
    ck_assert_ptr_nonnull(strstr(out, "Coalesced copy: consecutive..."));
    ck_assert_ptr_null(strstr(out, "consecutive addresses"));
    free(out);
}
END_TEST

START_TEST(failed_task_shows_detail_mismatches_and_hint_naming_the_note)
{
    char *out = render(0);
    ck_assert_ptr_nonnull(strstr(out, "wrong: case n=4098: 12 of 4098 elements differ"));
    ck_assert_ptr_nonnull(strstr(out, "index 5: expected 1.23456776, got nan"));
    ck_assert_ptr_nonnull(strstr(out, "hint (docs/01_coalescing.md): Section 4, \"Two naive"));
    ck_assert_ptr_null(strstr(out, "which address does lane 0 touch")); /* 1.1 passed */
    free(out);
}
END_TEST

START_TEST(build_failure_shows_the_compiler_log)
{
    g->labs[0].built = 0;
    g->labs[0].build_log = "coalescing.cu(12): error: expected a \";\"\n";
    char *out = render(0);
    ck_assert_ptr_nonnull(strstr(out, "Build failed"));
    ck_assert_ptr_nonnull(strstr(out, "coalescing.cu(12): error: expected a \";\""));
    free(out);
}
END_TEST

START_TEST(escape_sequences_in_compiler_output_are_neutralised)
{
    g->labs[0].built = 0;
    g->labs[0].build_log = "x.cu(1): error: \033[2J\033]0;pwned\007 here\n";
    char *out = render(0);
    ck_assert_ptr_null(strchr(out, '\033'));
    ck_assert_ptr_null(strchr(out, '\007'));
    free(out);
}
END_TEST

START_TEST(no_gpu_is_said_once_and_builds_are_listed)
{
    g->have_gpu = 0;
    strcpy(g->no_gpu_reason, "cudaErrorNoDevice: no CUDA-capable device is detected");
    g->score = 0;
    char *out = render(0);
    ck_assert_int_eq(count(out, "No GPU found"), 1);
    ck_assert_ptr_nonnull(strstr(out, "cudaErrorNoDevice: no CUDA-capable device is detected"));
    ck_assert_ptr_nonnull(strstr(out, "01_coalescing"));
    ck_assert_ptr_nonnull(strstr(out, "builds"));
    ck_assert_str_eq(last_line(out), "Score: 0/16");
    free(out);
}
END_TEST

static const char NASTY[] = "q\"uote b\\ack ctl\x01\x1f esc\x1b[31m del\x7f tab\t nl\n bad\xff\xfe "
                            "cut\xe2\x82 over\xc0\xaf sur\xed\xa0\x80 ok \xc3\xa9 \xf0\x9f\x98\x80";

/* Writes one report into path and checks it is valid JSON; returns its text (malloc'd). */
static char *write_valid(int (*report)(const char *, const cml_grading *))
{
    size_t len;
    ck_assert_int_eq(report(path, g), 0);
    char *text = slurp(path, &len);
    ck_assert_msg(json_valid(text, len), "invalid JSON:\n%s", text);
    return text;
}

START_TEST(json_validator_rejects_what_it_should)
{
    const char *bad[] = {"{\"a\":1,}", "[1 2]", "\"\x01\"", "\"\xff\"", "01", "{\"a\"}", "nul",
                         "\"\\x\"", "[1]x", "{'a':1}", "1.", "-"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(!json_valid(bad[i], strlen(bad[i])), "accepted %s", bad[i]);
    const char *good = "{\"a\": [1, -0.5e3, true, null, \"\\u00e9\", {}, []]}";
    ck_assert(json_valid(good, strlen(good)));
}
END_TEST

START_TEST(json_record_is_valid_json)
{
    free(write_valid(cml_report_json));
}
END_TEST

START_TEST(json_record_keeps_the_seed_as_a_string_too)
{
    char *text = write_valid(cml_report_json);
    ck_assert_ptr_nonnull(strstr(text, "\"seed_string\": \"18446744073709551615\""));
    ck_assert_ptr_nonnull(strstr(text, "\"seed\": 18446744073709551615"));
    free(text);
}
END_TEST

START_TEST(json_escapes_control_characters_and_invalid_utf8)
{
    strcpy(g->labs[0].tasks[1].detail, NASTY);
    strcpy(g->submission, NASTY);
    g->labs[0].build_log = (char *)NASTY;
    char *text = write_valid(cml_report_json);
    ck_assert_ptr_nonnull(strstr(text, "q\\\"uote b\\\\ack ctl\\u0001\\u001f esc\\u001b[31m "));
    ck_assert_ptr_nonnull(strstr(text, "del\\u007f tab\\t nl\\n bad\\ufffd\\ufffd "
                                       "cut\\ufffd\\ufffd"));
    ck_assert_ptr_nonnull(strstr(text, "ok \xc3\xa9 \xf0\x9f\x98\x80"));
    free(text);
}
END_TEST

START_TEST(json_writes_nan_and_infinity_as_null)
{
    g->labs[0].tasks[0].ratio = NAN;
    g->labs[0].tasks[0].gbps = INFINITY;
    char *text = write_valid(cml_report_json);
    ck_assert_ptr_nonnull(strstr(text, "\"ratio\": null"));
    ck_assert_ptr_nonnull(strstr(text, "\"gbps\": null"));
    ck_assert_ptr_nonnull(strstr(text, "\"got\": null"));
    free(text);
}
END_TEST

START_TEST(json_record_holds_tasks_and_cases)
{
    char *text = write_valid(cml_report_json);
    ck_assert_ptr_nonnull(strstr(text, "\"status\": \"wrong\""));
    ck_assert_ptr_nonnull(strstr(text, "\"text\": \"n=4098\""));
    ck_assert_ptr_nonnull(strstr(text, "\"index\": 5"));
    ck_assert_ptr_nonnull(strstr(text, "\"name\": \"NVIDIA H100 80GB HBM3\""));
    free(text);
}
END_TEST

START_TEST(gradescope_results_have_one_test_per_task)
{
    strcpy(g->labs[0].tasks[1].detail, NASTY);
    char *text = write_valid(cml_report_gradescope);
    ck_assert_int_eq(count(text, "\"visibility\": \"visible\""), 2);
    ck_assert_ptr_nonnull(strstr(text, "\"name\": \"1.2a Naive transpose\""));
    ck_assert_ptr_nonnull(strstr(text, "\"number\": \"1.2a\""));
    ck_assert_ptr_nonnull(strstr(text, "\"status\": \"failed\""));
    ck_assert_ptr_nonnull(strstr(text, "\"status\": \"passed\""));
    ck_assert_ptr_nonnull(strstr(text, "\"score\": 14.5"));
    ck_assert_ptr_nonnull(strstr(text, "\"max_score\": 16"));
    ck_assert_ptr_nonnull(strstr(text, "\"execution_time\""));
    free(text);
}
END_TEST

START_TEST(gradescope_output_holds_detail_mismatches_and_hint)
{
    char *text = write_valid(cml_report_gradescope);
    ck_assert_ptr_nonnull(strstr(text, "12 of 4098 elements differ; first at index 5\\n  "
                                       "index 5: expected 1.23456776, got nan\\n"
                                       "Hint (docs/01_coalescing.md)"));
    free(text);
}
END_TEST

START_TEST(tsv_has_one_line_per_task_with_six_fields)
{
    size_t len;
    ck_assert_int_eq(cml_report_tsv(path, g), 0);
    char *text = slurp(path, &len);
    ck_assert_int_eq(count(text, "\n"), 2);
    ck_assert_int_eq(count(text, "\t"), 10);
    ck_assert_ptr_nonnull(strstr(text, "01_coalescing\t1.2a\twrong\t4.5\t6\tcase n=4098: 12 of"));
    free(text);
}
END_TEST

START_TEST(tsv_replaces_tabs_and_newlines_in_the_detail)
{
    size_t len;
    strcpy(g->labs[0].tasks[0].detail, "a\tb\nc\rd");
    ck_assert_int_eq(cml_report_tsv(path, g), 0);
    char *text = slurp(path, &len);
    ck_assert_ptr_nonnull(strstr(text, "\t10\t10\ta b c d\n"));
    ck_assert_int_eq(count(text, "\n"), 2);
    free(text);
}
END_TEST

START_TEST(writes_atomically_leaving_no_temporary_file)
{
    char tmp[160];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    ck_assert_int_eq(cml_report_json(path, g), 0);
    ck_assert_int_eq(access(path, F_OK), 0);
    ck_assert_int_ne(access(tmp, F_OK), 0);
}
END_TEST

START_TEST(reports_failure_to_write)
{
    ck_assert_int_eq(cml_report_json("/nonexistent/dir/record.json", g), -1);
    ck_assert_int_eq(cml_report_gradescope("/nonexistent/dir/results.json", g), -1);
    ck_assert_int_eq(cml_report_tsv("/nonexistent/dir/summary.tsv", g), -1);
}
END_TEST

/* The reports' suite. */
Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *term = tcase_create("terminal"), *files = tcase_create("files");
    tcase_add_checked_fixture(term, setup, teardown);
    tcase_add_checked_fixture(files, setup, teardown);
    tcase_add_test(term, report_ends_with_score_line);
    tcase_add_test(term, score_line_is_plain_even_in_colour);
    tcase_add_test(term, score_line_rounds_to_two_decimals);
    tcase_add_test(term, no_colour_unless_asked);
    tcase_add_test(term, header_names_gpu_versions_seed_and_submission);
    tcase_add_test(term, table_row_shows_cases_times_ratio_bandwidth_and_points);
    tcase_add_test(term, long_title_is_truncated);
    tcase_add_test(term, failed_task_shows_detail_mismatches_and_hint_naming_the_note);
    tcase_add_test(term, build_failure_shows_the_compiler_log);
    tcase_add_test(term, escape_sequences_in_compiler_output_are_neutralised);
    tcase_add_test(term, no_gpu_is_said_once_and_builds_are_listed);
    tcase_add_test(files, json_validator_rejects_what_it_should);
    tcase_add_test(files, json_record_is_valid_json);
    tcase_add_test(files, json_record_keeps_the_seed_as_a_string_too);
    tcase_add_test(files, json_escapes_control_characters_and_invalid_utf8);
    tcase_add_test(files, json_writes_nan_and_infinity_as_null);
    tcase_add_test(files, json_record_holds_tasks_and_cases);
    tcase_add_test(files, gradescope_results_have_one_test_per_task);
    tcase_add_test(files, gradescope_output_holds_detail_mismatches_and_hint);
    tcase_add_test(files, tsv_has_one_line_per_task_with_six_fields);
    tcase_add_test(files, tsv_replaces_tabs_and_newlines_in_the_detail);
    tcase_add_test(files, writes_atomically_leaving_no_temporary_file);
    tcase_add_test(files, reports_failure_to_write);
    suite_add_tcase(s, term);
    suite_add_tcase(s, files);
    return s;
}
