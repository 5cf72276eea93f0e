/* The result protocol parser: the records of docs/PROTOCOL.md, and whatever else a student's
 * process may write to the descriptor (garbage, huge lines, out-of-range indices). */
#include <stdlib.h>
#include <string.h>

#include "records.h"
#include "suites.h"

static cml_run_record rec;
static int bad;

static void parse(const char *text)
{
    ck_assert_int_eq(cml_records_parse(text, strlen(text), &rec, &bad), 0);
}

static const char EXAMPLE[] =
    "hello protocol=1 lab=01_coalescing\n"
    "device name=NVIDIA_H100_80GB_HBM3 cc=90 sms=132 l2=52428800 mem=84929347584 driver=13000 "
    "runtime=13000 clock_mhz=1980\n"
    "copybw gbps=3006.4 bytes=2147483648\n"
    "case k=0 task=1.1 status=ok elems=4097 elem_bytes=4 file=case0.bin\n"
    "case k=1 task=1.1 status=todo msg=write the coalesced copy kernel\n"
    "case k=2 task=2.1 status=error msg=CUDA error an illegal memory access was encountered "
    "(cudaErrorIllegalAddress) at harness.cu:88\n"
    "time k=2 task=1.1 ms=0.1801 host_ms=0.1830 reps=15 spread=0.004 bytes=536870912\n"
    "todo task=1.1 msg=write the coalesced copy kernel\n"
    "note task=1.3 msg=free text for the report\n"
    "done\n";

START_TEST(parses_the_documented_example)
{
    parse(EXAMPLE);
    ck_assert_int_eq(bad, 0);
    ck_assert(rec.hello && rec.done);
    ck_assert_int_eq(rec.cc, 90);
    ck_assert_int_eq(rec.sms, 132);
    ck_assert_uint_eq(rec.l2_bytes, 52428800);
    ck_assert_uint_eq(rec.mem_bytes, 84929347584ull);
    ck_assert_int_eq(rec.driver, 13000);
    ck_assert_int_eq(rec.clock_mhz, 1980);
    ck_assert_double_eq_tol(rec.copy_gbps, 3006.4, 1e-9);
    ck_assert_int_eq(rec.ncases, 3);
    ck_assert_int_eq(rec.cases[0].status, CML_CASE_OK);
    ck_assert_uint_eq(rec.cases[0].elems, 4097);
    ck_assert_int_eq(rec.cases[0].elem_bytes, 4);
    ck_assert_str_eq(rec.cases[0].file, "case0.bin");
    ck_assert_int_eq(rec.cases[1].status, CML_CASE_TODO);
    ck_assert_int_eq(rec.cases[2].status, CML_CASE_ERROR);
    ck_assert_str_eq(rec.todos[0], "1.1: write the coalesced copy kernel");
    ck_assert_str_eq(rec.notes[0], "1.3: free text for the report");
}
END_TEST

START_TEST(device_name_underscores_become_spaces)
{
    parse(EXAMPLE);
    ck_assert_str_eq(rec.device_name, "NVIDIA H100 80GB HBM3");
}
END_TEST

START_TEST(msg_runs_to_the_end_of_the_line)
{
    parse(EXAMPLE);
    ck_assert_str_eq(rec.cases[2].msg, "CUDA error an illegal memory access was encountered "
                                       "(cudaErrorIllegalAddress) at harness.cu:88");
}
END_TEST

START_TEST(places_case_records_by_k)
{
    parse("case k=3 task=1.1 status=ok elems=1 file=case3.bin\n");
    ck_assert_int_eq(rec.ncases, 4);
    ck_assert_int_eq(rec.cases[3].status, CML_CASE_OK);
    ck_assert_int_eq(rec.cases[0].status, CML_CASE_MISSING);
}
END_TEST

