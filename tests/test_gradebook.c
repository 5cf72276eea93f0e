/* The class gradebook (grader/src/class): CSV and Markdown from students' summary.tsv files,
 * including the broken ones (missing, truncated, malformed), a name that is a spreadsheet
 * formula, and a student whose grading never ran. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gradebook.h"
#include "suites.h"
#include "util.h"

static char dir[64], csv[128];
static cml_book_entry e[8];
static int n;

/* A student named name whose summary.tsv holds text (NULL: no file). */
static void student(const char *name, const char *text)
{
    cml_book_entry *s = &e[n++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->dir, sizeof s->dir, "%s/s%d", dir, n);
    ck_assert_int_eq(mkdir(s->dir, 0755), 0);
    char p[4200];
    snprintf(p, sizeof p, "%s/summary.tsv", s->dir);
    if (text)
        ck_assert_int_eq(cml_write_file(p, text, strlen(text)), 0);
}

static const char FULL[] = "01_coalescing\t1.1\tpassed\t10\t10\tok\n"
                           "02_transpose\t2.1\tpassed\t6\t6\t\n"
                           "02_transpose\t2.2\tpassed\t4\t4\t1.0x\n";
static const char PARTIAL[] = "02_transpose\t2.1\tpassed\t6\t6\t\n"
                              "02_transpose\t2.2\tslow\t2.5\t4\t1.9x the reference time\n"
                              "06_zerocopy\t6.1\tbuild-error\t0\t5\tcompile error\n"
                              "06_zerocopy\t6.2\tbuild-error\t0\t5\tcompile error\n";

