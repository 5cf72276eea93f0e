/* The student's feedback (feedback.md, feedback.html with its SVG chart) and junit.xml, on the
 * hand-built grading of feedback_fixture.c: structure, numbers, and hostile student strings
 * that must stay text. Each checker used here is shown rejecting a wrong input first. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "feedback_fixture.h"
#include "grade.h"
#include "report.h"
#include "suites.h"
#include "util.h"
#include "xml_valid.h"

static cml_grading *g;
static char dir[64], path[128];

static void setup(void)
{
    g = feedback_fixture();
    strcpy(dir, "/tmp/cml_feedback_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out", dir);
}

static void teardown(void)
{
    cml_rmtree(dir);
    free(g);
}

/* Writes one report of g into path; its text (malloc'd). */
static char *write_text(int (*report)(const char *, const cml_grading *))
{
    ck_assert_int_eq(report(path, g), 0);
    char *text = cml_read_text(path, 1 << 22, NULL);
    ck_assert_ptr_nonnull(text);
    return text;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Whether html holds a bandwidth chart with bars of all three colours. */
static int has_chart(const char *html)
{
    const char *svg = strstr(html, "<svg class=\"bw-chart\"");
    return svg && strstr(svg, "class=\"bar student\"") && strstr(svg, CML_CHART_STUDENT) &&
           strstr(svg, CML_CHART_REFERENCE) && strstr(svg, CML_CHART_BOUND);
}

/* Every student string in the places a student controls. */
static void make_hostile(void)
{
    strcpy(g->labs[0].tasks[2].detail, FEEDBACK_HOSTILE);
    strcpy(g->labs[0].tasks[0].detail, FEEDBACK_HOSTILE);
    strcpy(g->submission, FEEDBACK_HOSTILE);
    g->labs[1].built = 0;
    g->labs[1].build_log = (char *)FEEDBACK_HOSTILE;
}

START_TEST(xml_checker_rejects_broken_markup)
{
    const char *bad[] = {"<a><b></a>", "<a x=1/>", "<a>&foo;</a>", "<a>\x01</a>", "<a>]]></a>",
                         "<a>x</a><b/>", "<a x=\"<\"/>", "<a>\xff</a>", "<a>< b</a>", "<a>",
                         "<a>&amp</a>", "<a x=\"1\"y=\"2\"/>"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(!xml_valid(bad[i], strlen(bad[i])), "accepted %s", bad[i]);
}
END_TEST

START_TEST(xml_checker_accepts_other_shapes)
{
    const char *good = "<?xml version=\"1.0\"?>\n<!DOCTYPE html><r a='1' b=\"&amp;&#39;&#x41;\">"
                       "<!-- c --><e/>text &gt; \xc3\xa9<f g=\"h\">i</f></r>\n";
    ck_assert(xml_valid(good, strlen(good)));
}
END_TEST

START_TEST(html_stays_well_formed_with_hostile_strings)
{
    make_hostile();
    char *html = write_text(cml_report_html);
    ck_assert_msg(xml_valid(html, strlen(html)), "not well-formed:\n%s", html);
    ck_assert_ptr_null(strstr(html, "<script"));
    ck_assert_ptr_nonnull(strstr(html, "&lt;/svg&gt;&lt;script&gt;alert(1)"));
    ck_assert_ptr_nonnull(strstr(html, "]]&gt; &quot;q&quot; &#39;a&#39;"));
    free(html);
}
END_TEST

START_TEST(html_needs_nothing_from_the_network)
{
    char *html = write_text(cml_report_html);
    ck_assert_int_eq(count(html, "http"), count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
    ck_assert_ptr_null(strstr(html, "src="));
    ck_assert_ptr_null(strstr(html, "href="));
    ck_assert_ptr_null(strstr(html, "url("));
    free(html);
}
END_TEST

START_TEST(chart_check_fails_without_timings)
{
    for (int i = 0; i < g->nlabs; i++)
        for (int k = 0; k < g->labs[i].ntasks; k++)
            g->labs[i].tasks[k].timed = 0;
    char *html = write_text(cml_report_html);
    ck_assert(!has_chart(html));
    ck_assert_int_eq(count(html, "there is no bandwidth chart"), 2);
    free(html);
}
END_TEST

START_TEST(chart_per_lab_with_three_bar_colours)
{
    char *html = write_text(cml_report_html);
    ck_assert(has_chart(html));
    ck_assert_int_eq(count(html, "<svg class=\"bw-chart\""), 2);
    ck_assert_int_eq(count(html, "class=\"bar reference\""), 3); /* 1.1, 1.2, 6.1 */
    free(html);
}
END_TEST

START_TEST(chart_reference_moves_the_same_bytes_in_its_own_time)
{
    char *html = write_text(cml_report_html);
    /* 1.2: 800 GB/s in 0.6 ms; the reference took 0.3 ms, so 1600 GB/s; bound: copy 3000 */
    ck_assert_ptr_nonnull(strstr(html, "1.2 student: 800 GB/s"));
    ck_assert_ptr_nonnull(strstr(html, "1.2 reference: 1600 GB/s"));
    ck_assert_ptr_nonnull(strstr(html, "1.2 bound, device copy: 3000 GB/s"));
    free(html);
}
END_TEST

START_TEST(chart_bound_of_a_host_task_is_the_link)
{
    char *html = write_text(cml_report_html);
    ck_assert_ptr_nonnull(strstr(html, "6.1 bound, host link: 50.0 GB/s")); /* 40 / 0.8 */
    free(html);
}
END_TEST

START_TEST(untimed_task_is_named_in_text)
{
    char *html = write_text(cml_report_html);
    ck_assert_ptr_nonnull(strstr(html, "Without timings: 1.3 (no timed case)."));
    free(html);
}
END_TEST

START_TEST(hint_and_mismatch_only_for_tasks_not_passed)
{
    char *html = write_text(cml_report_html);
    ck_assert_ptr_nonnull(strstr(html, "<strong>1.3</strong> (wrong): first mismatch index 7: "
                                       "expected 1.5, got 2.5. Read docs/01_coalescing.md: "
                                       "Section 1.3 of the note"));
    ck_assert_ptr_nonnull(strstr(html, "Section 1.2 of the note")); /* slow: not passed */
    ck_assert_ptr_null(strstr(html, "Section 1.1 of the note"));
    free(html);
}
END_TEST

/* Whether every line of text that starts with "| 1." (a task row of lab 01) has exactly five
 * unescaped '|', i.e. four cells. */
static int md_rows_have_four_cells(const char *text)
{
    for (const char *l = strstr(text, "\n| 1."); l; l = strstr(l + 1, "\n| 1.")) {
        int bars = 0;
        for (const char *c = l + 1; *c && *c != '\n'; c++)
            bars += *c == '|' && c[-1] != '\\';
        if (bars != 5)
            return 0;
    }
    return 1;
}

START_TEST(md_row_checker_rejects_an_extra_cell)
{
    ck_assert(!md_rows_have_four_cells("x\n| 1.1 | passed | 1/1 | a|b |\n"));
    ck_assert(md_rows_have_four_cells("x\n| 1.1 | passed | 1/1 | a\\|b |\n| 1.2 | w | 0/1 | |\n"));
}
END_TEST

START_TEST(md_keeps_one_row_per_task_with_hostile_strings)
{
    make_hostile();
    char *md = write_text(cml_report_feedback_md);
    ck_assert(md_rows_have_four_cells(md));
    ck_assert_int_eq(count(md, "\n| 1."), 3 + 2); /* three tasks, two bandwidth rows */
    *strstr(md, "The compiler said") = '\0'; /* the code block after it shows the log as is */
    for (const char *lt = strchr(md, '<'); lt; lt = strchr(lt + 1, '<'))
        ck_assert_msg(lt > md && lt[-1] == '\\', "raw '<' in Markdown text: %.40s", lt);
    ck_assert_ptr_nonnull(strstr(md, "\\</svg\\>\\<script\\>"));
    ck_assert_ptr_nonnull(strstr(md, "\\[l\\](http://x)"));
    free(md);
}
END_TEST

START_TEST(md_fences_a_build_log_longer_than_its_backticks)
{
    make_hostile();
    char *md = write_text(cml_report_feedback_md);
    ck_assert_ptr_nonnull(strstr(md, "The compiler said:\n\n````\n"));
    ck_assert_ptr_nonnull(strstr(md, "[l](http://x)\n````\n"));
    free(md);
}
END_TEST

START_TEST(md_has_score_and_bandwidth_numbers)
{
    char *md = write_text(cml_report_feedback_md);
    ck_assert_ptr_nonnull(strstr(md, "**Score: 27/36**"));
    ck_assert_ptr_nonnull(strstr(md, "| 1.2 | 800.0 | 1600.0 | 3000.0 (device copy) |"));
    ck_assert_ptr_nonnull(strstr(md, "Without timings: 1.3 (no timed case)."));
    free(md);
}
END_TEST

START_TEST(junit_stays_well_formed_with_hostile_strings)
{
    make_hostile();
    strcpy(feedback_fixture_spec(0)->tasks[2].title, "title \x02 <b>&");
    char *xml = write_text(cml_report_junit);
    ck_assert_msg(xml_valid(xml, strlen(xml)), "not well-formed:\n%s", xml);
    ck_assert_ptr_nonnull(strstr(xml, "name=\"1.3: title ? &lt;b&gt;&amp;\""));
    free(xml);
}
END_TEST

START_TEST(junit_has_a_suite_per_lab_and_a_case_per_task)
{
    char *xml = write_text(cml_report_junit);
    ck_assert_int_eq(count(xml, "<testsuite "), 2);
    ck_assert_int_eq(count(xml, "<testcase "), 4);
    ck_assert_ptr_nonnull(strstr(xml, "<testcase classname=\"01_coalescing\" "
                                      "name=\"1.1: Coalesced copy\">"));
    ck_assert_ptr_nonnull(strstr(xml, "name=\"01_coalescing\" tests=\"3\" failures=\"2\""));
    free(xml);
}
END_TEST

START_TEST(junit_fails_only_tasks_that_lost_points)
{
    char *xml = write_text(cml_report_junit);
    ck_assert_int_eq(count(xml, "<failure "), 2);
    ck_assert_ptr_nonnull(strstr(xml, "<failure type=\"slow\" message=\"slow, 7/10 points: "));
    ck_assert_ptr_nonnull(strstr(xml, "message=\"wrong, 0/6 points: case n=4096: 3 of 4096"));
    free(xml);
}
END_TEST

START_TEST(junit_skips_tasks_without_a_gpu)
{
    g->labs[1].tasks[0].status = CML_STATUS_NO_GPU, g->labs[1].tasks[0].score = 0;
    char *xml = write_text(cml_report_junit);
    ck_assert_int_eq(count(xml, "<skipped message=\"no-gpu: "), 1);
    ck_assert_int_eq(count(xml, "<failure "), 2);
    ck_assert_ptr_nonnull(strstr(xml, "failures=\"0\" errors=\"0\" skipped=\"1\""));
    free(xml);
}
END_TEST

START_TEST(write_reports_writes_the_new_files_too)
{
    const char *names[] = {"record.json", "summary.tsv", "feedback.md", "feedback.html",
                           "junit.xml"};
    char p[192];
    ck_assert_int_eq(cml_write_reports(dir, g), 0);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        ck_assert_msg(access(p, F_OK) == 0, "no %s", names[i]);
    }
}
END_TEST

START_TEST(reports_failure_to_write)
{
    ck_assert_int_eq(cml_report_html("/nonexistent/dir/feedback.html", g), -1);
    ck_assert_int_eq(cml_report_feedback_md("/nonexistent/dir/feedback.md", g), -1);
    ck_assert_int_eq(cml_report_junit("/nonexistent/dir/junit.xml", g), -1);
}
END_TEST

/* The feedback's suite. */
Suite *feedback_suite(void)
{
    Suite *s = suite_create("feedback");
    TCase *html = tcase_create("html"), *other = tcase_create("md-junit");
    tcase_add_checked_fixture(html, setup, teardown);
    tcase_add_checked_fixture(other, setup, teardown);
    tcase_add_test(html, xml_checker_rejects_broken_markup);
    tcase_add_test(html, xml_checker_accepts_other_shapes);
    tcase_add_test(html, html_stays_well_formed_with_hostile_strings);
    tcase_add_test(html, html_needs_nothing_from_the_network);
    tcase_add_test(html, chart_check_fails_without_timings);
    tcase_add_test(html, chart_per_lab_with_three_bar_colours);
    tcase_add_test(html, chart_reference_moves_the_same_bytes_in_its_own_time);
    tcase_add_test(html, chart_bound_of_a_host_task_is_the_link);
    tcase_add_test(html, untimed_task_is_named_in_text);
    tcase_add_test(html, hint_and_mismatch_only_for_tasks_not_passed);
    tcase_add_test(other, md_row_checker_rejects_an_extra_cell);
    tcase_add_test(other, md_keeps_one_row_per_task_with_hostile_strings);
    tcase_add_test(other, md_fences_a_build_log_longer_than_its_backticks);
    tcase_add_test(other, md_has_score_and_bandwidth_numbers);
    tcase_add_test(other, junit_stays_well_formed_with_hostile_strings);
    tcase_add_test(other, junit_has_a_suite_per_lab_and_a_case_per_task);
    tcase_add_test(other, junit_fails_only_tasks_that_lost_points);
    tcase_add_test(other, junit_skips_tasks_without_a_gpu);
    tcase_add_test(other, write_reports_writes_the_new_files_too);
    tcase_add_test(other, reports_failure_to_write);
    suite_add_tcase(s, html);
    suite_add_tcase(s, other);
    return s;
}
