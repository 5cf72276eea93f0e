/* What a student reads: the student's reports (feedback.md, feedback.html, results.json,
 * junit.xml) name files relative to the submission, never by the server's folders; Markdown
 * is valid UTF-8 without HTML entities; a student's name keeps its letters in the gradebook and
 * the feedback while its folder name is ASCII. On feedback_fixture.c and the fake batch. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch_fixture.h"
#include "feedback_fixture.h"
#include "grade.h"
#include "report.h"
#include "suites.h"
#include "util.h"

#define STAGED "/srv/grading/out/work/01_coalescing-student-Ab12Cd"

static cml_grading *g;
static char dir[64];

static void setup(void)
{
    g = feedback_fixture();
    strcpy(g->submission, "/srv/subs/alice");
    strcpy(g->out_dir, "/srv/grading/out");
    strcpy(g->root, "/srv/cml");
    strcpy(dir, "/tmp/cml_student_text_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    cml_rmtree(dir);
    free(g);
}

/* Whether s is valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF),
 * checked here on its own so the writer's decoder is not its own judge. */
static int utf8_valid(const unsigned char *s)
{
    while (*s) {
        int n = *s < 0x80 ? 0 : (*s & 0xE0) == 0xC0 ? 1 : (*s & 0xF0) == 0xE0 ? 2
              : (*s & 0xF8) == 0xF0 ? 3 : -1;
        unsigned cp = n == 0 ? *s : n > 0 ? *s & (0x3F >> n) : 0;
        if (n < 0)
            return 0;
        for (int i = 1; i <= n; i++) {
            if ((s[i] & 0xC0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i] & 0x3F);
        }
        static const unsigned least[] = { 0, 0x80, 0x800, 0x10000 };
        if (cp < least[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        s += n + 1;
    }
    return 1;
}

/* The student's four files after cml_write_reports, one after another (malloc'd), and
 * record.json into *record. */
static char *student_files(char **record)
{
    static const char *const names[] = { "feedback.md", "feedback.html", "results.json",
                                         "junit.xml" };
    char p[128], *all = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&all, &len);
    ck_assert_int_eq(cml_write_reports(dir, g), 0);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        char *text = cml_read_text(p, 1 << 22, NULL);
        ck_assert_msg(text != NULL, "no %s", names[i]);
        fprintf(m, "==> %s\n%s\n", names[i], text);
        free(text);
    }
    fclose(m);
    snprintf(p, sizeof p, "%s/record.json", dir);
    *record = cml_read_text(p, 1 << 22, NULL);
    return all;
}

START_TEST(build_error_names_files_relative_to_the_submission)
{
    char *record, *all;
    g->labs[0].built = 0;
    g->labs[0].build_log = STAGED "/coalescing.cu:12: error: expected ';'\n"
                           "In file included from /srv/cml/common/cml_lab.h:3\n";
    strcpy(g->labs[0].tasks[0].detail, "compile error: " STAGED "/coalescing.cu:12: error");
    all = student_files(&record);
    ck_assert_msg(!strstr(all, "/srv/"), "a server path reached the student:\n%s", all);
    ck_assert_ptr_nonnull(strstr(all, "\ncoalescing.cu:12: error: expected ';'"));
    ck_assert_ptr_nonnull(strstr(all, "included from common/cml_lab.h:3"));
    ck_assert_ptr_nonnull(strstr(record, STAGED "/coalescing.cu:12")); /* the instructor's */
    g->labs[0].build_log = NULL;
    free(all);
    free(record);
}
END_TEST

START_TEST(sanitizer_rule_and_stage_errors_name_no_server_path)
{
    char *record, *all;
    cml_task_result *r = &g->labs[0].tasks[1];
    strcpy(r->sanitizers[0].detail, "memcheck: Invalid __global__ read at " STAGED
           "/coalescing.cu:23 in copyCoalesced");
    strcpy(r->detail, r->sanitizers[0].detail);
    strcpy(g->labs[0].tasks[2].detail, "link rule: coalescing.cu includes "
           "/srv/cml/solutions/01_coalescing/coalescing.cu, which lies in the grader's files "
           "(/srv/cml): include only your lab's files");
    strcpy(g->labs[1].tasks[0].detail, "/srv/subs/alice/06_zerocopy/zerocopy.cu is a "
           "symbolic link: submit the file itself");
    all = student_files(&record);
    ck_assert_msg(!strstr(all, "/srv/"), "a server path reached the student:\n%s", all);
    ck_assert_ptr_nonnull(strstr(all, "read at coalescing.cu:23 in copyCoalesced"));
    ck_assert_ptr_nonnull(strstr(all, "includes solutions/01_coalescing/coalescing.cu, which "
                                      "lies in the grader's files (the grader's folder)"));
    ck_assert_ptr_nonnull(strstr(all, "06_zerocopy/zerocopy.cu is a symbolic link"));
    free(all);
    free(record);
}
END_TEST

START_TEST(a_folder_inside_a_longer_name_is_not_taken_for_the_submission)
{
    char *t = cml_student_text(g, "/srv/subs/alicex/a.cu and /srv/subs/alice and x/srv/cml/y");
    ck_assert_str_eq(t, "/srv/subs/alicex/a.cu and your submission and x/srv/cml/y");
    free(t);
}
END_TEST