START_TEST(time_record_attaches_to_its_case)
{
    parse(EXAMPLE);
    ck_assert_int_eq(rec.cases[2].has_time, 1);
    ck_assert_double_eq_tol(rec.cases[2].ms, 0.1801, 1e-12);
    ck_assert_double_eq_tol(rec.cases[2].host_ms, 0.1830, 1e-12);
    ck_assert_int_eq(rec.cases[2].reps, 15);
    ck_assert_uint_eq(rec.cases[2].bytes, 536870912);
    ck_assert_int_eq(rec.cases[0].has_time, 0);
}
END_TEST

START_TEST(later_case_record_replaces_earlier_and_keeps_time)
{
    parse("case k=0 task=1.1 status=error msg=forged\ntime k=0 ms=2\n"
          "case k=0 task=1.1 status=ok elems=8 file=case0.bin\n");
    ck_assert_int_eq(rec.cases[0].status, CML_CASE_OK);
    ck_assert_str_eq(rec.cases[0].msg, "");
    ck_assert_int_eq(rec.cases[0].has_time, 1);
}
END_TEST

START_TEST(skips_and_counts_malformed_lines)
{
    parse("hello protocol=1\ngarbage\ncase k=x task=1.1 status=ok\ncase task=1.1 status=ok\n"
          "case k=0 task=1.1 status=maybe\ntime k=0 ms=fast\ndevice name=X cc=9O\n"
          "copybw gbps=-1\ncase k=0 status=ok\ndone\n");
    ck_assert_int_eq(bad, 8);
    ck_assert_int_eq(rec.ncases, 0);
    ck_assert_str_eq(rec.device_name, "");
    ck_assert(rec.hello && rec.done);
}
END_TEST

START_TEST(skips_k_out_of_range)
{
    char text[200]; /* one past the last case a run may be asked (CML_MAX_RUN_CASES) */
    snprintf(text, sizeof text, "case k=%d task=1.1 status=ok\ncase k=-1 task=1.1 status=ok\n"
             "time k=99999999999999999999999 ms=1\n", CML_MAX_RUN_CASES);
    parse(text);
    ck_assert_int_eq(bad, 3);
    ck_assert_int_eq(rec.ncases, 0);
}
END_TEST

START_TEST(skips_and_counts_unknown_record_types)
{
    parse("hello\nbonus points=100\n\ndone\n");
    ck_assert_int_eq(bad, 1);
}
END_TEST

START_TEST(survives_a_huge_line)
{
    size_t n = 4u << 20;
    char *text = malloc(n + 64);
    memcpy(text, "note task=1.1 msg=", 18);
    memset(text + 18, 'x', n);
    strcpy(text + 18 + n, "\ndone\n");
    parse(text);
    ck_assert_int_eq(bad, 1);
    ck_assert_int_eq(rec.done, 1);
    free(text);
}
END_TEST

START_TEST(truncates_a_long_msg_safely)
{
    char text[2100] = "case k=0 task=1.1 status=error msg=";
    memset(text + strlen(text), 'y', 2000);
    parse(text);
    ck_assert_uint_eq(strlen(rec.cases[0].msg), sizeof rec.cases[0].msg - 1);
}
END_TEST

START_TEST(truncation_keeps_utf8_characters_whole)
{
    char text[2100] = "case k=0 task=1.1 status=error msg=yy";
    for (int i = 0; i < 400; i++)
        strcat(text, "\xc3\xa9"); /* é */
    parse(text);
    size_t len = strlen(rec.cases[0].msg);
    ck_assert_uint_eq(len, 510); /* "yy" + 254 whole characters: the 255th would not fit */
    ck_assert_int_eq((unsigned char)rec.cases[0].msg[len - 1], 0xa9);
}
END_TEST

START_TEST(replaces_control_characters_in_strings)
{
    parse("case k=0 task=1.1 status=error msg=red \x1b[31m text\a\n");
    ck_assert_str_eq(rec.cases[0].msg, "red ?[31m text?");
}
END_TEST