static void setup(void)
{
    strcpy(dir, "/tmp/cml_book_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(csv, sizeof csv, "%s/gradebook.csv", dir);
    n = 0;
}

static void teardown(void)
{
    cml_rmtree(dir);
}

/* The gradebook CSV of the students so far (malloc'd). */
static char *book_csv(void)
{
    char err[256] = "";
    ck_assert_msg(cml_gradebook_write(csv, e, n, err, sizeof err) == 0, "%s", err);
    char *text = cml_read_text(csv, 1 << 20, NULL);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* RFC 4180 records of text: -1 when malformed (an unterminated quote, a quote inside an
 * unquoted field, a record not ended by CRLF) or when a record does not have `fields` fields;
 * else the number of records. */
static int csv_records(const char *text, int fields)
{
    int records = 0;
    for (const char *p = text; *p; records++) {
        int got = 0;
        for (int more = 1; more; got++) {
            if (*p == '"') {
                for (p++; *p && !(p[0] == '"' && p[1] != '"'); p += p[0] == '"' ? 2 : 1)
                    ;
                if (*p++ != '"')
                    return -1;
            } else {
                p += strcspn(p, ",\"\r\n");
                if (*p == '"')
                    return -1;
            }
            more = *p == ',';
            p += more;
        }
        if (got != fields || strncmp(p, "\r\n", 2) != 0)
            return -1;
        p += 2;
    }
    return records;
}

START_TEST(csv_checker_rejects_malformed_records)
{
    ck_assert_int_eq(csv_records("a,\"b\r\n", 2), -1);
    ck_assert_int_eq(csv_records("a,b\"c\r\n", 2), -1);
    ck_assert_int_eq(csv_records("a,b\r\nc\r\n", 2), -1);
    ck_assert_int_eq(csv_records("a,b\n", 2), -1);
    ck_assert_int_eq(csv_records("a,\"b,\"\"c\"\"\r\nd\"\r\n,\r\n", 2), 2);
}
END_TEST

START_TEST(header_is_the_union_of_labs_in_name_order)
{
    student("bob", PARTIAL);
    student("alice", FULL);
    char *text = book_csv();
    ck_assert_str_eq(strtok(text, "\n"), "student,01_coalescing,02_transpose,06_zerocopy,"
                                         "total,max,status,late\r");
    free(text);
}
END_TEST

START_TEST(every_record_has_every_column)
{
    student("alice", FULL);
    student("a, \"quoted\"\nname", PARTIAL);
    student("carol", NULL);
    char *text = book_csv();
    ck_assert_int_eq(csv_records(text, 3 + 5), 4); /* + late */
    free(text);
}
END_TEST

START_TEST(full_points_say_ok_and_missing_labs_stay_empty)
{
    student("alice", FULL);
    student("bob", PARTIAL);
    char *text = book_csv();
    ck_assert_ptr_nonnull(strstr(text, "\r\nalice,10,10,,20,20,ok,\r\n"));
    free(text);
}
END_TEST

START_TEST(lost_points_are_summarised_per_lab)
{
    student("bob", PARTIAL);
    char *text = book_csv();
    ck_assert_ptr_nonnull(strstr(text, "\r\nbob,8.5,0,8.5,20,02_transpose: 2.2 slow; "
                                       "06_zerocopy: build-error,\r\n"));
    free(text);
}
END_TEST

START_TEST(missing_summary_is_a_status_not_a_crash)
{
    student("carol", NULL);
    student("alice", FULL);
    char *text = book_csv();
    ck_assert_ptr_nonnull(strstr(text, "\r\ncarol,,,,,not graded: no summary.tsv in its "
                                       "output folder,\r\n"));
    free(text);
}
END_TEST

START_TEST(truncated_summary_is_said_so)
{
    student("dave", "01_coalescing\t1.1\tpassed\t10\t10\tok\n01_coalescing\t1.2\tpas");
    char *text = book_csv();
    ck_assert_ptr_nonnull(strstr(text, "\r\ndave,,,not graded: summary.tsv is truncated "
                                       "(its last line has no end),\r\n"));
    free(text);
}
END_TEST

START_TEST(malformed_line_names_its_number)
{
    student("dave", "01_coalescing\t1.1\tpassed\t10\t10\tok\n01_coalescing\t1.2\tx\tten\t4\t\n");
    student("erin", "");
    char *text = book_csv();
    ck_assert_ptr_nonnull(strstr(text, "dave,,,\"not graded: summary.tsv line 2 is not lab, task"));
    ck_assert_ptr_nonnull(strstr(text, "erin,,,not graded: summary.tsv is empty,\r\n"));
    free(text);
}
END_TEST

START_TEST(formula_names_get_a_leading_quote)
{
    student("=HYPERLINK(\"http://x\",\"y\")", FULL);
    student("-2+3", FULL);
    student("@SUM(A1)", FULL);
    student("+1", FULL);
    student("mallory=1", FULL); /* not at the start: harmless, unchanged */
    char *text = book_csv();
    ck_assert_ptr_nonnull(strstr(text, "\r\n\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",10,"));
    ck_assert_ptr_nonnull(strstr(text, "\r\n'-2+3,10,"));
    ck_assert_ptr_nonnull(strstr(text, "\r\n'@SUM(A1),10,"));
    ck_assert_ptr_nonnull(strstr(text, "\r\n'+1,10,"));
    ck_assert_ptr_nonnull(strstr(text, "\r\nmallory=1,10,"));
    free(text);
}
END_TEST

START_TEST(entry_status_empties_the_lab_columns)
{
    student("alice", FULL);
    student("frank", FULL); /* a summary from an earlier lab, but the grading was killed */
    strcpy(e[1].status, "not graded: the grading process was killed by SIGKILL");
    char *text = book_csv();
    ck_assert_ptr_nonnull(strstr(text, "\r\nfrank,,,,,not graded: the grading process was "
                                       "killed by SIGKILL,\r\n"));
    free(text);
}
END_TEST

START_TEST(no_students_is_a_header_alone)
{
    char *text = book_csv();
    ck_assert_str_eq(text, "student,total,max,status,late\r\n");
    free(text);
}
END_TEST

START_TEST(md_has_the_table_and_per_lab_statistics)
{
    char md[160], err[256] = "";
    student("alice", FULL);
    student("bob|tables", PARTIAL);
    student("carol", NULL);
    snprintf(md, sizeof md, "%s/gradebook.md", dir);
    ck_assert_msg(cml_gradebook_write_md(md, e, n, err, sizeof err) == 0, "%s", err);
    char *text = cml_read_text(md, 1 << 20, NULL);
    ck_assert_ptr_nonnull(strstr(text, "3 students, 2 graded."));
    ck_assert_ptr_nonnull(strstr(text, "| bob\\|tables |  | 8.5 | 0 | 8.5/20 | 02\\_transpose: "));
    ck_assert_ptr_nonnull(strstr(text, "| 02\\_transpose | 2 | 9.25 | 10 | 1 |"));
    ck_assert_ptr_nonnull(strstr(text, "| 06\\_zerocopy | 1 | 0 | 10 | 0 |"));
    free(text);
}
END_TEST

START_TEST(unwritable_path_is_an_error_with_a_message)
{
    char err[256] = "";
    student("alice", FULL);
    ck_assert_int_eq(cml_gradebook_write("/nonexistent/dir/g.csv", e, n, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/dir/g.csv"));
    ck_assert_int_eq(cml_gradebook_write(csv, e, -1, err, sizeof err), -1);
}
END_TEST

/* The gradebook's suite. */
Suite *gradebook_suite(void)
{
    Suite *s = suite_create("gradebook");
    TCase *tc = tcase_create("gradebook");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, csv_checker_rejects_malformed_records);
    tcase_add_test(tc, header_is_the_union_of_labs_in_name_order);
    tcase_add_test(tc, every_record_has_every_column);
    tcase_add_test(tc, full_points_say_ok_and_missing_labs_stay_empty);
    tcase_add_test(tc, lost_points_are_summarised_per_lab);
    tcase_add_test(tc, missing_summary_is_a_status_not_a_crash);
    tcase_add_test(tc, truncated_summary_is_said_so);
    tcase_add_test(tc, malformed_line_names_its_number);
    tcase_add_test(tc, formula_names_get_a_leading_quote);
    tcase_add_test(tc, entry_status_empties_the_lab_columns);
    tcase_add_test(tc, no_students_is_a_header_alone);
    tcase_add_test(tc, md_has_the_table_and_per_lab_statistics);
    tcase_add_test(tc, unwritable_path_is_an_error_with_a_message);
    suite_add_tcase(s, tc);
    return s;
}