START_TEST(markdown_is_valid_utf8_without_html_entities)
{
    char *md;
    g->labs[0].built = 0;
    g->labs[0].build_log = "coalescing.cu(3): error: \xff\xfe bad \"name\" & <T> \xc3\x28\n";
    strcpy(g->labs[0].tasks[2].detail, "got \"q\" & <b> \xe2\x82 here");
    strcpy(g->labs[1].tasks[0].detail, "Zo\xc3\xab's 'quote' \xf0\x9f\x98\x80");
    ck_assert_int_eq(cml_write_reports(dir, g), 0);
    char p[128];
    snprintf(p, sizeof p, "%s/feedback.md", dir);
    md = cml_read_text(p, 1 << 22, NULL);
    ck_assert_msg(utf8_valid((const unsigned char *)md), "invalid UTF-8:\n%s", md);
    ck_assert_msg(!strstr(md, "&quot;") && !strstr(md, "&amp;") && !strstr(md, "&lt;") &&
                  !strstr(md, "&gt;") && !strstr(md, "&#"), "an HTML entity:\n%s", md);
    ck_assert_ptr_nonnull(strstr(md, "\xef\xbf\xbd\xef\xbf\xbd bad \"name\" & <T>")); /* code */
    ck_assert_ptr_nonnull(strstr(md, "got \"q\" \\& \\<b\\>"));
    ck_assert_ptr_nonnull(strstr(md, "Zo\xc3\xab's 'quote' \xf0\x9f\x98\x80"));
    g->labs[0].build_log = NULL;
    free(md);
}
END_TEST

START_TEST(json_and_junit_are_valid_utf8_with_invalid_bytes)
{
    char *record, *all;
    g->labs[0].built = 0;
    g->labs[0].build_log = "bad \xff\xfe\xc0\xaf \xed\xa0\x80 ctl\x01\x1b[31m\n";
    strcpy(g->labs[0].tasks[2].detail, "detail \x80\xf5 end");
    all = student_files(&record);
    ck_assert_msg(utf8_valid((const unsigned char *)all), "invalid UTF-8:\n%s", all);
    ck_assert_msg(utf8_valid((const unsigned char *)record), "record:\n%s", record);
    ck_assert_ptr_null(strchr(all, '\x1b'));
    g->labs[0].build_log = NULL;
    free(all);
    free(record);
}
END_TEST

START_TEST(folder_names_lose_accents_not_letters)
{
    char out[100];
    cml_folder_name("\xc3\x89mile Zo\xc3\xab", out, sizeof out); /* Émile Zoë */
    ck_assert_str_eq(out, "Emile_Zoe");
    cml_folder_name("Stra\xc3\x9f" "e \xc5\x81\xc3\xb3" "d\xc5\xba", out, sizeof out);
    ck_assert_str_eq(out, "Strasse_Lodz"); /* Straße Łódź */
    cml_folder_name("\xe6\x9d\x8e.\xff", out, sizeof out); /* a CJK letter, an invalid byte */
    ck_assert_str_eq(out, "_._");
    cml_folder_name("..", out, sizeof out);
    ck_assert_str_eq(out, "_.");
}
END_TEST

START_TEST(display_names_keep_letters_and_replace_invalid_bytes)
{
    char out[64];
    cml_display_name("\xc3\x89mile\tZo\xc3\xab \xff", out, sizeof out);
    ck_assert_str_eq(out, "\xc3\x89mile Zo\xc3\xab \xef\xbf\xbd");
}
END_TEST

/* The batch on the fake repository: names as submitted in the gradebook and the feedback,
 * ASCII folders, and "-2" for a second name that maps to the same folder. */
START_TEST(batch_keeps_names_and_numbers_clashing_folders)
{
    student("\xc3\x89mile Zo\xc3\xab", NULL);
    student("Emile Zoe", NULL);
    const char *args[] = { "batch", "--root", root, "--submissions", sub, "--out", out,
                           "--gpus", "0", "--no-calibration", NULL };
    cli(args);
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/gradebook.csv", out);
    char *book = cml_read_text(path, 1 << 20, NULL);
    ck_assert_msg(book && strstr(book, "\r\n\xc3\x89mile Zo\xc3\xab,") &&
                  strstr(book, "\r\nEmile Zoe,"), "gradebook:\n%s\noutput:\n%s",
                  book ? book : "(none)", output);
    cml_fmt(path, sizeof path, "%s/students/Emile_Zoe/feedback.md", out);
    char *first = cml_read_text(path, 1 << 20, NULL);
    cml_fmt(path, sizeof path, "%s/students/Emile_Zoe-2/feedback.md", out);
    char *second = cml_read_text(path, 1 << 20, NULL);
    ck_assert_msg(first && second, "folders Emile_Zoe and Emile_Zoe-2 expected:\n%s", output);
    ck_assert_msg(strstr(first, "Student: Emile Zoe") && strstr(second, "Student: \xc3\x89mile"),
                  "names in the feedback:\n%s\n%s", first, second); /* scandir: E < \xc3 */
    free(book);
    free(first);
    free(second);
}
END_TEST

/* The suite of what a student reads. */
Suite *student_text_suite(void)
{
    Suite *s = suite_create("student_text");
    TCase *reports = tcase_create("reports"), *names = tcase_create("names");
    tcase_add_checked_fixture(reports, setup, teardown);
    tcase_add_test(reports, build_error_names_files_relative_to_the_submission);
    tcase_add_test(reports, sanitizer_rule_and_stage_errors_name_no_server_path);
    tcase_add_test(reports, a_folder_inside_a_longer_name_is_not_taken_for_the_submission);
    tcase_add_test(reports, markdown_is_valid_utf8_without_html_entities);
    tcase_add_test(reports, json_and_junit_are_valid_utf8_with_invalid_bytes);
    tcase_add_test(names, folder_names_lose_accents_not_letters);
    tcase_add_test(names, display_names_keep_letters_and_replace_invalid_bytes);
    tcase_add_checked_fixture(names, batch_setup, batch_teardown);
    tcase_add_test(names, batch_keeps_names_and_numbers_clashing_folders);
    tcase_set_timeout(names, 120);
    suite_add_tcase(s, reports);
    suite_add_tcase(s, names);
    return s;
}