START_TEST(accepts_crlf_and_a_missing_final_newline)
{
    parse("hello protocol=1\r\ncase k=0 task=1.1 status=todo msg=later\r\ndone");
    ck_assert_int_eq(bad, 0);
    ck_assert_str_eq(rec.cases[0].msg, "later");
    ck_assert_int_eq(rec.done, 1);
}
END_TEST

START_TEST(survives_nul_bytes_in_the_text)
{
    const char text[] = "hello\nnote msg=a\0b\ndone\n";
    ck_assert_int_eq(cml_records_parse(text, sizeof text - 1, &rec, &bad), 0);
    ck_assert_str_eq(rec.notes[0], "a?b");
    ck_assert_int_eq(rec.done, 1);
}
END_TEST

START_TEST(rejects_output_file_outside_the_out_dir)
{
    parse("case k=0 task=1.1 status=ok elems=1 file=../../etc/passwd\n"
          "case k=1 task=1.1 status=ok elems=1 file=..\n");
    ck_assert_int_eq(bad, 2);
    ck_assert_int_eq(rec.cases[0].status, CML_CASE_MISSING);
}
END_TEST

START_TEST(records_nodevice_with_its_reason)
{
    parse("hello protocol=1\nnodevice msg=cudaErrorNoDevice: no CUDA-capable device is detected\n");
    ck_assert_int_eq(rec.nodevice, 1);
    ck_assert_str_eq(rec.nodevice_msg, "cudaErrorNoDevice: no CUDA-capable device is detected");
}
END_TEST

START_TEST(drops_todos_beyond_capacity_and_counts_them)
{
    char text[8192] = "";
    for (int i = 0; i < CML_MAX_TASKS + 3; i++)
        strcat(text, "todo task=1.1 msg=x\n");
    parse(text);
    ck_assert_int_eq(rec.ntodos, CML_MAX_TASKS);
    ck_assert_int_eq(bad, 3);
}
END_TEST

START_TEST(accepts_null_text_as_empty)
{
    ck_assert_int_eq(cml_records_parse(NULL, 0, &rec, NULL), 0);
    ck_assert_int_eq(rec.hello, 0);
    ck_assert_int_eq(cml_records_parse("done\n", 5, NULL, NULL), -1);
}
END_TEST

/* The protocol parser's suite. */
Suite *records_suite(void)
{
    Suite *s = suite_create("records");
    TCase *ok = tcase_create("protocol"), *bad_input = tcase_create("hostile input");
    tcase_add_test(ok, parses_the_documented_example);
    tcase_add_test(ok, device_name_underscores_become_spaces);
    tcase_add_test(ok, msg_runs_to_the_end_of_the_line);
    tcase_add_test(ok, places_case_records_by_k);
    tcase_add_test(ok, time_record_attaches_to_its_case);
    tcase_add_test(ok, later_case_record_replaces_earlier_and_keeps_time);
    tcase_add_test(ok, records_nodevice_with_its_reason);
    tcase_add_test(ok, accepts_crlf_and_a_missing_final_newline);
    tcase_add_test(ok, accepts_null_text_as_empty);
    tcase_add_test(bad_input, skips_and_counts_malformed_lines);
    tcase_add_test(bad_input, skips_k_out_of_range);
    tcase_add_test(bad_input, skips_and_counts_unknown_record_types);
    tcase_add_test(bad_input, survives_a_huge_line);
    tcase_add_test(bad_input, truncates_a_long_msg_safely);
    tcase_add_test(bad_input, truncation_keeps_utf8_characters_whole);
    tcase_add_test(bad_input, replaces_control_characters_in_strings);
    tcase_add_test(bad_input, survives_nul_bytes_in_the_text);
    tcase_add_test(bad_input, rejects_output_file_outside_the_out_dir);
    tcase_add_test(bad_input, drops_todos_beyond_capacity_and_counts_them);
    suite_add_tcase(s, ok);
    suite_add_tcase(s, bad_input);
    return s;
}
